//! The contents kept for undo: one file per content, named by its SHA-256,
//! in the chat's folder (`kept/`), so a file changed in every turn costs
//! one copy per version, and a version seen twice costs one.

use std::io::Write;
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

pub(crate) fn get(chat_dir: &Path, hash: &str) -> Result<Vec<u8>, UndoError> {
    let from = object(chat_dir, hash);
    let bytes = std::fs::read(&from).map_err(|e| UndoError::Gone(from.clone(), e))?;
    // A damaged copy is never put back in place of the owner's file.
    if self::hash(&bytes) != hash {
        return Err(UndoError::Damaged(from));
    }
    Ok(bytes)
}

/// Puts `content` at `path` (none: removes it), through a file beside it
/// renamed into place, so a crash leaves the old file or the new one. The
/// file's permissions are kept.
pub(crate) fn put_back(path: &Path, content: Option<&[u8]>) -> std::io::Result<()> {
    let Some(bytes) = content else {
        return match std::fs::remove_file(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        };
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.conch-undo"));
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    if let Ok(meta) = std::fs::metadata(path) {
        file.set_permissions(meta.permissions())?;
    }
    file.sync_data()?;
    std::fs::rename(&tmp, path)
}
