//! Reading an artifact's description, and rebuilding it from the version
//! files when it is damaged or gone. The damaged file is kept beside it
//! (`artifact.json.damaged-<time>`), and the rebuilt one says what happened
//! in `healed`.

use std::fs;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{Artifact, By, StoreError, Version, META_FILE};
use crate::kind::Kind;

/// `v12.csv` → 12.
pub(super) fn version_number(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('v')?;
    let (n, ext) = rest.split_once('.')?;
    Kind::from_ext(ext)?;
    n.parse().ok().filter(|n| *n > 0)
}

pub(super) fn highest_version(dir: &Path) -> u32 {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| version_number(&e.file_name().to_string_lossy()))
        .max()
        .unwrap_or(0)
}

fn mtime(path: &Path) -> String {
    let t = fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(std::time::SystemTime::UNIX_EPOCH);
    protocol::format_rfc3339(t)
}

pub(super) fn load(dir: &Path, id: &str) -> Result<Artifact, StoreError> {
    let meta = dir.join(META_FILE);
    let why = match fs::read(&meta) {
        Ok(bytes) => match serde_json::from_slice::<Artifact>(&bytes) {
            Ok(a) if a.id == id && !a.versions.is_empty() => return Ok(a),
            Ok(_) => "didn't match its folder",
            Err(_) => "was damaged",
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "was missing",
        Err(e) => return Err(StoreError::Io(meta, e)),
    };
    rebuild(dir, id, why)
}

fn rebuild(dir: &Path, id: &str, why: &str) -> Result<Artifact, StoreError> {
    let mut files: Vec<(u32, Kind, std::path::PathBuf)> = fs::read_dir(dir)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                StoreError::NotFound(id.to_owned())
            } else {
                StoreError::Io(dir.to_path_buf(), e)
            }
        })?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let n = version_number(&name)?;
            let kind = Kind::from_ext(name.rsplit('.').next()?)?;
            Some((n, kind, e.path()))
        })
        .collect();
    if files.is_empty() {
        return Err(StoreError::NotFound(id.to_owned()));
    }
    files.sort_by_key(|(n, _, _)| *n);
    // The newest version's kind is the artifact's; files of another kind
    // aren't its versions.
    let kind = files.last().map(|(_, k, _)| *k).unwrap_or(Kind::Markdown);
    files.retain(|(_, k, _)| *k == kind);
    let mut versions = Vec::new();
    for (n, _, path) in &files {
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        let why: Vec<String> = if kind.can_run() {
            crate::navigation::navigation(&text)
                .into_iter()
                .map(|f| f.detail)
                .collect()
        } else {
            Vec::new()
        };
        versions.push(Version {
            n: *n,
            at: mtime(path),
            by: if versions.is_empty() {
                By::Made
            } else {
                By::Updated
            },
            navigates: !why.is_empty(),
            why,
            chars: text.chars().count(),
            sha256: Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        });
    }
    let (Some(first), Some(last)) = (versions.first(), versions.last()) else {
        return Err(StoreError::NotFound(id.to_owned()));
    };
    let meta = dir.join(META_FILE);
    let kept_aside = if meta.exists() {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let aside = dir.join(format!("{META_FILE}.damaged-{secs}"));
        fs::rename(&meta, &aside).map_err(|e| StoreError::Io(meta.clone(), e))?;
        format!(
            " The old one is kept as {}.",
            aside.file_name().unwrap_or_default().to_string_lossy()
        )
    } else {
        String::new()
    };
    let artifact = Artifact {
        id: id.to_owned(),
        kind,
        title: format!("Recovered {}", kind.name()),
        chat: None,
        request: None,
        created: first.at.clone(),
        updated: last.at.clone(),
        latest: last.n,
        healed: Some(format!(
            "artifact.json {why}, so it was rebuilt from the {} version file{}: the title, the chat and whether it was pinned couldn't be recovered.{kept_aside}",
            versions.len(),
            if versions.len() == 1 { "" } else { "s" }
        )),
        versions,
        pinned: false,
        // What its chats had read was in the description that was lost:
        // not knowing, its Refresh chats start marked (fail closed).
        marks: vec!["can't say what it had read (its description was rebuilt after damage)".to_owned()],
        other: Default::default(),
    };
    super::write::write_atomic(&meta, &{
        let mut t = serde_json::to_vec_pretty(&artifact).unwrap_or_default();
        t.push(b'\n');
        t
    })?;
    Ok(artifact)
}
