//! The secrets this Conch holds, for the masker (the `mask` crate): the
//! keys and tokens in secrets.json, the access keys' hashes in
//! access-keys.json, and the secret-looking values of the environment
//! Conch was started with. Read again whenever either file changes, so a
//! key added in the terminal is masked from the next event on.
//!
//! A secrets.json that can't be read leaves the last secrets known (and
//! the environment's) in place and says so once: what was masked stays
//! masked.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use mask::{Hashed, Masker, Secret, Syntax};

use crate::file_stamp::{stamp, FileStamp};
use crate::secrets::{Secrets, SECRETS_FILE};

/// Where access keys' hashes are kept (written by the gateway).
pub const KEYS_FILE: &str = "access-keys.json";
/// How an access key begins, and how many letters follow.
pub const KEY_PREFIX: &str = "conch_";
pub const KEY_BODY: usize = 40;

pub struct KnownSecrets {
    home: PathBuf,
    vault: vault::Vault,
    env: Vec<Secret>,
    now: Mutex<Now>,
}

struct Now {
    stamps: Option<(Option<FileStamp>, Option<FileStamp>)>,
    held: Vec<Secret>,
    hashed: Vec<Hashed>,
    masker: Arc<Masker>,
    warned: bool,
}

impl KnownSecrets {
    /// The secrets of the home at `home`, with this process's environment.
    pub fn new(home: &Path) -> KnownSecrets {
        Self::with_env(home, env_secrets())
    }

    pub fn with_env(home: &Path, env: Vec<Secret>) -> KnownSecrets {
        let vault = crate::settings::Settings::load(home)
            .unwrap_or_default()
            .vault(home);
        KnownSecrets {
            home: home.to_path_buf(),
            vault,
            env,
            now: Mutex::new(Now {
                stamps: None,
                held: Vec::new(),
                hashed: Vec::new(),
                masker: Arc::new(Masker::default()),
                warned: false,
            }),
        }
    }

    /// The masker for the secrets as they are now (a few metadata reads
    /// when nothing changed).
    pub fn masker(&self) -> Arc<Masker> {
        let stamps = (
            stamp(&self.home.join(SECRETS_FILE)),
            stamp(&self.home.join(KEYS_FILE)),
        );
        let mut now = self.now.lock().unwrap_or_else(|p| p.into_inner());
        if now.stamps == Some(stamps) {
            return now.masker.clone();
        }
        if now.stamps.map(|s| s.0) != Some(stamps.0) {
            match Secrets::load(&self.vault) {
                Ok(secrets) => now.held = held(&secrets),
                Err(e) if !now.warned => {
                    now.warned = true;
                    crate::warn(&format!(
                        "{e} Secrets read earlier are still taken out of what Conch stores and sends."
                    ));
                }
                Err(_) => {}
            }
        }
        if now.stamps.map(|s| s.1) != Some(stamps.1) {
            now.hashed = access_keys(&self.home.join(KEYS_FILE));
        }
        let mut all = self.env.clone();
        all.extend(now.held.iter().cloned());
        now.masker = Arc::new(Masker::new(&all, now.hashed.clone()));
        now.stamps = Some(stamps);
        now.masker.clone()
    }

    /// `text` with the secrets in it replaced by their names.
    pub fn mask(&self, text: &str) -> String {
        self.masker().mask(text, Syntax::Text).into_owned()
    }
}

fn env_secrets() -> Vec<Secret> {
    mask::env_secrets(
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
    )
}

/// Each secret in secrets.json with the name it is shown by.
fn held(secrets: &Secrets) -> Vec<Secret> {
    let mut out = Vec::new();
    for (name, p) in &secrets.providers {
        out.push(Secret::new(&format!("{name} key"), &p.key));
    }
    for (app, s) in &secrets.apps {
        for (var, value) in s.env.iter().chain(&s.headers) {
            out.push(Secret::new(&format!("{app} {var}"), value));
            // `Bearer abc…`: the token alone is as secret.
            if let Some((_, token)) = value.split_once(' ') {
                out.push(Secret::new(&format!("{app} {var}"), token.trim()));
            }
        }
    }
    for (app, b) in &secrets.bridges {
        out.push(Secret::new(&format!("{app} token"), &b.token));
        if let Some(w) = &b.webhook_secret {
            out.push(Secret::new(&format!("{app} webhook secret"), w));
        }
    }
    if let Some(p) = &secrets.backup_passphrase {
        out.push(Secret::new("backup passphrase", p));
    }
    out
}

fn access_keys(path: &Path) -> Vec<Hashed> {
    #[derive(serde::Deserialize)]
    struct Record {
        name: String,
        hash: String,
    }
    let records: Vec<Record> = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    records
        .iter()
        .map(|r| {
            Hashed::new(
                &format!("access key {}", r.name),
                KEY_PREFIX,
                KEY_BODY,
                &r.hash,
            )
        })
        .collect()
}
