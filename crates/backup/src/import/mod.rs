//! Moving in from other apps: reading OpenClaw's and Hermes's folders into
//! one plain shape ([`Found`]) that the `conch import` command writes into
//! Conch's folder. Reading only: nothing in the other app's folder is
//! changed or deleted, links are not followed, and what can't be read is
//! said in [`Found::left`] rather than dropped quietly.
//!
//! Each app's real files, as its documentation describes them:
//! - OpenClaw (`~/.openclaw`): `openclaw.json` (JSON5: `models.providers`,
//!   `agents.defaults.model.primary`, `env`, `mcp.servers`), `.env`,
//!   `agents/*/agent/auth-profiles.json`, `skills/`, `workspace/skills/`,
//!   `workspace/MEMORY.md` and `workspace/memory/*.md`.
//! - Hermes (`~/.hermes`): `config.yaml` (`model`, `custom_providers`,
//!   `mcp_servers`), `.env`, `skills/<category>/<name>/`,
//!   `memories/MEMORY.md` and `memories/USER.md`.

mod files;
mod hermes;
pub mod json5;
mod openclaw;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

pub use files::{copy_skill, dotenv, find_skills, memories_in};

/// The apps Conch moves in from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum App {
    OpenClaw,
    Hermes,
}

impl App {
    pub fn parse(name: &str) -> Option<App> {
        match name.to_ascii_lowercase().as_str() {
            "openclaw" => Some(App::OpenClaw),
            "hermes" => Some(App::Hermes),
            _ => None,
        }
    }

    /// As a folder name and an id: `openclaw`, `hermes`.
    pub fn id(self) -> &'static str {
        match self {
            App::OpenClaw => "openclaw",
            App::Hermes => "hermes",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            App::OpenClaw => "OpenClaw",
            App::Hermes => "Hermes",
        }
    }

    /// Its folder when none is named: `~/.openclaw`, `~/.hermes`.
    pub fn default_dir(self, person_home: &Path) -> PathBuf {
        person_home.join(match self {
            App::OpenClaw => ".openclaw",
            App::Hermes => ".hermes",
        })
    }
}

/// A skill folder found in the other app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundSkill {
    /// The name it goes by in Conch (its folder's name, made unique).
    pub name: String,
    pub dir: PathBuf,
}

/// Which kind of model server: Conch's two API kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI-compatible chat completions.
    Openai,
    Anthropic,
}

/// A model provider, with its key when the other app kept one.
#[derive(Debug, Clone)]
pub struct FoundProvider {
    pub name: String,
    pub wire: Wire,
    pub base_url: String,
    pub model: String,
    pub key: Option<Zeroizing<String>>,
}

/// An MCP server, to become one of Conch's Apps.
#[derive(Debug, Clone, Default)]
pub struct FoundServer {
    pub name: String,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub url: Option<String>,
    /// Environment and headers: values are secrets (tokens), kept sealed.
    pub env: BTreeMap<String, Zeroizing<String>>,
    pub headers: BTreeMap<String, Zeroizing<String>>,
    /// It was on in the other app (`enabled: false` or `disabled: true`
    /// there: off).
    pub enabled: bool,
}

/// One memory, with the file it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundMemory {
    pub text: String,
    /// Inside the other app's folder, e.g. `workspace/MEMORY.md`.
    pub file: String,
}

/// Everything read from the other app's folder.
#[derive(Debug, Default)]
pub struct Found {
    pub skills: Vec<FoundSkill>,
    pub providers: Vec<FoundProvider>,
    pub servers: Vec<FoundServer>,
    pub memories: Vec<FoundMemory>,
    /// What didn't come over, and why (in words).
    pub left: Vec<String>,
}

#[derive(Debug)]
pub enum ImportError {
    /// No such folder, or not the app's.
    NotThere { app: App, dir: PathBuf },
    /// Its settings file can't be read as what it should be.
    Unreadable { file: PathBuf, why: String },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::NotThere { app, dir } => write!(
                f,
                "{} doesn't look like {}'s folder (nothing of {} is in it). Nothing was imported; name the folder with conch import {} DIR.",
                dir.display(),
                app.name(),
                app.name(),
                app.id()
            ),
            ImportError::Unreadable { file, why } => write!(
                f,
                "{} can't be read ({why}). Nothing was imported; fix the file, or move it aside to import the rest.",
                file.display()
            ),
        }
    }
}

impl std::error::Error for ImportError {}

/// Reads `dir` as `app`'s folder.
pub fn read(app: App, dir: &Path) -> Result<Found, ImportError> {
    if !dir.is_dir() {
        return Err(ImportError::NotThere {
            app,
            dir: dir.to_path_buf(),
        });
    }
    // The folder named may itself be a link (it is what the owner chose);
    // nothing inside it is followed.
    let dir = &dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    match app {
        App::OpenClaw => openclaw::read(dir),
        App::Hermes => hermes::read(dir),
    }
}

/// The usual endpoints of providers known by their key's name.
pub(crate) fn known_provider(var: &str) -> Option<(&'static str, Wire, &'static str)> {
    Some(match var {
        "OPENAI_API_KEY" => ("openai", Wire::Openai, "https://api.openai.com/v1"),
        "ANTHROPIC_API_KEY" => ("anthropic", Wire::Anthropic, "https://api.anthropic.com"),
        "OPENROUTER_API_KEY" => ("openrouter", Wire::Openai, "https://openrouter.ai/api/v1"),
        "DEEPSEEK_API_KEY" => ("deepseek", Wire::Openai, "https://api.deepseek.com/v1"),
        "GROQ_API_KEY" => ("groq", Wire::Openai, "https://api.groq.com/openai/v1"),
        "MISTRAL_API_KEY" => ("mistral", Wire::Openai, "https://api.mistral.ai/v1"),
        "XAI_API_KEY" => ("xai", Wire::Openai, "https://api.x.ai/v1"),
        _ => return None,
    })
}

/// Keys that belong to what Conch doesn't bring over (chat apps' tokens),
/// said by name so a person knows to add them again.
pub(crate) fn left_key(var: &str) -> Option<&'static str> {
    if var.starts_with("TELEGRAM_") {
        Some("the Telegram token (add it again when you link Telegram)")
    } else if var.starts_with("DISCORD_")
        || var.starts_with("SLACK_")
        || var.starts_with("WHATSAPP_")
    {
        Some("a chat app's token (Conch links chat apps itself)")
    } else {
        None
    }
}

/// A provider name Conch takes: letters, digits, `-`, `_`, `.`.
pub(crate) fn provider_name(raw: &str) -> String {
    let name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    if name.is_empty() {
        "imported".into()
    } else {
        name
    }
}

/// A value with its `${VAR}` / `${env:VAR}` references filled in from
/// `env`; None when it is empty or names a variable nobody set (half a
/// token is no token).
pub(crate) fn resolve(
    value: &str,
    env: &BTreeMap<String, Zeroizing<String>>,
) -> Option<Zeroizing<String>> {
    let mut out = Zeroizing::new(String::new());
    let mut rest = value.trim();
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}')?;
        let inner = &after[..end];
        let var = inner.strip_prefix("env:").unwrap_or(inner);
        out.push_str(env.get(var)?.as_str());
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    (!out.is_empty()).then_some(out)
}

/// The key a provider known by its id keeps in the environment
/// (`openrouter` → `OPENROUTER_API_KEY`).
pub(crate) fn key_for(
    id: &str,
    env: &BTreeMap<String, Zeroizing<String>>,
) -> Option<Zeroizing<String>> {
    let var = format!(
        "{}_API_KEY",
        id.to_ascii_uppercase().replace(['-', '.'], "_")
    );
    env.get(&var).cloned()
}

/// MCP servers from a `name → {command, args, env, url, headers}` map, the
/// shape both apps use. Each comes over off (its program runs only once
/// the owner turns it on); one turned off there (`enabled: false`,
/// `disabled: true`) is said to have been.
pub(crate) fn servers_from(
    map: &serde_json::Map<String, serde_json::Value>,
    env: &BTreeMap<String, Zeroizing<String>>,
    found: &mut Found,
) {
    for (name, spec) in map {
        let text = |k: &str| spec.get(k).and_then(|v| v.as_str()).map(str::to_owned);
        let strings = |k: &str| -> BTreeMap<String, Zeroizing<String>> {
            spec.get(k)
                .and_then(|v| v.as_object())
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, v)| {
                            let v = match v {
                                serde_json::Value::String(s) => s.clone(),
                                other => other.to_string(),
                            };
                            resolve(&v, env).map(|v| (k.clone(), v))
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let server = FoundServer {
            name: provider_name(name),
            command: text("command"),
            args: spec
                .get("args")
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            url: text("url").or_else(|| text("serverUrl")),
            env: strings("env"),
            headers: strings("headers"),
            enabled: spec.get("enabled").and_then(|v| v.as_bool()) != Some(false)
                && spec.get("disabled").and_then(|v| v.as_bool()) != Some(true),
        };
        if server.command.is_none() && server.url.is_none() {
            found.left.push(format!(
                "The MCP server \"{name}\": it names neither a command nor an address."
            ));
            continue;
        }
        found.servers.push(server);
    }
}

/// Providers for keys known by their variable's name (`OPENAI_API_KEY`…),
/// unless one of that name came over already. `model` picks the model for
/// a provider id (from the app's default model), when it names one.
pub(crate) fn providers_from_env(
    env: &BTreeMap<String, Zeroizing<String>>,
    model: &dyn Fn(&str) -> Option<String>,
    app: App,
    found: &mut Found,
) {
    for (var, value) in env {
        if let Some(why) = left_key(var) {
            found.left.push(format!("{var}: {why}."));
            continue;
        }
        let Some((id, wire, base)) = known_provider(var) else {
            continue;
        };
        if found.providers.iter().any(|p| p.name == id) {
            continue;
        }
        let Some(model) = model(id) else {
            found.left.push(format!(
                "{var}: {} names no model for {id}, so it didn't come over. Add it with conch providers add {id} --kind {} --model MODEL --key-stdin.",
                app.name(),
                match wire {
                    Wire::Openai => "openai",
                    Wire::Anthropic => "anthropic",
                }
            ));
            continue;
        };
        found.providers.push(FoundProvider {
            name: id.to_owned(),
            wire,
            base_url: base.to_owned(),
            model,
            key: Some(value.clone()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_filled_in_or_the_value_is_dropped() {
        let env: BTreeMap<String, Zeroizing<String>> =
            [("TOKEN".to_owned(), Zeroizing::new("t-1".to_owned()))].into();
        assert_eq!(
            resolve("Bearer ${TOKEN}", &env).unwrap().as_str(),
            "Bearer t-1"
        );
        assert_eq!(resolve("${env:TOKEN}", &env).unwrap().as_str(), "t-1");
        assert_eq!(resolve(" plain ", &env).unwrap().as_str(), "plain");
        assert!(resolve("Bearer ${MISSING}", &env).is_none());
        assert!(resolve("${TOKEN", &env).is_none());
        assert!(resolve("", &env).is_none());
    }
}
