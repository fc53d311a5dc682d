//! Making, updating, pinning and deleting: one writer at a time per
//! artifact (an flock on its `.lock`), each file written atomically, the
//! version file before the description that names it.

use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{Artifact, By, Store, StoreError, Version, KEEP, META_FILE};
use crate::kind::Kind;

fn now() -> String {
    protocol::format_rfc3339(std::time::SystemTime::now())
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |e| StoreError::Io(path.to_path_buf(), e)
}

/// The vault's one atomic write (temporary file, fsync, rename over,
/// fsync the folder), with the store's error.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    vault::write_atomic(path, bytes).map_err(io(path))
}

/// Held while one process changes an artifact (the vault's one lock, on
/// the artifact's `.lock`).
struct Lock {
    _held: vault::FileLock,
}

impl Lock {
    fn take(dir: &Path) -> Result<Lock, StoreError> {
        let path = dir.join(".lock");
        let held = vault::lock(&path).map_err(io(&path))?;
        Ok(Lock { _held: held })
    }
}

fn version(n: u32, by: By, kind: Kind, text: &str) -> Version {
    let why: Vec<String> = if kind.can_run() {
        crate::navigation::navigation(text)
            .into_iter()
            .map(|f| f.detail)
            .collect()
    } else {
        Vec::new()
    };
    Version {
        n,
        at: now(),
        by,
        navigates: !why.is_empty(),
        why,
        chars: text.chars().count(),
        sha256: Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    }
}

fn save_meta(dir: &Path, artifact: &Artifact) -> Result<(), StoreError> {
    let mut text = serde_json::to_vec_pretty(artifact).unwrap_or_default();
    text.push(b'\n');
    write_atomic(&dir.join(META_FILE), &text)
}

/// Version files on disk that the description doesn't keep: pruned ones,
/// and any a crash left behind before its description was written.
fn prune(dir: &Path, artifact: &Artifact) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(n) = super::heal::version_number(&name) {
            if artifact.version(n).is_none() {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

impl Store {
    /// Makes an artifact with its first version. `id` comes from the
    /// caller (see `valid_id`).
    pub fn create(
        &self,
        id: &str,
        kind: Kind,
        title: &str,
        text: &str,
        chat: Option<&str>,
        request: Option<&str>,
    ) -> Result<Artifact, StoreError> {
        crate::check::check_title(title).map_err(StoreError::Content)?;
        crate::check::check_content(kind, text).map_err(StoreError::Content)?;
        let dir = self.dir(id)?;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.root)
            .map_err(io(&self.root))?;
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(io(&dir))?;
        let _lock = Lock::take(&dir)?;
        write_atomic(&Self::version_path(&dir, kind, 1), text.as_bytes())?;
        let at = now();
        let artifact = Artifact {
            id: id.to_owned(),
            kind,
            title: title.trim().to_owned(),
            chat: chat.map(str::to_owned),
            request: request.map(str::to_owned),
            created: at.clone(),
            updated: at,
            latest: 1,
            versions: vec![version(1, By::Made, kind, text)],
            pinned: false,
            marks: Vec::new(),
            healed: None,
            other: Default::default(),
        };
        save_meta(&dir, &artifact)?;
        Ok(artifact)
    }

    /// A new version. The kind stays what it was.
    pub fn update(&self, id: &str, text: &str, by: By) -> Result<Artifact, StoreError> {
        let dir = self.dir(id)?;
        let mut artifact = self.get(id)?;
        crate::check::check_content(artifact.kind, text).map_err(StoreError::Content)?;
        let _lock = Lock::take(&dir)?;
        // Read again under the lock: another writer may have just added one.
        artifact = self.get(id)?;
        let on_disk = super::heal::highest_version(&dir);
        let n = artifact.latest.max(on_disk) + 1;
        write_atomic(&Self::version_path(&dir, artifact.kind, n), text.as_bytes())?;
        artifact.versions.push(version(n, by, artifact.kind, text));
        artifact.latest = n;
        artifact.updated = now();
        if artifact.versions.len() > KEEP {
            let drop = artifact.versions.len() - KEEP;
            artifact.versions.drain(1..1 + drop);
        }
        save_meta(&dir, &artifact)?;
        prune(&dir, &artifact);
        Ok(artifact)
    }

    /// Adds what a chat that made or changed it had read (see
    /// [`Artifact::marks`]); what it already carries stays.
    pub fn add_marks(&self, id: &str, marks: &[String]) -> Result<Artifact, StoreError> {
        let dir = self.dir(id)?;
        self.get(id)?;
        let _lock = Lock::take(&dir)?;
        let mut artifact = self.get(id)?;
        let mut changed = false;
        for m in marks {
            if !artifact.marks.contains(m) {
                artifact.marks.push(m.clone());
                changed = true;
            }
        }
        if changed {
            save_meta(&dir, &artifact)?;
        }
        Ok(artifact)
    }

    pub fn set_pinned(&self, id: &str, pinned: bool) -> Result<Artifact, StoreError> {
        let dir = self.dir(id)?;
        self.get(id)?;
        let _lock = Lock::take(&dir)?;
        let mut artifact = self.get(id)?;
        artifact.pinned = pinned;
        save_meta(&dir, &artifact)?;
        Ok(artifact)
    }

    pub fn delete(&self, id: &str) -> Result<Artifact, StoreError> {
        let dir = self.dir(id)?;
        let artifact = self.get(id)?;
        fs::remove_dir_all(&dir).map_err(io(&dir))?;
        Ok(artifact)
    }

    /// How many artifacts there are, and how many were healed.
    pub fn counts(&self) -> (usize, usize) {
        let all = self.list();
        let healed = all.iter().filter(|a| a.healed.is_some()).count();
        (all.len(), healed)
    }
}
