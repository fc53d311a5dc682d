//! The sealed file format, and sealing and opening under a device key.
//!
//! ```json
//! {"sealed":"conch-system/1","keystore":"secret-service","nonce":"…","data":"…"}
//! ```
//!
//! `data` is the AES-256-GCM ciphertext with its tag, under the subkey
//! HKDF-SHA256(device key, info = `conch-system/1 <name>`), with the file's
//! name as associated data. `keystore` says where the device key lives, so
//! the file opens even after the keystore Conch would pick has changed. It
//! isn't secret, and changing it only makes the file fail to open.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hkdf::Hkdf;
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::keystore::KeystoreKind;

/// The format's name, and the prefix of every subkey's HKDF info.
pub const FORMAT: &str = "conch-system/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SealedFile {
    pub sealed: String,
    pub keystore: KeystoreKind,
    pub nonce: String,
    pub data: String,
}

/// What a sealed file starts with. A file that starts so but doesn't parse
/// (truncated, changed) is a broken seal, never a clear file.
const PREFIX: &[u8] = br#"{"sealed":"conch-system/"#;

/// Whether `bytes` are a sealed file (of any version, whole or broken), not
/// a clear one.
pub fn is_sealed(bytes: &[u8]) -> bool {
    bytes.starts_with(PREFIX) || parse(bytes).is_some()
}

fn parse(bytes: &[u8]) -> Option<SealedFile> {
    serde_json::from_slice::<SealedFile>(bytes)
        .ok()
        .filter(|f| f.sealed.starts_with("conch-system/"))
}

fn subkey(device: &[u8; 32], name: &str) -> Zeroizing<[u8; 32]> {
    let mut key = Zeroizing::new([0u8; 32]);
    // A 32-byte output is far under HKDF-SHA256's limit: expand can't fail.
    let _ = Hkdf::<Sha256>::new(None, device)
        .expand(format!("{FORMAT} {name}").as_bytes(), key.as_mut());
    key
}

/// Seals `plain` as the file called `name`, with a fresh random nonce.
pub fn seal(
    device: &[u8; 32],
    keystore: KeystoreKind,
    name: &str,
    plain: &[u8],
) -> Result<Vec<u8>, getrandom::Error> {
    let mut nonce = [0u8; 12];
    getrandom::fill(&mut nonce)?;
    let key = subkey(device, name);
    let cipher = Aes256Gcm::new(key.as_ref().into());
    // Encryption only fails past AES-GCM's length limit (64 GiB).
    let data = cipher
        .encrypt(
            Nonce::from_slice(&nonce),
            Payload {
                msg: plain,
                aad: name.as_bytes(),
            },
        )
        .unwrap_or_default();
    let file = SealedFile {
        sealed: FORMAT.to_owned(),
        keystore,
        nonce: STANDARD.encode(nonce),
        data: STANDARD.encode(data),
    };
    let mut out = serde_json::to_vec(&file).unwrap_or_default();
    out.push(b'\n');
    Ok(out)
}

/// Why a sealed file didn't open.
#[derive(Debug, PartialEq, Eq)]
pub enum OpenFailure {
    /// Not a sealed file, or one of a version this Conch doesn't know.
    NotSealed,
    /// The seal doesn't hold: changed, truncated, or another key.
    Broken,
}

/// Where the key of a sealed file lives, without opening it.
pub fn keystore_of(bytes: &[u8]) -> Option<KeystoreKind> {
    parse(bytes).map(|f| f.keystore)
}

/// Opens a sealed file called `name`.
pub fn open(
    device: &[u8; 32],
    name: &str,
    bytes: &[u8],
) -> Result<Zeroizing<Vec<u8>>, OpenFailure> {
    let Some(file) = parse(bytes) else {
        return Err(if bytes.starts_with(PREFIX) {
            OpenFailure::Broken
        } else {
            OpenFailure::NotSealed
        });
    };
    if file.sealed != FORMAT {
        return Err(OpenFailure::NotSealed);
    }
    let nonce = STANDARD
        .decode(&file.nonce)
        .map_err(|_| OpenFailure::Broken)?;
    let data = STANDARD
        .decode(&file.data)
        .map_err(|_| OpenFailure::Broken)?;
    if nonce.len() != 12 {
        return Err(OpenFailure::Broken);
    }
    let key = subkey(device, name);
    let cipher = Aes256Gcm::new(key.as_ref().into());
    cipher
        .decrypt(
            Nonce::from_slice(&nonce),
            Payload {
                msg: &data,
                aad: name.as_bytes(),
            },
        )
        .map(Zeroizing::new)
        .map_err(|_| OpenFailure::Broken)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7; 32];
    const K: KeystoreKind = KeystoreKind::File;

    #[test]
    fn opens_what_it_sealed_and_nonces_are_fresh() {
        let a = seal(&KEY, K, "secrets.json", b"{\"k\":1}").unwrap();
        let b = seal(&KEY, K, "secrets.json", b"{\"k\":1}").unwrap();
        assert_ne!(a, b, "a fresh nonce on every write");
        assert!(is_sealed(&a));
        assert_eq!(
            open(&KEY, "secrets.json", &a).unwrap().as_slice(),
            b"{\"k\":1}"
        );
        assert_eq!(keystore_of(&a), Some(K));
    }

    #[test]
    fn every_tamper_fails_closed() {
        let good = seal(&KEY, K, "skills.signing.json", b"private").unwrap();
        // Another name: the name is bound in.
        assert_eq!(open(&KEY, "secrets.json", &good), Err(OpenFailure::Broken));
        // Another key.
        assert_eq!(
            open(&[8; 32], "skills.signing.json", &good),
            Err(OpenFailure::Broken)
        );
        // One byte of the ciphertext, in every position.
        let file: SealedFile = serde_json::from_slice(&good).unwrap();
        let data = STANDARD.decode(&file.data).unwrap();
        for at in 0..data.len() {
            let mut bad = data.clone();
            bad[at] ^= 1;
            let f = SealedFile {
                data: STANDARD.encode(&bad),
                ..file.clone()
            };
            let bytes = serde_json::to_vec(&f).unwrap();
            assert_eq!(
                open(&KEY, "skills.signing.json", &bytes),
                Err(OpenFailure::Broken),
                "byte {at}"
            );
        }
        // Truncated, at every length: still a (broken) seal, never clear.
        for len in 0..good.len() - 1 {
            assert!(open(&KEY, "skills.signing.json", &good[..len]).is_err());
            if len >= PREFIX.len() {
                assert!(is_sealed(&good[..len]), "{len}");
                assert_eq!(
                    open(&KEY, "skills.signing.json", &good[..len]),
                    Err(OpenFailure::Broken)
                );
            }
        }
        // A newer format isn't guessed at.
        let newer = String::from_utf8(good.clone())
            .unwrap()
            .replace("conch-system/1", "conch-system/2");
        assert_eq!(
            open(&KEY, "skills.signing.json", newer.as_bytes()),
            Err(OpenFailure::NotSealed)
        );
    }

    #[test]
    fn clear_json_is_not_sealed() {
        assert!(!is_sealed(b"{\"providers\":{}}"));
        assert!(!is_sealed(b""));
    }
}
