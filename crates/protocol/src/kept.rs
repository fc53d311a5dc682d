//! Undo of a chat's changes: what a turn changed in the work folder, kept
//! before it changed it, and what an undo put back.
//!
//! A file's content is named by its SHA-256 (lowercase hex) and kept once
//! in the chat's folder (`kept/`); `None` means there was no file.

use serde::{Deserialize, Serialize};

/// Before a turn's first change to a file (`file.kept`): what it held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileKept {
    pub turn: u64,
    /// Resolved, as the tool that changed it saw it.
    pub path: String,
    pub before: Option<String>,
    /// The tool that was about to change it (`write_file`, an engine's
    /// `apply_patch`, `run_command`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub by: String,
    /// Why its content wasn't kept (too large, not a plain file): an undo
    /// leaves it alone and says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_kept: Option<String>,
}

/// When a turn that changed files ended (`files.left`): what it left each
/// of them holding, so an undo can tell a file changed since.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilesLeft {
    pub turn: u64,
    pub files: Vec<FileState>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileState {
    pub path: String,
    pub content: Option<String>,
}

/// An undo (`files.restored`): of a turn's changes, or of an earlier undo
/// (`undo_of`, that event's seq). Itself undoable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilesRestored {
    /// The turn whose changes were undone; for an undo of an undo, the
    /// same turn as that one.
    pub turn: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_of: Option<u64>,
    /// Each file put back: what it held before the undo, and after.
    pub restored: Vec<Restored>,
    /// Files left alone, and why, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left: Vec<LeftAlone>,
    /// Who asked: `owner` (the page), `terminal`.
    pub by: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Restored {
    pub path: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeftAlone {
    pub path: String,
    pub why: String,
}
