//! Repair everything (ADR 0028 §3, ADR 0047 §2): every check's fix, run
//! in one go by `conch doctor --repair` and the button in Settings →
//! Security, or looked at without fixing by `conch doctor`.
//!
//! Each check says in words what it found and what it did. A check with
//! nothing to do says nothing, except the skill-signing key, which says
//! "Locked with this computer's own key" when all is well (and nothing when
//! you have never signed). Some things are never done here: sealing's one
//! typed line is shown, never run (it needs an administrator), and Safety
//! is turned back on only where the caller says a person may (the terminal,
//! or a recent password in the browser).

mod artifacts;
mod files;
mod keys;
mod logs;

pub use keys::{provider_keys, signing_key};

use std::path::Path;

use serde::Serialize;

use crate::settings::{Safety, Settings};

/// Look only, or fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Look,
    Repair,
}

/// What may be done besides looking.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub mode: Mode,
    /// Safety may be turned back on (the terminal; a recent password).
    pub safety: bool,
}

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// Found something and fixed it.
    Fixed,
    /// Found something that repair would fix (a look).
    Found,
    /// Found something only a person can do.
    NeedsYou,
    /// A line for a person to type (shown, never run).
    Type,
    /// All is well, and this check says so.
    Fine,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// `permissions`, `provider-keys`, `signing-key`, `artifacts`,
    /// `torn-logs`, `safety`, `sealing`, `stale-lock`, `leftovers`,
    /// `orphaned-sessions`.
    pub id: &'static str,
    pub state: State,
    pub says: String,
    /// The line to type, for `type`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
}

impl Item {
    fn new(id: &'static str, state: State, says: impl Into<String>) -> Item {
        Item {
            id,
            state,
            says: says.into(),
            line: None,
        }
    }
}

/// What a repair (or a look) found, and Safety as it is after it.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub items: Vec<Item>,
    #[serde(skip)]
    pub safety: Safety,
}

impl Report {
    /// Anything left for a repair to do (or, after one, that it couldn't).
    pub fn anything(&self) -> bool {
        self.items.iter().any(|i| i.state != State::Fine)
    }
}

/// Runs every check on `home` (with its settings as they are now).
pub fn run(home: &Path, settings: &Settings, options: Options) -> Report {
    let vault = settings.vault(home);
    let repair = options.mode == Mode::Repair;
    let mut items = Vec::new();
    items.extend(files::permissions(home, repair));
    items.extend(keys::provider_keys(&vault, repair));
    items.extend(keys::signing_key(&vault, repair));
    items.extend(artifacts::heal(home, repair));
    items.extend(logs::torn_tails(home, repair));
    let (safety, said) = safety(&settings.safety, options);
    items.extend(said);
    items.extend(sealing(&safety));
    items.extend(files::stale_lock(home, repair));
    items.extend(files::leftovers(home, repair));
    items.extend(files::orphaned_sessions(home, repair));
    Report { items, safety }
}

/// The preference names, with how each is said.
const PREFERENCES: &[(&str, &str)] = &[
    ("checkAfterReading", "Check before acting on what it read"),
    ("sealedCommands", "Seal commands"),
    ("checkMemories", "Check what it remembers"),
];

fn get(safety: &Safety, name: &str) -> bool {
    match name {
        "checkAfterReading" => safety.check_after_reading,
        "sealedCommands" => safety.sealed_commands,
        _ => safety.check_memories,
    }
}

fn set_on(safety: &mut Safety, name: &str) {
    match name {
        "checkAfterReading" => safety.check_after_reading = true,
        "sealedCommands" => safety.sealed_commands = true,
        _ => safety.check_memories = true,
    }
}

/// Safety switches that are off: turned back on, when allowed.
fn safety(now: &Safety, options: Options) -> (Safety, Vec<Item>) {
    let mut next = now.clone();
    let mut items = Vec::new();
    for (name, words) in PREFERENCES {
        if get(now, name) {
            continue;
        }
        items.push(match options.mode {
            Mode::Look => Item::new(
                "safety",
                State::Found,
                format!("{words} is off. Repair turns it back on."),
            ),
            Mode::Repair if options.safety => {
                set_on(&mut next, name);
                Item::new(
                    "safety",
                    State::Fixed,
                    format!("{words} was off; it is on again."),
                )
            }
            Mode::Repair => Item::new(
                "safety",
                State::NeedsYou,
                format!("{words} is off. Turning it back on here needs your password again: enter it, then press Repair everything (or use its switch)."),
            ),
        });
    }
    (next, items)
}

/// Sealing that isn't available here: the one typed line, shown.
fn sealing(safety: &Safety) -> Option<Item> {
    if !safety.sealed_commands {
        return None;
    }
    let support = seal::sandbox_support();
    let seal::Support::Unavailable { problem } = &support else {
        return None;
    };
    Some(match seal::fix_line(&support) {
        Some(line) => Item {
            id: "sealing",
            state: State::Type,
            says: format!(
                "{} Commands run with your full access and ask first until it's fixed. Type this line yourself (it needs an administrator, so Conch never runs it):",
                problem.sentence()
            ),
            line: Some(line),
        },
        None => Item::new(
            "sealing",
            State::NeedsYou,
            format!(
                "{} This computer can't make the box, and no command fixes that from here; commands keep asking first.",
                problem.sentence()
            ),
        ),
    })
}
