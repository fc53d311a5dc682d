//! What the tool-call benches share: a tool that does nothing, so only
//! Conch's own cost is left, and a percentile of sorted figures.

use std::path::Path;

use protocol::{Action, ToolSpec};
use tools::{BoxFuture, Outcome, RunContext, ToolBox, ToolCall};

/// `review` makes its calls changes outside the work folder, which Auto
/// mode reviews; otherwise they only look around.
pub struct Noop {
    pub review: bool,
}

impl ToolBox for Noop {
    fn specs(&self) -> Vec<ToolSpec> {
        Vec::new()
    }
    fn classify(&self, _call: &ToolCall, work: &Path) -> Result<Action, String> {
        Ok(if self.review {
            Action::FileChange {
                path: "/elsewhere/notes.md".into(),
                inside: false,
            }
        } else {
            Action::LookAround {
                paths: vec![work.to_string_lossy().into_owned()],
            }
        })
    }
    fn run<'a>(
        &'a self,
        _: &'a ToolCall,
        _: &'a Action,
        _: &'a RunContext,
    ) -> BoxFuture<'a, Outcome> {
        Box::pin(async { Outcome::ok("", None) })
    }
}

pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}
