//! Whether one classified call may run: the guard decides; in Auto mode a
//! question the mode asks goes to the fast path or the reviewer first; the
//! rest is asked of the owner. Whatever approved it, the approval is bound
//! to what runs: if the call, its programs or its script changed in
//! between, it is asked again.

use std::sync::Arc;

use approval::{Approval, Input, Step};
use protocol::{Action, Answer, Body, PermissionRequested};
use serde_json::json;
use tools::binding::Binding;
use tools::{Cancel, Outcome, ToolCall};

use crate::broker::Wake;
use crate::log::LogError;
use crate::state::Core;

pub(crate) enum Permission {
    Run,
    Refused(Outcome),
    Stopped,
}

/// One call on its way through the approval path, with what the driver
/// holds between steps.
struct Driving<'a> {
    chat: &'a Arc<Core>,
    turn: u64,
    call: &'a ToolCall,
    action: &'a Action,
    cancel: &'a Cancel,
    /// What was approved, as it was when approved.
    approved: Option<Binding>,
    /// The question put to the owner, and its wake-ups.
    asked: Option<(String, tokio::sync::mpsc::UnboundedReceiver<Wake>)>,
}

/// Drives the approval path for a call of any kind; `classify` reads a
/// call's arguments the way its kind does (the reviewer reads them again).
pub(crate) async fn drive(
    chat: &Arc<Core>,
    turn: u64,
    call: &ToolCall,
    action: &Action,
    cancel: &Cancel,
    classify: &(dyn Fn(&ToolCall) -> Result<Action, String> + Sync),
) -> Result<Permission, LogError> {
    let (mut machine, mut step) = chat.with_look(call, action, Approval::start);
    let mut d = Driving {
        chat,
        turn,
        call,
        action,
        cancel,
        approved: None,
        asked: None,
    };
    loop {
        step = match step {
            Step::Run => return Ok(Permission::Run),
            Step::Stop => {
                d.settle("stopped").await?;
                return Ok(Permission::Stopped);
            }
            Step::Refuse { why, sentence } => {
                // A question still waiting (the tool turned off meanwhile)
                // ends with the call.
                d.settle("refused").await?;
                let ids: Vec<&str> = why.iter().map(|r| r.id()).collect();
                return Ok(Permission::Refused(Outcome {
                    ok: false,
                    output: sentence,
                    detail: (!ids.is_empty()).then(|| json!({ "denied": ids }).into()),
                }));
            }
            Step::Record { judged, then } => {
                crate::auto_review::record(chat, turn, &call.id, judged).await?;
                *then
            }
            Step::Look => machine.on(Input::Looked(d.look())),
            Step::Ask { decision, extra } => {
                let (ask, wakes, binding) = d.ask_owner(decision, extra).await?;
                d.approved = Some(binding);
                d.asked = Some((ask, wakes));
                machine.on(d.wait().await?)
            }
            Step::Wait => machine.on(d.wait().await?),
            Step::ModeAnswers => machine.on(Input::Answered(d.mode_answers().await?)),
            Step::Bind => {
                let now = bind(chat, action, &call.input).await;
                let changed = match &d.approved {
                    Some(before) => before.changed(&now),
                    None => Some("Nothing was approved to run.".to_owned()),
                };
                machine.on(Input::Bound(changed))
            }
            Step::Count => machine.on(crate::auto_review::budget(chat, turn)?),
            Step::Pin => {
                let pinned = bind(chat, action, &call.input).await;
                let why = pinned.unidentified.clone();
                d.approved = Some(pinned);
                machine.on(Input::Pinned(why))
            }
            Step::ReadPage => machine.on(Input::Page(crate::auto_review::page(chat).await)),
            Step::Review { page } => machine.on(crate::auto_review::ask(
                chat,
                call,
                action,
                page.as_deref(),
                cancel,
                classify,
            )
            .await?),
        };
    }
}

impl Driving<'_> {
    fn look(&self) -> approval::Decided {
        self.chat.with_look(self.call, self.action, approval::look)
    }

    /// Waits for the owner's answer, a new mode, or Stop.
    async fn wait(&mut self) -> Result<Input, LogError> {
        let Some((_, wakes)) = self.asked.as_mut() else {
            return Ok(Input::Answered(None));
        };
        let wake = tokio::select! {
            w = wakes.recv() => w,
            () = self.cancel.cancelled() => None,
        };
        Ok(match wake {
            Some(Wake::Answer(a)) => Input::Answered(Some(a)),
            Some(Wake::ModeChanged) => Input::Looked(self.look()),
            None => Input::Answered(None),
        })
    }

    /// Ends the question put to the owner, if it still waits.
    async fn settle(&self, reason: &str) -> Result<(), LogError> {
        match &self.asked {
            Some((ask, _)) => self.chat.end_question(ask, reason).await,
            None => Ok(()),
        }
    }

    /// The new mode answers the question, once, unless the owner's answer
    /// came first: the answer the log holds.
    async fn mode_answers(&mut self) -> Result<Option<Answer>, LogError> {
        let Some((ask, _)) = &self.asked else {
            return Ok(None);
        };
        if self.chat.answer_by_mode(ask).await? {
            return Ok(Some(Answer::Once));
        }
        self.wait().await.map(|input| match input {
            Input::Answered(a) => a,
            _ => None,
        })
    }
}

/// The binding of `action` now, taken off the async threads (it reads
/// files).
pub(crate) async fn bind(chat: &Core, action: &Action, input: &serde_json::Value) -> Binding {
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

impl Driving<'_> {
    /// Puts the question to the owner: its ask id, its wake-ups, and the
    /// binding taken when asking, which is what the owner approves.
    async fn ask_owner(
        &self,
        decision: guard::Decision,
        extra: Option<(guard::Rule, String)>,
    ) -> Result<(String, tokio::sync::mpsc::UnboundedReceiver<Wake>, Binding), LogError> {
        let (chat, turn, call, action) = (self.chat, self.turn, self.call, self.action);
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
            Some((rule, line)) => {
                ids.push(rule.id().to_owned());
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
        let wakes = chat.live.waiters.register(&ask);
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
        Ok((ask, wakes, binding))
    }
}

fn words_question(action: &Action) -> String {
    format!("Can I {}?", action.describe())
}
/// Where each part of the request came from, from the chat's log.
fn trace(
    chat: &Core,
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
