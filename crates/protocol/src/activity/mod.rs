//! Activity (ADR 0028 §4): what the assistant did, folded from a chat's
//! log one event at a time. Looking around (reading, listing, searching
//! files) is left out: doing is what counts.
//!
//! The fold is per chat and pure: it turns each event into a new row, or
//! into a change to a row it made before (a command's result, a question's
//! answer). Readers that keep an index (the gateway) and readers that scan
//! once (`conch activity`) fold the same way.

use std::collections::HashMap;

use serde::Serialize;

use crate::body::{Answer, Body, MarkSource};
use crate::event::Event;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ActivityKind {
    Command,
    File,
    Page,
    App,
    /// Things made beside the chat: made, updated, refreshed (ADR 0034 §5).
    Made,
    Question,
    Read,
    Skill,
    Memory,
    /// Someone trying passwords or setup links (not a chat's: the home's
    /// `security.jsonl`).
    Security,
    /// A routine started a run (its chat is the run).
    Routine,
}

impl ActivityKind {
    pub const ALL: [ActivityKind; 11] = [
        ActivityKind::Command,
        ActivityKind::File,
        ActivityKind::Page,
        ActivityKind::App,
        ActivityKind::Made,
        ActivityKind::Question,
        ActivityKind::Read,
        ActivityKind::Skill,
        ActivityKind::Memory,
        ActivityKind::Security,
        ActivityKind::Routine,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ActivityKind::Command => "command",
            ActivityKind::File => "file",
            ActivityKind::Page => "page",
            ActivityKind::App => "app",
            ActivityKind::Made => "made",
            ActivityKind::Question => "question",
            ActivityKind::Read => "read",
            ActivityKind::Skill => "skill",
            ActivityKind::Memory => "memory",
            ActivityKind::Security => "security",
            ActivityKind::Routine => "routine",
        }
    }

    pub fn parse(name: &str) -> Option<ActivityKind> {
        ActivityKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Every kind's name, for a sentence: "command, file, … or memory".
    pub fn names_in_words() -> String {
        let names: Vec<&str> = ActivityKind::ALL.iter().map(|k| k.name()).collect();
        match names.split_last() {
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

/// One row, as it was made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActivityRow {
    pub seq: u64,
    /// The event's id: what the chat view scrolls to.
    pub event: String,
    pub at: String,
    pub kind: ActivityKind,
    /// What happened, in a line.
    pub says: String,
    /// How it came out: `ran`, `failed`, `waiting`, `allowed once`, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// A question's id, while it can still be answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ask: Option<String>,
}

/// What one event does to the rows.
#[derive(Debug, Clone, PartialEq)]
pub enum ActivityChange {
    New(ActivityRow),
    /// The row made at `seq` now has this state; `ask` None once answered.
    State {
        seq: u64,
        state: String,
        ask: Option<String>,
    },
}

/// Folds one chat's events into activity.
#[derive(Debug, Default)]
pub struct ActivityFold {
    /// A tool call's id → the seq of its row (ids can repeat: the latest).
    calls: HashMap<String, u64>,
    /// A question's id → the seq of its row.
    asks: HashMap<String, u64>,
}

fn short(text: &str, max: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        return line;
    }
    let mut s: String = line.chars().take(max - 1).collect();
    s.push('…');
    s
}

/// A chat app's name as people write it: "telegram" → "Telegram".
fn app_name(app: &str) -> String {
    let mut chars = app.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn input_str<'a>(input: &'a serde_json::Value, key: &str) -> &'a str {
    input.get(key).and_then(|v| v.as_str()).unwrap_or("")
}

impl ActivityFold {
    pub fn apply(&mut self, event: &Event) -> Vec<ActivityChange> {
        let row = |kind, says: String, state: Option<&str>| {
            ActivityChange::New(ActivityRow {
                seq: event.seq,
                event: event.id.clone(),
                at: event.at.clone(),
                kind,
                says,
                state: state.map(str::to_owned),
                ask: None,
            })
        };
        match &event.body {
            Body::Message(m) if m.from == crate::body::Speaker::Routine => vec![row(
                ActivityKind::Routine,
                format!(
                    "Routine {}ran: \"{}\"",
                    m.name
                        .as_deref()
                        .map(|n| format!("\"{}\" ", short(n, 60)))
                        .unwrap_or_default(),
                    short(&m.text, 160)
                ),
                None,
            )],
            Body::ToolCalled(c) => {
                let i = &c.input;
                let made = match c.tool.as_str() {
                    "run_command" => Some((
                        ActivityKind::Command,
                        format!("Ran `{}`", short(input_str(i, "command"), 200)),
                    )),
                    "write_file" | "edit_file" => Some((
                        ActivityKind::File,
                        format!("Changed {}", short(input_str(i, "path"), 200)),
                    )),
                    "web_fetch" => Some((
                        ActivityKind::Page,
                        format!("Read {}", short(input_str(i, "url"), 200)),
                    )),
                    "web_search" => Some((
                        ActivityKind::Page,
                        format!(
                            "Searched the web for \"{}\"",
                            short(input_str(i, "query"), 120)
                        ),
                    )),
                    "delegate" => Some((
                        ActivityKind::App,
                        format!("Handed a helper \"{}\"", short(input_str(i, "task"), 120)),
                    )),
                    "routine_create" => Some((
                        ActivityKind::Made,
                        format!(
                            "Made a routine: \"{}\", {}",
                            short(input_str(i, "task"), 120),
                            short(input_str(i, "schedule"), 60)
                        ),
                    )),
                    // Looking around isn't doing; skills and artifacts have
                    // their own events.
                    "read_file" | "list_files" | "search_files" | "use_skill"
                    | "artifact_create" | "artifact_update" => None,
                    tool if tool.contains('.') => Some((ActivityKind::App, format!("Used {tool}"))),
                    _ => None,
                };
                let Some((kind, says)) = made else {
                    return Vec::new();
                };
                self.calls.insert(c.call.clone(), event.seq);
                vec![row(kind, says, Some("running"))]
            }
            Body::ToolFinished(f) => match self.calls.remove(&f.call) {
                Some(seq) => {
                    let mut state = if f.ok {
                        match f
                            .detail
                            .as_ref()
                            .and_then(|d| d.get("exit_code").or_else(|| d.get("exitCode")))
                            .and_then(|c| c.as_i64())
                        {
                            Some(code) => format!("exit code {code}"),
                            None => "done".to_owned(),
                        }
                    } else if f.output.starts_with("The owner said no") {
                        "not run: you said no".to_owned()
                    } else {
                        format!("didn't work: {}", short(&f.output, 120))
                    };
                    // The hosts a sealed command reached, as the box saw them.
                    let reached: Vec<&str> = f
                        .detail
                        .as_ref()
                        .and_then(|d| d.get("reached_hosts"))
                        .and_then(|h| h.as_array())
                        .into_iter()
                        .flatten()
                        .filter_map(|h| h.as_str())
                        .collect();
                    if !reached.is_empty() {
                        state.push_str(&format!(" · reached {}", short(&reached.join(", "), 200)));
                    }
                    vec![ActivityChange::State {
                        seq,
                        state,
                        ask: None,
                    }]
                }
                None => Vec::new(),
            },
            Body::PermissionRequested(p) => {
                self.asks.insert(p.ask.clone(), event.seq);
                vec![ActivityChange::New(ActivityRow {
                    seq: event.seq,
                    event: event.id.clone(),
                    at: event.at.clone(),
                    kind: ActivityKind::Question,
                    says: format!("Asked: {}", short(&p.question, 200)),
                    state: Some("waiting".to_owned()),
                    ask: Some(p.ask.clone()),
                })]
            }
            Body::PermissionAnswered(a) => match self.asks.remove(&a.ask) {
                Some(seq) => {
                    let said = match a.answer {
                        Answer::Once => "allowed once",
                        Answer::Always => "allowed for the rest of the chat",
                        Answer::Deny => "said no",
                    };
                    let state = match a.by.as_str() {
                        "owner" => format!("you {said}"),
                        by if by.starts_with("owner:") => {
                            format!("you {said} in {}", app_name(&by["owner:".len()..]))
                        }
                        "mode" => format!("{said} by the mode you picked"),
                        by => format!("{said} by {by}"),
                    };
                    vec![ActivityChange::State {
                        seq,
                        state,
                        ask: None,
                    }]
                }
                None => Vec::new(),
            },
            Body::PermissionEnded(e) => match self.asks.remove(&e.ask) {
                Some(seq) => vec![ActivityChange::State {
                    seq,
                    state: if e.reason == "stopped" {
                        "stopped before it was answered".to_owned()
                    } else {
                        "ended when Conch restarted".to_owned()
                    },
                    ask: None,
                }],
                None => Vec::new(),
            },
            Body::Taint(t) => {
                let what = match t.source {
                    MarkSource::Page => format!("Read a page from {}", t.what),
                    MarkSource::Search => format!("Read search results ({})", t.what),
                    MarkSource::Download => format!("Downloaded from {}", t.what),
                    MarkSource::Integration => format!("Read what {} returned", t.what),
                    MarkSource::Person => format!("Read words from {}", t.what),
                    MarkSource::Carried => format!("Took in what {} read", t.what),
                };
                vec![row(ActivityKind::Read, what, None)]
            }
            Body::SkillUsed(u) => vec![row(
                ActivityKind::Skill,
                format!("Held to {}'s list", u.skill),
                None,
            )],
            Body::SkillHoldEnded(h) => vec![row(
                ActivityKind::Skill,
                format!("You stopped holding this chat to {}'s list", h.skill),
                None,
            )],
            Body::Artifact(a) => vec![row(ActivityKind::Made, a.says(), None)],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
