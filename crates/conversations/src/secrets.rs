//! `secrets.json`: provider keys, 0600, written atomically. Nothing else
//! reads or shows them; `conch providers list` says only whether one is set.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::private_file::write_private;

pub const SECRETS_FILE: &str = "secrets.json";

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Secrets {
    /// Provider name → its key.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderSecret>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProviderSecret {
    pub key: String,
}

#[derive(Debug)]
pub enum SecretsError {
    Read(PathBuf, std::io::Error),
    Damaged(PathBuf, String),
    Write(PathBuf, std::io::Error),
}

impl std::fmt::Display for SecretsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SecretsError::Read(p, e) => write!(f, "Conch couldn't read {}: {e}.", p.display()),
            SecretsError::Damaged(p, why) => write!(
                f,
                "{} is damaged ({why}), so provider keys can't be read. Add them again with conch providers add … --key-stdin after moving it aside.",
                p.display()
            ),
            SecretsError::Write(p, e) => write!(f, "Conch couldn't save {}: {e}.", p.display()),
        }
    }
}

impl std::error::Error for SecretsError {}

impl Secrets {
    pub fn load(home: &Path) -> Result<Secrets, SecretsError> {
        let path = home.join(SECRETS_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| SecretsError::Damaged(path, e.to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Secrets::default()),
            Err(e) => Err(SecretsError::Read(path, e)),
        }
    }

    pub fn save(&self, home: &Path) -> Result<(), SecretsError> {
        let path = home.join(SECRETS_FILE);
        let text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        write_private(&path, text.as_bytes()).map_err(|e| SecretsError::Write(path, e))
    }

    pub fn key(&self, provider: &str) -> Option<String> {
        self.providers.get(provider).map(|s| s.key.clone())
    }
}
