//! Routines from the chats' side: `routine_create` (the owner asks in a
//! chat for something to run on a schedule; making one always asks, see
//! the guard's `runs-later.routine`), and each run of a routine as its own
//! chat, origin `routine`, nobody there.

use std::sync::Arc;

use protocol::{Action, ToolSpec};
use routines::store::NewRoutine;
use routines::Schedule;
use serde_json::json;
use tools::Outcome;

use crate::state::Core;

pub const TOOL: &str = "routine_create";

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: TOOL.to_owned(),
        description: "Make a routine: a task that runs by itself on a schedule, each time as a new chat with nobody there (its questions wait for the owner). The owner is always asked first. The schedule is cron (\"0 8 * * 1-5\") or words like \"every weekday at 8:00\", \"every monday at 9:30\", \"every 15 minutes\", \"every month on the 1st at 9:00\", in the owner's time zone.".to_owned(),
        schema: json!({
            "type": "object",
            "properties": {
                "schedule": { "type": "string", "description": "When it runs." },
                "task": { "type": "string", "description": "What its chat is asked each time, in full." },
                "name": { "type": "string", "description": "A short name (optional)." }
            },
            "required": ["schedule", "task"]
        }),
    }
}

fn text<'a>(input: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(|v| v.as_str())
}

/// The action a `routine_create` call would take: its schedule must read
/// (the model is told how to write one when it doesn't).
pub fn classify(input: &serde_json::Value) -> Result<Action, String> {
    let (Some(schedule), Some(task)) = (text(input, "schedule"), text(input, "task")) else {
        return Err("The input for routine_create isn't right. It takes {\"schedule\": \"every weekday at 8:00\", \"task\": \"…\", \"name\"?: \"…\"}.".to_owned());
    };
    if task.trim().is_empty() || task.chars().count() > routines::store::MAX_TASK_CHARS {
        return Err(
            "A routine's task is 1 to 10,000 characters: what its chat is asked each time."
                .to_owned(),
        );
    }
    let schedule = Schedule::parse(schedule).map_err(|e| e.0)?;
    Ok(Action::Routine {
        schedule: schedule.text,
        task: task.trim().to_owned(),
    })
}

/// Makes the routine the owner allowed. The scheduler (watching the
/// routines file) sees it at once.
pub async fn run(chat: &Arc<Core>, input: &serde_json::Value) -> Outcome {
    let Ok(Action::Routine { schedule, task }) = classify(input) else {
        return Outcome::failed("The routine couldn't be read again.");
    };
    let Some(chats) = chat.shared.chats.upgrade() else {
        return Outcome::failed("Conch is stopping.");
    };
    let store = routines::Store::new(chats.home().root());
    let (carries, asked_by) = chat.log.with_view(crate::carried::in_words);
    let new = NewRoutine {
        schedule,
        task,
        name: text(input, "name").map(str::to_owned),
        mode: None,
        work: Some(chat.work.to_string_lossy().into_owned()),
        made_in: Some(format!("chat:{}", chat.id)),
        carries,
        asked_by,
    };
    let made = tokio::task::spawn_blocking(move || store.add(new, routines::now())).await;
    match made {
        Ok(Ok(r)) => Outcome {
            ok: true,
            output: format!(
                "Made the routine \"{}\": {} it starts a chat that is asked \"{}\". The owner can see, run or remove it under Routines (conch routines list).",
                r.name,
                r.schedule,
                r.task.chars().take(200).collect::<String>()
            ),
            detail: Some(json!({ "routine": r.id, "name": r.name }).into()),
        },
        Ok(Err(e)) => Outcome::failed(e.to_string()),
        Err(_) => Outcome::failed("The routine couldn't be saved."),
    }
}
