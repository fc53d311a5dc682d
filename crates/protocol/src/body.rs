//! What each kind of event says, apart from the envelope (`seq`, `id`, `at`).
//!
//! Each kind is its own struct so that a reader deserialises only the kind it
//! meets, straight from the line; fields a newer version adds are ignored on
//! read, and a kind this version doesn't know becomes [`Body::Unknown`], kept
//! on disk and skipped by folds.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How much the assistant may do without asking, chosen per chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Asks before commands and file changes.
    Ask,
    /// Accept edits: file changes in the work folder run.
    Edits,
    /// Auto: a reviewer looks before the owner is asked.
    Auto,
    /// Full trust.
    Full,
}

impl Mode {
    pub const ALL: [Mode; 4] = [Mode::Ask, Mode::Edits, Mode::Auto, Mode::Full];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Ask => "ask",
            Mode::Edits => "edits",
            Mode::Auto => "auto",
            Mode::Full => "full",
        }
    }

    pub fn parse(text: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str() == text)
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who started a chat. Only a chat the owner started has the owner in it by
/// default; the others have nobody there to answer unless the owner opens them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Owner,
    /// Started from a chat app (Telegram, Discord, Slack…).
    App,
    Routine,
    Task,
    /// A pinned app's Refresh: kept out of the chat list, and able only to
    /// update its one artifact.
    Artifact,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    Owner,
    /// Someone other than the owner, on a chat app.
    Person,
    /// A synthetic message from a routine; it carries no owner authority.
    Routine,
    /// A synthetic message from a task or helper; no owner authority either.
    Task,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatCreated {
    pub work: String,
    pub mode: Mode,
    pub origin: Origin,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// For an `artifact` chat: the one artifact it may update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
    /// For a `routine` chat: the routine this is a run of (its id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routine: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub from: Speaker,
    pub text: String,
    /// The person's name, for messages from someone other than the owner;
    /// the routine's name, for a routine's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The chat app it came through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// The owner's earlier message this one takes the place of ("Edit and
    /// resend", "Retry"): its `seq`. The earlier one and what followed it
    /// stay in the log; the model sees this one instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnStarted {
    pub engine: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The owner's apps still connecting when the turn began (after a
    /// short wait): their tools aren't in this turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_ready: Vec<String>,
}

/// Text the assistant wrote. `turn` is the `seq` of the turn's `turn.started`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub turn: u64,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCalled {
    pub turn: u64,
    /// The engine's id for the call. Engines may reuse ids, so readers pair a
    /// `tool.finished` with the latest `tool.called` of that id.
    pub call: String,
    pub tool: String,
    pub input: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolFinished {
    pub turn: u64,
    pub call: String,
    pub ok: bool,
    /// What the model is given back: the tool's output, or a sentence saying
    /// why it didn't run.
    pub output: String,
    /// Tool-specific facts for people and folds (exit code, final address…),
    /// in one spelling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<crate::ToolDetail>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EndReason {
    Done,
    Stopped,
    Error,
    /// Conch stopped while the turn was running; written when the chat next opens.
    Interrupted,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnEnded {
    pub turn: u64,
    pub reason: EndReason,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeChanged {
    pub mode: Mode,
}

/// One event's content. The `type` field on disk names the variant.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    ChatCreated(ChatCreated),
    Message(Message),
    TurnStarted(TurnStarted),
    Reply(Reply),
    ToolCalled(ToolCalled),
    ToolFinished(ToolFinished),
    TurnEnded(TurnEnded),
    ModeChanged(ModeChanged),
    PermissionRequested(PermissionRequested),
    PermissionAnswered(PermissionAnswered),
    PermissionEnded(PermissionEnded),
    Taint(Taint),
    SkillUsed(crate::skill::SkillUsed),
    SkillHoldEnded(crate::skill::SkillHoldEnded),
    Compacted(crate::skill::Compacted),
    Artifact(crate::artifact::ArtifactEvent),
    ReviewJudged(crate::review::ReviewJudged),
    Memory(crate::memory::MemoryEvent),
    MemoriesUsed(crate::memory::MemoriesUsed),
    ChatRenamed(crate::chat_meta::ChatRenamed),
    FileKept(crate::kept::FileKept),
    Cost(crate::cost::Cost),
    FilesLeft(crate::kept::FilesLeft),
    FilesRestored(crate::kept::FilesRestored),
    ChatArchived(crate::chat_meta::ChatArchived),
    ModelChanged(crate::chat_meta::ModelChanged),
    GrantRevoked(crate::chat_meta::GrantRevoked),
    /// A type this version doesn't know, or a known type whose fields it can't
    /// read. The line stays in the log as it was; folds skip it.
    Unknown {
        kind: String,
    },
}

impl Body {
    /// The `type` written on disk.
    pub fn kind(&self) -> &str {
        match self {
            Body::ChatCreated(_) => "chat.created",
            Body::Message(_) => "message",
            Body::TurnStarted(_) => "turn.started",
            Body::Reply(_) => "reply",
            Body::ToolCalled(_) => "tool.called",
            Body::ToolFinished(_) => "tool.finished",
            Body::TurnEnded(_) => "turn.ended",
            Body::ModeChanged(_) => "mode.changed",
            Body::PermissionRequested(_) => "permission.requested",
            Body::PermissionAnswered(_) => "permission.answered",
            Body::PermissionEnded(_) => "permission.ended",
            Body::Taint(_) => "taint",
            Body::SkillUsed(_) => "skill.used",
            Body::SkillHoldEnded(_) => "skill.hold.ended",
            Body::Compacted(_) => "compacted",
            Body::Artifact(_) => "artifact",
            Body::ReviewJudged(_) => "review.judged",
            Body::Memory(_) => "memory",
            Body::MemoriesUsed(_) => "memories.used",
            Body::ChatRenamed(_) => "chat.renamed",
            Body::FileKept(_) => "file.kept",
            Body::Cost(_) => "cost",
            Body::FilesLeft(_) => "files.left",
            Body::FilesRestored(_) => "files.restored",
            Body::ChatArchived(_) => "chat.archived",
            Body::ModelChanged(_) => "model.changed",
            Body::GrantRevoked(_) => "grant.revoked",
            Body::Unknown { kind } => kind,
        }
    }
}

/// How the owner answered a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Answer {
    /// Yes, this time.
    Once,
    /// Yes, and for the rest of the chat (what `always` on the question names).
    Always,
    Deny,
}

impl Answer {
    pub fn parse(text: &str) -> Option<Answer> {
        match text {
            "once" => Some(Answer::Once),
            "always" => Some(Answer::Always),
            "deny" => Some(Answer::Deny),
            _ => None,
        }
    }
}

/// The assistant asks before a call runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionRequested {
    pub turn: u64,
    /// The question's id: what an answer names.
    pub ask: String,
    pub call: String,
    pub tool: String,
    pub action: crate::Action,
    /// The rule ids that caused the question.
    pub why: Vec<String>,
    /// The question, in words.
    pub question: String,
    /// Why it is checking, when a mark or hold is behind it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What "Always allow" would let through for the rest of the chat;
    /// absent when it isn't offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always: Option<Vec<String>>,
    /// The narrower choice for a command: the same keys, for this command's
    /// program (and subcommand) only (`run_command@git push`); absent when
    /// it isn't offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub narrow: Option<Vec<String>>,
    /// Where each part of the request came from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provenance: Vec<Provenance>,
    /// What the chat is told when someone else's words are in it: the owner
    /// was asked, not them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub told: Option<String>,
    /// The question is asked because the chat read something (an
    /// `after-reading` rule is among `why`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub after_reading: bool,
}

/// Where one part of a request (an address, a path, a word of a command)
/// came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    pub part: String,
    /// `address`, `host`, `path`, `word`, `value`.
    pub kind: String,
    /// `owner` (word for word in the owner's own messages), `read` (in
    /// something the chat read), or `nowhere` (the model made it up).
    pub from: String,
    /// The call whose result held it, for `read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// What that was: a host, a tool, a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionAnswered {
    pub ask: String,
    pub answer: Answer,
    /// Who answered: `owner`, `key:<name>`, or `mode` when a mode change
    /// made the question moot.
    pub by: String,
    /// An `always` for the narrower choice (the question's `narrow`), not
    /// the tool's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub narrow: bool,
}

/// A question that ended without an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionEnded {
    pub ask: String,
    /// `stopped` (Stop was pressed) or `restart` (Conch restarted).
    pub reason: String,
}

/// Where something from outside came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MarkSource {
    /// A page read (web_fetch, the browser).
    Page,
    /// Web search results.
    Search,
    /// A command that downloads (curl, wget, an address).
    Download,
    /// An integration's tool result.
    Integration,
    /// A message from someone other than the owner.
    Person,
    /// Carried in from another chat (a helper's, the chat a helper came
    /// from, or the chat that wrote a memory this chat uses).
    Carried,
}

/// The chat took in something from outside.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Taint {
    pub source: MarkSource,
    /// What it was: the host, the tool, the person.
    pub what: String,
    /// The tool call that made it, when a call did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// The quiet line the transcript shows, on the chat's first mark only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub says: Option<String>,
    /// For a carried mark: the chat it was carried from (a helper's, the
    /// chat a helper came from, or the chat that wrote a memory this chat
    /// uses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// For a mark that came with a file (the ledger's): that file's path,
    /// so the owner can clear it from the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}
