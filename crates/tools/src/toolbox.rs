//! The seam between the turn loop and the tools: a call is classified once
//! (what the guard judges) and run with the action it was classified as, so
//! what was judged is what runs.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use protocol::{Action, ToolSpec};
use serde_json::Value;
use tokio::sync::Notify;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub ok: bool,
    /// What the model is given back.
    pub output: String,
    /// Facts for people and folds (exit code, final address, diff…), in
    /// one spelling.
    pub detail: Option<protocol::ToolDetail>,
}

impl Outcome {
    pub fn ok(output: impl Into<String>, detail: Option<Value>) -> Outcome {
        Outcome {
            ok: true,
            output: output.into(),
            detail: detail.map(protocol::ToolDetail::from),
        }
    }

    pub fn failed(sentence: impl Into<String>) -> Outcome {
        Outcome {
            ok: false,
            output: sentence.into(),
            detail: None,
        }
    }
}

/// Stop: a turn's cancellation, shared with whatever it is running.
#[derive(Clone, Default)]
pub struct Cancel(Arc<(AtomicBool, Notify)>);

impl Cancel {
    pub fn cancel(&self) {
        self.0 .0.store(true, Ordering::SeqCst);
        self.0 .1.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0 .0.load(Ordering::SeqCst)
    }

    /// Resolves once `cancel` has been called (at once if it already was).
    pub async fn cancelled(&self) {
        loop {
            let notified = self.0 .1.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

pub struct RunContext {
    /// The chat's work folder, resolved.
    pub work: PathBuf,
    pub cancel: Cancel,
    /// What no tool touches: checked again on every path a tool opens and
    /// every entry a walk visits.
    pub protected: Arc<guard::Protected>,
    /// The secrets Conch holds, taken out of a long output before it is
    /// cut (a secret cut in two wouldn't be recognised later).
    pub masker: Option<Arc<mask::Masker>>,
}

pub trait ToolBox: Send + Sync {
    /// The tools offered to engines.
    fn specs(&self) -> Vec<ToolSpec>;

    /// What the call would do, with its paths resolved; or a sentence the
    /// model can act on when the call can't be understood.
    fn classify(&self, call: &ToolCall, work: &Path) -> Result<Action, String>;

    /// Runs the call as it was classified.
    fn run<'a>(
        &'a self,
        call: &'a ToolCall,
        action: &'a Action,
        ctx: &'a RunContext,
    ) -> BoxFuture<'a, Outcome>;

    /// The policy of each of the owner's apps' tools (`server.tool`), as
    /// Apps says now: read at every decision, so a tool turned off, or one
    /// whose description changed, is refused from the next call.
    fn app_policies(&self) -> std::collections::BTreeMap<String, guard::Policy> {
        std::collections::BTreeMap::new()
    }

    /// One of the owner's apps' tools, by any name it goes by (`server.tool`,
    /// or an engine's `mcp__server__tool`). None: not an app's tool this
    /// box knows.
    fn app_tool(&self, _name: &str) -> Option<AppTool> {
        None
    }

    /// The owner's apps a native engine gets as MCP servers (by name):
    /// those connected now with a tool turned on.
    fn native_apps(&self) -> Vec<String> {
        Vec::new()
    }

    /// The owner's apps still connecting after waiting at most `within`
    /// for them (right after Conch starts, a turn gives them a moment).
    fn not_ready(&self, _within: std::time::Duration) -> BoxFuture<'_, Vec<String>> {
        Box::pin(async { Vec::new() })
    }

    /// The box commands are sealed in, when this computer has one and
    /// Safety → Seal commands is on: engines run in it too.
    fn sealed(&self) -> Option<std::sync::Arc<seal::Sealed>> {
        None
    }
}

/// An app's tool, as the guard needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppTool {
    /// `server.tool`.
    pub qualified: String,
    /// Only reads: the server says so (`readOnlyHint: true`) and the owner
    /// hasn't said it writes.
    pub read_only: bool,
}

/// No tools at all.
pub struct NoTools;

impl ToolBox for NoTools {
    fn specs(&self) -> Vec<ToolSpec> {
        Vec::new()
    }

    fn classify(&self, call: &ToolCall, _work: &Path) -> Result<Action, String> {
        Err(no_such_tool(&call.name))
    }

    fn run<'a>(
        &'a self,
        call: &'a ToolCall,
        _: &'a Action,
        _: &'a RunContext,
    ) -> BoxFuture<'a, Outcome> {
        Box::pin(async move { Outcome::failed(no_such_tool(&call.name)) })
    }
}

pub fn no_such_tool(name: &str) -> String {
    format!("There is no tool named \"{name}\". Answer without it.")
}
