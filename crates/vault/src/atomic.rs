//! Writing a file so a crash leaves the old one or the new one, never half.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Writes `bytes` to `path` (0600): a temporary file beside it, fsync,
/// rename over, fsync the folder. The temporary file holds only `bytes`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp-{}-{}", std::process::id(), unique()));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)?;
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Writes `bytes` to `path` as [`write_atomic`] does, making its folder
/// first (0700) if it is missing: the one way Conch writes a private file.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    write_atomic(path, bytes)
}

/// Like [`write_atomic`], but never replaces a file that is there: the
/// whole file is hard-linked into place, which fails if another process
/// got there first. False then.
pub fn create_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp-{}-{}", std::process::id(), unique()));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        let made = match fs::hard_link(&temp, path) {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
            Err(e) => return Err(e),
        };
        File::open(dir)?.sync_all()?;
        Ok(made)
    })();
    let _ = fs::remove_file(&temp);
    result
}

/// Temporary files a killed writer left beside `path`: those of processes
/// that are gone (a live writer's is about to be renamed). They only ever
/// held what was being written (sealed bytes, for a sealed file).
pub fn leftovers(path: &Path) -> Vec<std::path::PathBuf> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let prefix = format!(".{}.tmp-", name.to_string_lossy());
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            let Some(rest) = file.strip_prefix(&prefix) else {
                return false;
            };
            let pid = rest.split('-').next().and_then(|p| p.parse::<i32>().ok());
            pid.is_none_or(|pid| !alive(pid))
        })
        .map(|e| e.path())
        .collect()
}

fn alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_whole_and_leaves_nothing_beside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert!(leftovers(&path).is_empty());
    }

    #[test]
    fn only_the_dead_leave_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        let mine = dir
            .path()
            .join(format!(".f.json.tmp-{}-0", std::process::id()));
        let dead = dir.path().join(".f.json.tmp-999999999-0");
        fs::write(&mine, b"x").unwrap();
        fs::write(&dead, b"x").unwrap();
        assert_eq!(leftovers(&path), vec![dead]);
    }
}
