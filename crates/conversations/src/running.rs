//! `run/serve.lock`: says a Conch is serving this folder, and which.
//!
//! `conch serve` holds an flock on it for as long as it runs and writes its
//! process id and address into it. The flock, not the file, is what counts:
//! the kernel lets go of it when the process ends however it ends, so a
//! lock file left by a Conch that was killed is stale by definition (the
//! file is there, nobody holds it), and `conch doctor --repair` removes it.
//! A restore into this folder is refused while the lock is held.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::private_file::create_private_dir;

pub const LOCK_FILE: &str = "run/serve.lock";

/// Held while this process serves the folder; removed when dropped.
pub struct ServeLock {
    path: PathBuf,
    _file: File,
}

impl Drop for ServeLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn lock(file: &File, how: libc::c_int) -> bool {
    // SAFETY: flock on a descriptor we own; released when it closes.
    unsafe { libc::flock(file.as_raw_fd(), how | libc::LOCK_NB) == 0 }
}

/// Takes the lock for this process, writing what it serves on. Err with
/// the other Conch's process id when one holds it.
pub fn take(home: &Path, listen: &str) -> Result<ServeLock, String> {
    let path = home.join(LOCK_FILE);
    if let Some(dir) = path.parent() {
        create_private_dir(dir).map_err(|e| e.to_string())?;
    }
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| e.to_string())?;
    if !lock(&file, libc::LOCK_EX) {
        return Err(said_pid(&mut file).unwrap_or_default());
    }
    let _ = file.set_len(0);
    let _ = writeln!(file, "{} {listen}", std::process::id());
    let _ = file.sync_all();
    Ok(ServeLock { path, _file: file })
}

fn said_pid(file: &mut File) -> Option<String> {
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    text.split_whitespace().next().map(str::to_owned)
}

/// What the lock file says now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Serving {
    /// No lock file.
    No,
    /// A Conch is serving this folder (its process id, as written).
    Yes(String),
    /// A lock file nobody holds: left by a Conch that was killed.
    Stale(String),
}

/// The address the Conch serving this folder listens on, as it wrote it
/// (`127.0.0.1:7777`), when one is serving it now.
pub fn address(home: &Path) -> Option<String> {
    let mut file = File::open(home.join(LOCK_FILE)).ok()?;
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    if lock(&file, libc::LOCK_SH) {
        // Nobody holds it: what it says is stale.
        return None;
    }
    text.split_whitespace().nth(1).map(str::to_owned)
}

pub fn serving(home: &Path) -> Serving {
    let path = home.join(LOCK_FILE);
    let Ok(mut file) = File::open(&path) else {
        return Serving::No;
    };
    let pid = said_pid(&mut file).unwrap_or_default();
    if lock(&file, libc::LOCK_SH) {
        Serving::Stale(pid)
    } else {
        Serving::Yes(pid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_while_serving_and_stale_after() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(serving(dir.path()), Serving::No);
        let held = take(dir.path(), "127.0.0.1:7777").unwrap();
        assert_eq!(
            serving(dir.path()),
            Serving::Yes(std::process::id().to_string())
        );
        assert!(take(dir.path(), "x").is_err());
        assert_eq!(address(dir.path()).as_deref(), Some("127.0.0.1:7777"));
        // A killed Conch leaves the file and lets go of the lock.
        std::mem::forget(held);
        let path = dir.path().join(LOCK_FILE);
        let copy = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, copy).unwrap();
        assert!(matches!(serving(dir.path()), Serving::Stale(_)));
        assert_eq!(address(dir.path()), None, "a stale file names nobody");
    }
}
