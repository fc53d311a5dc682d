use std::future::Future;
use std::pin::Pin;

use serde_json::Value;
use tokio::sync::mpsc;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

pub use protocol::ToolSpec;

/// One entry of the chat as an engine sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// The owner's words.
    Owner(String),
    /// Words from someone else (a person on a chat app, a routine, a task),
    /// labelled so the model can tell them from the owner's.
    Other { label: String, text: String },
    /// What the assistant said.
    Assistant(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        id: String,
        ok: bool,
        output: String,
    },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepRequest {
    /// Who the assistant is and where it works.
    pub system: String,
    pub items: Vec<Item>,
    pub tools: Vec<ToolSpec>,
}

/// What an engine streams back during a step.
#[derive(Debug, Clone, PartialEq)]
pub enum Chunk {
    /// More of the reply's text.
    Text(String),
    /// A tool call the engine wants run.
    ToolCall {
        id: String,
        name: String,
        input: Value,
    },
}

/// Why a step failed, in a sentence a person can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// The provider refused the key.
    Unauthorized(String),
    /// The provider couldn't be reached or kept failing.
    Unavailable(String),
    /// The provider answered with something that isn't its format.
    Protocol(String),
    /// The turn was stopped while the step ran.
    Stopped,
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Unauthorized(s)
            | EngineError::Unavailable(s)
            | EngineError::Protocol(s) => f.write_str(s),
            EngineError::Stopped => f.write_str("The turn was stopped."),
        }
    }
}

impl std::error::Error for EngineError {}

pub trait Engine: Send + Sync {
    /// What the log records as `turn.started.engine`.
    fn name(&self) -> &str;

    fn model(&self) -> Option<&str> {
        None
    }

    /// Runs one step, sending chunks to `out` as they come. A closed `out`
    /// means nobody is listening any more: the engine should stop early.
    fn step<'a>(
        &'a self,
        request: StepRequest,
        out: mpsc::Sender<Chunk>,
    ) -> BoxFuture<'a, Result<(), EngineError>>;

    /// Waits until the model can take a call (a slot, a connection, a key
    /// unlocked). Auto mode's review deadline covers this wait too.
    fn acquire(&self) -> BoxFuture<'_, Result<(), EngineError>> {
        Box::pin(async { Ok(()) })
    }

    /// The engine runs its own tools (Claude Code, Codex): the turn loop
    /// hands it whole turns instead of steps.
    fn native(&self) -> Option<&dyn crate::native::NativeEngine> {
        None
    }

    /// Asks the same model for Auto mode's review: `system` and one owner
    /// item, no tools; the whole reply's text comes back.
    fn review<'a>(
        &'a self,
        system: String,
        prompt: String,
    ) -> BoxFuture<'a, Result<String, EngineError>> {
        Box::pin(async move {
            let (tx, mut rx) = mpsc::channel(64);
            let request = StepRequest {
                system,
                items: vec![Item::Owner(prompt)],
                tools: Vec::new(),
            };
            let collect = async {
                let mut text = String::new();
                while let Some(chunk) = rx.recv().await {
                    if let Chunk::Text(t) = chunk {
                        text.push_str(&t);
                    }
                }
                text
            };
            let (result, text) = tokio::join!(self.step(request, tx), collect);
            result.map(|()| text)
        })
    }
}
