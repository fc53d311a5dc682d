//! The words of every question and refusal.

use protocol::Action;

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
        Action::FileChange { path, inside } => {
            let place = if *inside {
                "in the work folder"
            } else {
                "outside the work folder"
            };
            format!("Can I change {path} ({place})?")
        }
        Action::Integration { tool, .. } => format!("Can I use {tool}?"),
        Action::FetchSends { url, .. } => format!("Can I send a request to {url}?"),
        Action::PageRead { url, .. } => format!("Can I read {url}?"),
        Action::Search { query } => format!("Can I search the web for \"{query}\"?"),
        Action::LookAround { .. } => format!("Can I use {tool}?"),
    }
}

pub fn turned_off(tool: &str) -> String {
    format!(
        "The owner turned {tool} off, so it can't be used in this chat. Don't try another way; say what you'd need instead."
    )
}

pub fn read_only(tool: &str) -> String {
    format!(
        "The owner set {tool} to read-only, so it can only read. Say what you'd need changed instead."
    )
}
