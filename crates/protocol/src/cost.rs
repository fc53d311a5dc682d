//! What a model request cost (`cost`), as the owner's caps count it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub turn: u64,
    pub provider: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub model: String,
    /// In `currency`.
    pub amount: f64,
    /// The owner's currency (`USD`, `EUR`…).
    pub currency: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Counted by Conch from the text (4 characters a token) rather than
    /// reported by the provider.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}
