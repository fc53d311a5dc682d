//! The scenario's integration tools beside Conch's own: each answers with
//! the step's `returns`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use protocol::{Action, ToolSpec};
use tools::{BoxFuture, Outcome, RunContext, ToolBox, ToolCall, Tools};

pub struct ReplayTools {
    pub inner: Tools,
    /// Integration tool name → read-only.
    pub integrations: HashMap<String, bool>,
    /// Call id → what it returns.
    pub returns: Mutex<HashMap<String, String>>,
}

impl ToolBox for ReplayTools {
    fn sealed(&self) -> Option<std::sync::Arc<seal::Sealed>> {
        self.inner.sealed()
    }

    fn specs(&self) -> Vec<ToolSpec> {
        let mut all = self.inner.specs();
        for name in self.integrations.keys() {
            all.push(ToolSpec {
                name: name.clone(),
                description: format!("The integration tool {name}."),
                schema: serde_json::json!({ "type": "object" }),
            });
        }
        all
    }

    fn classify(&self, call: &ToolCall, work: &Path) -> Result<Action, String> {
        match self.integrations.get(&call.name) {
            Some(read_only) => Ok(Action::Integration {
                tool: call.name.clone(),
                read_only: *read_only,
            }),
            None => self.inner.classify(call, work),
        }
    }

    fn run<'a>(
        &'a self,
        call: &'a ToolCall,
        action: &'a Action,
        ctx: &'a RunContext,
    ) -> BoxFuture<'a, Outcome> {
        if let Action::Integration { .. } = action {
            let returns = self
                .returns
                .lock()
                .map(|r| r.get(&call.id).cloned().unwrap_or_default())
                .unwrap_or_default();
            return Box::pin(async move { Outcome::ok(returns, None) });
        }
        self.inner.run(call, action, ctx)
    }
}
