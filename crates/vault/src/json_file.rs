//! One JSON file of Conch's that the server and the CLI both change: read
//! whole, changed under an exclusive lock on `NAME.lock` beside it, and
//! written back atomically (0600), so two changes made at once can't lose
//! one and a crash leaves the old file or the new one. A missing file is
//! the empty value; a damaged one is an error that names it, and is never
//! written over.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{lock, write_atomic, FileLock};

/// Why a JSON file couldn't be read or written.
#[derive(Debug)]
pub enum JsonFileError {
    Read(PathBuf, std::io::Error),
    /// It is there but isn't what Conch wrote (or was cut off).
    Damaged(PathBuf, serde_json::Error),
    Write(PathBuf, std::io::Error),
}

impl std::fmt::Display for JsonFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonFileError::Read(p, e) => write!(f, "Conch couldn't read {}: {e}.", p.display()),
            JsonFileError::Damaged(p, e) => write!(
                f,
                "{} can't be read (line {}, column {}): {e}. Fix it, or move it aside.",
                p.display(),
                e.line(),
                e.column()
            ),
            JsonFileError::Write(p, e) => write!(f, "Conch couldn't save {}: {e}.", p.display()),
        }
    }
}

impl std::error::Error for JsonFileError {}

/// A JSON file and its lock file.
#[derive(Debug, Clone)]
pub struct JsonFile {
    path: PathBuf,
    lock: PathBuf,
}

impl JsonFile {
    /// `path`, locked by `lock` (a file beside it, made 0600 when first
    /// needed).
    pub fn new(path: PathBuf, lock: PathBuf) -> JsonFile {
        JsonFile { path, lock }
    }

    /// `path`, locked by `path` with `.lock` added to its name.
    pub fn beside(path: PathBuf) -> JsonFile {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        let lock = path.with_file_name(name);
        JsonFile { path, lock }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The value as it is on disk; the empty value when there is no file.
    pub fn load<T: DeserializeOwned + Default>(&self) -> Result<T, JsonFileError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| JsonFileError::Damaged(self.path.clone(), e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
            Err(e) => Err(JsonFileError::Read(self.path.clone(), e)),
        }
    }

    /// Waits for the lock, held until dropped.
    pub fn lock(&self) -> Result<FileLock, JsonFileError> {
        lock(&self.lock).map_err(|e| JsonFileError::Write(self.lock.clone(), e))
    }

    /// Writes `value` whole (pretty, with a final newline). Hold the lock.
    pub fn save<T: Serialize>(&self, value: &T, _held: &FileLock) -> Result<(), JsonFileError> {
        let mut text = serde_json::to_vec_pretty(value)
            .map_err(|e| JsonFileError::Write(self.path.clone(), std::io::Error::other(e)))?;
        text.push(b'\n');
        write_atomic(&self.path, &text).map_err(|e| JsonFileError::Write(self.path.clone(), e))
    }

    /// Changes the value under the lock: `change` sees it as it is on disk
    /// now and says what to return; the file is written only when the
    /// value changed. The result, and the value as written.
    pub fn update<T, R>(&self, change: impl FnOnce(&mut T) -> R) -> Result<(R, T), JsonFileError>
    where
        T: Serialize + DeserializeOwned + Default + Clone + PartialEq,
    {
        let held = self.lock()?;
        let mut value: T = self.load()?;
        let before = value.clone();
        let out = change(&mut value);
        if value != before {
            self.save(&value, &held)?;
        }
        Ok((out, value))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn changes_made_at_once_are_all_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = JsonFile::beside(dir.path().join("routines.json"));
        std::thread::scope(|s| {
            for t in 0..8 {
                let file = &file;
                s.spawn(move || {
                    for i in 0..25 {
                        file.update(|m: &mut BTreeMap<String, u32>| {
                            m.insert(format!("{t}-{i}"), i);
                        })
                        .unwrap();
                    }
                });
            }
        });
        let all: BTreeMap<String, u32> = file.load().unwrap();
        assert_eq!(all.len(), 200);
    }

    #[test]
    fn a_damaged_file_is_named_and_never_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bridges.json");
        std::fs::write(&path, b"{\"telegram\": {").unwrap();
        let file = JsonFile::beside(path.clone());
        let err = file
            .update(|m: &mut BTreeMap<String, u32>| m.insert("x".into(), 1))
            .unwrap_err();
        assert!(
            err.to_string().contains("bridges.json can't be read"),
            "{err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"telegram\": {");
    }

    #[test]
    fn a_missing_file_is_empty_and_an_unchanged_value_isnt_written() {
        let dir = tempfile::tempdir().unwrap();
        let file = JsonFile::beside(dir.path().join("apps.json"));
        let (_, v) = file.update(|_: &mut BTreeMap<String, u32>| ()).unwrap();
        assert!(v.is_empty());
        assert!(!file.path().exists());
    }
}
