//! One process at a time on a file of Conch's: an exclusive lock on a lock
//! file beside it (`NAME.lock`, 0600), taken before the file is read and
//! held until it has been written again (with [`crate::write_atomic`]), so
//! two changes made at once by the server and the CLI can't lose one.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Holds the lock until dropped (closing the file lets it go).
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

/// Waits for the exclusive lock on `path` (made if missing) and holds it.
pub fn lock(path: &Path) -> std::io::Result<FileLock> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(path)?;
    // SAFETY: flock on a descriptor this function owns and keeps open in
    // the guard; it blocks until the lock is free and has no other effect.
    // (std's File::lock is newer than the workspace's Rust version.)
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(FileLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_dropping_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("routines.lock");
        let held = lock(&path).unwrap();
        let other = File::options().write(true).open(&path).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(held);
        assert!(other.try_lock().is_ok());
    }
}
