//! Helpers: `delegate` hands a task to a helper chat (its own log, origin
//! `task`, linked to its parent) that starts held to every skill its chat is
//! held to and as marked as it is. When it ends, what the helper used and
//! read itself comes back to the parent with its result; what it was handed
//! doesn't, so a hold the owner stopped in the parent while the helper ran
//! stays stopped. A helper can't start helpers of its own.

use std::sync::Arc;

use protocol::{Body, MarkSource, Mode, Origin, SkillBy, SkillUsed, Speaker, ToolSpec};
use serde_json::json;
use tools::{Cancel, Outcome};

use crate::state::Core;
use crate::state::NewChat;

pub const TOOL: &str = "delegate";

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: TOOL.to_owned(),
        description: "Hand a task to a helper: it works in its own chat, under the same limits as this one, and answers with its result.".to_owned(),
        schema: json!({
            "type": "object",
            "properties": { "task": { "type": "string", "description": "What the helper should do, in full." } },
            "required": ["task"]
        }),
    }
}

pub fn task_of(input: &serde_json::Value) -> Result<String, String> {
    match input.get("task").and_then(|t| t.as_str()) {
        Some(t) if !t.trim().is_empty() => Ok(t.to_owned()),
        _ => Err("The input for delegate isn't right. It takes {\"task\": \"…\"}.".to_owned()),
    }
}

fn carried(parent: &Core, hold: &protocol::Hold) -> SkillUsed {
    // The words the parent was given, so the helper is steered the same way.
    let instructions = parent
        .log
        .events_after(0)
        .unwrap_or_default()
        .into_iter()
        .rev()
        .find_map(|e| match e.body {
            Body::SkillUsed(u) if u.skill == hold.skill => Some(u.instructions),
            _ => None,
        })
        .unwrap_or_default();
    SkillUsed {
        skill: hold.skill.clone(),
        source: hold.source.clone(),
        fingerprint: String::new(),
        permissions: hold.permissions.clone(),
        by: SkillBy::Carried,
        from: Some(parent.id.clone()),
        instructions,
        says: Some(format!(
            "Held to the {} skill, like the chat it came from",
            hold.skill
        )),
    }
}

pub(crate) async fn run(parent: &Arc<Core>, task: &str, cancel: &Cancel) -> Outcome {
    if parent.parent.is_some() {
        return Outcome::failed("A helper can't hand work to helpers of its own. Do it here.");
    }
    let Some(chats) = parent.shared.chats.upgrade() else {
        return Outcome::failed("Helpers aren't available right now.");
    };
    let view = parent.log.view();
    let helper = match chats
        .create(NewChat {
            work: Some(parent.work.to_string_lossy().into_owned()),
            mode: Some(view.mode.unwrap_or(Mode::Ask)),
            origin: Some(Origin::Task),
            parent: Some(parent.id.clone()),
            artifact: None,
        })
        .await
    {
        Ok(h) => h,
        Err(e) => return Outcome::failed(format!("The helper couldn't start: {e}")),
    };
    // Handed down: every hold, and the marks.
    for hold in &view.holds {
        if helper
            .log
            .append(Body::SkillUsed(carried(parent, hold)))
            .await
            .is_err()
        {
            return Outcome::failed("The helper couldn't start: its log can't be written.");
        }
    }
    if view.is_marked()
        && helper
            .mark(
                MarkSource::Carried,
                "the chat it came from".to_owned(),
                None,
            )
            .await
            .is_err()
    {
        return Outcome::failed("The helper couldn't start: its log can't be written.");
    }
    let start = helper.log.last_seq();
    if let Err(e) = chats
        .post(helper.id.clone(), Speaker::Task, task.to_owned())
        .await
    {
        return Outcome::failed(format!("The helper couldn't start: {e}"));
    }
    // Until its turn ends (or this one is stopped).
    let mut follow = helper.log.follow();
    loop {
        let ended = helper
            .log
            .events_after(start)
            .unwrap_or_default()
            .iter()
            .any(|e| matches!(e.body, Body::TurnEnded(_)));
        if ended {
            break;
        }
        tokio::select! {
            _ = follow.recv() => {}
            () = cancel.cancelled() => {
                helper.stop();
            }
        }
    }
    let events = helper.log.events_after(start).unwrap_or_default();
    let result = events
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            Body::Reply(r) => Some(r.text.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "The helper ended without an answer.".to_owned());
    // What comes back: what the helper used and read itself.
    let mut brought = Vec::new();
    let mut marks = Vec::new();
    for e in &events {
        match &e.body {
            Body::SkillUsed(u) if u.by != SkillBy::Carried => {
                let back = SkillUsed {
                    by: SkillBy::Carried,
                    from: Some(helper.id.clone()),
                    says: Some(format!(
                        "A helper used the {} skill, so this chat is held to it too",
                        u.skill
                    )),
                    ..u.clone()
                };
                if parent.log.append(Body::SkillUsed(back)).await.is_ok() {
                    brought.push(u.skill.clone());
                }
            }
            Body::Taint(t) if t.source != MarkSource::Carried => {
                let what = format!("a helper ({})", t.what);
                if parent
                    .mark(MarkSource::Carried, what.clone(), None)
                    .await
                    .is_ok()
                {
                    marks.push(what);
                }
            }
            _ => {}
        }
    }
    Outcome::ok(
        result,
        Some(json!({ "helper": helper.id, "add_holds": brought, "marks": marks })),
    )
}
