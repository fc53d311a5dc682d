use serde::{Deserialize, Serialize};

/// What the owner set for a tool on the Apps / Integrations page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// Does what the chat's mode says.
    #[default]
    Mode,
    /// Asks every time, in every mode (and takes Always allow).
    Ask,
    /// Only calls that read.
    ReadOnly,
    /// Refused in every mode.
    Off,
}
