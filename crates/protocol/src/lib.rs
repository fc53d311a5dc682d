//! The chat log's vocabulary: the events every part of Conch writes and reads,
//! and the pure folds over them.
//!
//! A chat's log is the single source of truth. Everything a reader wants to know
//! about a chat (its mode, whether a turn is running, later its marks and holds)
//! is a fold over these events, computed the same way by every reader. This crate
//! does no I/O so that the folds can be tested exhaustively and run anywhere.

mod action;
pub mod activity;
mod artifact;
mod body;
mod chat_meta;
mod cost;
mod download;
mod event;
mod fold;
mod kept;
mod line;
mod line_fast;
pub mod memory;
mod review;
pub mod seen;
pub mod shell;
mod skill;
mod time;
pub mod title;
mod tool_detail;
mod tool_spec;

pub use action::{Action, BrowserAction, BrowserOp, BrowserSend, MemoryOp};
pub use activity::{ActivityChange, ActivityFold, ActivityKind, ActivityRow};
pub use artifact::{ArtifactAction, ArtifactEvent};
pub use body::{
    Answer, Body, ChatCreated, EndReason, MarkSource, Message, Mode, ModeChanged, Origin,
    PermissionAnswered, PermissionEnded, PermissionRequested, Provenance, Reply, Speaker, Taint,
    ToolCalled, ToolFinished, TurnEnded, TurnStarted,
};
pub use chat_meta::{grant_words, ChatArchived, ChatRenamed, GrantRevoked, ModelChanged};
pub use cost::Cost;
pub use download::{
    download_host, git_subcommand, is_download, is_remote, only_exempt_fetches,
    was_download_before_2026_10_04,
};
pub use event::Event;
pub use fold::{skill_holds, Hold};
pub use fold::{ChatView, Grant, Mark, OpenTurn, PendingAsk};
pub use kept::{FileKept, FileState, FilesLeft, FilesRestored, LeftAlone, Restored};
pub use line::LineError;
pub use memory::{MemoriesUsed, MemoryAction, MemoryEvent, MemoryReason, UsedMemory};
pub use review::{ReviewJudged, ReviewOutcome};
pub use skill::{
    Compacted, FileAccess, SkillBy, SkillHoldEnded, SkillPermissions, SkillUsed, WebAccess,
};
pub use time::{format_rfc3339, parse_rfc3339};
pub use tool_detail::ToolDetail;
pub use tool_spec::ToolSpec;
