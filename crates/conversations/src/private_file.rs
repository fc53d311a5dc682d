//! Files and folders only the owner can read: folders 0700, files 0600, and
//! whole-file writes that are atomic (temp file, fsync, rename, fsync the
//! folder), so a crash leaves the old file or the new one, never half.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Creates `dir` and its missing parents as 0700. An existing folder is left as it is.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Opens `path` for appending, creating it 0600.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

/// Replaces `path` with `bytes`, atomically, as 0600: the vault's one
/// private write.
pub use vault::write_private;

/// Makes a folder's entries (a new or renamed file in it) durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The permission bits of `path` that let someone other than the owner in.
pub fn open_to_others(path: &Path) -> io::Result<Option<u32>> {
    let mode = fs::metadata(path)?.permissions().mode() & 0o777;
    Ok((mode & 0o077 != 0).then_some(mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_private_and_replace_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("owner.json");
        write_private(&path, b"first").unwrap();
        write_private(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        assert_eq!(open_to_others(&path).unwrap(), None);
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp file is left behind");
    }

    #[test]
    fn folders_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("a/b");
        create_private_dir(&inner).unwrap();
        assert_eq!(open_to_others(&inner).unwrap(), None);
        fs::set_permissions(&inner, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(open_to_others(&inner).unwrap(), Some(0o755));
    }
}
