//! Whether one classified call may run: the guard decides; in Auto mode a
//! question the mode asks goes to the fast path or the reviewer first; the
//! rest is asked of the owner. Whatever approved it, the approval is bound
//! to what runs: if the call, its programs or its script changed in
//! between, it is asked again.

use std::sync::Arc;

use protocol::{Action, Answer, Body, Mode, PermissionRequested};
use review::Triage;
use serde_json::json;
use tools::binding::Binding;
use tools::{Cancel, Outcome, ToolCall};

use crate::approval::{Approval, Input, Step};
use crate::chat::Chat;
use crate::log::LogError;

pub(crate) enum Permission {
    Run,
    Refused(Outcome),
    Stopped,
}

/// Drives the approval path ([`crate::approval`]) for one host call: the
/// state machine chooses each step, this does it.
pub(crate) async fn permission(
    chat: &Arc<Chat>,
    turn: u64,
    call: &ToolCall,
    action: &Action,
    cancel: &Cancel,
) -> Result<Permission, LogError> {
    let classify = |c: &ToolCall| crate::turn::classify(chat, c);
    drive(chat, turn, call, action, cancel, &classify).await
}

/// Drives the approval path for a call of any kind; `classify` reads a
/// call's arguments the way its kind does (the reviewer reads them again).
pub(crate) async fn drive(
    chat: &Arc<Chat>,
    turn: u64,
    call: &ToolCall,
    action: &Action,
    cancel: &Cancel,
    classify: &(dyn Fn(&ToolCall) -> Result<Action, String> + Sync),
) -> Result<Permission, LogError> {
    let (mode, decision, triage) = decide_and_triage(chat, call, action);
    let (mut approval, mut step) = Approval::start(mode, decision, triage);
    // What was approved, as it was when approved.
    let mut approved: Option<Binding> = None;
    loop {
        step = match step {
            Step::Run => return Ok(Permission::Run),
            Step::Stop => return Ok(Permission::Stopped),
            Step::Refuse { ids, sentence } => {
                return Ok(Permission::Refused(Outcome {
                    ok: false,
                    output: sentence,
                    detail: (!ids.is_empty()).then(|| json!({ "denied": ids })),
                }))
            }
            Step::Review => {
                let reviewed =
                    crate::auto_review::review(chat, turn, call, action, cancel, classify).await?;
                let (input, binding) = reviewed;
                if binding.is_some() {
                    approved = binding;
                }
                approval.on(Input::Reviewed(input))
            }
            Step::Decide => {
                let (mode, decision, triage) = decide_and_triage(chat, call, action);
                approval.on(Input::Decided {
                    mode,
                    decision,
                    triage,
                })
            }
            Step::Ask { decision, extra } => {
                let (answer, binding) =
                    ask_owner(chat, turn, call, action, decision, extra, cancel).await?;
                approved = Some(binding);
                approval.on(Input::Answered(answer))
            }
            Step::Bind => {
                let now = bind(chat, action, &call.input).await;
                let changed = match &approved {
                    Some(before) => before.changed(&now),
                    None => Some("Nothing was approved to run.".to_owned()),
                };
                approval.on(Input::Bound(changed))
            }
        };
    }
}

/// The guard's decision, and where Auto mode sends it, read from the same
/// look at the chat.
pub(crate) fn decide_and_triage(
    chat: &Chat,
    call: &ToolCall,
    action: &Action,
) -> (Mode, guard::Decision, Triage) {
    let work = chat.work.to_string_lossy();
    let contacts = chat.shared.switches.contacts();
    chat.log.with_view(|view| {
        let mode = view.mode.unwrap_or(Mode::Ask);
        let settings = chat.guard_settings(mode);
        let decision = guard::decide(
            guard::Call {
                tool: &call.name,
                action,
            },
            view,
            &settings,
        );
        let facts = review::Facts {
            protected: &settings.protected,
            work: &work,
            marked: view.is_marked(),
            seen: &view.seen,
            input: &call.input,
            contacts: &contacts,
        };
        let triage = review::triage(action, &decision, &facts);
        (mode, decision, triage)
    })
}

/// The binding of `action` now, taken off the async threads (it reads
/// files).
pub(crate) async fn bind(chat: &Chat, action: &Action, input: &serde_json::Value) -> Binding {
    let (a, i, w) = (action.clone(), input.clone(), chat.work.clone());
    match tokio::task::spawn_blocking(move || tools::binding::bind(&a, &i, &w)).await {
        Ok(b) => b,
        Err(_) => Binding {
            action: action.clone(),
            input: input.clone(),
            work: chat.work.clone(),
            programs: Vec::new(),
            files: Vec::new(),
            unidentified: Some("couldn't be looked at.".to_owned()),
        },
    }
}

/// Puts the question to the owner and waits for the answer: the answer
/// (None when Stop ended the question), and the binding taken when asking,
/// which is what the owner approves.
async fn ask_owner(
    chat: &Arc<Chat>,
    turn: u64,
    call: &ToolCall,
    action: &Action,
    decision: guard::Decision,
    extra: Option<(String, String)>,
    cancel: &Cancel,
) -> Result<(Option<Answer>, Binding), LogError> {
    let (why, question, note, always, narrow, told) = match decision {
        guard::Decision::Ask {
            why,
            question,
            note,
            always,
            narrow,
            told,
        } => (why, question, note, always, narrow, told),
        // Only an Ask is put to the owner; anything else is asked as a
        // plain question, which is the careful side.
        _ => (Vec::new(), words_question(action), None, None, None, None),
    };
    let mut ids: Vec<String> = why.iter().map(|r| r.id().to_owned()).collect();
    let note = match extra {
        Some((id, line)) => {
            ids.push(id);
            Some(match note {
                Some(n) => format!("{line} {n}"),
                None => line,
            })
        }
        None => note,
    };
    let provenance = trace(chat, call, action)?;
    let binding = bind(chat, action, &call.input).await;
    // What can't be pinned down exactly is approved this once, as it is now.
    let (always, narrow, note) = match &binding.unidentified {
        Some(why) => {
            let line = format!("It {why} So a yes is for this once, as it is now.");
            (
                None,
                None,
                Some(note.map_or(line.clone(), |n| format!("{n} {line}"))),
            )
        }
        None => (always, narrow, note),
    };
    let ask = crate::ids::random_id(12);
    let answer = chat.live.waiters.register(&ask);
    chat.log
        .append(Body::PermissionRequested(PermissionRequested {
            turn,
            ask: ask.clone(),
            call: call.id.clone(),
            tool: call.name.clone(),
            action: action.clone(),
            after_reading: ids.iter().any(|r| r.starts_with("after-reading.")),
            why: ids,
            question,
            note,
            always,
            provenance,
            told,
            narrow,
        }))
        .await?;
    let answer = tokio::select! {
        a = answer => a.ok(),
        () = cancel.cancelled() => None,
    };
    if answer.is_none() {
        chat.end_question(&ask, "stopped").await?;
    }
    Ok((answer, binding))
}

fn words_question(action: &Action) -> String {
    format!("Can I {}?", action.describe())
}
/// Where each part of the request came from, from the chat's log.
fn trace(
    chat: &Chat,
    call: &ToolCall,
    action: &Action,
) -> Result<Vec<protocol::Provenance>, LogError> {
    let events = chat.log.events_after(0)?;
    let mut owner: Vec<&str> = Vec::new();
    // What each marking call returned, and each person's words.
    let mut outputs: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    let mut reads: Vec<guard::Read<'_>> = Vec::new();
    for event in &events {
        match &event.body {
            Body::Message(m) if m.from == protocol::Speaker::Owner => owner.push(&m.text),
            Body::Message(m) if m.from == protocol::Speaker::Person => reads.push(guard::Read {
                call: None,
                what: m.name.as_deref().unwrap_or("someone"),
                text: &m.text,
            }),
            Body::ToolFinished(f) => {
                outputs.insert(&f.call, &f.output);
            }
            Body::Taint(t) => {
                if let Some(text) = t.call.as_deref().and_then(|c| outputs.get(c)) {
                    reads.push(guard::Read {
                        call: t.call.as_deref(),
                        what: &t.what,
                        text,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(guard::provenance(
        &call.name,
        &call.input,
        action,
        &owner,
        &reads,
    ))
}
