//! A command's changes. The box lets a command write the work folder, and
//! nothing says what it will write before it has: so before each command
//! the work folder's small files are kept (each content once: a file kept
//! before isn't read again until its size, time or inode changes), and
//! after it the ones it changed, made or removed are logged as kept, with
//! what they held before.
//!
//! Bounds: files up to 1 MB, 64 MB kept this way per chat, the walk's own
//! bounds (`work_files`). A file a command changed that wasn't kept is
//! logged with why, so the undo says it can't put it back.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use protocol::{Body, FileKept};

use super::store;
use crate::log::LogError;
use crate::state::Core;

/// The largest file kept before a command.
const LARGEST: u64 = 1 << 20;
/// The most kept before commands in one chat.
const BUDGET: u64 = 64 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    len: u64,
    modified: i128,
    ino: u64,
}

impl Stat {
    fn of(meta: &std::fs::Metadata) -> Stat {
        Stat {
            len: meta.len(),
            modified: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ino: meta.ino(),
        }
    }
}

/// What the chat knows of its work folder's files: their stat when last
/// seen, and their content's hash when kept.
#[derive(Default)]
pub(crate) struct Known {
    files: HashMap<PathBuf, (Stat, Option<String>)>,
    spent: u64,
}

/// The work folder just before a command.
pub(crate) struct Before {
    files: HashMap<PathBuf, (Stat, Option<String>)>,
    /// The work folder is the whole home (or `/`): not looked at.
    wide: bool,
}

/// Whether `work` is the person's whole home folder (or the root): too
/// much to walk twice and keep before every command, so a command's
/// changes there aren't kept (Conch's own file tools' still are).
fn too_wide(work: &Path) -> bool {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    work == Path::new("/") || home.is_some_and(|h| h.canonicalize().unwrap_or(h) == work)
}

/// Keeps the work folder's small files that changed since last seen.
pub(crate) async fn before_command(chat: &Arc<Core>) -> Before {
    let chat = chat.clone();
    if too_wide(&chat.work) {
        return Before {
            files: HashMap::new(),
            wide: true,
        };
    }
    tokio::task::spawn_blocking(move || {
        let dir = super::chat_dir(&chat);
        let mut known = chat.live.commands.lock().unwrap_or_else(|p| p.into_inner());
        let mut files = HashMap::new();
        crate::work_files::each_file(&chat.work, |path, meta| {
            let stat = Stat::of(meta);
            let hash = match known.files.get(&path) {
                Some((seen, hash)) if *seen == stat => hash.clone(),
                _ => keep(&dir, &path, stat, &mut known.spent),
            };
            files.insert(path, (stat, hash));
        });
        known.files.clone_from(&files);
        Before { files, wide: false }
    })
    .await
    .unwrap_or(Before {
        files: HashMap::new(),
        wide: false,
    })
}

fn keep(dir: &Path, path: &Path, stat: Stat, spent: &mut u64) -> Option<String> {
    if stat.len > LARGEST || *spent + stat.len > BUDGET {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let hash = store::put(dir, &bytes).ok()?;
    *spent += bytes.len() as u64;
    Some(hash)
}

/// After a command: each file it changed, made or removed, logged as kept
/// (once a turn), with what it held before.
pub(crate) async fn after_command(
    chat: &Arc<Core>,
    turn: u64,
    before: Before,
    by: &str,
) -> Result<(), LogError> {
    if before.wide {
        return Ok(());
    }
    let work = chat.work.clone();
    let changed = tokio::task::spawn_blocking(move || {
        let mut after = HashMap::new();
        crate::work_files::each_file(&work, |path, meta| {
            after.insert(path, Stat::of(meta));
        });
        let mut changed: Vec<(PathBuf, Option<Option<String>>)> = Vec::new();
        for (path, stat) in &after {
            match before.files.get(path) {
                Some((seen, _)) if seen == stat => {}
                // Changed: what it held, if it was kept.
                Some((_, hash)) => changed.push((path.clone(), hash.clone().map(Some))),
                // Made by the command: there was nothing.
                None => changed.push((path.clone(), Some(None))),
            }
        }
        for (path, (_, hash)) in &before.files {
            if !after.contains_key(path) {
                changed.push((path.clone(), hash.clone().map(Some)));
            }
        }
        changed.sort();
        changed
    })
    .await
    .unwrap_or_default();
    for (path, before) in changed {
        let path = path.to_string_lossy().into_owned();
        let fresh = chat
            .live
            .kept
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert((turn, path.clone()));
        if !fresh {
            continue;
        }
        let (before, not_kept) = match before {
            Some(before) => (before, None),
            None => (
                None,
                Some(format!(
                    "a command changed it, and Conch keeps copies before commands only of files up to {} MB, {} MB a chat",
                    LARGEST >> 20,
                    BUDGET >> 20
                )),
            ),
        };
        chat.log
            .append(Body::FileKept(FileKept {
                turn,
                path,
                before,
                by: by.to_owned(),
                not_kept,
            }))
            .await?;
    }
    Ok(())
}
