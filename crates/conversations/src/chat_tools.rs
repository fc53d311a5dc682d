//! The tools a chat provides itself, beside the toolbox's (commands, files,
//! the web): artifacts, memories, the browser, helpers and routines. Each
//! is one [`ChatTool`]: whether this chat offers it, the names it owns, how
//! it reads a call and how it runs one. A turn asks the list, never each
//! by name.

use std::sync::Arc;

use protocol::{Action, ToolSpec};
use tools::{Cancel, Outcome, ToolCall};

use crate::state::{Boxed, Core};

pub(crate) trait ChatTool: Sync {
    /// Whether this chat is offered it.
    fn offered(&self, chat: &Core) -> bool;
    fn specs(&self) -> Vec<ToolSpec>;
    /// Whether a call of this name is its to read, in this chat.
    fn owns(&self, chat: &Core, name: &str) -> bool;
    fn classify(&self, chat: &Core, call: &ToolCall) -> Result<Action, String>;
    /// Whether an approved action is its to run.
    fn runs(&self, action: &Action) -> bool;
    fn run<'a>(
        &'a self,
        chat: &'a Arc<Core>,
        call: &'a ToolCall,
        action: &'a Action,
        cancel: &'a Cancel,
    ) -> Boxed<'a, Outcome>;
}

/// Every tool a chat provides itself, in the order they are offered.
pub(crate) const CHAT_TOOLS: [&dyn ChatTool; 5] =
    [&Artifacts, &Memories, &Browser, &Helpers, &Routines];

/// The one that owns a call of this name here, if one does.
pub(crate) fn owner_of(chat: &Core, name: &str) -> Option<&'static dyn ChatTool> {
    CHAT_TOOLS.into_iter().find(|t| t.owns(chat, name))
}

/// The one that runs an approved action, if one does.
pub(crate) fn runner_of(action: &Action) -> Option<&'static dyn ChatTool> {
    CHAT_TOOLS.into_iter().find(|t| t.runs(action))
}

struct Artifacts;
struct Memories;
struct Browser;
struct Helpers;
struct Routines;

impl ChatTool for Artifacts {
    fn offered(&self, _: &Core) -> bool {
        true
    }
    fn specs(&self) -> Vec<ToolSpec> {
        crate::artifact::specs()
    }
    fn owns(&self, _: &Core, name: &str) -> bool {
        crate::artifact::is_artifact_tool(name)
    }
    fn classify(&self, _: &Core, call: &ToolCall) -> Result<Action, String> {
        crate::artifact::classify(&call.name, &call.input)
    }
    fn runs(&self, action: &Action) -> bool {
        matches!(action, Action::Artifact { .. })
    }
    fn run<'a>(
        &'a self,
        chat: &'a Arc<Core>,
        call: &'a ToolCall,
        _: &'a Action,
        _: &'a Cancel,
    ) -> Boxed<'a, Outcome> {
        Box::pin(crate::artifact::run(
            chat,
            &call.id,
            &call.name,
            &call.input,
        ))
    }
}

impl ChatTool for Memories {
    fn offered(&self, _: &Core) -> bool {
        true
    }
    fn specs(&self) -> Vec<ToolSpec> {
        crate::memories::specs()
    }
    fn owns(&self, _: &Core, name: &str) -> bool {
        crate::memories::is_memory_tool(name)
    }
    fn classify(&self, _: &Core, call: &ToolCall) -> Result<Action, String> {
        crate::memories::classify(&call.name, &call.input)
    }
    fn runs(&self, action: &Action) -> bool {
        matches!(action, Action::Memory { .. })
    }
    fn run<'a>(
        &'a self,
        chat: &'a Arc<Core>,
        call: &'a ToolCall,
        _: &'a Action,
        _: &'a Cancel,
    ) -> Boxed<'a, Outcome> {
        Box::pin(crate::memories::run(
            chat,
            &call.id,
            &call.name,
            &call.input,
        ))
    }
}

impl ChatTool for Browser {
    /// Only when Conch has a browser to drive.
    fn offered(&self, chat: &Core) -> bool {
        crate::browsing::browser_of(chat).is_some()
    }
    fn specs(&self) -> Vec<ToolSpec> {
        crate::browsing::specs()
    }
    fn owns(&self, _: &Core, name: &str) -> bool {
        crate::browsing::is_browser_tool(name)
    }
    fn classify(&self, chat: &Core, call: &ToolCall) -> Result<Action, String> {
        crate::browsing::classify(chat, call)
    }
    fn runs(&self, action: &Action) -> bool {
        matches!(action, Action::Browser(_))
    }
    fn run<'a>(
        &'a self,
        chat: &'a Arc<Core>,
        call: &'a ToolCall,
        action: &'a Action,
        _: &'a Cancel,
    ) -> Boxed<'a, Outcome> {
        Box::pin(crate::browsing::run(chat, call, action))
    }
}

impl ChatTool for Helpers {
    /// A helper hands no work to helpers of its own.
    fn offered(&self, chat: &Core) -> bool {
        chat.parent.is_none()
    }
    fn specs(&self) -> Vec<ToolSpec> {
        vec![crate::helper::spec()]
    }
    fn owns(&self, _: &Core, name: &str) -> bool {
        name == crate::helper::TOOL
    }
    fn classify(&self, _: &Core, call: &ToolCall) -> Result<Action, String> {
        crate::helper::task_of(&call.input).map(|task| Action::Delegate { task })
    }
    fn runs(&self, action: &Action) -> bool {
        matches!(action, Action::Delegate { .. })
    }
    fn run<'a>(
        &'a self,
        chat: &'a Arc<Core>,
        _: &'a ToolCall,
        action: &'a Action,
        cancel: &'a Cancel,
    ) -> Boxed<'a, Outcome> {
        Box::pin(async move {
            match action {
                Action::Delegate { task } => crate::helper::run(chat, task, cancel).await,
                _ => Outcome::failed("This isn't a helper's task."),
            }
        })
    }
}

impl ChatTool for Routines {
    /// A helper makes no routines.
    fn offered(&self, chat: &Core) -> bool {
        chat.parent.is_none()
    }
    fn specs(&self) -> Vec<ToolSpec> {
        vec![crate::routine::spec()]
    }
    fn owns(&self, chat: &Core, name: &str) -> bool {
        name == crate::routine::TOOL && chat.parent.is_none()
    }
    fn classify(&self, _: &Core, call: &ToolCall) -> Result<Action, String> {
        crate::routine::classify(&call.input)
    }
    fn runs(&self, action: &Action) -> bool {
        matches!(action, Action::Routine { .. })
    }
    fn run<'a>(
        &'a self,
        chat: &'a Arc<Core>,
        call: &'a ToolCall,
        _: &'a Action,
        _: &'a Cancel,
    ) -> Boxed<'a, Outcome> {
        Box::pin(crate::routine::run(chat, &call.input))
    }
}
