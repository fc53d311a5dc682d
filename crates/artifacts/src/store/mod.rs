//! The store: `artifacts/<id>/artifact.json` says what the artifact is;
//! `v<n>.<ext>` holds each version exactly as it was. 30 versions are kept,
//! the first always among them. Everything is written atomically, the
//! version before the description, so a crash leaves a readable artifact.
//! A damaged or missing `artifact.json` is rebuilt from the version files,
//! with a healing note (heal.rs).

mod heal;
mod write;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::kind::Kind;

pub const META_FILE: &str = "artifact.json";
/// Versions kept: the first, and the latest 29.
pub const KEEP: usize = 30;

/// How a version came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum By {
    Made,
    Updated,
    Refreshed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Version {
    pub n: u32,
    pub at: String,
    pub by: By,
    /// The static check found a way out: served without scripts until
    /// Run it anyway.
    pub navigates: bool,
    /// Why, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<String>,
    pub chars: usize,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    pub id: String,
    pub kind: Kind,
    pub title: String,
    /// The chat it was made in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat: Option<String>,
    /// The owner's words it was made for: what a refresh asks again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    pub created: String,
    pub updated: String,
    /// The newest version's number.
    pub latest: u32,
    /// The versions kept, oldest first.
    pub versions: Vec<Version>,
    #[serde(default)]
    pub pinned: bool,
    /// What the chats that made or changed it had read, in words ("read
    /// news.example", "Eve on telegram's words"): its Refresh chats start
    /// marked with them. Only ever added to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<String>,
    /// Set when artifact.json had to be rebuilt: what happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub healed: Option<String>,
    /// Fields a newer Conch wrote, kept as they are.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl Artifact {
    pub fn version(&self, n: u32) -> Option<&Version> {
        self.versions.iter().find(|v| v.n == n)
    }

    pub fn newest(&self) -> Option<&Version> {
        self.versions.last()
    }

    /// The version before `n` that is still kept.
    pub fn before(&self, n: u32) -> Option<&Version> {
        self.versions.iter().rev().find(|v| v.n < n)
    }
}

#[derive(Debug)]
pub enum StoreError {
    NotFound(String),
    NoVersion(String, u32),
    /// The content doesn't fit its kind: the sentence for the model.
    Content(String),
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::NotFound(id) => write!(f, "There's no artifact \"{id}\"."),
            StoreError::NoVersion(id, n) => write!(
                f,
                "Artifact \"{id}\" has no version {n} (only the first and the latest {} are kept).",
                KEEP - 1
            ),
            StoreError::Content(sentence) => f.write_str(sentence),
            StoreError::Io(p, e) => write!(f, "{} can't be read or written: {e}.", p.display()),
        }
    }
}

impl std::error::Error for StoreError {}

/// An id is safe as a folder name and in a URL.
pub fn valid_id(id: &str) -> bool {
    (8..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// The artifacts of one home.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    /// `root` is `<home>/artifacts`.
    pub fn new(root: &Path) -> Store {
        Store {
            root: root.to_path_buf(),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn dir(&self, id: &str) -> Result<PathBuf, StoreError> {
        if !valid_id(id) {
            return Err(StoreError::NotFound(id.chars().take(64).collect()));
        }
        Ok(self.root.join(id))
    }

    fn version_path(dir: &Path, kind: Kind, n: u32) -> PathBuf {
        dir.join(format!("v{n}.{}", kind.ext()))
    }

    /// The artifact, healed first if its description is damaged or gone.
    pub fn get(&self, id: &str) -> Result<Artifact, StoreError> {
        let dir = self.dir(id)?;
        heal::load(&dir, id)
    }

    /// Every artifact, newest change first. One that can't be read even by
    /// healing is left out (and stays on disk as it is).
    pub fn list(&self) -> Vec<Artifact> {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return Vec::new();
        };
        let mut all: Vec<Artifact> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| {
                let id = e.file_name().to_string_lossy().into_owned();
                self.get(&id).ok()
            })
            .collect();
        all.sort_by(|a, b| b.updated.cmp(&a.updated));
        all
    }

    /// One version's text, exactly as it was made.
    pub fn text(&self, id: &str, n: u32) -> Result<String, StoreError> {
        self.with_text(id, n).map(|(_, text)| text)
    }

    /// The artifact and one version's text, reading its description once.
    pub fn with_text(&self, id: &str, n: u32) -> Result<(Artifact, String), StoreError> {
        let artifact = self.get(id)?;
        if artifact.version(n).is_none() {
            return Err(StoreError::NoVersion(id.to_owned(), n));
        }
        let path = Self::version_path(&self.dir(id)?, artifact.kind, n);
        let text = std::fs::read_to_string(&path).map_err(|e| StoreError::Io(path, e))?;
        Ok((artifact, text))
    }
}
