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

use crate::auto_review::Reviewed;
use crate::chat::Chat;
use crate::log::LogError;

pub(crate) enum Permission {
    Run,
    Refused(Outcome),
    Stopped,
}

/// Asks at most this many times when what was approved keeps changing.
const MAX_REBINDS: usize = 3;

pub(crate) async fn permission(
    chat: &Arc<Chat>,
    turn: u64,
    call: &ToolCall,
    action: &Action,
    cancel: &Cancel,
) -> Result<Permission, LogError> {
    let mut asked = decide_and_ask(chat, turn, call, action, cancel).await?;
    for _ in 0..MAX_REBINDS {
        let Approved::Bound(binding) = asked else {
            return Ok(asked.into_permission());
        };
        let now = bind(chat, action, &call.input).await;
        let Some(line) = binding.changed(&now) else {
            return Ok(Permission::Run);
        };
        // Approved for something else: decided again, as it is now. What the
        // guard alone lets run needs no approval; what it refuses is refused.
        let decision = match decide(chat, call, action).1 {
            guard::Decision::Allow => return Ok(Permission::Run),
            guard::Decision::Deny { why, sentence } => {
                return Ok(denied(&why, sentence).into_permission())
            }
            ask => ask,
        };
        asked = ask_owner(
            chat,
            turn,
            call,
            action,
            decision,
            Some(("bind.changed", line)),
            cancel,
        )
        .await?;
    }
    Ok(Permission::Refused(Outcome::failed(
        "What this would run kept changing after it was approved, so it didn't run.",
    )))
}

enum Approved {
    /// Runs without an approval to bind (the guard or the fast path).
    Free,
    /// Approved for this binding.
    Bound(Binding),
    Refused(Outcome),
    Stopped,
}

impl Approved {
    fn into_permission(self) -> Permission {
        match self {
            Approved::Free | Approved::Bound(_) => Permission::Run,
            Approved::Refused(o) => Permission::Refused(o),
            Approved::Stopped => Permission::Stopped,
        }
    }
}

/// The guard's decision on the chat as it is now (mode and policies read
/// afresh), and the mode it was made in.
fn decide(chat: &Chat, call: &ToolCall, action: &Action) -> (Mode, guard::Decision) {
    let (mode, decision, _) = decide_and_triage(chat, call, action);
    (mode, decision)
}

/// The guard's decision, and where Auto mode sends it, read from the same
/// look at the chat.
fn decide_and_triage(
    chat: &Chat,
    call: &ToolCall,
    action: &Action,
) -> (Mode, guard::Decision, Triage) {
    let work = chat.work.to_string_lossy();
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
        };
        let triage = review::triage(action, &decision, &facts);
        (mode, decision, triage)
    })
}

fn denied(why: &[guard::Rule], sentence: String) -> Approved {
    let ids: Vec<&str> = why.iter().map(|r| r.id()).collect();
    Approved::Refused(Outcome {
        ok: false,
        output: sentence,
        detail: Some(json!({ "denied": ids })),
    })
}

async fn decide_and_ask(
    chat: &Arc<Chat>,
    turn: u64,
    call: &ToolCall,
    action: &Action,
    cancel: &Cancel,
) -> Result<Approved, LogError> {
    let (mode, decision, triage) = decide_and_triage(chat, call, action);
    let mut extra: Option<(&'static str, String)> = None;
    let mut decision = decision;
    if mode == Mode::Auto {
        match triage {
            Triage::Guard | Triage::Owner(None) => {}
            Triage::FastPath => return Ok(Approved::Free),
            Triage::Owner(Some(hard)) => extra = Some((hard.id(), hard.sentence().to_owned())),
            Triage::Review => {
                let reviewed = crate::auto_review::review(chat, turn, call, action, cancel, |c| {
                    crate::turn::classify(chat, c)
                })
                .await?;
                let line = match reviewed {
                    Reviewed::Stopped => return Ok(Approved::Stopped),
                    Reviewed::Refused(o) => return Ok(Approved::Refused(o)),
                    Reviewed::Owner(line) => line,
                    Reviewed::Allowed(binding) => {
                        // The tool's policy and the mode are read again: a
                        // tool turned off or a mode changed while the
                        // reviewer looked counts.
                        let (mode, now, triage) = decide_and_triage(chat, call, action);
                        match (&now, triage) {
                            (guard::Decision::Allow, _) => return Ok(Approved::Free),
                            (guard::Decision::Deny { why, sentence }, _) => {
                                return Ok(denied(why, sentence.clone()))
                            }
                            (_, Triage::Review | Triage::FastPath) if mode == Mode::Auto => {
                                return Ok(Approved::Bound(binding))
                            }
                            _ => {
                                "Something changed while Auto mode's reviewer looked, so you're asked."
                                    .to_owned()
                            }
                        }
                    }
                };
                extra = Some(("review.ask", line));
                // Settings may have changed while the reviewer looked.
                let (_, now) = decide(chat, call, action);
                decision = now;
            }
        }
    }
    match decision {
        guard::Decision::Allow => Ok(Approved::Free),
        guard::Decision::Deny { why, sentence } => Ok(denied(&why, sentence)),
        ask => ask_owner(chat, turn, call, action, ask, extra, cancel).await,
    }
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

/// Puts the question to the owner and waits for the answer.
async fn ask_owner(
    chat: &Arc<Chat>,
    turn: u64,
    call: &ToolCall,
    action: &Action,
    decision: guard::Decision,
    extra: Option<(&'static str, String)>,
    cancel: &Cancel,
) -> Result<Approved, LogError> {
    let guard::Decision::Ask {
        why,
        question,
        note,
        always,
        told,
    } = decision
    else {
        return Ok(Approved::Free);
    };
    let mut ids: Vec<String> = why.iter().map(|r| r.id().to_owned()).collect();
    let note = match extra {
        Some((id, line)) => {
            ids.push(id.to_owned());
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
    let (always, note) = match &binding.unidentified {
        Some(why) => {
            let line = format!("It {why} So a yes is for this once, as it is now.");
            (
                None,
                Some(note.map_or(line.clone(), |n| format!("{n} {line}"))),
            )
        }
        None => (always, note),
    };
    let ask = crate::ids::random_id(12);
    let answer = chat.waiters.register(&ask);
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
        }))
        .await?;
    let answer = tokio::select! {
        a = answer => a.ok(),
        () = cancel.cancelled() => None,
    };
    match answer {
        Some(Answer::Once | Answer::Always) => Ok(Approved::Bound(binding)),
        Some(Answer::Deny) => Ok(Approved::Refused(Outcome::failed(
            "The owner said no to this. Don't try it another way; ask them what they'd like instead.",
        ))),
        None => {
            chat.end_question(&ask, "stopped").await?;
            Ok(Approved::Stopped)
        }
    }
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
