//! The seam between the turn loop and the tools it can run. The turn loop
//! only knows that a call goes in and an outcome comes out; what the tools
//! are, and the checks before they run, live behind this trait.

use std::path::Path;

use engines::{BoxFuture, ToolSpec};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    pub ok: bool,
    /// What the model is given back.
    pub output: String,
    pub detail: Option<Value>,
}

impl ToolOutcome {
    pub fn failed(sentence: impl Into<String>) -> ToolOutcome {
        ToolOutcome {
            ok: false,
            output: sentence.into(),
            detail: None,
        }
    }
}

pub trait ToolBox: Send + Sync {
    /// The tools offered to the engine.
    fn specs(&self) -> Vec<ToolSpec>;

    fn run<'a>(&'a self, call: &'a ToolCall, work: &'a Path) -> BoxFuture<'a, ToolOutcome>;
}

/// No tools at all: every call gets a sentence saying so.
pub struct NoTools;

impl ToolBox for NoTools {
    fn specs(&self) -> Vec<ToolSpec> {
        Vec::new()
    }

    fn run<'a>(&'a self, call: &'a ToolCall, _work: &'a Path) -> BoxFuture<'a, ToolOutcome> {
        let sentence = format!(
            "There is no tool named \"{}\". Answer without it.",
            call.name
        );
        Box::pin(async move { ToolOutcome::failed(sentence) })
    }
}
