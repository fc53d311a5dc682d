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
    /// A held memory's id, while it waits for the owner ("Keep this
    /// memory?").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
}

/// What one event does to the rows.
#[derive(Debug, Clone, PartialEq)]
pub enum ActivityChange {
    New(ActivityRow),
    /// The row made at `seq` now has this state; `ask` None once answered
    /// (and a memory row's `memory` None once the owner decided); `says`,
    /// when the headline changes with it ("Didn't run `ls`").
    State {
        seq: u64,
        state: String,
        ask: Option<String>,
        says: Option<String>,
    },
}

/// Folds one chat's events into activity.
#[derive(Debug, Default)]
pub struct ActivityFold {
    /// A tool call's id → the seq of its row (ids can repeat: the latest).
    calls: HashMap<String, Called>,
    /// A question's id → the seq of its row, its call, and what its
    /// "always" choices cover in words (wider, narrower).
    asks: HashMap<String, Asked>,
    /// A held memory's id → the seq of its row.
    held: HashMap<String, u64>,
    /// Calls the owner said no to: their `tool.finished` says so.
    refused: std::collections::HashSet<String>,
}

/// A call's row, and its headline in each of its outcomes.
#[derive(Debug)]
struct Called {
    seq: u64,
    /// Ran, Didn't run, Wants to run.
    verbs: [&'static str; 3],
    object: String,
    /// It waited for the owner: its headline said so.
    asked: bool,
}

impl Called {
    fn says(&self, which: usize) -> String {
        format!("{} {}", self.verbs[which], self.object)
    }
}

#[derive(Debug)]
struct Asked {
    seq: u64,
    call: String,
    wide: Option<String>,
    narrow: Option<String>,
}

/// A call's row: its kind, its verbs (done, not done, waiting) and what it
/// acts on; None for a call that isn't doing (looking around, skills and
/// artifacts have their own events).
fn call_row(
    tool: &str,
    i: &serde_json::Value,
) -> Option<(ActivityKind, [&'static str; 3], String)> {
    Some(match tool {
        "run_command" => (
            ActivityKind::Command,
            ["Ran", "Didn't run", "Wants to run"],
            format!("`{}`", short(input_str(i, "command"), 200)),
        ),
        "write_file" | "edit_file" => (
            ActivityKind::File,
            ["Changed", "Didn't change", "Wants to change"],
            short(input_str(i, "path"), 200),
        ),
        "web_fetch" => (
            ActivityKind::Page,
            ["Read", "Didn't read", "Wants to read"],
            short(input_str(i, "url"), 200),
        ),
        "web_search" => (
            ActivityKind::Page,
            [
                "Searched the web for",
                "Didn't search the web for",
                "Wants to search the web for",
            ],
            format!("\"{}\"", short(input_str(i, "query"), 120)),
        ),
        "delegate" => (
            ActivityKind::App,
            [
                "Handed a helper",
                "Didn't hand a helper",
                "Wants to hand a helper",
            ],
            format!("\"{}\"", short(input_str(i, "task"), 120)),
        ),
        "routine_create" => (
            ActivityKind::Made,
            [
                "Made a routine:",
                "Didn't make a routine:",
                "Wants to make a routine:",
            ],
            format!(
                "\"{}\", {}",
                short(input_str(i, "task"), 120),
                short(input_str(i, "schedule"), 60)
            ),
        ),
        "read_file" | "list_files" | "search_files" | "use_skill" | "artifact_create"
        | "artifact_update" => return None,
        tool if tool.contains('.') => (
            ActivityKind::App,
            ["Used", "Didn't use", "Wants to use"],
            tool.to_owned(),
        ),
        // An app's tool as engines call it: `mcp__server__tool`.
        tool if tool.starts_with("mcp__") => {
            let (server, t) = tool.strip_prefix("mcp__")?.split_once("__")?;
            (
                ActivityKind::App,
                ["Used", "Didn't use", "Wants to use"],
                format!("{server}.{t}"),
            )
        }
        _ => return None,
    })
}

/// What an "always" key covers, in words: `run_command` is "any command",
/// `box:run_command` "any command outside the box".
pub fn always_words(keys: &[String]) -> String {
    let wide: Vec<(&str, &str)> = keys
        .iter()
        .map(|key| key.split_once('@').map_or(key.as_str(), |(wide, _)| wide))
        .map(|key| key.split_once(':').unwrap_or(("", key)))
        .collect();
    let mut out: Vec<String> = Vec::new();
    for (scope, tool) in &wide {
        // "Any command" already covers "any command outside the box".
        if *scope == "box" && wide.iter().any(|(s, t)| t == tool && *s != "box") {
            continue;
        }
        let what = match *tool {
            "run_command" => "any command".to_owned(),
            "write_file" | "edit_file" => "any file change".to_owned(),
            "web_fetch" => "any address it puts together".to_owned(),
            tool => format!("{tool}, any way it's used"),
        };
        let said = if *scope == "box" {
            format!("{what} outside the box")
        } else {
            what
        };
        if !out.contains(&said) {
            out.push(said);
        }
    }
    out.join(", ")
}

/// How a finished call came out, in words that follow what happened: a
/// command that ran and exited 1 "ran, exit code 1"; one the owner refused
/// "not run: you said no". Never the words written for the model.
pub fn outcome_words(
    ok: bool,
    output: &str,
    detail: Option<&crate::ToolDetail>,
    said_no: bool,
) -> String {
    let field = |k: &str| detail.and_then(|d| d.get(k));
    let flag = |k: &str| detail.is_some_and(|d| d.flag(k));
    if said_no {
        return "not run: you said no".to_owned();
    }
    if let Some(first) = detail.and_then(|d| d.get("denied").map(|_| d.denied())) {
        return format!(
            "not run: {}",
            refused_because(first.first().copied().unwrap_or(""))
        );
    }
    if flag("stopped") {
        return "stopped while it ran".to_owned();
    }
    if flag("timed_out") {
        return "ran, stopped when it took too long".to_owned();
    }
    if let Some(code) = detail.and_then(crate::ToolDetail::exit_code) {
        return format!("ran, exit code {code}");
    }
    if let Some(signal) = field("signal").and_then(|c| c.as_i64()) {
        return format!("ran, ended by signal {signal}");
    }
    if ok {
        "done".to_owned()
    } else if output.starts_with("The owner said no") {
        // Logs from before the question's answer was followed here.
        "not run: you said no".to_owned()
    } else {
        format!("didn't work: {}", short(output, 120))
    }
}

/// Why Conch refused a call, from its first rule id, for the owner.
pub fn refused_because(rule: &str) -> &'static str {
    match rule.split('.').next().unwrap_or("") {
        "protected" => "Conch's own folder and your keys are off limits",
        "policy" if rule == "policy.read-only" => "you set this tool to read-only",
        "policy" => "you turned this tool off",
        "review" => "Auto mode's reviewer turned it down",
        "bind" => "it changed after it was approved",
        "hold" => "it's outside the skill's list",
        _ => "Conch refused it",
    }
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
                memory: None,
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
                let Some((kind, verbs, object)) = call_row(&c.tool, &c.input) else {
                    return Vec::new();
                };
                let called = Called {
                    seq: event.seq,
                    verbs,
                    object,
                    asked: false,
                };
                let says = called.says(0);
                self.calls.insert(c.call.clone(), called);
                vec![row(kind, says, Some("running"))]
            }
            Body::ToolFinished(f) => match self.calls.remove(&f.call) {
                Some(called) => {
                    let seq = called.seq;
                    let said_no = self.refused.remove(&f.call);
                    let mut state = outcome_words(f.ok, &f.output, f.detail.as_ref(), said_no);
                    // The headline follows what happened, not the call.
                    let says = if state.starts_with("not run") {
                        Some(called.says(1))
                    } else {
                        called.asked.then(|| called.says(0))
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
                        says,
                    }]
                }
                None => Vec::new(),
            },
            Body::PermissionRequested(p) => {
                // The call's own row waits too, and says so.
                let waiting = self.calls.get_mut(&p.call).map(|called| {
                    called.asked = true;
                    ActivityChange::State {
                        seq: called.seq,
                        state: "waiting for you".to_owned(),
                        ask: None,
                        says: Some(called.says(2)),
                    }
                });
                self.asks.insert(
                    p.ask.clone(),
                    Asked {
                        seq: event.seq,
                        call: p.call.clone(),
                        wide: p.always.as_deref().map(always_words),
                        narrow: p
                            .narrow
                            .as_ref()
                            .and_then(|keys| keys.first())
                            .and_then(|k| k.split_once('@'))
                            .map(|(_, sig)| format!("`{sig} …`")),
                    },
                );
                let asked = ActivityChange::New(ActivityRow {
                    seq: event.seq,
                    event: event.id.clone(),
                    at: event.at.clone(),
                    kind: ActivityKind::Question,
                    says: format!("Asked: {}", short(&p.question, 200)),
                    state: Some("needs you".to_owned()),
                    ask: Some(p.ask.clone()),
                    memory: None,
                });
                waiting.into_iter().chain([asked]).collect()
            }
            Body::PermissionAnswered(a) => match self.asks.remove(&a.ask) {
                Some(asked) => {
                    let seq = asked.seq;
                    if a.answer == Answer::Deny {
                        self.refused.insert(asked.call.clone());
                    }
                    let covers = if a.narrow {
                        asked.narrow.clone()
                    } else {
                        asked.wide.clone()
                    };
                    let said = match (a.answer, covers) {
                        (Answer::Once, _) | (Answer::Always, None) => "allowed once".to_owned(),
                        (Answer::Always, Some(what)) => {
                            format!("allowed {what} for the rest of the chat")
                        }
                        (Answer::Deny, _) => "said no".to_owned(),
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
                        says: None,
                    }]
                }
                None => Vec::new(),
            },
            Body::PermissionEnded(e) => match self.asks.remove(&e.ask) {
                Some(Asked { seq, .. }) => vec![ActivityChange::State {
                    seq,
                    state: if e.reason == "stopped" {
                        "stopped before it was answered".to_owned()
                    } else {
                        "ended when Conch restarted".to_owned()
                    },
                    ask: None,
                    says: None,
                }],
                None => Vec::new(),
            },
            Body::Taint(t) => {
                let what = match t.source {
                    MarkSource::Page => format!("Read a page from {}", t.what),
                    MarkSource::Search => format!("Read search results ({})", t.what),
                    MarkSource::Download => format!("Downloaded from {}", t.what),
                    MarkSource::Integration => format!("Read {}", t.what),
                    MarkSource::Person => format!("Read words from {}", t.what),
                    MarkSource::Carried if t.what.starts_with("a memory") => {
                        format!("Used {}", t.what)
                    }
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
            Body::GrantRevoked(g) => {
                let who = if g.by == "owner" {
                    "You".to_owned()
                } else {
                    g.by.clone()
                };
                let said = crate::chat_meta::grant_words(&g.key);
                vec![row(
                    ActivityKind::Question,
                    format!("{who} took back an always: {}", said.trim_end_matches('.')),
                    None,
                )]
            }
            Body::Memory(m) => {
                use crate::memory::MemoryAction::*;
                let mut changes = Vec::new();
                if matches!(m.action, Kept | Forgot) {
                    if let Some(seq) = self.held.remove(&m.memory) {
                        let whose = if m.by == "owner" {
                            "you ".to_owned()
                        } else {
                            String::new()
                        };
                        let did = if m.action == Kept {
                            "kept it"
                        } else {
                            "forgot it"
                        };
                        let by = match m.by.as_str() {
                            "owner" | "assistant" => String::new(),
                            other => format!(" ({other})"),
                        };
                        changes.push(ActivityChange::State {
                            seq,
                            state: format!("{whose}{did}{by}"),
                            ask: None,
                            says: None,
                        });
                    }
                }
                match m.action {
                    Held => {
                        self.held.insert(m.memory.clone(), event.seq);
                        changes.push(ActivityChange::New(ActivityRow {
                            seq: event.seq,
                            event: event.id.clone(),
                            at: event.at.clone(),
                            kind: ActivityKind::Memory,
                            says: m.says(),
                            state: Some("waiting".to_owned()),
                            ask: None,
                            memory: Some(m.memory.clone()),
                        }));
                    }
                    _ => changes.push(row(ActivityKind::Memory, m.says(), None)),
                }
                changes
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
