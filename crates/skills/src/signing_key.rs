//! The skill-signing key (ADR 0047 §2): Ed25519, kept in
//! `skills.signing.json` sealed under this computer's device key.
//!
//! In the clear (an older Conch, a restored backup) the file reads
//! `{"privateKey": base64 PKCS#8 DER, "publicKey": base64 of the 32-byte
//! public key}`; sealed, that same text is inside the seal. The file is
//! opened here rather than through a "read or default" helper: for a
//! signing key the default would be a new key, a quiet new identity. It is
//! never replaced by itself; `conch skills key --new` is the only way.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey};
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use vault::{KeystoreError, Locked, Stored, Vault, VaultError};
use zeroize::Zeroizing;

pub const SIGNING_FILE: &str = "skills.signing.json";

/// Why the signing key can't be used. Each says nothing was signed, and
/// what to do next.
#[derive(Debug)]
pub enum SigningKeyError {
    /// The seal doesn't open: the file was changed, or locked on another
    /// computer.
    Changed,
    /// A file in the clear that doesn't hold together.
    Damaged(String),
    /// The keychain wouldn't give the device key.
    Keychain(String),
}

impl std::fmt::Display for SigningKeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SigningKeyError::Changed => f.write_str(
                "Your key for signing skills can't be opened: the file was changed, or it was locked on another computer. Nothing was signed. If it is gone for good, make a new key with: conch skills key --new",
            ),
            SigningKeyError::Damaged(why) => write!(
                f,
                "Your key for signing skills is damaged ({why}). Nothing was signed. Make a new key with: conch skills key --new"
            ),
            SigningKeyError::Keychain(why) => write!(
                f,
                "The keychain wouldn't give this computer's key ({why}), so your key for signing skills can't be opened. Nothing was signed. Unlock the keychain and run the command again."
            ),
        }
    }
}

impl std::error::Error for SigningKeyError {}

fn from_vault(e: VaultError) -> SigningKeyError {
    match e {
        VaultError::Changed(_) => SigningKeyError::Changed,
        VaultError::Damaged(_, why) => SigningKeyError::Damaged(why),
        VaultError::Io(_, e) => SigningKeyError::Damaged(e.to_string()),
        VaultError::Keystore(KeystoreError::Refused(why)) => SigningKeyError::Keychain(why),
        VaultError::Keystore(KeystoreError::Missing(what)) => {
            SigningKeyError::Keychain(format!("there is no {what} now"))
        }
        VaultError::Keystore(e) => SigningKeyError::Keychain(e.to_string()),
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct KeyFile {
    private_key: String,
    public_key: String,
}

/// The key, opened. Its secret half is wiped when it is dropped.
pub struct SkillSigner {
    key: SigningKey,
}

impl SkillSigner {
    pub fn public_key(&self) -> VerifyingKey {
        self.key.verifying_key()
    }

    pub fn sign(&self, message: &[u8]) -> ed25519_dalek::Signature {
        self.key.sign(message)
    }
}

/// The public half, as it is shared: base64 of its 32 bytes.
pub fn public_text(key: &VerifyingKey) -> String {
    STANDARD.encode(key.as_bytes())
}

/// A key's fingerprint, as people compare it: `SHA256:` and the base64 of
/// the sha256 of the 32-byte public key (the way SSH shows keys).
pub fn key_fingerprint(key: &VerifyingKey) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(key.as_bytes());
    format!(
        "SHA256:{}",
        base64::engine::general_purpose::STANDARD_NO_PAD.encode(digest)
    )
}

/// Reads a public key as shared: base64 (or base64url) of 32 bytes.
pub fn parse_public(text: &str) -> Option<VerifyingKey> {
    let text = text.trim();
    let bytes = STANDARD
        .decode(text)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(text))
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(text))
        .ok()?;
    VerifyingKey::from_bytes(&bytes.try_into().ok()?).ok()
}

/// The key file's text holds together: the right shape, an Ed25519 PKCS#8
/// key whose public half is the one named.
fn check(text: &[u8]) -> Result<SigningKey, String> {
    let file: KeyFile =
        serde_json::from_slice(text).map_err(|_| "it isn't the key file's shape".to_owned())?;
    let der = Zeroizing::new(
        STANDARD
            .decode(&file.private_key)
            .map_err(|_| "its private key isn't base64".to_owned())?,
    );
    let key = SigningKey::from_pkcs8_der(&der)
        .map_err(|_| "its private key isn't an Ed25519 PKCS#8 key".to_owned())?;
    if public_text(&key.verifying_key()) != file.public_key.trim() {
        return Err("its private key doesn't match the public key it names".to_owned());
    }
    Ok(key)
}

fn text_of(key: &SigningKey) -> Result<Zeroizing<Vec<u8>>, String> {
    let der = key
        .to_pkcs8_der()
        .map_err(|e| format!("the key can't be written as PKCS#8: {e}"))?;
    let file = KeyFile {
        private_key: STANDARD.encode(der.as_bytes()),
        public_key: public_text(&key.verifying_key()),
    };
    let text = serde_json::to_vec_pretty(&file).map_err(|e| e.to_string())?;
    // The base64 string in `file` is dropped here; zeroize what we can.
    let mut private = file.private_key;
    zeroize::Zeroize::zeroize(&mut private);
    Ok(Zeroizing::new(text))
}

/// What the key file is, for `conch doctor` (asks the keystore only when
/// the file is sealed).
pub enum KeyStatus {
    /// Never signed: there is no key.
    None,
    /// Locked with this computer's own key, and it opens.
    Sealed(VerifyingKey),
    /// In the clear: repair locks it.
    Clear,
    CantOpen(SigningKeyError),
}

pub fn status(vault: &Vault) -> KeyStatus {
    match vault.read(SIGNING_FILE) {
        Ok(Stored::Missing) => KeyStatus::None,
        Ok(Stored::Clear(_)) => KeyStatus::Clear,
        Ok(Stored::Sealed(text)) => match check(&text) {
            Ok(key) => KeyStatus::Sealed(key.verifying_key()),
            Err(why) => KeyStatus::CantOpen(SigningKeyError::Damaged(why)),
        },
        Err(e) => KeyStatus::CantOpen(from_vault(e)),
    }
}

/// Locks a key found in the clear, after checking it; a sealed file is
/// left alone without reaching for the keychain.
pub fn lock_if_clear(vault: &Vault) -> Result<Locked, SigningKeyError> {
    vault
        .lock_if_clear(SIGNING_FILE, |text| check(text).map(|_| ()))
        .map_err(from_vault)
}

/// The key, if one was ever made. A key in the clear is locked first.
pub fn open(vault: &Vault) -> Result<Option<SkillSigner>, SigningKeyError> {
    lock_if_clear(vault)?;
    match vault.read(SIGNING_FILE).map_err(from_vault)? {
        Stored::Missing => Ok(None),
        Stored::Sealed(text) | Stored::Clear(text) => check(&text)
            .map(|key| Some(SkillSigner { key }))
            .map_err(SigningKeyError::Damaged),
    }
}

/// Makes a key and seals it, unless a key file appeared meanwhile (two
/// first signs at once): then None, and the one there is the key.
fn make(vault: &Vault) -> Result<Option<SkillSigner>, SigningKeyError> {
    let mut seed = Zeroizing::new([0u8; 32]);
    getrandom::fill(seed.as_mut()).map_err(|e| SigningKeyError::Damaged(e.to_string()))?;
    let key = SigningKey::from_bytes(&seed);
    let text = text_of(&key).map_err(SigningKeyError::Damaged)?;
    if vault.create(SIGNING_FILE, &text).map_err(from_vault)? {
        Ok(Some(SkillSigner { key }))
    } else {
        Ok(None)
    }
}

/// The key, made (sealed) on first use.
pub fn open_or_make(vault: &Vault) -> Result<(SkillSigner, bool), SigningKeyError> {
    if let Some(signer) = open(vault)? {
        return Ok((signer, false));
    }
    match make(vault)? {
        Some(signer) => Ok((signer, true)),
        None => open(vault)?
            .map(|s| (s, false))
            .ok_or_else(|| SigningKeyError::Damaged("it vanished while it was made".to_owned())),
    }
}

/// What `--new` did with the old file.
pub enum Replaced {
    /// There was none.
    Nothing,
    /// A sealed file that wouldn't open, set aside still sealed.
    SetAside(std::path::PathBuf),
    /// A damaged file in the clear, removed so no plain copy stays.
    Removed,
}

/// Why `--new` refused.
#[derive(Debug)]
pub enum NewKeyError {
    /// The old key opens: a new one would be a new identity for nothing.
    OldOpens(String),
    Failed(SigningKeyError),
}

impl std::fmt::Display for NewKeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NewKeyError::OldOpens(fp) => write!(
                f,
                "Your key for signing skills opens fine ({fp}), so no new key was made. A new key is only for one that can't be opened."
            ),
            NewKeyError::Failed(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for NewKeyError {}

/// `conch skills key --new`: only when the old key can't be opened.
pub fn make_new(vault: &Vault) -> Result<(SkillSigner, Replaced), NewKeyError> {
    let replaced = match status(vault) {
        KeyStatus::Sealed(key) => return Err(NewKeyError::OldOpens(key_fingerprint(&key))),
        KeyStatus::None => Replaced::Nothing,
        KeyStatus::Clear => match vault.read(SIGNING_FILE) {
            // A clear key that holds together is locked, not replaced.
            Ok(Stored::Clear(text)) if check(&text).is_ok() => {
                let _ = lock_if_clear(vault);
                let fp = check(&text)
                    .map(|k| key_fingerprint(&k.verifying_key()))
                    .unwrap_or_default();
                return Err(NewKeyError::OldOpens(fp));
            }
            _ => {
                vault
                    .remove(SIGNING_FILE)
                    .map_err(|e| NewKeyError::Failed(from_vault(e)))?;
                Replaced::Removed
            }
        },
        // Sealed but not opening (changed, another computer's, or the
        // keychain gone): set aside still sealed, in case the keychain
        // comes back.
        KeyStatus::CantOpen(_) => {
            let to = vault
                .set_aside(SIGNING_FILE)
                .map_err(|e| NewKeyError::Failed(from_vault(e)))?;
            Replaced::SetAside(to)
        }
    };
    let signer = make(vault).map_err(NewKeyError::Failed)?.ok_or_else(|| {
        NewKeyError::Failed(SigningKeyError::Damaged(
            "another key file appeared while the new one was made".to_owned(),
        ))
    })?;
    Ok((signer, replaced))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vault::KeystoreMode;

    fn clear_file(key: &SigningKey) -> Vec<u8> {
        text_of(key).unwrap().to_vec()
    }

    #[test]
    fn a_clear_key_is_checked_then_locked() {
        let dir = tempfile::tempdir().unwrap();
        let v = Vault::new(dir.path(), KeystoreMode::File);
        let key = SigningKey::from_bytes(&[3; 32]);
        std::fs::write(dir.path().join(SIGNING_FILE), clear_file(&key)).unwrap();
        assert!(matches!(status(&v), KeyStatus::Clear));
        assert_eq!(lock_if_clear(&v).unwrap(), Locked::Locked);
        match status(&v) {
            KeyStatus::Sealed(k) => assert_eq!(k, key.verifying_key()),
            _ => panic!("not sealed"),
        }
        let signer = open(&v).unwrap().unwrap();
        assert_eq!(signer.public_key(), key.verifying_key());
    }

    #[test]
    fn a_clear_key_naming_another_public_key_is_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let v = Vault::new(dir.path(), KeystoreMode::File);
        let key = SigningKey::from_bytes(&[3; 32]);
        let other = SigningKey::from_bytes(&[4; 32]);
        let mut file: KeyFile = serde_json::from_slice(&clear_file(&key)).unwrap();
        file.public_key = public_text(&other.verifying_key());
        std::fs::write(
            dir.path().join(SIGNING_FILE),
            serde_json::to_vec(&file).unwrap(),
        )
        .unwrap();
        let err = open(&v).err().unwrap();
        assert!(matches!(err, SigningKeyError::Damaged(_)), "{err}");
        assert!(err.to_string().contains("Nothing was signed."));
        // Never replaced by itself.
        assert!(dir.path().join(SIGNING_FILE).exists());
        assert!(!vault::is_sealed(
            &std::fs::read(dir.path().join(SIGNING_FILE)).unwrap()
        ));
    }

    #[test]
    fn new_refuses_while_the_old_key_opens() {
        let dir = tempfile::tempdir().unwrap();
        let v = Vault::new(dir.path(), KeystoreMode::File);
        let (_, made) = open_or_make(&v).unwrap();
        assert!(made);
        assert!(matches!(make_new(&v), Err(NewKeyError::OldOpens(_))));
    }
}
