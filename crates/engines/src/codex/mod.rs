//! Codex as an engine: `codex app-server` over JSON-RPC on stdio, a whole
//! turn at a time, every tool call through Conch's guard.
//!
//! How the guard holds, whatever Codex's approval policy:
//!
//! - Codex runs a PreToolUse hook before every tool call in every policy.
//!   Conch's hook ([`hook`]) asks the gate: it denies protected paths and
//!   tools turned off, and when the guard asks, it waits for the owner.
//!   Codex's hooks can't ask by themselves, so the waiting happens here.
//! - Codex runs sealed as Conch seals its own commands: `workspace-write`
//!   with the network open, or `danger-full-access` where sealing is off.
//!   Its own question, under the default `on-request`, comes only for a
//!   command that wants out of the sandbox, and is answered through the same
//!   approval path (`Gate::ask`) as leaving the box.
//! - A tight turn (a marked chat, or one held to a skill that runs no
//!   command) runs `workspace-write` with no network, under a policy whose
//!   approvals keep the sandbox ([`policy`]), and the chat is told once.
//!
//! What it doesn't do: Codex's web search runs at the model provider, so
//! it can't be asked before; its results mark the chat. Text typed into a
//! running command (`write_stdin`) has no hook; commands run with their
//! input from /dev/null so it reaches nothing they read, and the typing is
//! recorded. See docs/providers.md.

mod binary;
mod boxed;
mod calls;
mod home;
mod hook;
pub mod policy;
mod review;
mod rpc;
mod turn;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use protocol::Mode;
use tokio::sync::mpsc;

pub use binary::{resolve, version};
pub use policy::Policy;
pub use turn::{NO_APPS_NOTE, TIGHT_NOTE};

/// The folder Conch keeps for Codex's session of `chat`, in Conch's folder
/// `conch_home` (Repair everything finds the ones whose chat is gone).
pub fn chat_folder(conch_home: &Path, chat: &str) -> PathBuf {
    home::ChatHome::new(&conch_home.join("engines").join("codex"), chat).dir
}

use crate::engine::{BoxFuture, Chunk, Engine, EngineError, StepRequest};
use crate::native::{Gate, NativeEngine, NativeTurn};
use crate::providers::Provider;

pub struct CodexEngine {
    name: String,
    model: Option<String>,
    /// Empty: Codex's own provider and sign-in.
    base_url: String,
    key: Option<String>,
    /// As configured: a path or a name on PATH.
    bin: String,
    /// Conch's folder for Codex; each chat has one inside.
    root: PathBuf,
    /// An approval policy to run under instead of the default.
    policy: Option<Policy>,
    /// The hook pipes through Codex's own proxy even where socat is.
    codex_pipe: bool,
    /// Conch's own binary, which relays to the owner's apps.
    conch: PathBuf,
    client: reqwest::Client,
}

impl CodexEngine {
    /// `home` is Conch's home folder.
    pub fn new(provider: Provider, home: &Path) -> CodexEngine {
        let s = provider.settings;
        CodexEngine {
            name: s.name,
            model: (!s.model.trim().is_empty()).then_some(s.model),
            base_url: s.base_url.trim().to_owned(),
            key: provider.key,
            bin: s.bin.unwrap_or_else(|| "codex".to_owned()),
            root: home.join("engines").join("codex"),
            policy: None,
            codex_pipe: false,
            conch: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("conch")),
            client: crate::providers::client(),
        }
    }

    /// Runs every turn under `policy` rather than the one the mode picks
    /// (a tight turn still keeps the sandbox).
    pub fn with_policy(mut self, policy: Policy) -> CodexEngine {
        self.policy = Some(policy);
        self
    }

    /// The `conch` binary that relays to the owner's apps (this very
    /// binary unless said).
    pub fn with_conch(mut self, conch: &Path) -> CodexEngine {
        self.conch = conch.to_path_buf();
        self
    }

    /// The hook reaches Conch through Codex's own `app-server proxy`, as
    /// on a computer without socat.
    pub fn with_codex_pipe(mut self) -> CodexEngine {
        self.codex_pipe = true;
        self
    }
}

impl Engine for CodexEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    fn step<'a>(
        &'a self,
        _request: StepRequest,
        _out: mpsc::Sender<Chunk>,
    ) -> BoxFuture<'a, Result<(), EngineError>> {
        Box::pin(async {
            Err(EngineError::Protocol(
                "Codex takes whole turns, not steps.".to_owned(),
            ))
        })
    }

    fn native(&self) -> Option<&dyn NativeEngine> {
        Some(self)
    }

    fn review<'a>(
        &'a self,
        system: String,
        prompt: String,
    ) -> BoxFuture<'a, Result<String, EngineError>> {
        Box::pin(review::review(self, system, prompt))
    }
}

impl NativeEngine for CodexEngine {
    fn name(&self) -> &'static str {
        "Codex"
    }

    fn boxes(&self) -> bool {
        true
    }

    fn turn(
        &self,
        turn: NativeTurn,
        gate: Arc<dyn Gate>,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> BoxFuture<'_, Result<(), EngineError>> {
        Box::pin(turn::run(self, turn, gate, stop))
    }

    // A new mode holds from the next turn: Codex takes its policy per turn,
    // and Conch's hook reads the mode at every call.
    fn set_mode(&self, _chat: &str, _mode: Mode) {}
}
