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
    /// Making a routine: a chat that will run by itself on a schedule,
    /// with nobody there. Persistence, so it asks in every mode.
    Routine {
        /// When, as written (cron or plain English).
        schedule: String,
        /// What the routine's chat will be asked each time.
        task: String,
    },
    /// Using Conch's own browser (ADR 0028 §1): a page it opens, reads or
    /// acts on, on a site.
    Browser(BrowserAction),
}

/// What the browser is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BrowserOp {
    Open,
    Snapshot,
    Screenshot,
    Click,
    Type,
    Back,
}

impl BrowserOp {
    /// Looking at what is shown, or going where it has been: no control on
    /// a page is used.
    pub fn reads_only(self) -> bool {
        !matches!(self, BrowserOp::Click | BrowserOp::Type)
    }
}

/// One use of the browser, classified against the page as its last
/// snapshot showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowserAction {
    pub op: BrowserOp,
    /// The page it acts on; for `open` and `back`, where it goes. Empty
    /// when no page is open.
    pub url: String,
    /// That page's site: the registrable domain of its host (the host
    /// itself for an address or a name with no registrable part).
    pub site: String,
    /// The control, as the snapshot described it (`button "Send"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// A click that sends something: its name or its form's action says
    /// send, post, reply, submit, publish, pay, buy, transfer, or it
    /// submits a form. Typing sends too where the page's own script reads
    /// the field as it is typed into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Boxed: most actions send nothing, and the log's events stay small.
    pub sends: Option<Box<BrowserSend>>,
    /// Typing into a password field.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub password: bool,
    /// Text the assistant typed on this page that no click has sent yet.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub typed: bool,
}

/// Where a communication click sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowserSend {
    /// The form's action, resolved; empty when the page sends it by script
    /// (then it goes to a place the page alone knows).
    pub to: String,
    /// The site of `to` (the page's own site when `to` is empty).
    pub site: String,
    /// Its words say pay, buy, order, transfer…: it could spend money.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spends: bool,
    /// For typing that the page's own script reads: the other sites the
    /// page has sent requests to so far, where it could send what is typed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reaches: Vec<String>,
}

impl BrowserAction {
    /// Every site this acts on: the page's, and where a click sends.
    pub fn sites(&self) -> Vec<&str> {
        let mut out = Vec::new();
        if !self.op.reads_only() || matches!(self.op, BrowserOp::Open | BrowserOp::Back) {
            if !self.site.is_empty() {
                out.push(self.site.as_str());
            }
            if let Some(send) = &self.sends {
                for site in std::iter::once(&send.site).chain(&send.reaches) {
                    if !site.is_empty() && !out.contains(&site.as_str()) {
                        out.push(site.as_str());
                    }
                }
            }
        }
        out
    }
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
            Action::Routine { schedule, task } => {
                format!("make a routine that runs \"{task}\" {schedule}")
            }
            Action::Browser(b) => {
                let on = if b.site.is_empty() {
                    String::new()
                } else {
                    format!(" on {}", b.site)
                };
                let element = b.element.as_deref().unwrap_or("a control");
                match b.op {
                    BrowserOp::Open => format!("open {} in the browser", b.url),
                    BrowserOp::Snapshot => format!("read the page{on} in the browser"),
                    BrowserOp::Screenshot => format!("take a screenshot of the page{on}"),
                    BrowserOp::Click => format!("click {element}{on} in the browser"),
                    BrowserOp::Type => format!("type into {element}{on} in the browser"),
                    BrowserOp::Back => format!("go back to {} in the browser", b.url),
                }
            }
        }
    }
}
