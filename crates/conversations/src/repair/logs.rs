//! A chat whose log ends in a torn line (a crash mid-write) has the torn
//! end set aside into `log.jsonl.torn`, the way opening the chat does.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::{Item, State};
use crate::log::{ChatLog, Durability, LogError, LOG_FILE};

/// Whether the log ends in something that isn't a whole event line.
/// Appends are whole lines, so damage from a crash is only ever at the end.
fn torn(path: &Path) -> bool {
    let Ok(mut file) = File::open(path) else {
        return false;
    };
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return false;
    };
    if len == 0 {
        return false;
    }
    let from = len.saturating_sub(256 * 1024);
    let mut tail = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err() || file.read_to_end(&mut tail).is_err() {
        return false;
    }
    if tail.last() != Some(&b'\n') {
        return true;
    }
    let body = &tail[..tail.len() - 1];
    let last = match body.iter().rposition(|&b| b == b'\n') {
        Some(i) => &body[i + 1..],
        // One line longer than the tail read: take it as whole.
        None if from > 0 => return false,
        None => body,
    };
    protocol::Event::from_line(last).is_err()
}

pub fn torn_tails(home: &Path, repair: bool) -> Vec<Item> {
    let mut items = Vec::new();
    let Ok(entries) = std::fs::read_dir(home.join("chats")) else {
        return items;
    };
    let mut chats: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    chats.sort();
    for dir in chats {
        let chat = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !torn(&dir.join(LOG_FILE)) {
            continue;
        }
        if !repair {
            items.push(Item::new(
                "torn-logs",
                State::Found,
                format!("Chat {chat}: the end of its log was cut off, probably by a crash. Repair sets it aside."),
            ));
            continue;
        }
        match ChatLog::open(&dir, Durability::EachEvent) {
            Ok((_, report)) => {
                if let Some((bytes, path)) = report.torn {
                    items.push(Item::new(
                        "torn-logs",
                        State::Fixed,
                        format!(
                            "Chat {chat}: the end of its log was cut off ({bytes} bytes), probably by a crash; it was set aside in {} and the chat opens without it.",
                            path.strip_prefix(home).unwrap_or(&path).display()
                        ),
                    ));
                }
            }
            // Conch has the chat open: it set any torn end aside when it
            // opened it, and what is at the end now is being written.
            Err(LogError::Busy(_)) => {}
            Err(e) => items.push(Item::new(
                "torn-logs",
                State::NeedsYou,
                format!("Chat {chat}: {e}"),
            )),
        }
    }
    items
}
