//! One approval path for every kind of tool call, as a state machine that
//! does no IO: host calls (Conch's own tools), bridged calls (apps' tools
//! offered to API engines) and native calls (Claude Code's and Codex's own
//! tools) all go through it, and an engine's hook gets its quick answer
//! from the same machine ([`Approval::quick`]).
//!
//! [`Approval::start`] reads the chat as it is ([`Look`]), decides once
//! ([`look`]: the guard, then Auto mode's triage) and says what to do next
//! ([`Step`]). The driver does that one piece of IO (counts the reviewer's
//! refusals, takes the binding, reads the page, asks the model, asks the
//! owner, writes a judgement) and hands back what it found ([`Input`]).
//! Every choice about what happens next is made here, once, and tested as
//! a table. Time comes in as input too: a reviewer past its deadline is
//! [`Reply::Deadline`].

mod machine;
mod reviewing;
mod step;

pub use machine::{look, Approval, Decided, MAX_REBINDS};
pub use step::{Input, Judged, Page, Quick, Reply, Step};

use protocol::{Action, ChatView};

/// The call being approved.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The tool's name as the engine called it.
    pub tool: &'a str,
    /// What the call does, as classified.
    pub action: &'a Action,
    /// Its arguments as the engine sent them.
    pub input: &'a serde_json::Value,
}

/// The chat as it is now: what the guard and Auto mode's triage read.
#[derive(Clone, Copy)]
pub struct Look<'a> {
    pub view: &'a ChatView,
    /// The guard's settings, in the chat's mode now.
    pub settings: &'a guard::Settings,
    /// The chat's work folder, resolved.
    pub work: &'a str,
    /// People and places the owner keeps in Settings → Contacts.
    pub contacts: &'a [String],
}

#[cfg(test)]
mod tests;
