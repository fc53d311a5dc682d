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
    /// An app's tool whose description, input schema or annotations
    /// changed since the owner turned it on: refused in every mode until
    /// they look (a pin, like skill pins). Set by Apps, not by hand.
    Changed,
}

impl Policy {
    /// Refused whatever the call: Off, or Changed.
    pub fn refuses_all(self) -> bool {
        matches!(self, Policy::Off | Policy::Changed)
    }
}
