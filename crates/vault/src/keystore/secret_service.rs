//! The Secret Service (GNOME Keyring, KWallet) over the session D-Bus.
//!
//! One item per home folder (attribute `home`), holding the key as base64
//! text. The session is `plain`: the secret crosses only the user's own
//! session bus, which anything able to listen on could also simply ask the
//! keyring; the spec's transport encryption protects against logging and
//! swap, which plain text of 44 bytes in one message hardly meets.

use std::collections::HashMap;
use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use dbus_secret_service::{EncryptionType, Error, Item, SecretService};
use zeroize::Zeroizing;

use super::{DeviceKey, Keystore, KeystoreKind};
use crate::error::KeystoreError;

/// How long a keyring's unlock prompt may wait for the person.
const PROMPT_SECS: u64 = 60;

pub struct SecretServiceKeystore {
    service: SecretService,
    home: String,
}

fn refused(e: Error) -> KeystoreError {
    match e {
        Error::Unavailable => KeystoreError::Missing("Secret Service".to_owned()),
        Error::Locked | Error::Prompt => KeystoreError::Refused("it is locked".to_owned()),
        other => KeystoreError::Refused(other.to_string()),
    }
}

impl SecretServiceKeystore {
    pub fn connect(home: &Path) -> Result<SecretServiceKeystore, KeystoreError> {
        // No session bus at all is the usual headless server: no keychain.
        let has_bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some()
            || std::env::var_os("XDG_RUNTIME_DIR")
                .is_some_and(|d| Path::new(&d).join("bus").exists());
        if !has_bus {
            return Err(KeystoreError::Missing("Secret Service".to_owned()));
        }
        let service =
            SecretService::connect_with_max_prompt_timeout(EncryptionType::Plain, PROMPT_SECS)
                .map_err(|e| match e {
                    // A bus without a secrets service on it.
                    Error::Dbus(_) | Error::Unavailable => {
                        KeystoreError::Missing("Secret Service".to_owned())
                    }
                    other => refused(other),
                })?;
        Ok(SecretServiceKeystore {
            service,
            home: home.to_string_lossy().into_owned(),
        })
    }

    fn attributes(&self) -> HashMap<&str, &str> {
        HashMap::from([
            ("application", "conch"),
            ("purpose", "device-key"),
            ("home", self.home.as_str()),
        ])
    }

    /// Every item for this home; when two processes made one at once, the
    /// first made wins for everyone: oldest, then lowest object number.
    fn first(&self) -> Result<Option<Item<'_>>, KeystoreError> {
        let found = self
            .service
            .search_items(self.attributes())
            .map_err(refused)?;
        let mut items: Vec<(u64, u64, Item<'_>)> = Vec::new();
        for item in found.unlocked.into_iter().chain(found.locked) {
            let created = item.get_created().unwrap_or(u64::MAX);
            let number = item
                .path
                .rsplit('/')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(u64::MAX);
            items.push((created, number, item));
        }
        items.sort_by_key(|(created, number, _)| (*created, *number));
        Ok(items.into_iter().next().map(|(_, _, item)| item))
    }
}

impl Keystore for SecretServiceKeystore {
    fn kind(&self) -> KeystoreKind {
        KeystoreKind::SecretService
    }

    fn read(&self) -> Result<Option<DeviceKey>, KeystoreError> {
        let Some(item) = self.first()? else {
            return Ok(None);
        };
        item.ensure_unlocked().map_err(refused)?;
        let text = Zeroizing::new(item.get_secret().map_err(refused)?);
        let bytes =
            Zeroizing::new(STANDARD.decode(text.trim_ascii()).map_err(|_| {
                KeystoreError::Damaged("the keyring's item isn't a key".to_owned())
            })?);
        let key: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
            KeystoreError::Damaged("the keyring's item isn't a 32-byte key".to_owned())
        })?;
        Ok(Some(Zeroizing::new(key)))
    }

    fn store(&self, key: &DeviceKey) -> Result<(), KeystoreError> {
        if self.first()?.is_some() {
            return Ok(());
        }
        let collection = self.service.get_any_collection().map_err(refused)?;
        collection.ensure_unlocked().map_err(refused)?;
        let text = Zeroizing::new(STANDARD.encode(key.as_ref()));
        collection
            .create_item(
                &format!("Conch device key ({})", self.home),
                self.attributes(),
                text.as_bytes(),
                false,
                "text/plain",
            )
            .map_err(refused)?;
        Ok(())
    }
}
