//! The words of every question, note and refusal, in the records' voice.

use protocol::{Action, BrowserAction, BrowserOp, Mark, MarkSource};

/// The question on the card.
pub fn question(tool: &str, action: &Action) -> String {
    match action {
        Action::Command {
            command, unsealed, ..
        } => {
            let how = if *unsealed {
                " It would run with your full access, outside the box."
            } else {
                ""
            };
            format!("Can I run this command?{how}\n\n{command}")
        }
        Action::FileChange {
            path,
            inside,
            runs_later,
        } => {
            let place = if *inside {
                "in the work folder"
            } else {
                "outside the work folder"
            };
            match runs_later {
                Some(why) => format!(
                    "Can I change {path} ({place})? It's {why}: what is written there runs later by itself."
                ),
                None => format!("Can I change {path} ({place})?"),
            }
        }
        Action::Integration { tool, .. } => format!("Can I use {tool}?"),
        Action::FetchSends { url, .. } => format!("Can I send a request to {url}?"),
        Action::PageRead { url, .. } => format!("Can I open {url}?"),
        Action::Search { query } => format!("Can I search the web for \"{query}\"?"),
        Action::LookAround { .. } => format!("Can I use {tool}?"),
        Action::UseSkill { skill } => format!("Can I use the {skill} skill?"),
        Action::Delegate { .. } => "Can I hand this to a helper?".to_owned(),
        Action::Artifact {
            artifact: None,
            what,
        } => format!("Can I make a {what} beside the chat?"),
        Action::Artifact {
            artifact: Some(_), ..
        } => "Can I update it beside the chat?".to_owned(),
        Action::Memory { op, what } => match op {
            protocol::MemoryOp::Remember => format!("Can I remember this?\n\n{what}"),
            protocol::MemoryOp::Forget => format!("Can I forget the memory {what}?"),
            protocol::MemoryOp::Recall => "Can I look through my memories?".to_owned(),
        },
        Action::Routine { schedule, task } => format!(
            "Can I make a routine? It would run by itself ({schedule}), with nobody there, and each time start a chat that is asked:\n\n{task}"
        ),
        Action::Browser(b) => browser_question(b),
    }
}

/// What a browser action would do, as a question.
fn browser_question(b: &BrowserAction) -> String {
    let element = b.element.as_deref().unwrap_or("a control");
    let on = if b.site.is_empty() {
        String::new()
    } else {
        format!(" on {}", b.site)
    };
    match b.op {
        BrowserOp::Open => format!("Can I open {} in the browser?", b.url),
        BrowserOp::Back => format!("Can I go back to {} in the browser?", b.url),
        BrowserOp::Snapshot => format!("Can I read the page{on} in the browser?"),
        BrowserOp::Screenshot => format!("Can I take a screenshot of the page{on}?"),
        BrowserOp::Type if b.password => format!(
            "Can I type a password into {element}{on}? A password is asked about every time."
        ),
        BrowserOp::Type => {
            let mut q = format!("Can I type into {element}{on}?");
            if let Some(send) = &b.sends {
                q.push_str(" The page's own script reads what is typed there, so it can send it");
                match send.reaches.as_slice() {
                    [] => q.push('.'),
                    sites => q.push_str(&format!(
                        "; it has sent requests to {} too.",
                        sites.join(", ")
                    )),
                }
            }
            q
        }
        BrowserOp::Click => {
            let mut q = format!("Can I click {element}{on}?");
            if let Some(send) = &b.sends {
                if send.to.is_empty() {
                    q.push_str(" It sends something, where the page's own script says.");
                } else {
                    q.push_str(&format!(" It sends to {}.", send.to));
                }
                if send.spends {
                    q.push_str(" It could spend money.");
                }
            }
            if b.typed {
                q.push_str(" What I typed on this page goes with it.");
            }
            q
        }
    }
}

/// The browser's site question (ADR 0028 §1): "This chat read
/// news.example, which could be trying to steer me. Can I use
/// files.example in the browser?", then what it would do.
pub fn browser_site_question(
    mark: &Mark,
    others: usize,
    sites: &[String],
    action: &Action,
) -> String {
    let sites = and_list(sites);
    let what = match action {
        Action::Browser(b) => browser_question(b),
        other => format!("Can I {}?", other.describe()),
    };
    format!(
        "{} Can I use {sites} in the browser?\n\n{what}",
        steering(mark, others)
    )
}

/// "a.example", "a.example and b.example", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => "this site".to_owned(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// What a mark says the chat did: "read news.example".
pub fn did(mark: &Mark) -> String {
    match mark.source {
        MarkSource::Page => format!("read {}", mark.what),
        MarkSource::Search => "read web search results".to_owned(),
        MarkSource::Download => format!("downloaded from {}", mark.what),
        MarkSource::Integration => format!("read what {} returned", mark.what),
        MarkSource::Person => format!("has words from {}", mark.what),
        // A memory a marked chat wrote: "uses a memory from a chat that
        // read news.example".
        MarkSource::Carried if mark.what.starts_with("a memory") => format!("uses {}", mark.what),
        MarkSource::Carried => format!("carries what {} read", mark.what),
    }
}

/// What reading does to the questions from here on, as the guard decides
/// it (see [`crate::after_reading`]): the first mark's line says this, so it
/// is always what then happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterReading {
    /// Commands, outside changes and sends ask from here on.
    Checks,
    /// Full trust in a chat someone is in: nothing stops to ask.
    FullTrust,
    /// Settings → Security → "Check before acting on what it read" is off.
    Off,
}

/// The quiet transcript line, the first time a chat is marked.
pub fn first_mark(source: MarkSource, what: &str, then: AfterReading) -> String {
    let opening = match source {
        MarkSource::Page => format!("Read {what}."),
        MarkSource::Search => "Searched the web.".to_owned(),
        MarkSource::Download => format!("Downloaded from {what}."),
        MarkSource::Integration => format!("Read what {what} returned."),
        MarkSource::Person => format!("{what} wrote in this chat."),
        MarkSource::Carried if what.starts_with("a memory") => format!("Was given {what}."),
        MarkSource::Carried => format!("Took in what {what} read."),
    };
    match then {
        AfterReading::Checks => format!(
            "{opening} From here on, I'll check with you before running commands or sending anything."
        ),
        AfterReading::FullTrust => format!(
            "{opening} It's on the record. In Full trust I keep going without stopping to ask; for a chat that reads strangers' pages, Ask mode has me check with you first."
        ),
        AfterReading::Off => format!(
            "{opening} It's on the record. Checking before acting on what it read is off (Settings → Security), so I won't stop to ask because of it."
        ),
    }
}

/// What the checked step is, for the note: "run a command".
pub fn step(tool: &str, action: &Action) -> String {
    match action {
        Action::Command { .. } => "run a command".to_owned(),
        Action::FileChange { .. } => "change a file outside the work folder".to_owned(),
        Action::PageRead { host, .. } | Action::FetchSends { host, .. } => {
            format!("open an address on {host} I put together, with parts this chat never read or heard from you")
        }
        Action::Integration { tool, .. } => format!("use {tool}"),
        Action::Memory {
            op: protocol::MemoryOp::Forget,
            ..
        } => "forget something you may have told me".to_owned(),
        Action::Browser(b) => {
            let sites: Vec<String> = b.sites().into_iter().map(str::to_owned).collect();
            format!("use {} in the browser", and_list(&sites))
        }
        _ => format!("use {tool}"),
    }
}

/// The GuardNote: "This chat read news.example, which could be trying to
/// steer me. So I'm checking before I run a command."
pub fn guard_note(mark: &Mark, others: usize, tool: &str, action: &Action) -> String {
    format!(
        "{} So I'm checking before I {}.",
        steering(mark, others),
        step(tool, action)
    )
}

/// "This chat read news.example, which could be trying to steer me."
fn steering(mark: &Mark, others: usize) -> String {
    let more = match others {
        0 => String::new(),
        1 => " (and one other thing)".to_owned(),
        n => format!(" (and {n} other things)"),
    };
    match mark.source {
        MarkSource::Person => format!(
            "This chat has words from {}{more}, who could be trying to steer me.",
            mark.what
        ),
        _ => format!(
            "This chat {}{more}, which could be trying to steer me.",
            did(mark)
        ),
    }
}

/// Said in a chat where someone else wrote: they can't OK their own request.
pub fn told(owner: &str) -> String {
    format!("I've asked {owner} to OK it.")
}

/// Why making a routine always asks.
pub fn routine_note() -> &'static str {
    "A routine runs later by itself, with nobody there to stop it, so I check with you each time one is made."
}

pub fn nobody_there() -> &'static str {
    "Nobody is here to choose, so this waits for the owner."
}

pub fn turned_off(tool: &str) -> String {
    format!(
        "The owner turned {tool} off, so it can't be used in this chat. Don't try another way; say what you'd need instead."
    )
}

pub fn changed(tool: &str) -> String {
    format!(
        "{tool} changed since the owner turned it on (what it says it does, or what it takes, is different now), so it's off until they look at it in Apps. Don't try another way; say what you'd need instead."
    )
}

pub fn read_only(tool: &str) -> String {
    format!(
        "The owner set {tool} to read-only, so it can only read. Say what you'd need changed instead."
    )
}

pub fn protected_path() -> String {
    "That's Conch's own folder or where keys are kept, which the assistant never touches. Don't try another way; ask the owner to do it if it's needed.".to_owned()
}

pub fn protected_power(command: &str) -> String {
    format!(
        "That command uses Conch's own powers (keys and sign-ins, providers, skills' trust, the owner's apps, routines, chat apps, memories, backups), which only the owner may use. Don't run it; hand them the command to run themselves:\n\n{command}"
    )
}

/// Who would see what a read finds, for the question's note.
pub fn others_see(audience: &[String], what: &str) -> String {
    let who = match audience {
        [] => "Someone else".to_owned(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} and {} more", rest.len()),
    };
    format!("{who} will see what it finds: it would read {what}.")
}
