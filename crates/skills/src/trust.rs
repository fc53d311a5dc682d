//! `skills.trust.json`: what a person said about skills. Acknowledged
//! fingerprints (a dangerous skill a person looked at and turned on anyway,
//! for exactly that version), pins (another app's skill, turned on at a
//! fingerprint), skills turned off, and (later) trusted signing keys.
//!
//! A damaged file turns nothing on: it reads as empty, and the next change
//! says so rather than silently replacing it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub const TRUST_FILE: &str = "skills.trust.json";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trust {
    /// Skill id → the fingerprint a person acknowledged after review.
    #[serde(default)]
    pub acknowledged: BTreeMap<String, String>,
    /// Another app's skill id → the fingerprint it was turned on at.
    #[serde(default)]
    pub pins: BTreeMap<String, String>,
    /// Conch's own skills a person turned off.
    #[serde(default)]
    pub disabled: BTreeSet<String>,
    /// Keys whose signatures say "Verified": yours, and those you trusted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signers: Vec<Signer>,
    /// Everything else, kept as it is.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// A trusted signing key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Signer {
    pub name: String,
    /// base64 of the 32-byte Ed25519 public key.
    pub public_key: String,
    /// This computer's own key (or one it had before `--new`).
    #[serde(default)]
    pub yours: bool,
}

#[derive(Debug)]
pub enum TrustError {
    Damaged(PathBuf, String),
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for TrustError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrustError::Damaged(p, why) => write!(
                f,
                "{} is damaged ({why}), so no other app's skill and no reviewed dangerous skill is on. Fix it or move it aside.",
                p.display()
            ),
            TrustError::Io(p, e) => write!(f, "Conch couldn't read or save {}: {e}.", p.display()),
        }
    }
}

impl std::error::Error for TrustError {}

impl Trust {
    /// The trusted signer with this key.
    pub fn signer(&self, key: &ed25519_dalek::VerifyingKey) -> Option<&Signer> {
        let text = crate::signing_key::public_text(key);
        self.signers.iter().find(|s| s.public_key == text)
    }

    /// Trusts `key` as `name` (a key already trusted is renamed).
    pub fn trust_signer(&mut self, key: &ed25519_dalek::VerifyingKey, name: &str, yours: bool) {
        let public_key = crate::signing_key::public_text(key);
        match self.signers.iter_mut().find(|s| s.public_key == public_key) {
            Some(s) => {
                s.name = name.to_owned();
                s.yours |= yours;
            }
            None => self.signers.push(Signer {
                name: name.to_owned(),
                public_key,
                yours,
            }),
        }
    }

    /// Stops trusting the keys matching `what`: a public key, a
    /// fingerprint, or a name. Returns the names forgotten.
    pub fn forget_signer(&mut self, what: &str) -> Vec<String> {
        let what = what.trim();
        let mut gone = Vec::new();
        self.signers.retain(|s| {
            let fp = crate::signing_key::parse_public(&s.public_key)
                .map(|k| crate::signing_key::key_fingerprint(&k))
                .unwrap_or_default();
            let hit = s.public_key == what || fp == what || s.name == what;
            if hit {
                gone.push(s.name.clone());
            }
            !hit
        });
        gone
    }

    pub fn load(conch_home: &Path) -> Result<Trust, TrustError> {
        let path = conch_home.join(TRUST_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes).map_err(|e| TrustError::Damaged(path, e.to_string()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Trust::default()),
            Err(e) => Err(TrustError::Io(path, e)),
        }
    }

    pub fn save(&self, conch_home: &Path) -> Result<(), TrustError> {
        let path = conch_home.join(TRUST_FILE);
        let text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        vault::write_private(&path, text.as_bytes()).map_err(|e| TrustError::Io(path, e))
    }
}
