//! A home folder's sealed files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use zeroize::Zeroizing;

use crate::atomic::{leftovers, write_atomic};
use crate::error::{KeystoreError, VaultError};
use crate::keystore::{self, DeviceKey, KeystoreKind, KeystoreMode};
use crate::sealed::{self, OpenFailure};

/// The files in a home folder that are sealed: provider keys and the
/// skill-signing key.
pub const SEALED_FILES: &[&str] = &["secrets.json", "skills.signing.json"];

/// A sealed file's content, as found.
pub enum Stored {
    Missing,
    /// Written in the clear (an older Conch, a restored backup): lock it.
    Clear(Zeroizing<Vec<u8>>),
    /// Opened.
    Sealed(Zeroizing<Vec<u8>>),
}

/// What [`Vault::lock_if_clear`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Locked {
    Missing,
    /// Already sealed: left alone, and the keystore wasn't asked.
    AlreadySealed,
    /// Was in the clear, and is sealed now.
    Locked,
}

/// The sealed files of one home. Makes no I/O until a file is read or
/// written, and asks the keystore only when a sealed file is opened or
/// sealed.
pub struct Vault {
    home: PathBuf,
    mode: KeystoreMode,
    keys: Mutex<HashMap<KeystoreKind, DeviceKey>>,
}

impl Vault {
    pub fn new(home: &Path, mode: KeystoreMode) -> Vault {
        Vault {
            home: home.to_path_buf(),
            mode,
            keys: Mutex::new(HashMap::new()),
        }
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.home.join(name)
    }

    /// The device key in the keystore of `kind` (where a sealed file says
    /// its key is), or in the one the mode picks. A key is made only to seal
    /// (`make`): opening a file whose key is gone must fail, not make a new
    /// key that can't open it either.
    fn key(
        &self,
        kind: Option<KeystoreKind>,
        make: bool,
    ) -> Result<(KeystoreKind, DeviceKey), VaultError> {
        let mut keys = self.keys.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(kind) = kind {
            if let Some(key) = keys.get(&kind) {
                return Ok((kind, key.clone()));
            }
        }
        let store = match kind {
            Some(kind) => keystore::of_kind(&self.home, kind)?,
            None => keystore::choose(&self.home, self.mode)?,
        };
        let key = if make {
            keystore::device_key(store.as_ref())?
        } else {
            store
                .read()?
                .ok_or_else(|| KeystoreError::Gone(store.kind().words()))?
        };
        keys.insert(store.kind(), key.clone());
        Ok((store.kind(), key))
    }

    fn raw(&self, name: &str) -> Result<Option<Vec<u8>>, VaultError> {
        match std::fs::read(self.path(name)) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(VaultError::Io(name.to_owned(), e)),
        }
    }

    /// The file called `name`, opened if it is sealed. A clear file is
    /// returned as it is (the caller checks it and locks it); the keystore
    /// is asked only for a sealed one.
    pub fn read(&self, name: &str) -> Result<Stored, VaultError> {
        let Some(bytes) = self.raw(name)? else {
            return Ok(Stored::Missing);
        };
        if !sealed::is_sealed(&bytes) {
            return Ok(Stored::Clear(Zeroizing::new(bytes)));
        }
        let kind = sealed::keystore_of(&bytes);
        let (_, key) = self.key(kind, false)?;
        match sealed::open(&key, name, &bytes) {
            Ok(plain) => Ok(Stored::Sealed(plain)),
            Err(OpenFailure::Broken) => Err(VaultError::Changed(name.to_owned())),
            Err(OpenFailure::NotSealed) => Err(VaultError::Damaged(
                name.to_owned(),
                "it was sealed by a newer Conch".to_owned(),
            )),
        }
    }

    /// Seals `plain` as `name` and writes it atomically, under the keystore
    /// the file was sealed with before, else the one the mode picks.
    pub fn write(&self, name: &str, plain: &[u8]) -> Result<(), VaultError> {
        let bytes = self.sealed_bytes(name, plain)?;
        write_atomic(&self.path(name), &bytes).map_err(|e| VaultError::Io(name.to_owned(), e))
    }

    fn sealed_bytes(&self, name: &str, plain: &[u8]) -> Result<Vec<u8>, VaultError> {
        let before = self.raw(name)?.and_then(|b| sealed::keystore_of(&b));
        let (kind, key) = self.key(before, true)?;
        sealed::seal(&key, kind, name, plain)
            .map_err(|e| VaultError::Io(name.to_owned(), std::io::Error::other(e.to_string())))
    }

    /// Seals `plain` as `name` only if there is no such file yet: false when
    /// another process made it first (then read theirs).
    pub fn create(&self, name: &str, plain: &[u8]) -> Result<bool, VaultError> {
        let bytes = self.sealed_bytes(name, plain)?;
        crate::atomic::create_atomic(&self.path(name), &bytes)
            .map_err(|e| VaultError::Io(name.to_owned(), e))
    }

    /// Locks a file found in the clear: `check` says it holds together
    /// first; then its sealed text goes to a temporary file renamed over the
    /// clear one. A sealed file is left alone without asking the keystore.
    pub fn lock_if_clear(
        &self,
        name: &str,
        check: impl FnOnce(&[u8]) -> Result<(), String>,
    ) -> Result<Locked, VaultError> {
        // A writer killed mid-way leaves its temporary file: it only ever
        // held sealed bytes, so it goes.
        for stale in leftovers(&self.path(name)) {
            let _ = std::fs::remove_file(stale);
        }
        let Some(bytes) = self.raw(name)? else {
            return Ok(Locked::Missing);
        };
        if sealed::is_sealed(&bytes) {
            return Ok(Locked::AlreadySealed);
        }
        let bytes = Zeroizing::new(bytes);
        check(&bytes).map_err(|why| VaultError::Damaged(name.to_owned(), why))?;
        self.write(name, &bytes)?;
        Ok(Locked::Locked)
    }

    /// Whether `name` is there in the clear (no keystore asked).
    pub fn is_clear(&self, name: &str) -> Result<bool, VaultError> {
        Ok(self.raw(name)?.is_some_and(|b| !sealed::is_sealed(&b)))
    }

    /// Moves a sealed file that can't be opened aside, still sealed, as
    /// `<name>.broken-<unix seconds>` (backups leave `.broken-` copies out),
    /// in case the keychain comes back.
    pub fn set_aside(&self, name: &str) -> Result<PathBuf, VaultError> {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let to = self.path(&format!("{name}.broken-{secs}"));
        std::fs::rename(self.path(name), &to).map_err(|e| VaultError::Io(name.to_owned(), e))?;
        Ok(to)
    }

    /// Removes a file (a damaged clear one: no plain copy of a key stays).
    pub fn remove(&self, name: &str) -> Result<(), VaultError> {
        match std::fs::remove_file(self.path(name)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(VaultError::Io(name.to_owned(), e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(dir: &Path) -> Vault {
        Vault::new(dir, KeystoreMode::File)
    }

    #[test]
    fn writes_sealed_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let v = vault(dir.path());
        assert!(matches!(v.read("secrets.json").unwrap(), Stored::Missing));
        v.write("secrets.json", b"{\"a\":\"sk-123\"}").unwrap();
        let raw = std::fs::read(dir.path().join("secrets.json")).unwrap();
        assert!(!String::from_utf8_lossy(&raw).contains("sk-123"));
        match Vault::new(dir.path(), KeystoreMode::Auto)
            .read("secrets.json")
            .unwrap()
        {
            Stored::Sealed(p) => assert_eq!(p.as_slice(), b"{\"a\":\"sk-123\"}"),
            _ => panic!("not sealed"),
        }
    }

    #[test]
    fn a_sealed_file_is_left_alone_without_the_keystore() {
        let dir = tempfile::tempdir().unwrap();
        let v = vault(dir.path());
        v.write("secrets.json", b"{}").unwrap();
        // No keystore at all now: locking a sealed file mustn't need one.
        std::fs::remove_dir_all(dir.path().join("keystore")).unwrap();
        let fresh = vault(dir.path());
        assert_eq!(
            fresh.lock_if_clear("secrets.json", |_| Ok(())).unwrap(),
            Locked::AlreadySealed
        );
        assert!(!dir.path().join("keystore").exists());
    }

    #[test]
    fn another_homes_file_says_changed() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        vault(a.path()).write("secrets.json", b"{}").unwrap();
        vault(b.path()).write("secrets.json", b"{}").unwrap();
        std::fs::copy(a.path().join("secrets.json"), b.path().join("secrets.json")).unwrap();
        let err = vault(b.path()).read("secrets.json").err().unwrap();
        assert!(matches!(err, VaultError::Changed(_)), "{err}");
        assert!(err.to_string().contains("locked on another computer"));
    }

    #[test]
    fn a_clear_file_that_fails_its_check_stays_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secrets.json"), b"not json").unwrap();
        let err = vault(dir.path())
            .lock_if_clear("secrets.json", |_| Err("it isn't JSON".into()))
            .err()
            .unwrap();
        assert!(matches!(err, VaultError::Damaged(..)));
        assert_eq!(
            std::fs::read(dir.path().join("secrets.json")).unwrap(),
            b"not json"
        );
    }
}
