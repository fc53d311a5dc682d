//! Access keys for scripts: `conch keys create NAME` prints a key once; only
//! its sha256 is kept, in `access-keys.json`. A key is 200 random bits, so a
//! fast hash is enough (a password needs argon2 because people choose them).
//!
//! The running gateway reads the file again whenever it changes, so a key
//! made or revoked in the terminal counts at once.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::file_stamp::{stamp, FileStamp};
use super::random;
use conversations::private_file::write_private;

use conversations::known_secrets::KEY_BODY;
pub use conversations::known_secrets::{KEYS_FILE, KEY_PREFIX};
const LOCK_FILE: &str = ".access-keys.lock";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyRecord {
    pub id: String,
    pub name: String,
    /// sha256 of the key, hex.
    pub hash: String,
    pub created: String,
}

#[derive(Debug)]
pub enum KeyError {
    BadName,
    NameTaken(String),
    NotFound(String),
    Damaged(String),
    Io(std::io::Error),
    Random,
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyError::BadName => f.write_str(
                "A key's name is 1 to 64 characters with no line breaks or control characters.",
            ),
            KeyError::NameTaken(n) => write!(
                f,
                "There's already a key named \"{n}\". Pick another name, or revoke that one first."
            ),
            KeyError::NotFound(n) => write!(
                f,
                "There's no key named \"{n}\". See them with conch keys list."
            ),
            KeyError::Damaged(why) => write!(
                f,
                "access-keys.json is damaged ({why}). No key works until it's fixed; move it aside to start again with no keys."
            ),
            KeyError::Io(e) => write!(f, "Conch couldn't read or save access-keys.json: {e}."),
            KeyError::Random => f.write_str("This computer gave Conch no randomness for the key."),
        }
    }
}

impl std::error::Error for KeyError {}

pub fn list(home: &Path) -> Result<Vec<KeyRecord>, KeyError> {
    match std::fs::read(home.join(KEYS_FILE)) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| KeyError::Damaged(e.to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(KeyError::Io(e)),
    }
}

/// Makes a key; returns its record and the key itself, which is shown once.
pub fn create(home: &Path, name: &str) -> Result<(KeyRecord, String), KeyError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
        return Err(KeyError::BadName);
    }
    let _lock = lock(home)?;
    let mut keys = list(home)?;
    if keys.iter().any(|k| k.name == name) {
        return Err(KeyError::NameTaken(name.to_owned()));
    }
    let secret = format!(
        "{KEY_PREFIX}{}",
        random::token(KEY_BODY).map_err(|_| KeyError::Random)?
    );
    let record = KeyRecord {
        id: format!("k{}", random::token(10).map_err(|_| KeyError::Random)?),
        name: name.to_owned(),
        hash: random::digest(&secret),
        created: protocol::format_rfc3339(SystemTime::now()),
    };
    keys.push(record.clone());
    save(home, &keys)?;
    Ok((record, secret))
}

/// Revokes the key with this name or id.
pub fn revoke(home: &Path, name_or_id: &str) -> Result<KeyRecord, KeyError> {
    let _lock = lock(home)?;
    let mut keys = list(home)?;
    let Some(at) = keys
        .iter()
        .position(|k| k.name == name_or_id || k.id == name_or_id)
    else {
        return Err(KeyError::NotFound(name_or_id.to_owned()));
    };
    let gone = keys.remove(at);
    save(home, &keys)?;
    Ok(gone)
}

fn save(home: &Path, keys: &[KeyRecord]) -> Result<(), KeyError> {
    let text = serde_json::to_string_pretty(keys).map_err(|e| KeyError::Damaged(e.to_string()))?;
    write_private(&home.join(KEYS_FILE), text.as_bytes()).map_err(KeyError::Io)
}

/// Serialises read-change-write of the file between processes.
fn lock(home: &Path) -> Result<vault::FileLock, KeyError> {
    vault::lock(&home.join(LOCK_FILE)).map_err(KeyError::Io)
}

/// The gateway's view of the keys, read again when the file changes.
pub struct KeyCache {
    path: PathBuf,
    cached: Mutex<(Option<FileStamp>, Vec<KeyRecord>)>,
}

impl KeyCache {
    pub fn new(home: &Path) -> KeyCache {
        KeyCache {
            path: home.join(KEYS_FILE),
            cached: Mutex::new((None, Vec::new())),
        }
    }

    /// The key's record, if `secret` is a key that hasn't been revoked. A
    /// damaged file lets no key in.
    pub fn check(&self, secret: &str) -> Option<KeyRecord> {
        if !secret.starts_with(KEY_PREFIX) {
            return None;
        }
        let modified = stamp(&self.path);
        let mut cached = self.cached.lock().unwrap_or_else(|p| p.into_inner());
        if cached.0 != modified || modified.is_none() {
            let home = self.path.parent().unwrap_or(Path::new("."));
            let keys = list(home).unwrap_or_else(|e| {
                conversations::warn(&e.to_string());
                Vec::new()
            });
            *cached = (modified, keys);
        }
        let hash = random::digest(secret);
        let mut found = None;
        for key in &cached.1 {
            if random::same(&key.hash, &hash) {
                found = Some(key.clone());
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_check_revoke() {
        let dir = tempfile::tempdir().unwrap();
        let cache = KeyCache::new(dir.path());
        let (record, secret) = create(dir.path(), "backup script").unwrap();
        assert!(secret.starts_with(KEY_PREFIX));
        let stored = std::fs::read_to_string(dir.path().join(KEYS_FILE)).unwrap();
        assert!(!stored.contains(&secret), "only the hash is kept");
        assert_eq!(cache.check(&secret), Some(record.clone()));
        assert_eq!(cache.check(&format!("{secret}x")), None);
        assert!(matches!(
            create(dir.path(), "backup script"),
            Err(KeyError::NameTaken(_))
        ));
        assert!(matches!(
            create(dir.path(), "bad\nname"),
            Err(KeyError::BadName)
        ));
        revoke(dir.path(), "backup script").unwrap();
        assert_eq!(cache.check(&secret), None);
        assert!(matches!(
            revoke(dir.path(), "nope"),
            Err(KeyError::NotFound(_))
        ));
    }

    #[test]
    fn a_damaged_file_lets_no_key_in() {
        let dir = tempfile::tempdir().unwrap();
        let (_, secret) = create(dir.path(), "k").unwrap();
        std::fs::write(dir.path().join(KEYS_FILE), "[{").unwrap();
        assert_eq!(KeyCache::new(dir.path()).check(&secret), None);
        assert!(matches!(list(dir.path()), Err(KeyError::Damaged(_))));
    }
}
