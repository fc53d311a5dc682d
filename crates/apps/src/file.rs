//! `apps.json` in Conch's folder: the owner's apps (how to reach each
//! server), their choices for each tool, what each tool said when it was
//! turned on (the pin), and what Conch last saw a server list. Secrets
//! (an environment variable's value, a header's) are never here: they are
//! in the sealed secrets.json, and this file names them only.
//!
//! Two processes write it (`conch apps …` and the running gateway), so
//! every change is a read-modify-write under an exclusive lock on
//! `apps.json.lock`, written atomically; readers see the old file or the
//! new one. A file that can't be read is an error with where, never
//! silently replaced.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::listed::Listed;
use crate::standing::{Choice, Pinned};

pub const APPS_FILE: &str = "apps.json";

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppsFile {
    #[serde(default)]
    pub servers: BTreeMap<String, Server>,
    /// Keys a later version wrote, kept.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "transport")]
pub enum Reach {
    /// A program Conch starts, speaking MCP on its standard input and
    /// output.
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        /// The variables it gets besides the ordinary ones: names only;
        /// their values are in secrets.json.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        env: Vec<String>,
    },
    /// A server at an address, over streamable HTTP.
    Http {
        url: String,
        /// Headers sent with every request: names only; the values are in
        /// secrets.json.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        headers: Vec<String>,
    },
}

/// One app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Server {
    #[serde(flatten)]
    pub reach: Reach,
    /// When it was added (RFC 3339).
    pub added: String,
    /// When Conch last read its list of tools; None until the first time.
    /// The first list is what the owner turned on when they added it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed: Option<String>,
    #[serde(default)]
    pub tools: BTreeMap<String, Tool>,
    /// The choice a tool gets when it is first listed (an app moved in
    /// from another assistant: Ask); None: follow the mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_tools: Option<Choice>,
    /// Not started until the owner turns it on (an app moved in from
    /// another assistant: its program runs only once they said so).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub off: bool,
}

/// One tool of an app: what the server last said, and what the owner set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// As the server listed it last; None when it no longer lists it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<Listed>,
    #[serde(default)]
    pub choice: Choice,
    /// The owner says it writes, whatever the server says.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub treat_as_write: bool,
    /// What it said when the owner turned it on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<Pinned>,
    /// When a chat last used it (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used: Option<String>,
}

#[derive(Debug)]
pub enum FileError {
    Read(PathBuf, std::io::Error),
    Invalid(PathBuf, serde_json::Error),
    Write(PathBuf, std::io::Error),
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::Read(p, e) => write!(f, "Conch couldn't read {}: {e}.", p.display()),
            FileError::Invalid(p, e) => write!(
                f,
                "{} can't be read (line {}, column {}): {e}. Fix it, or move it aside and add your connections again.",
                p.display(),
                e.line(),
                e.column()
            ),
            FileError::Write(p, e) => write!(f, "Conch couldn't save {}: {e}.", p.display()),
        }
    }
}

impl std::error::Error for FileError {}

/// The file in `home`.
pub fn path(home: &Path) -> PathBuf {
    home.join(APPS_FILE)
}

fn file(home: &Path) -> vault::JsonFile {
    vault::JsonFile::beside(path(home))
}

impl From<vault::JsonFileError> for FileError {
    fn from(e: vault::JsonFileError) -> FileError {
        match e {
            vault::JsonFileError::Read(p, e) => FileError::Read(p, e),
            vault::JsonFileError::Damaged(p, e) => FileError::Invalid(p, e),
            vault::JsonFileError::Write(p, e) => FileError::Write(p, e),
        }
    }
}

/// Reads the file; a missing one is no apps.
pub fn load(home: &Path) -> Result<AppsFile, FileError> {
    Ok(file(home).load()?)
}

/// Changes the file under its lock (`apps.json.lock`): `change` sees it as
/// it is on disk now and says what to return; the file is written only
/// when it changed.
pub fn update<T>(
    home: &Path,
    change: impl FnOnce(&mut AppsFile) -> T,
) -> Result<(T, AppsFile), FileError> {
    Ok(file(home).update(change)?)
}

/// What the file's stamp is now (length, modified time, inode): a reader
/// that cached it reads it again when this changes.
pub fn stamp(home: &Path) -> Option<(u64, std::time::SystemTime, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path(home)).ok()?;
    Some((m.len(), m.modified().ok()?, m.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_no_apps_and_other_keys_survive() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()).unwrap(), AppsFile::default());
        std::fs::write(
            path(dir.path()),
            r#"{"servers":{"mail":{"transport":"stdio","command":"mail-mcp","added":"2026-10-05T00:00:00.000Z","tools":{}}},"later":{"x":1}}"#,
        )
        .unwrap();
        let (_, f) = update(dir.path(), |f| {
            f.servers.get_mut("mail").unwrap().listed = Some("now".into());
        })
        .unwrap();
        assert_eq!(f.other["later"]["x"], 1);
        let again = load(dir.path()).unwrap();
        assert_eq!(again.other["later"]["x"], 1);
        assert_eq!(again.servers["mail"].listed.as_deref(), Some("now"));
    }

    #[test]
    fn a_broken_file_says_where_and_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(path(dir.path()), "{\n \"servers\": ,\n}").unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(update(dir.path(), |_| ()).is_err());
        assert!(std::fs::read_to_string(path(dir.path()))
            .unwrap()
            .contains("\"servers\": ,"));
    }

    #[test]
    fn two_writers_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let home = home.clone();
                std::thread::spawn(move || {
                    for j in 0..20 {
                        update(&home, |f| {
                            f.other.insert(format!("k{i}-{j}"), Value::from(j));
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(load(&home).unwrap().other.len(), 160);
    }
}
