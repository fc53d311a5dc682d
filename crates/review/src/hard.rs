//! What review can never waive (ADR 0144): these go to the owner as before,
//! whatever the reviewer would say. The tool policies (Ask, Off) come from
//! the guard's decision; the rest are read from the action here, the same
//! way every time, from the command's words rather than a model's opinion.
//!
//! Like the guard's checks of a command's text, this is a reading, not a
//! box: a program that hides what it does behind a script it wrote a moment
//! ago isn't caught here, which is why sealing and the guard stay in front.

use protocol::Action;

mod command;
mod lists;
mod sends;
pub mod writes;

pub use guard::Hard;

/// What the categories read besides the action: the shared list of places
/// where keys live (and the person's home, for `~`), the work folder (for
/// relative paths), whether the chat is marked, and what it has seen in
/// words (who said what is being sent).
#[derive(Clone, Copy)]
pub struct Facts<'a> {
    pub protected: &'a guard::Protected,
    /// The chat's work folder, resolved.
    pub work: &'a str,
    /// The chat read something from outside (a mark holds).
    pub marked: bool,
    pub seen: &'a protocol::seen::Seen,
    /// The call's arguments as the engine sent them.
    pub input: &'a serde_json::Value,
    /// People and places the owner keeps in Settings (never filled by a
    /// chat): a destination among them is the owner's.
    pub contacts: &'a [String],
}

impl<'a> Facts<'a> {
    /// Facts with nothing known: no places, no work folder, a marked chat
    /// (so nothing that sends is reviewable).
    pub fn none() -> Facts<'static> {
        static PROTECTED: std::sync::OnceLock<guard::Protected> = std::sync::OnceLock::new();
        static SEEN: std::sync::OnceLock<protocol::seen::Seen> = std::sync::OnceLock::new();
        Facts {
            protected: PROTECTED.get_or_init(guard::Protected::default),
            work: "/",
            marked: true,
            seen: SEEN.get_or_init(Default::default),
            input: &serde_json::Value::Null,
            contacts: &[],
        }
    }
}

/// The category of `action` that review may never waive, if it has one.
pub fn never_waivable(action: &Action, facts: &Facts<'_>) -> Option<Hard> {
    match action {
        Action::Command { command, .. } => command::category(command, facts),
        Action::FileChange {
            path, runs_later, ..
        } => path_category(path, runs_later.is_some(), facts),
        Action::FetchSends { url, .. } => {
            let sent = sends::Sent {
                destinations: vec![url.clone()],
                values: Vec::new(),
                carries_file: false,
            };
            (!sent.reviewable(facts)).then_some(Hard::Exfiltration)
        }
        Action::Integration { tool, read_only } => {
            if *read_only {
                None
            } else {
                // A write of a common kind is judged by where its values
                // came from; one of no known kind that sends, by the old
                // rule (everything the owner's).
                match (integration_category(tool), writes::kind_of(tool)) {
                    (Some(Hard::Exfiltration) | None, Some(kind)) => {
                        writes::kept(kind, facts.input, facts)
                    }
                    (Some(Hard::Exfiltration), None) => {
                        let sent = sends::Sent::of_input(facts.input);
                        (!sent.reviewable(facts)).then_some(Hard::Exfiltration)
                    }
                    (other, _) => other,
                }
            }
        }
        // A click that says pay, buy, order, transfer: spending, always the
        // owner's. Other sends are judged with the page (ADR 0144).
        Action::Browser(b) if b.sends.as_ref().is_some_and(|s| s.spends) => Some(Hard::Spending),
        _ => None,
    }
}

fn path_category(path: &str, runs_later: bool, facts: &Facts<'_>) -> Option<Hard> {
    if path.starts_with("/etc/sudoers") || path == "/etc/passwd" || path == "/etc/group" {
        return Some(Hard::PrivilegeEscalation);
    }
    if command::names_secret(path, facts) {
        return Some(Hard::Credentials);
    }
    if facts.protected.why(path) == Some(guard::Why::Conch)
        || path.starts_with("/etc/apparmor")
        || path.starts_with("/etc/selinux")
    {
        return Some(Hard::SafetyChange);
    }
    if runs_later || guard::runs_later::runs_later(path).is_some() {
        return Some(Hard::Persistence);
    }
    None
}

fn integration_category(tool: &str) -> Option<Hard> {
    let t = tool.to_ascii_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if any(&[
        "credential",
        "password",
        "token",
        "secret",
        "apikey",
        "api_key",
        "oauth",
    ]) {
        Some(Hard::Credentials)
    } else if any(&["setting", "permission", "policy", "safety"]) {
        Some(Hard::SafetyChange)
    } else if any(&[
        "pay",
        "purchase",
        "buy",
        "order",
        "checkout",
        "charge",
        "invoice",
        "subscribe",
        "transfer",
        "donate",
        "refund",
    ]) {
        Some(Hard::Spending)
    } else if any(&["send", "share", "upload", "forward", "email", "publish"]) {
        Some(Hard::Exfiltration)
    } else if any(&["schedule", "cron", "autostart", "startup"]) {
        Some(Hard::Persistence)
    } else if any(&["delete_all", "purge", "wipe", "destroy"]) {
        Some(Hard::CriticalDestruction)
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
