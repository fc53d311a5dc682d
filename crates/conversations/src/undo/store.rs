//! The contents kept for undo: one file per content, named by its SHA-256,
//! in the chat's folder (`kept/`), so a file changed in every turn costs
//! one copy per version, and a version seen twice costs one.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::UndoError;

pub const KEPT_DIR: &str = "kept";
/// Larger files aren't kept (a build's output, a database): an undo says
/// it can't put them back.
pub const MAX_KEPT: u64 = 32 << 20;

pub(crate) fn hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a path holds now: `Ok(None)` when there is no file; `Err` with
/// words when it can't be kept (too large, a folder, unreadable).
pub(crate) fn now(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("it couldn't be read ({e})")),
    };
    if !meta.is_file() {
        return Err("it isn't a plain file".to_owned());
    }
    if meta.len() > MAX_KEPT {
        return Err(format!("it is larger than {} MB", MAX_KEPT >> 20));
    }
    std::fs::read(path)
        .map(Some)
        .map_err(|e| format!("it couldn't be read ({e})"))
}

fn object(chat_dir: &Path, hash: &str) -> PathBuf {
    chat_dir.join(KEPT_DIR).join(hash)
}

/// Keeps `bytes` (once) and names them.
pub(crate) fn put(chat_dir: &Path, bytes: &[u8]) -> Result<String, UndoError> {
    let name = hash(bytes);
    let to = object(chat_dir, &name);
    if to.exists() {
        return Ok(name);
    }
    let dir = chat_dir.join(KEPT_DIR);
    crate::private_file::create_private_dir(&dir).map_err(|e| UndoError::Keep(dir.clone(), e))?;
    vault::write_private(&to, bytes).map_err(|e| UndoError::Keep(to, e))?;
    Ok(name)
}

/// Keeps `bytes` like [`put`], without flushing: the caller flushes the
/// file system once for many (see `batch`).
pub(crate) fn put_unflushed(chat_dir: &Path, bytes: &[u8]) -> Result<String, UndoError> {
    let name = hash(bytes);
    let to = object(chat_dir, &name);
    if to.exists() {
        return Ok(name);
    }
    let dir = chat_dir.join(KEPT_DIR);
    crate::private_file::create_private_dir(&dir).map_err(|e| UndoError::Keep(dir.clone(), e))?;
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes))
        .and_then(|()| std::fs::rename(&tmp, &to))
        .map_err(|e| UndoError::Keep(to, e))?;
    Ok(name)
}

pub(crate) fn get(chat_dir: &Path, hash: &str) -> Result<Vec<u8>, UndoError> {
    let from = object(chat_dir, hash);
    let bytes = std::fs::read(&from).map_err(|e| UndoError::Gone(from.clone(), e))?;
    // A damaged copy is never put back in place of the owner's file.
    if self::hash(&bytes) != hash {
        return Err(UndoError::Damaged(from));
    }
    Ok(bytes)
}
