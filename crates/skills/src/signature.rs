//! Signed skills: `SIGNATURE.conch.json` in the skill's folder.
//!
//! ```json
//! {"signature": "conch-skill/1", "digest": "<hex>", "publicKey": "<base64>", "value": "<base64>"}
//! ```
//!
//! `digest` is the skill's fingerprint without the signature file: sha256
//! over the sorted lines `path:sha256(file)` of every other file (links
//! count as `link:<target>`; `.git` is left out). `value` is the Ed25519
//! signature of `conch-skill/1\n<digest>`, so a signature over something
//! else can't be replayed as a skill's. A folder with files too many to
//! read or hash isn't signed or verified: a signature must cover it all.

use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signature, VerifyingKey};
use serde::{Deserialize, Serialize};

use crate::signing_key::{key_fingerprint, parse_public, public_text, SkillSigner};
use crate::trust::Trust;

pub const SIGNATURE_FILE: &str = "SIGNATURE.conch.json";
const FORMAT: &str = "conch-skill/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureFile {
    pub signature: String,
    pub digest: String,
    pub public_key: String,
    pub value: String,
}

#[derive(Debug)]
pub enum SignatureError {
    Read(String, std::io::Error),
    /// Part of the folder couldn't be read, so it can't all be covered.
    Unread(String, String),
}

impl std::fmt::Display for SignatureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SignatureError::Read(p, e) => write!(f, "{p} can't be read: {e}."),
            SignatureError::Unread(p, why) => write!(
                f,
                "{p} can't be covered by a signature: it is {why}. Nothing was signed or checked."
            ),
        }
    }
}

impl std::error::Error for SignatureError {}

/// The digest a signature covers: every file but the signature.
pub fn digest(folder: &Path) -> Result<String, SignatureError> {
    let shown = folder.display().to_string();
    let read =
        crate::read::read_folder(folder).map_err(|e| SignatureError::Read(shown.clone(), e))?;
    if let Some((_, n)) = read.hashes.iter().find(|(p, _)| p == "(more files)") {
        return Err(SignatureError::Unread(
            shown,
            format!("{n} files, too many to hash"),
        ));
    }
    let hashes = read
        .hashes
        .iter()
        .filter(|(p, _)| p != SIGNATURE_FILE)
        .map(|(p, h)| (p.as_str(), h.as_str()));
    Ok(crate::fingerprint::from_hashes(hashes))
}

fn message(digest: &str) -> Vec<u8> {
    format!("{FORMAT}\n{digest}").into_bytes()
}

/// Signs the skill at `folder`, writing its signature file.
pub fn sign(folder: &Path, signer: &SkillSigner) -> Result<SignatureFile, SignatureError> {
    let digest = digest(folder)?;
    let file = SignatureFile {
        signature: FORMAT.to_owned(),
        public_key: public_text(&signer.public_key()),
        value: STANDARD.encode(signer.sign(&message(&digest)).to_bytes()),
        digest,
    };
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    let path = folder.join(SIGNATURE_FILE);
    vault::write_atomic(&path, text.as_bytes())
        .map_err(|e| SignatureError::Read(path.display().to_string(), e))?;
    Ok(file)
}

/// What checking a skill's signature found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Signed by a key you trust, and nothing changed since.
    Verified {
        signer: String,
        fingerprint: String,
        yours: bool,
    },
    /// Signed, unchanged, by a key you haven't trusted.
    UnknownKey {
        fingerprint: String,
        public_key: String,
    },
    /// Files changed after signing, or the signature doesn't hold.
    Changed,
    NotSigned,
    /// The signature file isn't one Conch can read.
    Damaged(String),
}

impl Verdict {
    pub fn words(&self) -> String {
        match self {
            Verdict::Verified { signer, fingerprint, yours } => {
                let whose = if *yours { "you".to_owned() } else { signer.clone() };
                format!("Verified: signed by {whose} ({fingerprint}), and unchanged since.")
            }
            Verdict::UnknownKey { fingerprint, public_key } => format!(
                "Signed, but by a key you haven't trusted ({fingerprint}). If you know whose it is: conch skills trust {public_key} --name NAME"
            ),
            Verdict::Changed => {
                "Not verified: the skill changed after it was signed, or the signature is false.".to_owned()
            }
            Verdict::NotSigned => "Not signed.".to_owned(),
            Verdict::Damaged(why) => format!("Not verified: its signature file is damaged ({why})."),
        }
    }
}

/// Checks the skill at `folder` against the keys `trust` holds.
pub fn verify(folder: &Path, trust: &Trust) -> Result<Verdict, SignatureError> {
    let path = folder.join(SIGNATURE_FILE);
    let bytes = match std::fs::symlink_metadata(&path) {
        Ok(meta) if !meta.is_file() => {
            return Ok(Verdict::Damaged("it isn't a plain file".to_owned()))
        }
        Ok(meta) if meta.len() > 64 * 1024 => {
            return Ok(Verdict::Damaged("it is far too big".to_owned()))
        }
        Ok(_) => {
            std::fs::read(&path).map_err(|e| SignatureError::Read(path.display().to_string(), e))?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Verdict::NotSigned),
        Err(e) => return Err(SignatureError::Read(path.display().to_string(), e)),
    };
    let file: SignatureFile = match serde_json::from_slice(&bytes) {
        Ok(f) => f,
        Err(e) => return Ok(Verdict::Damaged(e.to_string())),
    };
    if file.signature != FORMAT {
        return Ok(Verdict::Damaged(format!(
            "it is \"{}\", not {FORMAT}",
            file.signature
        )));
    }
    let Some(key) = parse_public(&file.public_key) else {
        return Ok(Verdict::Damaged(
            "its public key isn't an Ed25519 key".to_owned(),
        ));
    };
    let Some(value) = STANDARD
        .decode(&file.value)
        .ok()
        .and_then(|b| Signature::from_slice(&b).ok())
    else {
        return Ok(Verdict::Damaged(
            "its signature isn't an Ed25519 signature".to_owned(),
        ));
    };
    let now = digest(folder)?;
    if now != file.digest || key.verify_strict(&message(&now), &value).is_err() {
        return Ok(Verdict::Changed);
    }
    Ok(match trust.signer(&key) {
        Some(s) => Verdict::Verified {
            signer: s.name.clone(),
            fingerprint: key_fingerprint(&key),
            yours: s.yours,
        },
        None => Verdict::UnknownKey {
            fingerprint: key_fingerprint(&key),
            public_key: public_text(&key),
        },
    })
}

/// The key a signature file names, if it reads.
pub fn signer_of(folder: &Path) -> Option<VerifyingKey> {
    let bytes = std::fs::read(folder.join(SIGNATURE_FILE)).ok()?;
    let file: SignatureFile = serde_json::from_slice(&bytes).ok()?;
    parse_public(&file.public_key)
}
