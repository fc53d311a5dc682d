//! Engines that run their own tools: Claude Code and Codex. They take a
//! whole turn, not a step: the owner's words go in, and their replies,
//! tool calls and tool results stream out as [`NativeEvent`]s, in the same
//! shape the API engines' turns are logged in.
//!
//! Every tool call they make passes Conch's guard, in every mode, through a
//! [`Gate`] the turn loop hands them. The gate has two questions, because
//! the engines ask in two places:
//!
//! - [`Gate::quick`] answers at once, without waiting for anyone: a hook
//!   that runs before every tool call (Claude Code's PreToolUse) gets
//!   allow, deny, or ask, and must never be held open while the owner
//!   thinks (a hook that times out is an error the engine may step past);
//! - [`Gate::ask`] runs the whole approval path (the reviewer, the owner,
//!   binding) and may wait as long as it takes; the engine's own permission
//!   channel (Claude Code's `can_use_tool`, Codex's approval requests) uses
//!   it.

use std::path::PathBuf;
use std::sync::Arc;

use protocol::Mode;
use serde_json::Value;

use crate::engine::{BoxFuture, EngineError};

/// A tool call a native engine wants to make, before it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeCall {
    /// The engine's own id for the call (`toolu_…`, an item id).
    pub id: String,
    /// The engine's own name for the tool (`Bash`, `Edit`, `mcp__mail__send`,
    /// `commandExecution`).
    pub tool: String,
    pub input: Value,
}

/// [`Gate::quick`]'s answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Quick {
    Allow,
    Deny(String),
    /// Ask through the engine's permission channel ([`Gate::ask`]).
    Ask(String),
}

/// [`Gate::ask`]'s answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Run it, with exactly this input (what was approved is what runs).
    Allow {
        input: Value,
    },
    Deny {
        message: String,
    },
}

pub trait Gate: Send + Sync {
    /// The guard's answer now, without waiting for anyone.
    fn quick(&self, call: NativeCall) -> BoxFuture<'_, Quick>;
    /// The whole approval path; may wait for the owner.
    fn ask(&self, call: NativeCall) -> BoxFuture<'_, Verdict>;
    /// Records what the engine said or did, in order, before it returns: a
    /// result is logged (and marks the chat) before the engine can ask
    /// about its next call, so the next decision sees it.
    fn report(&self, event: NativeEvent) -> BoxFuture<'_, ()>;
}

/// What a native engine reports while a turn runs.
#[derive(Debug, Clone, PartialEq)]
pub enum NativeEvent {
    /// More of the reply's text.
    Text(String),
    /// A tool call it made (already through the gate, or about to be).
    ToolCalled(NativeCall),
    /// What a tool call returned.
    ToolFinished {
        id: String,
        ok: bool,
        output: String,
    },
    /// It loaded a skill's instructions (Claude Code's `Skill` tool).
    SkillUsed { name: String },
    /// It summarised older turns to fit (compaction).
    Compacted { summary: String },
    /// A line for the chat, said once (Codex running tighter).
    Note(String),
    /// What the turn cost, as the engine reports it, in US dollars.
    Cost { usd: f64 },
    /// Tokens one request to the model used, as the engine reports them
    /// (Codex): priced by Conch from the provider's prices.
    Usage { input: u64, output: u64 },
}

/// One turn for a native engine.
#[derive(Debug, Clone)]
pub struct NativeTurn {
    /// The chat, for the engine's own session.
    pub chat: String,
    pub work: PathBuf,
    /// Who the assistant is and where it works.
    pub system: String,
    /// The owner's words (and others', labelled) since the last turn.
    pub prompt: String,
    pub mode: Mode,
    /// The chat read something from outside, or is held to a skill that
    /// runs no command: an engine that can't be asked before every step
    /// runs tighter (Codex: workspace-write, no network).
    pub tight: bool,
    /// Where keys live and Conch's own folder: the engine's own sandbox
    /// hides these (the guard's shared list).
    pub hidden: Vec<PathBuf>,
    /// Whether commands may run sealed on this computer (the engine's own
    /// sandbox is asked for when they may).
    pub sealing: bool,
    /// The owner's apps offered to the engine as MCP servers.
    pub apps: Vec<NativeApp>,
    /// The box the engine runs in, and its commands beside it. None only
    /// where the owner turned on "run engines without the box".
    pub boxed: Option<std::sync::Arc<dyn crate::boxing::Boxing>>,
}

/// One of the owner's apps as a native engine gets it: an MCP server that
/// is Conch's own binary (the engine's `hook` program) run with `args`,
/// relaying to the app as Conch runs it (its environment scrubbed, sealed
/// where commands are, its tools' pins and choices). The engine names its
/// tools `mcp__NAME__TOOL`, and its calls pass the hook like any.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeApp {
    pub name: String,
    pub args: Vec<String>,
}

pub trait NativeEngine: Send + Sync {
    /// Runs one turn: what it says and does goes to `gate.report` as it
    /// comes, and every tool call goes through `gate` first. Ends when the
    /// engine's turn does, or early when `stop` fires.
    fn turn(
        &self,
        turn: NativeTurn,
        gate: Arc<dyn Gate>,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> BoxFuture<'_, Result<(), EngineError>>;

    /// The owner picked another mode while a turn runs: it holds from the
    /// next step.
    fn set_mode(&self, _chat: &str, _mode: Mode) {}

    /// Its name, for the sentences a person reads.
    fn name(&self) -> &'static str;

    /// Whether it runs in the box it is given (`NativeTurn::boxed`). One
    /// that doesn't is refused while Run engines in the box is on.
    fn boxes(&self) -> bool {
        false
    }
}
