//! The apps' tools beside Conch's own, for engines that take tools (the
//! bridged path): offered by their engine names, classified as
//! `Action::Integration` with their one name and whether they only read,
//! run through the app's server.

use std::path::Path;
use std::sync::Arc;

use protocol::{Action, ToolSpec};
use tools::{AppTool, BoxFuture, Outcome, RunContext, ToolBox, ToolCall};

use crate::registry::Apps;

pub struct WithApps {
    pub inner: Arc<dyn ToolBox>,
    pub apps: Arc<Apps>,
}

impl ToolBox for WithApps {
    fn specs(&self) -> Vec<ToolSpec> {
        let mut all = self.inner.specs();
        all.extend(self.apps.specs());
        all
    }

    fn classify(&self, call: &ToolCall, work: &Path) -> Result<Action, String> {
        match self.apps.find(&call.name) {
            Some(found) => Ok(Action::Integration {
                tool: found.qualified,
                read_only: found.read_only,
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
        match action {
            Action::Integration { tool, .. } if self.apps.find(tool).is_some() => {
                Box::pin(self.apps.call(tool, &call.input, &ctx.work, &ctx.cancel))
            }
            _ => self.inner.run(call, action, ctx),
        }
    }

    fn app_policies(&self) -> std::collections::BTreeMap<String, guard::Policy> {
        let mut all = self.inner.app_policies();
        all.extend(self.apps.policies());
        all
    }

    fn sealed(&self) -> Option<Arc<seal::Sealed>> {
        self.inner.sealed()
    }

    fn not_ready(&self, within: std::time::Duration) -> BoxFuture<'_, Vec<String>> {
        Box::pin(self.apps.not_ready(within))
    }

    fn native_apps(&self) -> Vec<String> {
        let mut all = self.inner.native_apps();
        all.extend(self.apps.offered());
        all
    }

    fn app_tool(&self, name: &str) -> Option<AppTool> {
        match self.apps.find(name) {
            Some(found) => Some(AppTool {
                qualified: found.qualified,
                read_only: found.read_only,
            }),
            None => self.inner.app_tool(name),
        }
    }
}
