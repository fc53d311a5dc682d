//! `secrets.json`: provider keys and chat apps' bot tokens, sealed under this computer's device key
//! (see the `vault` crate). Nothing else reads or shows them; `conch
//! providers list` says only whether one is set. A file from an older
//! Conch, in the clear, is checked and locked the first time it is read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use vault::{Stored, Vault, VaultError};

pub const SECRETS_FILE: &str = "secrets.json";

/// secrets.json, sealed: its keys are camelCase, like settings.json.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Secrets {
    /// Provider name → its key.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderSecret>,
    /// App name → the values of the variables and headers its entry in
    /// apps.json names.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub apps: BTreeMap<String, AppSecret>,
    /// The passphrase scheduled backups are locked with (Settings →
    /// Backups), so they carry the keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup_passphrase: Option<String>,
    /// Chat app name (`telegram`) → its bot's token.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub bridges: BTreeMap<String, BridgeSecret>,
}

/// An app's secrets: what its server is started with, or sent.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AppSecret {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BridgeSecret {
    pub token: String,
    /// What the app sends with each pushed update (a webhook), so nobody
    /// else can push one. (Older files spelled it `webhook_secret`.)
    #[serde(
        default,
        rename = "webhookSecret",
        alias = "webhook_secret",
        skip_serializing_if = "Option::is_none"
    )]
    pub webhook_secret: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProviderSecret {
    pub key: String,
}

#[derive(Debug)]
pub enum SecretsError {
    Vault(VaultError),
    Damaged(String),
}

impl std::fmt::Display for SecretsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let again = "Move secrets.json aside and add your provider keys again with conch providers add … --key-stdin.";
        match self {
            SecretsError::Vault(e @ (VaultError::Changed(_) | VaultError::Damaged(..))) => {
                write!(f, "{e} Provider keys can't be read. {again}")
            }
            SecretsError::Vault(e) => e.fmt(f),
            SecretsError::Damaged(why) => write!(
                f,
                "secrets.json is damaged ({why}), so provider keys can't be read. {again}"
            ),
        }
    }
}

impl std::error::Error for SecretsError {}

impl From<VaultError> for SecretsError {
    fn from(e: VaultError) -> SecretsError {
        SecretsError::Vault(e)
    }
}

fn parse(bytes: &[u8]) -> Result<Secrets, String> {
    serde_json::from_slice(bytes).map_err(|e| e.to_string())
}

impl Secrets {
    pub fn load(vault: &Vault) -> Result<Secrets, SecretsError> {
        match vault.read(SECRETS_FILE)? {
            Stored::Missing => Ok(Secrets::default()),
            Stored::Sealed(plain) => parse(&plain).map_err(SecretsError::Damaged),
            Stored::Clear(plain) => {
                let secrets = parse(&plain).map_err(SecretsError::Damaged)?;
                vault.lock_if_clear(SECRETS_FILE, |b| parse(b).map(|_| ()))?;
                Ok(secrets)
            }
        }
    }

    pub fn save(&self, vault: &Vault) -> Result<(), SecretsError> {
        let text = zeroize::Zeroizing::new(serde_json::to_vec_pretty(self).unwrap_or_default());
        vault.write(SECRETS_FILE, &text)?;
        Ok(())
    }

    pub fn key(&self, provider: &str) -> Option<String> {
        self.providers.get(provider).map(|s| s.key.clone())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn secrets_keys_are_one_spelling_and_older_files_still_read() {
        let older = br#"{"providers":{},"backupPassphrase":"p","bridges":{"telegram":{"token":"t","webhook_secret":"w"}}}"#;
        let s: Secrets = serde_json::from_slice(older).unwrap();
        assert_eq!(s.bridges["telegram"].webhook_secret.as_deref(), Some("w"));
        let text = serde_json::to_string(&s).unwrap();
        assert!(text.contains("\"webhookSecret\":\"w\""), "{text}");
        assert!(text.contains("\"backupPassphrase\":\"p\""), "{text}");
        assert!(!text.contains('_'), "{text}");
    }
}
