//! Undo of a chat's changes. Before a turn's first change to a file in the
//! work folder, through Conch's own file tools or an engine's edit or patch,
//! the file's content is kept (`store`, deduplicated by hash) and the log
//! says so (`file.kept`); when the turn ends, what it left each file
//! holding is written down (`files.left`). An undo (`restore`) puts each
//! file back as it was, unless it changed since, and is itself logged
//! (`files.restored`) and undoable.
//!
//! A command's changes are found by looking at the work folder before and
//! after it (`commands`). Not kept: files over 32 MB (1 MB for a command).

mod batch;
pub(crate) mod commands;
mod restore;
pub mod store;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use protocol::{Body, FileKept, FileState, FilesLeft};

pub use restore::{undo, Target};

use crate::log::LogError;
use crate::state::Core;

#[derive(Debug)]
pub enum UndoError {
    /// The turn changed no file Conch kept.
    Nothing(u64),
    NoChanges,
    NotAnUndo(u64),
    Keep(PathBuf, std::io::Error),
    Gone(PathBuf, std::io::Error),
    Damaged(PathBuf),
    Log(LogError),
}

impl std::fmt::Display for UndoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UndoError::Nothing(turn) => write!(
                f,
                "Turn {turn} of this chat changed no file Conch kept, so there is nothing to undo."
            ),
            UndoError::NoChanges => f.write_str(
                "This chat hasn't changed any file Conch kept, so there is nothing to undo.",
            ),
            UndoError::NotAnUndo(seq) => write!(f, "Event {seq} of this chat isn't an undo."),
            UndoError::Keep(path, e) => {
                write!(f, "Conch couldn't keep a copy in {} ({e}).", path.display())
            }
            UndoError::Gone(path, e) => {
                write!(f, "The kept copy {} can't be read ({e}).", path.display())
            }
            UndoError::Damaged(path) => write!(
                f,
                "The kept copy {} is damaged, so it wasn't put back.",
                path.display()
            ),
            UndoError::Log(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for UndoError {}

impl From<LogError> for UndoError {
    fn from(e: LogError) -> Self {
        UndoError::Log(e)
    }
}

fn chat_dir(chat: &Core) -> PathBuf {
    chat.log
        .path()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Keeps what `paths` hold before a turn's first change to each (those in
/// the work folder), and logs it. A copy that can't be made is logged
/// with why, and the change still goes ahead: the undo will say so.
pub(crate) async fn before_change(
    chat: &Arc<Core>,
    turn: u64,
    paths: Vec<String>,
    by: &str,
) -> Result<(), LogError> {
    let fresh: Vec<String> = {
        let mut kept = chat.live.kept.lock().unwrap_or_else(|p| p.into_inner());
        paths
            .into_iter()
            .filter(|p| Path::new(p).starts_with(&chat.work))
            .filter(|p| kept.insert((turn, p.clone())))
            .collect()
    };
    if fresh.is_empty() {
        return Ok(());
    }
    let dir = chat_dir(chat);
    let by = by.to_owned();
    let events = tokio::task::spawn_blocking(move || {
        fresh
            .into_iter()
            .map(|path| {
                let (before, not_kept) = match store::now(Path::new(&path)) {
                    Ok(None) => (None, None),
                    Ok(Some(bytes)) => match store::put(&dir, &bytes) {
                        Ok(hash) => (Some(hash), None),
                        Err(e) => (None, Some(e.to_string())),
                    },
                    Err(why) => (None, Some(why)),
                };
                FileKept {
                    turn,
                    path,
                    before,
                    by: by.clone(),
                    not_kept,
                }
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap_or_default();
    for kept in events {
        chat.log.append(Body::FileKept(kept)).await?;
    }
    Ok(())
}

/// When a turn ends: what it left each file it changed holding.
pub(crate) async fn turn_ended(chat: &Arc<Core>, turn: u64) -> Result<(), LogError> {
    let paths: Vec<String> = {
        let mut kept = chat.live.kept.lock().unwrap_or_else(|p| p.into_inner());
        let mine: Vec<String> = kept
            .iter()
            .filter(|(t, _)| *t == turn)
            .map(|(_, p)| p.clone())
            .collect();
        kept.retain(|(t, _)| *t != turn);
        mine
    };
    if paths.is_empty() {
        return Ok(());
    }
    let mut files = tokio::task::spawn_blocking(move || {
        paths
            .into_iter()
            .filter_map(|path| {
                let content = store::now(Path::new(&path)).ok()?.map(|b| store::hash(&b));
                Some(FileState { path, content })
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap_or_default();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    chat.log
        .append(Body::FilesLeft(FilesLeft { turn, files }))
        .await?;
    Ok(())
}
