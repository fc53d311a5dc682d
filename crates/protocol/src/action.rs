//! What a tool call does, classified once, before anything judges it. The
//! guard sees only this, never the raw input, so every engine's call is
//! judged the same way.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Action {
    /// Reading, listing or searching files: runs in every mode.
    LookAround { paths: Vec<String> },
    /// Writing or editing a file. `path` is resolved (symlinks, `..`);
    /// `inside` says whether it is in the chat's work folder.
    FileChange {
        path: String,
        inside: bool,
        /// Why what is written here runs later by itself (a git hook, CI,
        /// a shell's start-up file, `package.json`'s scripts), when it does:
        /// such a change asks in every mode.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        runs_later: Option<String>,
    },
    /// A shell command, with the programs it runs (first word of each part,
    /// after wrappers like `env` or `sudo`). `unsealed` when it would run with
    /// the person's full access rather than in the box.
    Command {
        command: String,
        programs: Vec<String>,
        unsealed: bool,
        /// The model asked to leave the box (`dangerouslyDisableSandbox`).
        #[serde(default)]
        leaves_box: bool,
    },
    /// Reading a page.
    PageRead { url: String, host: String },
    /// A web search: reading, through the search backend.
    Search { query: String },
    /// A request that sends something out (not a plain page read).
    FetchSends { url: String, host: String },
    /// A tool of an app the owner connected.
    Integration { tool: String, read_only: bool },
    /// Loading a skill's instructions (or one of its files) into the chat.
    UseSkill { skill: String },
    /// Handing a task to a helper: its own chat, held and marked as this
    /// one is, whose own steps are judged there.
    Delegate { task: String },
    /// Making or updating something beside the chat (a sealed page, a
    /// chart, a document…) in Conch's own store: nothing on the computer or
    /// the network changes.
    Artifact {
        /// The artifact being updated; absent when one is made.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        artifact: Option<String>,
        /// `html`, `markdown`, `svg`, `mermaid`, `chart` or `table`.
        what: String,
    },
    /// Remembering, forgetting or recalling in Conch's own memories: what
    /// it writes is checked and may be held (ADR 0028 §3).
    Memory {
        op: MemoryOp,
        /// The text to remember, the memory's id, or the query.
        what: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryOp {
    Remember,
    Forget,
    Recall,
}

impl MemoryOp {
    /// Only recall leaves the memories as they were.
    pub fn reads_only(self) -> bool {
        self == MemoryOp::Recall
    }
}

impl Action {
    /// A command, with the programs it runs read from its text.
    pub fn command(command: &str, unsealed: bool, leaves_box: bool) -> Action {
        Action::Command {
            command: command.to_owned(),
            programs: crate::shell::programs(command),
            unsealed,
            leaves_box,
        }
    }

    pub fn is_command(&self) -> bool {
        matches!(self, Action::Command { .. })
    }

    /// A short plain description, for questions and Activity.
    pub fn describe(&self) -> String {
        match self {
            Action::LookAround { paths } => format!("look at {}", paths.join(", ")),
            Action::FileChange { path, .. } => format!("change the file {path}"),
            Action::Command { command, .. } => format!("run the command `{command}`"),
            Action::PageRead { url, .. } => format!("read the page {url}"),
            Action::Search { query } => format!("search the web for \"{query}\""),
            Action::FetchSends { url, .. } => format!("send a request to {url}"),
            Action::Integration { tool, .. } => format!("use {tool}"),
            Action::UseSkill { skill } => format!("use the {skill} skill"),
            Action::Delegate { task } => format!("hand a helper the task \"{task}\""),
            Action::Artifact {
                artifact: None,
                what,
            } => format!("make a {what} beside the chat"),
            Action::Artifact {
                artifact: Some(id), ..
            } => format!("update the artifact {id}"),
            Action::Memory {
                op: MemoryOp::Remember,
                what,
            } => format!("remember \"{what}\""),
            Action::Memory {
                op: MemoryOp::Forget,
                what,
            } => format!("forget the memory {what}"),
            Action::Memory {
                op: MemoryOp::Recall,
                what,
            } => format!("look through memories for \"{what}\""),
        }
    }
}
