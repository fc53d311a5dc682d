//! The owner's password: an argon2id hash in `owner.json`, nothing else.
//!
//! Verification is argon2's own comparison over the whole hash; there is no
//! early return here for a wrong password, so a wrong password costs the same
//! time as a right one.

use std::path::Path;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use serde::{Deserialize, Serialize};

use conversations::private_file::write_private;

pub const OWNER_FILE: &str = "owner.json";
pub const MIN_PASSWORD_CHARS: usize = 8;
const MAX_PASSWORD_BYTES: usize = 1024;

#[derive(Debug, Serialize, Deserialize)]
struct OwnerFile {
    /// PHC string: `$argon2id$v=19$m=…,t=…,p=…$salt$hash`.
    hash: String,
    set: String,
}

#[derive(Debug)]
pub enum PasswordError {
    TooShort,
    TooLong,
    Io(std::io::Error),
    /// owner.json exists but isn't what Conch writes.
    Damaged(String),
    Hash(String),
    /// A first password was asked for, but one is set.
    AlreadySet,
}

impl std::fmt::Display for PasswordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PasswordError::TooShort => write!(
                f,
                "That password is too short. Use at least {MIN_PASSWORD_CHARS} characters."
            ),
            PasswordError::TooLong => write!(
                f,
                "That password is too long. Use at most {MAX_PASSWORD_BYTES} bytes."
            ),
            PasswordError::Io(e) => write!(f, "Conch couldn't read or save owner.json: {e}."),
            PasswordError::Damaged(why) => write!(
                f,
                "owner.json is damaged ({why}), so nobody can sign in. Run conch setup --password-stdin to set the password again."
            ),
            PasswordError::Hash(why) => write!(f, "The password couldn't be hashed: {why}."),
            PasswordError::AlreadySet => f.write_str(
                "A password is already set. Sign in with it; to change it, run conch setup --password-stdin.",
            ),
        }
    }
}

impl std::error::Error for PasswordError {}

/// Whether a password has been chosen.
pub fn is_set(home: &Path) -> bool {
    home.join(OWNER_FILE).exists()
}

/// Whether `password` may be chosen: long enough, not too long.
pub fn acceptable(password: &str) -> Result<(), PasswordError> {
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(PasswordError::TooShort);
    }
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(PasswordError::TooLong);
    }
    Ok(())
}

/// Chooses (or replaces) the owner's password.
pub fn set(home: &Path, password: &str) -> Result<(), PasswordError> {
    let text = owner_file(password)?;
    write_private(&home.join(OWNER_FILE), text.as_bytes()).map_err(PasswordError::Io)
}

/// Chooses the first password: never replaces one that is set, even one
/// set a moment ago by another process (the file is linked into place, which
/// fails when it exists).
pub fn set_first(home: &Path, password: &str) -> Result<(), PasswordError> {
    let text = owner_file(password)?;
    let temp = home.join(format!(
        ".{OWNER_FILE}.{}.first",
        crate::auth::random::token(8).map_err(|e| PasswordError::Hash(e.to_string()))?
    ));
    write_private(&temp, text.as_bytes()).map_err(PasswordError::Io)?;
    let linked = std::fs::hard_link(&temp, home.join(OWNER_FILE));
    let _ = std::fs::remove_file(&temp);
    match linked {
        Ok(()) => conversations::private_file::sync_dir(home).map_err(PasswordError::Io),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(PasswordError::AlreadySet),
        Err(e) => Err(PasswordError::Io(e)),
    }
}

/// The contents of `owner.json` for `password`.
fn owner_file(password: &str) -> Result<String, PasswordError> {
    acceptable(password)?;
    let mut salt = [0u8; 16];
    getrandom_fill(&mut salt)?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| PasswordError::Hash(e.to_string()))?;
    let hash = Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(|e| PasswordError::Hash(e.to_string()))?
        .to_string();
    let file = OwnerFile {
        hash,
        set: protocol::format_rfc3339(std::time::SystemTime::now()),
    };
    serde_json::to_string_pretty(&file).map_err(|e| PasswordError::Hash(e.to_string()))
}

/// Checks a password against the stored hash. `Ok(None)` when no password
/// has been set yet.
pub fn verify(home: &Path, password: &str) -> Result<Option<bool>, PasswordError> {
    let bytes = match std::fs::read(home.join(OWNER_FILE)) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(PasswordError::Io(e)),
    };
    let file: OwnerFile =
        serde_json::from_slice(&bytes).map_err(|e| PasswordError::Damaged(e.to_string()))?;
    let parsed =
        PasswordHash::new(&file.hash).map_err(|e| PasswordError::Damaged(e.to_string()))?;
    if password.len() > MAX_PASSWORD_BYTES {
        return Ok(Some(false));
    }
    Ok(Some(
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
    ))
}

fn getrandom_fill(buf: &mut [u8]) -> Result<(), PasswordError> {
    crate::auth::random::fill(buf).map_err(|e| PasswordError::Hash(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_then_verify() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(verify(dir.path(), "whatever").unwrap(), None);
        assert!(matches!(
            set(dir.path(), "short"),
            Err(PasswordError::TooShort)
        ));
        set(dir.path(), "correct horse").unwrap();
        assert_eq!(verify(dir.path(), "correct horse").unwrap(), Some(true));
        assert_eq!(verify(dir.path(), "correct horsf").unwrap(), Some(false));
        let stored = std::fs::read_to_string(dir.path().join(OWNER_FILE)).unwrap();
        assert!(stored.contains("$argon2id$"));
        assert!(!stored.contains("correct horse"));
    }

    #[test]
    fn a_first_password_never_replaces_one() {
        let dir = tempfile::tempdir().unwrap();
        set_first(dir.path(), "the first one").unwrap();
        assert!(matches!(
            set_first(dir.path(), "the second one"),
            Err(PasswordError::AlreadySet)
        ));
        assert_eq!(verify(dir.path(), "the first one").unwrap(), Some(true));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [OWNER_FILE], "no temporary file is left");
    }

    #[test]
    fn a_damaged_file_says_so() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(OWNER_FILE), "{}").unwrap();
        let err = verify(dir.path(), "anything").unwrap_err().to_string();
        assert!(err.contains("owner.json is damaged"), "{err}");
    }
}
