//! The macOS Keychain, through /usr/bin/security for both making and
//! reading the item, so its access list is the same and nothing prompts.

use std::path::Path;
use std::process::Command;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use zeroize::Zeroizing;

use super::{DeviceKey, Keystore, KeystoreKind};
use crate::error::KeystoreError;

const SERVICE: &str = "Conch device key";
const SECURITY: &str = "/usr/bin/security";

pub struct Keychain {
    account: String,
}

impl Keychain {
    pub fn new(home: &Path) -> Keychain {
        Keychain {
            account: home.to_string_lossy().into_owned(),
        }
    }
}

impl Keystore for Keychain {
    fn kind(&self) -> KeystoreKind {
        KeystoreKind::MacosKeychain
    }

    fn read(&self) -> Result<Option<DeviceKey>, KeystoreError> {
        let out = Command::new(SECURITY)
            .args([
                "find-generic-password",
                "-a",
                &self.account,
                "-s",
                SERVICE,
                "-w",
            ])
            .output()
            .map_err(|_| KeystoreError::Missing("macOS Keychain".to_owned()))?;
        // 44: "The specified item could not be found in the keychain."
        if out.status.code() == Some(44) {
            return Ok(None);
        }
        if !out.status.success() {
            return Err(KeystoreError::Refused(
                String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            ));
        }
        let text = Zeroizing::new(out.stdout);
        let bytes = Zeroizing::new(
            STANDARD
                .decode(text.trim_ascii())
                .map_err(|_| KeystoreError::Damaged("the Keychain item isn't a key".to_owned()))?,
        );
        let key: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
            KeystoreError::Damaged("the Keychain item isn't a 32-byte key".to_owned())
        })?;
        Ok(Some(Zeroizing::new(key)))
    }

    /// Without `-U`, adding fails when the item is there: the first key made
    /// stays.
    fn store(&self, key: &DeviceKey) -> Result<(), KeystoreError> {
        let text = Zeroizing::new(STANDARD.encode(key.as_ref()));
        let out = Command::new(SECURITY)
            .args([
                "add-generic-password",
                "-a",
                &self.account,
                "-s",
                SERVICE,
                "-w",
            ])
            .arg(text.as_str())
            .output()
            .map_err(|_| KeystoreError::Missing("macOS Keychain".to_owned()))?;
        // 45: "The specified item already exists in the keychain."
        if out.status.success() || out.status.code() == Some(45) {
            Ok(())
        } else {
            Err(KeystoreError::Refused(
                String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            ))
        }
    }
}
