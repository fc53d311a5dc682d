//! Putting many files back with one flush: each new content is written
//! beside its file (and each current content kept), then the file systems
//! holding them are flushed once (`syncfs`), and only then is each renamed
//! into place and its folder flushed. A crash leaves every file old or
//! new, never half written, and a kept copy on disk before the file it
//! came from changed; a thousand files cost one flush, not a thousand.

use std::collections::HashSet;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// One file's change: the content it gets (none: removed).
pub(crate) struct Change {
    pub path: PathBuf,
    pub content: Option<Vec<u8>>,
}

fn staged_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.conch-undo"))
}

fn stage(change: &Change) -> std::io::Result<Option<PathBuf>> {
    let Some(bytes) = &change.content else {
        return Ok(None);
    };
    if let Some(dir) = change.path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let staged = staged_name(&change.path);
    let mode = std::fs::metadata(&change.path).map_or(0o644, |m| m.permissions().mode());
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(&staged)?;
    file.write_all(bytes)?;
    file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    Ok(Some(staged))
}

/// Flushes every file system `places` are on, once each.
pub(crate) fn flush(places: impl IntoIterator<Item = PathBuf>) -> std::io::Result<()> {
    let mut devices = HashSet::new();
    for place in places {
        let Ok(meta) = std::fs::metadata(&place) else {
            continue;
        };
        if !devices.insert(meta.dev()) {
            continue;
        }
        let file = std::fs::File::open(&place)?;
        use std::os::fd::AsRawFd;
        // SAFETY: syncfs takes a file descriptor we own and keep open for
        // the call; it touches no memory of ours.
        if unsafe { libc::syncfs(file.as_raw_fd()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Applies `changes`; each one's outcome, in order. `also` are places
/// whose file systems must be flushed with them (where the kept copies
/// are).
pub(crate) fn apply(changes: &[Change], also: &[PathBuf]) -> Vec<std::io::Result<()>> {
    let staged: Vec<std::io::Result<Option<PathBuf>>> = changes.iter().map(stage).collect();
    let places = changes
        .iter()
        .filter_map(|c| c.path.parent().map(Path::to_path_buf))
        .chain(also.iter().cloned());
    if let Err(e) = flush(places) {
        // Nothing is renamed without its content on disk.
        for s in staged.iter().flatten().flatten() {
            let _ = std::fs::remove_file(s);
        }
        return changes
            .iter()
            .map(|_| Err(std::io::Error::new(e.kind(), e.to_string())))
            .collect();
    }
    let mut dirs = HashSet::new();
    let done: Vec<std::io::Result<()>> = changes
        .iter()
        .zip(staged)
        .map(|(change, staged)| {
            let result = match staged? {
                Some(staged) => std::fs::rename(&staged, &change.path),
                None => match std::fs::remove_file(&change.path) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                    other => other,
                },
            };
            if let Some(dir) = change.path.parent() {
                dirs.insert(dir.to_path_buf());
            }
            result
        })
        .collect();
    for dir in dirs {
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
    }
    done
}
