//! `conch undo CHAT [--turn N | --undo SEQ]`: puts back the files a chat's
//! turn changed (the last one that changed any, by default), or undoes an
//! earlier undo. Through the running Conch when there is one (it holds the
//! chat's log); else on the chat's folder directly.

use clap::Args;
use conversations::undo::{undo, Target};
use conversations::{ChatLog, Durability, Home};
use protocol::FilesRestored;
use serde_json::{json, Value};

use crate::chat::{key_for, Client};
use crate::Failure;

#[derive(Args)]
pub struct UndoArgs {
    /// The chat's id (the page's address ends with it).
    chat: String,
    /// The turn to undo: its number as the page shows it in the chat's
    /// address (`?at=`), the seq of its `turn.started`.
    #[arg(long, conflicts_with = "undo")]
    turn: Option<u64>,
    /// Undo an earlier undo instead (its event's seq).
    #[arg(long)]
    undo: Option<u64>,
}

pub fn run(home: &Home, args: UndoArgs) -> Result<(), Failure> {
    if !conversations::ids::is_valid_id(&args.chat) {
        return Err(Failure(format!(
            "There's no chat with the id \"{}\".",
            args.chat
        )));
    }
    let said = match crate::served::running(home) {
        Some(url) => through(home, &args, url)?,
        None => here(home, &args)?,
    };
    println!("{said}");
    Ok(())
}

fn target(args: &UndoArgs) -> Target {
    match (args.turn, args.undo) {
        (_, Some(seq)) => Target::Undo(seq),
        (Some(turn), None) => Target::Turn(turn),
        (None, None) => Target::Last,
    }
}

fn here(home: &Home, args: &UndoArgs) -> Result<String, Failure> {
    let dir = home.chat_dir(&args.chat);
    if !dir.join(conversations::log::LOG_FILE).is_file() {
        return Err(Failure(format!(
            "There's no chat with the id \"{}\".",
            args.chat
        )));
    }
    let (log, _) = ChatLog::open(&dir, Durability::EachEvent)?;
    let done = undo(&log, target(args), "terminal")?;
    Ok(words(&json_of(&done)))
}

fn through(home: &Home, args: &UndoArgs, url: String) -> Result<String, Failure> {
    let (key, _own) = key_for(home, "conch undo")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure(format!("Conch couldn't start its runtime: {e}.")))?;
    let client = Client {
        http: reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap_or_default(),
        url,
        key,
    };
    let body = match target(args) {
        Target::Undo(seq) => json!({ "undo": seq }),
        Target::Turn(turn) => json!({ "turn": turn }),
        Target::Last => json!({}),
    };
    let path = format!("/api/chats/{}/undo", args.chat);
    let done = runtime.block_on(client.call(reqwest::Method::POST, &path, Some(body)))?;
    Ok(words(&done))
}

fn json_of(done: &FilesRestored) -> Value {
    json!({
        "restored": done.restored.iter().map(|r| json!({ "path": r.path, "removed": r.after.is_none() })).collect::<Vec<_>>(),
        "left": done.left.iter().map(|l| json!({ "path": l.path, "why": l.why })).collect::<Vec<_>>(),
    })
}

/// What the undo did, a line a file.
fn words(done: &Value) -> String {
    let mut lines = Vec::new();
    let restored = done["restored"].as_array().cloned().unwrap_or_default();
    let left = done["left"].as_array().cloned().unwrap_or_default();
    for r in &restored {
        let path = r["path"].as_str().unwrap_or("");
        if r["removed"].as_bool() == Some(true) {
            lines.push(format!("Removed {path} (the turn made it)."));
        } else {
            lines.push(format!("Put back {path}."));
        }
    }
    for l in &left {
        lines.push(format!(
            "Left {} as it is: {}",
            l["path"].as_str().unwrap_or(""),
            l["why"].as_str().unwrap_or("")
        ));
    }
    if restored.is_empty() && left.is_empty() {
        lines.push("Nothing to put back.".to_owned());
    }
    lines.join("\n")
}
