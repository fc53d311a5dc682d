//! What tells one version of a file from the next, so the gateway reads a
//! file again when the terminal changed it (`conch keys`, `conch sessions`,
//! `conch providers add`).
//!
//! mtime alone is too coarse (two writes in one clock tick look alike);
//! every write is a new file renamed into place, so the inode changes, and
//! the size usually does too.

use std::path::Path;
use std::time::SystemTime;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    ino: u64,
    size: u64,
    modified: Option<SystemTime>,
}

/// The file's stamp now; `None` when it doesn't exist.
pub fn stamp(path: &Path) -> Option<FileStamp> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some(FileStamp {
        ino: meta.ino(),
        size: meta.len(),
        modified: meta.modified().ok(),
    })
}
