//! The `review.judged` event: what Auto mode's reviewer made of one call
//! (ADR 0144). It carries the judgement, never the reviewer's input: no
//! prompt, no owner text, no secret. Counting these is how Activity and
//! `conch doctor` show the judgement counters.

use serde::{Deserialize, Serialize};

/// What became of a call the reviewer was asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewOutcome {
    /// Allowed once, without asking the owner.
    Allowed,
    /// Turned down: the model is told why and replans; the owner isn't asked.
    Rejected,
    /// The question was kept for the owner (the reviewer said ask, or there
    /// was no usable verdict).
    Asked,
    /// The turn's review budget was used up: rejected without review.
    Exhausted,
}

impl ReviewOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewOutcome::Allowed => "allowed",
            ReviewOutcome::Rejected => "rejected",
            ReviewOutcome::Asked => "asked",
            ReviewOutcome::Exhausted => "exhausted",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewJudged {
    pub turn: u64,
    pub call: String,
    pub outcome: ReviewOutcome,
    /// The reviewer's risk, when it gave a usable verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<String>,
    /// The owner messages (`m1`, `m2`…) it cited as authority.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    /// The reviewer's one sentence, cut to 300 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why there was no usable verdict: `unavailable`, `deadline`,
    /// `oversized`, `malformed`, `changed`, `script`, `quoted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}
