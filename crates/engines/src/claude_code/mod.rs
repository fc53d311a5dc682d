//! Claude Code as an engine: the real `claude` binary takes whole turns,
//! and every tool call it makes passes Conch's guard, in every mode.
//!
//! A guard that lives only in Claude Code's permission channel
//! (`can_use_tool`) is skipped in exactly the modes that allow by
//! themselves (acceptEdits; ADR 0028). So Conch holds two doors:
//!
//! - a PreToolUse hook for every tool (`conch hook pre-tool-use`), which
//!   Claude Code runs in every mode, answered at once from the guard
//!   (allow, deny, or ask);
//! - the permission channel, which an "ask" from the hook reaches in every
//!   mode, answered by the whole approval path (reviewer, owner, binding)
//!   with exactly the input that was approved.
//!
//! Claude Code never runs in bypassPermissions, where it would ignore a
//! hook's "ask" on paths it calls sensitive: Full trust is Conch answering
//! "allow" itself on that path (`launch::permission_mode`).
//!
//! A PostToolUse hook records each result before Claude Code goes on, so a
//! page a call read has marked the chat before the next call is decided.
//!
//! What it deliberately doesn't do: run `--bare` (it skips hooks); read
//! the owner's own Claude Code settings, MCP servers or login (a turn is
//! hermetic); pass the owner's words on the command line.

mod calls;
pub mod hook;
pub mod launch;
mod output;
mod review;
pub mod session;
pub mod settings;
pub mod shell;
mod socket;
mod turn;
pub mod version;
pub mod wire;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use protocol::Mode;
use tokio::sync::{mpsc, watch};

use crate::engine::{BoxFuture, Engine, EngineError, StepRequest};
use crate::native::{Gate, NativeEngine, NativeTurn};
use crate::Chunk;

pub use launch::Provider;

/// How one Claude Code engine runs.
#[derive(Debug, Clone)]
pub struct ClaudeCodeConfig {
    /// The `claude` binary (`claude` on PATH unless `--bin` said).
    pub bin: PathBuf,
    pub provider: Provider,
    /// Its own folder inside Conch's: each chat's HOME, the reviewer's.
    pub state: PathBuf,
    /// Conch's private folder for the hook's socket and a turn's settings.
    pub run: PathBuf,
    /// The `conch` binary the hooks run.
    pub hook: PathBuf,
}

impl ClaudeCodeConfig {
    /// The folders inside Conch's home `home`, and this very binary as
    /// the hook.
    pub fn in_home(home: &Path, bin: Option<&str>, provider: Provider) -> ClaudeCodeConfig {
        ClaudeCodeConfig {
            bin: launch::program(bin),
            provider,
            state: home.join("engines").join("claude-code"),
            run: home.join("run"),
            hook: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("conch")),
        }
    }
}

pub struct ClaudeCode {
    config: ClaudeCodeConfig,
    server: tokio::sync::OnceCell<socket::Server>,
    /// The turn running now in each chat, for a mode picked mid-turn.
    running: Arc<Mutex<HashMap<String, Arc<calls::TurnState>>>>,
}

/// Forgets a chat's running turn when the turn ends.
struct Running {
    chat: String,
    running: Arc<Mutex<HashMap<String, Arc<calls::TurnState>>>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.chat);
    }
}

impl ClaudeCode {
    pub fn new(config: ClaudeCodeConfig) -> ClaudeCode {
        ClaudeCode {
            config,
            server: tokio::sync::OnceCell::new(),
            running: Arc::default(),
        }
    }

    pub fn config(&self) -> &ClaudeCodeConfig {
        &self.config
    }

    /// The hooks' socket, started with the first turn.
    async fn server(&self) -> Result<&socket::Server, String> {
        self.server
            .get_or_try_init(|| socket::Server::start(&self.config.run))
            .await
    }

    fn running_as(&self, chat: &str, state: Arc<calls::TurnState>) -> Running {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(chat.to_owned(), state);
        Running {
            chat: chat.to_owned(),
            running: self.running.clone(),
        }
    }
}

impl Engine for ClaudeCode {
    fn name(&self) -> &str {
        "claude-code"
    }

    fn model(&self) -> Option<&str> {
        self.config.provider.model.as_deref()
    }

    fn step<'a>(
        &'a self,
        _request: StepRequest,
        _out: mpsc::Sender<Chunk>,
    ) -> BoxFuture<'a, Result<(), EngineError>> {
        Box::pin(async {
            Err(EngineError::Protocol(
                "Claude Code takes whole turns, not steps.".into(),
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
        Box::pin(review::run(self, system, prompt))
    }
}

impl NativeEngine for ClaudeCode {
    fn name(&self) -> &'static str {
        "Claude Code"
    }

    fn boxes(&self) -> bool {
        true
    }

    fn turn(
        &self,
        turn: NativeTurn,
        gate: Arc<dyn Gate>,
        stop: watch::Receiver<bool>,
    ) -> BoxFuture<'_, Result<(), EngineError>> {
        Box::pin(turn::run(self, turn, gate, stop))
    }

    fn set_mode(&self, chat: &str, mode: Mode) {
        let state = self
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(chat)
            .cloned();
        if let Some(state) = state {
            let request = state.request_id("mode");
            state.send(wire::set_permission_mode(
                &request,
                launch::permission_mode(mode),
            ));
        }
    }
}
