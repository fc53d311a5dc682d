//! Stop everything (issue 37): one owner-only act, from the web page, a
//! terminal (`conch stop`) or the owner's own chat app (`/stop`). It ends
//! every running turn (its engine, command, browser action and questions,
//! which end "stopped before it was answered"), and from then on nothing
//! starts: a message is refused with what to do, a routine that comes due
//! doesn't run. It is kept in `stopped.json` (`conch.stopped`), so it
//! holds across a restart, until the owner resumes.
//!
//! A damaged `stopped.json` counts as stopped: the owner said stop, and a
//! file that can't be read mustn't undo that.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

pub const STOPPED_FILE: &str = "stopped.json";

/// When and by whom everything was stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopped {
    /// Always `conch.stopped`.
    #[serde(rename = "type")]
    pub kind: String,
    pub at: String,
    /// `owner` (the page), `owner:telegram`, `terminal`.
    pub by: String,
}

pub struct Halt {
    path: PathBuf,
    now: Mutex<Option<Stopped>>,
}

/// What the file says: None when there is none.
pub fn read(path: &Path) -> Option<Stopped> {
    match std::fs::read(path) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).unwrap_or_else(|_| Stopped {
            kind: "conch.stopped".into(),
            at: String::new(),
            by: "unknown (stopped.json couldn't be read)".into(),
        })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) => Some(Stopped {
            kind: "conch.stopped".into(),
            at: String::new(),
            by: "unknown (stopped.json couldn't be read)".into(),
        }),
    }
}

/// Writes the file: what `conch stop` does, and the page's Stop all.
pub fn write(root: &Path, by: &str) -> std::io::Result<Stopped> {
    let stopped = Stopped {
        kind: "conch.stopped".into(),
        at: protocol::format_rfc3339(std::time::SystemTime::now()),
        by: by.to_owned(),
    };
    let bytes = serde_json::to_vec_pretty(&stopped).map_err(std::io::Error::other)?;
    vault::write_private(&root.join(STOPPED_FILE), &bytes)?;
    Ok(stopped)
}

/// Removes the file: what `conch resume` does.
pub fn remove(root: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(root.join(STOPPED_FILE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

impl Halt {
    pub fn load(root: &Path) -> Halt {
        let path = root.join(STOPPED_FILE);
        let now = read(&path);
        Halt {
            path,
            now: Mutex::new(now),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Stopped>> {
        self.now.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn get(&self) -> Option<Stopped> {
        self.lock().clone()
    }

    pub(crate) fn set(&self, stopped: Stopped) {
        *self.lock() = Some(stopped);
    }

    pub(crate) fn clear(&self) {
        *self.lock() = None;
    }

    /// The file as it is now (a terminal may have written or removed it).
    pub(crate) fn on_disk(&self) -> Option<Stopped> {
        read(&self.path)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // A test's panic is the test failing.
    use super::*;

    #[test]
    fn a_damaged_stopped_file_still_stops() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(STOPPED_FILE), b"{\"type\": \"conch.st").unwrap();
        let halt = Halt::load(dir.path());
        assert!(halt.get().unwrap().by.contains("couldn't be read"));
    }

    #[test]
    fn stop_and_resume_are_kept_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Halt::load(dir.path()).get().is_none());
        let written = write(dir.path(), "terminal").unwrap();
        assert_eq!(written.kind, "conch.stopped");
        assert_eq!(Halt::load(dir.path()).get(), Some(written));
        remove(dir.path()).unwrap();
        remove(dir.path()).unwrap();
        assert!(Halt::load(dir.path()).get().is_none());
    }
}
