//! Setting a chat app up, the same from the command line (`conch bridges
//! …`) and from Settings → Chat apps (`/api/bridges/…`): which apps there
//! are, what a bot token looks like, which API address is taken, where the
//! token is kept (sealed, with the webhook's secret it already had), the
//! one-time link code, and the list both show.

use std::path::Path;

use conversations::secrets::BridgeSecret;
use conversations::{Secrets, SecretsError, Settings, SettingsError};
use serde_json::Value;

use crate::access;
use crate::state::{summary, StateError, StateFile};
use crate::telegram::API_BASE;

/// The chat apps Conch has.
pub const APPS: [&str; 1] = ["telegram"];

#[derive(Debug)]
pub enum SetupError {
    UnknownApp(String),
    BadToken,
    BadAddress(String),
    NoRandomness,
    Settings(SettingsError),
    Secrets(SecretsError),
    State(StateError),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::UnknownApp(name) => write!(
                f,
                "There's no chat app called \"{name}\" yet. Use telegram."
            ),
            SetupError::BadToken => f.write_str(
                "That doesn't look like a bot token. @BotFather gives one like 123456789:AAE…, digits, a colon, then letters and digits.",
            ),
            SetupError::BadAddress(text) => write!(
                f,
                "\"{text}\" isn't a web address. Give one like {API_BASE}."
            ),
            SetupError::NoRandomness => f.write_str(
                "This computer gave Conch no randomness for the code, so none was made.",
            ),
            SetupError::Settings(e) => e.fmt(f),
            SetupError::Secrets(e) => e.fmt(f),
            SetupError::State(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SetupError {}

impl From<SettingsError> for SetupError {
    fn from(e: SettingsError) -> Self {
        SetupError::Settings(e)
    }
}

impl From<SecretsError> for SetupError {
    fn from(e: SecretsError) -> Self {
        SetupError::Secrets(e)
    }
}

impl From<StateError> for SetupError {
    fn from(e: StateError) -> Self {
        SetupError::State(e)
    }
}

/// The app named `name`, in any case.
pub fn app(name: &str) -> Result<&'static str, SetupError> {
    let lower = name.to_ascii_lowercase();
    APPS.into_iter()
        .find(|a| *a == lower)
        .ok_or_else(|| SetupError::UnknownApp(name.chars().take(40).collect()))
}

/// A bot token as @BotFather gives it (its first line, trimmed): digits, a
/// colon, then letters, digits, `-` and `_`.
pub fn token(text: &str) -> Result<String, SetupError> {
    let token = text.lines().next().unwrap_or("").trim();
    let shaped = token.split_once(':').is_some_and(|(id, secret)| {
        !id.is_empty()
            && id.bytes().all(|b| b.is_ascii_digit())
            && !secret.is_empty()
            && secret
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    if shaped {
        Ok(token.to_owned())
    } else {
        Err(SetupError::BadToken)
    }
}

/// The app's API address when it isn't the usual one: an http(s) address,
/// without its final `/`; blank is the usual one.
pub fn api_base(text: Option<&str>) -> Result<Option<String>, SetupError> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    match reqwest::Url::parse(text) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {
            Ok(Some(text.trim_end_matches('/').to_owned()))
        }
        _ => Err(SetupError::BadAddress(text.chars().take(200).collect())),
    }
}

/// Keeps `token` sealed for `app` (a new token keeps the webhook's secret,
/// if there is one) and where its API is.
pub fn save_token(
    root: &Path,
    app: &str,
    token: String,
    base: Option<String>,
) -> Result<(), SetupError> {
    let vault = Settings::load(root)?.vault(root);
    let mut secrets = Secrets::load(&vault)?;
    let webhook_secret = secrets
        .bridges
        .get(app)
        .and_then(|b| b.webhook_secret.clone());
    secrets.bridges.insert(
        app.to_owned(),
        BridgeSecret {
            token,
            webhook_secret,
        },
    );
    secrets.save(&vault)?;
    StateFile::new(root).update(app, |s| s.api_base = base)?;
    Ok(())
}

/// Whether a token is kept for `app`.
pub fn has_token(root: &Path, app: &str) -> Result<bool, SetupError> {
    let vault = Settings::load(root)?.vault(root);
    Ok(Secrets::load(&vault)?.bridges.contains_key(app))
}

/// A new one-time code to send the bot as `/link CODE`, kept (only its
/// hash) until it expires: the code, and when it expires.
pub fn new_link(root: &Path, app: &str, now: i64) -> Result<(String, i64), SetupError> {
    let mut random = [0u8; access::CODE_CHARS];
    getrandom::fill(&mut random).map_err(|_| SetupError::NoRandomness)?;
    let (code, kept) = access::new_code(random, now);
    let expires = kept.expires;
    StateFile::new(root).update(app, |s| s.link = Some(kept))?;
    Ok((code, expires))
}

/// Every app as the list shows it (camelCase; never a token), those not
/// set up yet included.
pub fn rows(root: &Path, now: i64) -> Result<Vec<Value>, SetupError> {
    let all = StateFile::new(root).load()?;
    let vault = Settings::load(root)?.vault(root);
    let secrets = Secrets::load(&vault)?;
    let mut rows: Vec<Value> = all
        .iter()
        .map(|(name, s)| summary(name, s, secrets.bridges.contains_key(name), API_BASE, now))
        .collect();
    for app in APPS.into_iter().filter(|a| !all.contains_key(*a)) {
        rows.push(summary(app, &Default::default(), false, API_BASE, now));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_token_and_an_address_are_read_one_way() {
        assert_eq!(token(" 123:AB-c_d \nmore").unwrap(), "123:AB-c_d");
        for bad in ["", "123", ":abc", "12a:abc", "123:a b", "123:é"] {
            assert!(token(bad).is_err(), "{bad}");
        }
        assert_eq!(api_base(Some("  ")).unwrap(), None);
        assert_eq!(
            api_base(Some("http://127.0.0.1:9/x/")).unwrap().as_deref(),
            Some("http://127.0.0.1:9/x")
        );
        for bad in ["ftp://x", "not a url", "http://"] {
            assert!(api_base(Some(bad)).is_err(), "{bad}");
        }
        assert_eq!(app("Telegram").unwrap(), "telegram");
        assert!(app("signal").is_err());
    }
}
