//! Where this computer's device key lives: the operating system's keystore,
//! or a 0600 file beside the vault where there is none.

use std::path::Path;

use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::error::KeystoreError;

mod file;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "linux")]
mod secret_service;
#[cfg(windows)]
mod windows;

pub use file::FileKeystore;

/// The device key: 32 random bytes, never written in the clear outside the
/// keystore.
pub type DeviceKey = Zeroizing<[u8; 32]>;

/// Which keystore holds a device key (written into every sealed file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeystoreKind {
    /// `keystore/device.key`, 0600, in the home folder.
    File,
    /// The Secret Service over D-Bus (GNOME Keyring, KWallet).
    SecretService,
    /// The macOS Keychain, through /usr/bin/security.
    MacosKeychain,
    /// A DPAPI-protected `keystore/device.key.dpapi`.
    WindowsDpapi,
}

impl KeystoreKind {
    pub fn words(self) -> &'static str {
        match self {
            KeystoreKind::File => "a file in Conch's folder (no keychain on this computer)",
            KeystoreKind::SecretService => "the Secret Service (your keyring)",
            KeystoreKind::MacosKeychain => "the macOS Keychain",
            KeystoreKind::WindowsDpapi => "Windows DPAPI",
        }
    }
}

/// `keystoreMode` in settings.json, shared by the gateway and the terminal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeystoreMode {
    /// The keystore that already holds this home's key; else the
    /// operating system's when there is one; else the file.
    #[default]
    Auto,
    /// Only the operating system's keystore.
    Os,
    /// Only the file (for a server, or a test).
    File,
}

/// A place that keeps one device key.
///
/// Two processes may make a home's first key at the same moment, so `store`
/// never overwrites a key that is there, and [`device_key`] reads back what
/// the keystore kept rather than trusting what it wrote.
pub trait Keystore {
    fn kind(&self) -> KeystoreKind;
    /// The key, or None when none was ever made.
    fn read(&self) -> Result<Option<DeviceKey>, KeystoreError>;
    /// Keeps a new key, unless one is there already.
    fn store(&self, key: &DeviceKey) -> Result<(), KeystoreError>;
}

/// The device key in `keystore`, made on first use.
pub fn device_key(keystore: &dyn Keystore) -> Result<DeviceKey, KeystoreError> {
    if let Some(key) = keystore.read()? {
        return Ok(key);
    }
    let mut key = Zeroizing::new([0u8; 32]);
    getrandom::fill(key.as_mut())
        .map_err(|e| KeystoreError::Io(std::io::Error::other(e.to_string())))?;
    keystore.store(&key)?;
    keystore.read()?.ok_or_else(|| {
        KeystoreError::Damaged("a new key was kept and can't be read back".to_owned())
    })
}

/// The operating system's keystore for `home`, if this system has one and
/// it answers.
pub fn os_keystore(home: &Path) -> Result<Box<dyn Keystore>, KeystoreError> {
    #[cfg(target_os = "linux")]
    {
        secret_service::SecretServiceKeystore::connect(home)
            .map(|k| Box::new(k) as Box<dyn Keystore>)
    }
    #[cfg(target_os = "macos")]
    {
        Ok(Box::new(macos::Keychain::new(home)))
    }
    #[cfg(windows)]
    {
        Ok(Box::new(windows::Dpapi::new(home)))
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    {
        let _ = home;
        Err(KeystoreError::Missing("keychain".to_owned()))
    }
}

/// The keystore of `kind` for `home`.
pub fn of_kind(home: &Path, kind: KeystoreKind) -> Result<Box<dyn Keystore>, KeystoreError> {
    match kind {
        KeystoreKind::File => Ok(Box::new(FileKeystore::new(home))),
        other => {
            let keystore = os_keystore(home)?;
            if keystore.kind() == other {
                Ok(keystore)
            } else {
                Err(KeystoreError::Missing(other.words().to_owned()))
            }
        }
    }
}

/// The keystore `mode` picks for a new sealed file in `home`.
pub fn choose(home: &Path, mode: KeystoreMode) -> Result<Box<dyn Keystore>, KeystoreError> {
    let file = FileKeystore::new(home);
    match mode {
        KeystoreMode::File => Ok(Box::new(file)),
        KeystoreMode::Os => os_keystore(home),
        KeystoreMode::Auto => {
            // A key already made in the file stays the key: a keychain that
            // appears later mustn't start a second identity.
            if file.exists() {
                return Ok(Box::new(file));
            }
            match os_keystore(home) {
                Ok(keystore) => Ok(keystore),
                Err(KeystoreError::Missing(_)) => Ok(Box::new(file)),
                Err(other) => Err(other),
            }
        }
    }
}
