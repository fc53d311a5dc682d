//! The file keystore: `keystore/device.key`, 0600, for computers with no
//! keychain (a headless server). The seal is only as strong as this file's
//! permissions.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

use super::{DeviceKey, Keystore, KeystoreKind};
use crate::error::KeystoreError;

pub struct FileKeystore {
    path: PathBuf,
}

impl FileKeystore {
    pub fn new(home: &Path) -> FileKeystore {
        FileKeystore {
            path: home.join("keystore").join("device.key"),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn exists(&self) -> bool {
        self.path.exists()
    }
}

impl Keystore for FileKeystore {
    fn kind(&self) -> KeystoreKind {
        KeystoreKind::File
    }

    fn read(&self) -> Result<Option<DeviceKey>, KeystoreError> {
        let bytes = match fs::read(&self.path) {
            Ok(b) => Zeroizing::new(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(KeystoreError::Io(e)),
        };
        let key: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
            KeystoreError::Damaged(format!(
                "{} holds {} bytes, not 32",
                self.path.display(),
                bytes.len()
            ))
        })?;
        Ok(Some(Zeroizing::new(key)))
    }

    /// Written whole to a temporary file, then hard-linked into place: the
    /// link fails if another process got there first, and then its key is
    /// the one read back.
    fn store(&self, key: &DeviceKey) -> Result<(), KeystoreError> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(KeystoreError::Io)?;
        let temp = dir.join(format!(".device.key.{}", std::process::id()));
        let _ = fs::remove_file(&temp);
        let result = (|| {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&temp)?;
            file.write_all(key.as_ref())?;
            file.sync_all()?;
            match fs::hard_link(&temp, &self.path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
            fs::File::open(dir)?.sync_all()
        })();
        let _ = fs::remove_file(&temp);
        result.map_err(KeystoreError::Io)
    }
}
