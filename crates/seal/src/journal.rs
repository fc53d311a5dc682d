//! The mount points a box had bubblewrap create on the host (an empty
//! folder where a key place or a start-up file could otherwise be made),
//! noted before the run so they are removed even if Conch stopped halfway:
//! the next start sweeps what a process that is gone left behind. An empty
//! folder named `.bash_profile` left in a home would change how its shell
//! starts.
//!
//! Only empty folders are ever removed, so nothing a person made is lost.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(0);

fn folder(seal: &Path) -> PathBuf {
    seal.join("created")
}

/// A note's name for one command of this process.
pub fn name(seal: &Path) -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    folder(seal).join(format!("{}-{n}", std::process::id()))
}

/// Notes `created` (nothing when there are none).
pub fn write(note: &Path, created: &[PathBuf]) -> std::io::Result<()> {
    if created.is_empty() {
        return Ok(());
    }
    if let Some(parent) = note.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut text = String::new();
    for c in created {
        text.push_str(&c.to_string_lossy());
        text.push('\n');
    }
    std::fs::write(note, text)
}

/// Removes the mount points that are still empty folders, then the note.
pub fn remove(note: &Path, created: &[PathBuf]) {
    for path in created {
        // Only ever an empty folder: remove_dir refuses anything else.
        let _ = std::fs::remove_dir(path);
    }
    let _ = std::fs::remove_file(note);
}

/// Removes what processes that are gone left behind.
pub fn sweep(seal: &Path) {
    let Ok(entries) = std::fs::read_dir(folder(seal)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid: Option<libc::pid_t> = name
            .to_str()
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse().ok());
        let Some(pid) = pid else { continue };
        // SAFETY: kill with signal 0 only checks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        if alive {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let created: Vec<PathBuf> = text.lines().map(PathBuf::from).collect();
        remove(&entry.path(), &created);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gone_process_leaves_nothing_but_what_someone_filled() {
        let dir = tempfile::tempdir().unwrap();
        let seal = dir.path().join("seal");
        let empty = dir.path().join(".bash_profile");
        let filled = dir.path().join(".config");
        std::fs::create_dir_all(&empty).unwrap();
        std::fs::create_dir_all(&filled).unwrap();
        std::fs::write(filled.join("mine"), "kept").unwrap();
        // A note by a process that is gone (pids don't reach this high), and
        // one by this process, still running.
        let gone = folder(&seal).join(format!("{}-0", i32::MAX));
        write(&gone, &[empty.clone(), filled.clone()]).unwrap();
        let mine = name(&seal);
        let running = dir.path().join(".zshenv");
        std::fs::create_dir_all(&running).unwrap();
        write(&mine, std::slice::from_ref(&running)).unwrap();
        sweep(&seal);
        assert!(!empty.exists(), "the empty placeholder was left");
        assert_eq!(
            std::fs::read_to_string(filled.join("mine")).unwrap(),
            "kept"
        );
        assert!(!gone.exists());
        assert!(
            running.exists() && mine.exists(),
            "a running process's note was swept"
        );
        remove(&mine, std::slice::from_ref(&running));
        assert!(!running.exists() && !mine.exists());
    }
}
