//! What the owner says about a chat itself, rather than in it: its name,
//! whether it is put away, which model answers its next turn, and an
//! "always" taken back.

use serde::{Deserialize, Serialize};

/// The owner named the chat (`chat.renamed`). Plain text: the list shows
/// it as it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRenamed {
    pub title: String,
}

/// The owner archived the chat, or brought it back (`chat.archived`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatArchived {
    pub archived: bool,
}

/// The owner took back an "always" given in the chat (`grant.revoked`):
/// from here on, what it let through asks again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrantRevoked {
    /// The key the "always" added (`run_command`, `run_command@git log`,
    /// `browser:news.example`, …).
    pub key: String,
    /// Who took it back: `owner` or `key:<name>`.
    pub by: String,
}

/// What an "always" in force lets through, as the line above the message
/// box says it: `run_command` is "Commands run without asking in this
/// chat.", `run_command@git log` "git log … runs without asking in this
/// chat." (as the card's narrower choice names it), a `read:` key the same "even after it read something".
pub fn grant_words(key: &str) -> String {
    let (scope, rest) = match key.split_once(':') {
        Some((scope @ ("read" | "box" | "browser"), rest)) => (scope, rest),
        _ => ("", key),
    };
    if scope == "browser" {
        return format!("The browser acts on {rest} without asking in this chat.");
    }
    let (tool, program) = match rest.split_once('@') {
        Some((tool, program)) => (tool, Some(program)),
        None => (rest, None),
    };
    let what = match (tool, program) {
        ("run_command" | "commandExecution" | "Bash", Some(p)) => format!("{p} … runs"),
        ("run_command" | "commandExecution" | "Bash", None) => "Commands run".to_owned(),
        ("write_file" | "edit_file" | "Write" | "Edit" | "fileChange", _) => {
            "File changes happen".to_owned()
        }
        ("web_fetch" | "WebFetch", _) => "Fetches of addresses it puts together run".to_owned(),
        (tool, Some(p)) => format!("{tool} {p} … runs"),
        (tool, None) => format!("{tool} runs"),
    };
    match scope {
        "box" => format!("{what} outside the box without asking in this chat."),
        "read" => format!("{what} without asking in this chat, even after it read something."),
        _ => format!("{what} without asking in this chat."),
    }
}

#[cfg(test)]
mod tests {
    use super::grant_words;

    #[test]
    fn each_grant_says_what_it_lets_through() {
        for (key, says) in [
            ("run_command", "Commands run without asking in this chat."),
            (
                "run_command@git log",
                "git log … runs without asking in this chat.",
            ),
            (
                "read:run_command",
                "Commands run without asking in this chat, even after it read something.",
            ),
            (
                "box:run_command",
                "Commands run outside the box without asking in this chat.",
            ),
            (
                "write_file",
                "File changes happen without asking in this chat.",
            ),
            (
                "browser:news.example",
                "The browser acts on news.example without asking in this chat.",
            ),
            ("mail.send", "mail.send runs without asking in this chat."),
        ] {
            assert_eq!(grant_words(key), says, "{key}");
        }
    }
}

/// The owner picked the provider for the chat's next turns
/// (`model.changed`); without one, the default provider answers again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelChanged {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
}
