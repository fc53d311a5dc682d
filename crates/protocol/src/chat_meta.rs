//! What the owner says about a chat itself, rather than in it: its name,
//! whether it is put away, and which model answers its next turn.

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

/// The owner picked the provider for the chat's next turns
/// (`model.changed`); without one, the default provider answers again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelChanged {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
}
