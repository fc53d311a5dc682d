//! Model providers, managed: what `conch providers …` and `/api/providers`
//! both do, so the terminal and Settings → Models can't drift apart.
//!
//! A provider is kept in `settings.json` (`providers`, `defaultProvider`);
//! its key in `secrets.json`, sealed under this computer's device key. A key
//! goes in once and never comes back out: listing says only whether one is
//! set.

use std::path::Path;
use std::time::{Duration, Instant};

use engines::providers::{ProviderKind, ProviderSettings};
use engines::{Chunk, Item, StepRequest};

use crate::secrets::{ProviderSecret, Secrets, SecretsError};
use crate::settings::{Settings, SettingsError};

/// What adding a provider takes.
#[derive(Debug, Clone)]
pub struct NewProvider {
    pub name: String,
    /// `openai` (any OpenAI-compatible server), `anthropic`, or a program:
    /// `claude-code` or `codex`.
    pub kind: String,
    /// Default: `https://api.openai.com/v1` or `https://api.anthropic.com`.
    pub base_url: Option<String>,
    /// May be empty for a program, which then uses its own default.
    pub model: String,
    /// The program, for `claude-code` and `codex`: a path or a name on PATH.
    pub bin: Option<String>,
    /// None: no key (fine for Ollama or llama.cpp); an existing key is kept
    /// when a provider is changed without one.
    pub key: Option<String>,
    pub context_tokens: Option<usize>,
}

/// A provider as a list shows it: never its key.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderInfo {
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: String,
    pub context_tokens: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bin: Option<String>,
    pub has_key: bool,
    pub default: bool,
}

/// What adding did.
#[derive(Debug, Clone, PartialEq)]
pub struct Added {
    pub existed: bool,
    /// It is the default now (the first provider is).
    pub default: bool,
    pub key_stored: bool,
}

#[derive(Debug)]
pub enum ProviderError {
    BadName,
    BadKind(String),
    BadUrl(String),
    BadModel,
    BadKey,
    BadBin,
    NotFound(String),
    Settings(SettingsError),
    Secrets(SecretsError),
    /// A cap, price or currency that can't be one, in a sentence.
    BadAmount(String),
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProviderError::BadName => f.write_str(
                "A provider's name is 1 to 40 letters, digits, dots, dashes or underscores.",
            ),
            ProviderError::BadKind(kind) => write!(
                f,
                "There's no provider kind called \"{}\". Use openai, anthropic, claude-code or codex.",
                kind.chars().take(40).collect::<String>()
            ),
            ProviderError::BadUrl(url) => write!(
                f,
                "\"{}\" isn't a web address. Give one like https://api.openai.com/v1.",
                url.chars().take(200).collect::<String>()
            ),
            ProviderError::BadModel => {
                f.write_str("Say which model to use, like gpt-4o-mini or claude-sonnet-4-5.")
            }
            ProviderError::BadBin => f.write_str(
                "A program is for a provider that is one (kind claude-code or codex).",
            ),
            ProviderError::BadKey => {
                f.write_str("That key is empty or has more than one line. Paste the key alone.")
            }
            ProviderError::BadAmount(sentence) => f.write_str(sentence),
            ProviderError::NotFound(name) => write!(
                f,
                "There's no provider named \"{}\".",
                name.chars().take(40).collect::<String>()
            ),
            ProviderError::Settings(e) => e.fmt(f),
            ProviderError::Secrets(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ProviderError {}

impl From<SettingsError> for ProviderError {
    fn from(e: SettingsError) -> Self {
        ProviderError::Settings(e)
    }
}

impl From<SecretsError> for ProviderError {
    fn from(e: SecretsError) -> Self {
        ProviderError::Secrets(e)
    }
}

pub fn good_name(name: &str) -> bool {
    (1..=40).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// An `http:` or `https:` address with a host, and nothing a line can't hold.
fn good_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or(""));
    host.is_some_and(|h| !h.is_empty() && !h.starts_with(':'))
        && !url.chars().any(|c| c.is_whitespace() || c.is_control())
        && url.len() <= 2048
}

/// The address a provider uses when none is given. A program's is empty:
/// it uses its own (and, for Codex, its own sign-in).
pub fn default_base_url(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Openai => "https://api.openai.com/v1",
        ProviderKind::Anthropic => "https://api.anthropic.com",
        ProviderKind::ClaudeCode | ProviderKind::Codex => "",
    }
}

pub fn kind_name(kind: ProviderKind) -> &'static str {
    kind.name()
}

/// Whether the provider is a program Conch starts (Claude Code, Codex)
/// rather than a model server it calls.
pub fn is_program(kind: ProviderKind) -> bool {
    matches!(kind, ProviderKind::ClaudeCode | ProviderKind::Codex)
}

/// Every provider, in the order they were added.
pub fn list(home: &Path) -> Result<Vec<ProviderInfo>, ProviderError> {
    let settings = Settings::load(home)?;
    let secrets = Secrets::load(&settings.vault(home))?;
    let default = settings.provider().map(|p| p.name.clone());
    Ok(settings
        .providers
        .iter()
        .map(|p| ProviderInfo {
            name: p.name.clone(),
            kind: p.kind,
            base_url: p.base_url.clone(),
            model: p.model.clone(),
            context_tokens: p.context_tokens,
            bin: p.bin.clone(),
            has_key: secrets.key(&p.name).is_some(),
            default: default.as_deref() == Some(p.name.as_str()),
        })
        .collect())
}

/// Adds a provider, or changes the one with that name.
pub fn add(home: &Path, new: NewProvider) -> Result<Added, ProviderError> {
    if !good_name(&new.name) {
        return Err(ProviderError::BadName);
    }
    let kind = ProviderKind::parse(&new.kind).ok_or(ProviderError::BadKind(new.kind.clone()))?;
    let base_url = new
        .base_url
        .map(|u| u.trim().to_owned())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| default_base_url(kind).to_owned());
    let program = is_program(kind);
    if !(good_url(&base_url) || program && base_url.is_empty()) {
        return Err(ProviderError::BadUrl(base_url));
    }
    let model = new.model.trim().to_owned();
    if (model.is_empty() && !program) || model.len() > 200 || model.chars().any(char::is_control) {
        return Err(ProviderError::BadModel);
    }
    let bin = new
        .bin
        .map(|b| b.trim().to_owned())
        .filter(|b| !b.is_empty());
    if bin.is_some() && !program {
        return Err(ProviderError::BadBin);
    }
    if bin
        .as_deref()
        .is_some_and(|b| b.len() > 4096 || b.chars().any(char::is_control))
    {
        return Err(ProviderError::BadBin);
    }
    let key = match new.key.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(k) if k.contains(['\n', '\r']) || k.len() > 16 * 1024 => {
            return Err(ProviderError::BadKey)
        }
        Some(k) => Some(zeroize::Zeroizing::new(k.to_owned())),
    };
    let mut settings = Settings::load(home)?;
    let existed = settings.providers.iter().any(|p| p.name == new.name);
    let provider = ProviderSettings {
        name: new.name.clone(),
        kind,
        base_url,
        model,
        context_tokens: new.context_tokens.unwrap_or(100_000).max(1000),
        max_tokens: 4096,
        bin,
        prices: None,
        no_cap: false,
    };
    match settings.providers.iter_mut().find(|p| p.name == new.name) {
        // Its prices and "no cap" stay with it when it is changed.
        Some(old) => {
            *old = ProviderSettings {
                prices: old.prices,
                no_cap: old.no_cap,
                ..provider
            }
        }
        None => settings.providers.push(provider),
    }
    let default = settings.default_provider.is_none() && settings.providers.len() == 1;
    if default {
        settings.default_provider = Some(new.name.clone());
    }
    // The key first: a provider listed without the key it was given would
    // fail its first turn for no reason anyone could see.
    if let Some(key) = &key {
        let vault = settings.vault(home);
        let mut secrets = Secrets::load(&vault)?;
        secrets.providers.insert(
            new.name.clone(),
            ProviderSecret {
                key: key.to_string(),
            },
        );
        secrets.save(&vault)?;
    }
    settings.save(home)?;
    Ok(Added {
        existed,
        default,
        key_stored: key.is_some(),
    })
}

/// Forgets a provider and its key. The default moves to the first left.
pub fn remove(home: &Path, name: &str) -> Result<(), ProviderError> {
    let mut settings = Settings::load(home)?;
    if !settings.providers.iter().any(|p| p.name == name) {
        return Err(ProviderError::NotFound(name.to_owned()));
    }
    settings.providers.retain(|p| p.name != name);
    if settings.default_provider.as_deref() == Some(name) {
        settings.default_provider = settings.providers.first().map(|p| p.name.clone());
    }
    settings.save(home)?;
    let vault = settings.vault(home);
    let mut secrets = Secrets::load(&vault)?;
    if secrets.providers.remove(name).is_some() {
        secrets.save(&vault)?;
    }
    Ok(())
}

/// New turns use this provider unless a chat picked another.
pub fn set_default(home: &Path, name: &str) -> Result<(), ProviderError> {
    let mut settings = Settings::load(home)?;
    if !settings.providers.iter().any(|p| p.name == name) {
        return Err(ProviderError::NotFound(name.to_owned()));
    }
    settings.default_provider = Some(name.to_owned());
    settings.save(home)?;
    Ok(())
}

/// What one short request to a provider brought back.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tested {
    pub ok: bool,
    /// The model's answer, when it answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// What went wrong, in a sentence, when it didn't.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub ms: u64,
}

/// How long a test may take before it is said to have failed.
pub const TEST_DEADLINE: Duration = Duration::from_secs(30);

/// Sends the provider one short request, with no tools, and says what came
/// back: the answer, or the error in words.
pub async fn test(home: &Path, name: &str) -> Result<Tested, ProviderError> {
    let settings = Settings::load(home)?;
    let chosen = settings
        .providers
        .iter()
        .find(|p| p.name == name)
        .cloned()
        .ok_or_else(|| ProviderError::NotFound(name.to_owned()))?;
    let secrets = Secrets::load(&settings.vault(home))?;
    let engine = engines::providers::engine_in(
        engines::providers::Provider {
            key: secrets.key(&chosen.name),
            settings: chosen,
        },
        // One try after a short wait at most: a test says how it is now.
        engines::providers::Retry {
            first: Duration::from_millis(200),
            most: Duration::from_secs(2),
        },
        home,
    );
    let request = StepRequest {
        system: "You are being tested by Conch. Answer in one short sentence.".to_owned(),
        items: vec![Item::Owner("Say hello in five words or fewer.".to_owned())],
        tools: Vec::new(),
    };
    let started = Instant::now();
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let collect = async {
        let mut text = String::new();
        while let Some(chunk) = rx.recv().await {
            if let Chunk::Text(t) = chunk {
                if text.len() < 2000 {
                    text.push_str(&t);
                }
            }
        }
        text
    };
    let run = async { tokio::join!(engine.step(request, tx), collect) };
    let outcome = tokio::time::timeout(TEST_DEADLINE, run).await;
    let ms = started.elapsed().as_millis() as u64;
    Ok(match outcome {
        Ok((Ok(()), text)) if !text.trim().is_empty() => Tested {
            ok: true,
            answer: Some(text.trim().chars().take(500).collect()),
            error: None,
            ms,
        },
        Ok((Ok(()), _)) => Tested {
            ok: false,
            answer: None,
            error: Some("It answered, but with no words. Check the model's name.".to_owned()),
            ms,
        },
        Ok((Err(e), _)) => Tested {
            ok: false,
            answer: None,
            error: Some(e.to_string()),
            ms,
        },
        Err(_) => Tested {
            ok: false,
            answer: None,
            error: Some(format!(
                "It didn't answer within {} seconds.",
                TEST_DEADLINE.as_secs()
            )),
            ms,
        },
    })
}

/// The provider a turn would run on now, and its model, for a chat that
/// picked `picked` (or none): what `models.rs` picks, read from
/// settings.json alone (no key is read to say it).
pub fn current(home: &Path, picked: Option<&str>) -> Option<(String, String)> {
    let settings = Settings::load(home).ok()?;
    let chosen = picked
        .and_then(|p| settings.providers.iter().find(|x| x.name == p))
        .or_else(|| settings.provider())?;
    Some((chosen.name.clone(), chosen.model.clone()))
}

/// Whether a provider of that name is set up.
pub fn exists(home: &Path, name: &str) -> bool {
    Settings::load(home).is_ok_and(|s| s.providers.iter().any(|p| p.name == name))
}
