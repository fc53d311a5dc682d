//! `settings.json`: the owner's preferences. Keys this version doesn't know
//! are kept when the file is written back. A file that can't be read is an
//! error with the line and column, never silently replaced by defaults.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use protocol::Mode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::private_file::write_private;

pub const SETTINGS_FILE: &str = "settings.json";

/// Auto mode's reviewer, as settings.json `autoReview` sets it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewConfig {
    /// Acquiring the model and its whole reply must fit in this.
    pub deadline: Duration,
    /// Rejections in one turn before review stops being tried.
    pub budget: u32,
    /// The most characters the reviewer's input may have.
    pub context_chars: usize,
}

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig {
            deadline: Duration::from_millis(review::DEFAULT_DEADLINE_MS),
            budget: review::DEFAULT_BUDGET,
            context_chars: review::DEFAULT_CONTEXT_CHARS,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// Host names the gateway answers to besides the loopback ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_hosts: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_mode: Option<Mode>,
    /// The work folder for chats started without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_work: Option<PathBuf>,
    /// Per-tool policies: `{"run_command": "ask"}` (mode, ask, read-only, off).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tool_policies: BTreeMap<String, guard::Policy>,
    /// A SearXNG instance for `web_search`, like `http://127.0.0.1:8888`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub searxng_url: Option<String>,
    /// Model providers; the keys are in secrets.json.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub providers: Vec<engines::providers::ProviderSettings>,
    /// The provider new turns use (default: the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_provider: Option<String>,
    /// Settings → Security → Safety.
    #[serde(default)]
    pub safety: Safety,
    /// People and places the owner sends to (addresses, channels, IBANs),
    /// one per entry. Only the owner sets them (Settings → Contacts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contacts: Vec<String>,
    /// How the assistant names the owner to others ("I've asked Ada to OK it.").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_name: Option<String>,
    /// How long a command may run, in seconds (default 120).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_timeout_secs: Option<u64>,
    /// Where this computer's device key is kept: `auto` (default), `os`,
    /// `file`. One setting for the gateway and the terminal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keystore_mode: Option<vault::KeystoreMode>,
    /// Auto mode's reviewer: its deadline, budget and input limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_review: Option<AutoReview>,
    /// Steps one turn may take before it is ended (default 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<usize>,
    /// Variables sealed commands get besides the ordinary ones: exact
    /// names, or `PREFIX_*`. One whose name or value looks like a secret
    /// stays out all the same (docs/seal.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seal_env: Vec<String>,
    /// The gateway's timeouts and connection cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<GatewayLimits>,
    /// Settings → Backups: made by themselves while Conch runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backups: Option<BackupSchedule>,
    /// Settings → Models → Spending: the caps, in the owner's currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spending: Option<crate::spending::Caps>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `backups` in settings.json: how often a backup is made into
/// `backups/` while Conch runs, and how many are kept. With a passphrase
/// (sealed in secrets.json, never here) they carry the keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BackupSchedule {
    pub every: Every,
    #[serde(default = "seven")]
    pub keep: usize,
}

fn seven() -> usize {
    7
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Every {
    Off,
    Daily,
    Weekly,
}

impl Every {
    /// How long apart backups are made; None when off.
    pub fn period(self) -> Option<std::time::Duration> {
        match self {
            Every::Off => None,
            Every::Daily => Some(std::time::Duration::from_secs(24 * 3600)),
            Every::Weekly => Some(std::time::Duration::from_secs(7 * 24 * 3600)),
        }
    }
}

/// `autoReview` in settings.json; each absent key keeps its default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AutoReview {
    /// How long a review may take, acquiring the model included (30,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// Rejections in one turn before review stops being tried (3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u32>,
    /// The most characters the reviewer's input may have (60,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_chars: Option<usize>,
}

impl AutoReview {
    pub fn config(&self) -> ReviewConfig {
        let d = ReviewConfig::default();
        ReviewConfig {
            deadline: self
                .deadline_ms
                .map_or(d.deadline, std::time::Duration::from_millis),
            budget: self.budget.unwrap_or(d.budget),
            context_chars: self.context_chars.unwrap_or(d.context_chars),
        }
    }
}

/// `gateway` in settings.json; each absent key keeps its default (see
/// docs/api.md, "Slow clients and the connection cap").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GatewayLimits {
    /// A request's head must arrive within this; an idle keep-alive
    /// connection waits this long for its next request (10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_timeout_secs: Option<u64>,
    /// The longest pause between two pieces of a request's body (10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_timeout_secs: Option<u64>,
    /// A whole request, until its answer starts (30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout_secs: Option<u64>,
    /// Connections open at once (4096, lowered to fit the open-file limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connections: Option<usize>,
    /// Of those, how many only this computer may take (256).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loopback_reserve: Option<usize>,
}

/// The Safety preferences. All start on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Safety {
    /// Check before acting on what it read.
    #[serde(default = "on")]
    pub check_after_reading: bool,
    /// Seal commands.
    #[serde(default = "on")]
    pub sealed_commands: bool,
    /// Check what it remembers.
    #[serde(default = "on")]
    pub check_memories: bool,
    /// Run engines in the box (Claude Code, Codex): off, an engine chat runs
    /// with the owner's full access where the box can't hold it.
    #[serde(default = "on")]
    pub engines_in_box: bool,
}

fn on() -> bool {
    true
}

impl Default for Safety {
    fn default() -> Self {
        Safety {
            check_after_reading: true,
            sealed_commands: true,
            check_memories: true,
            engines_in_box: true,
        }
    }
}

#[derive(Debug)]
pub enum SettingsError {
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    Invalid {
        path: PathBuf,
        error: serde_json::Error,
    },
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingsError::Read { path, error } => {
                write!(f, "Conch couldn't read {}: {error}.", path.display())
            }
            SettingsError::Invalid { path, error } => write!(
                f,
                "{} can't be read (line {}, column {}): {error}. Fix it, or move it aside to start from the defaults.",
                path.display(),
                error.line(),
                error.column()
            ),
            SettingsError::Write { path, error } => {
                write!(f, "Conch couldn't save {}: {error}.", path.display())
            }
        }
    }
}

impl std::error::Error for SettingsError {}

impl Settings {
    /// The provider turns use: the default one, else the first.
    pub fn provider(&self) -> Option<&engines::providers::ProviderSettings> {
        match &self.default_provider {
            Some(name) => self.providers.iter().find(|p| &p.name == name),
            None => self.providers.first(),
        }
    }

    /// The home's sealed files, opened with the keystore this setting
    /// picks. Asks no keystore until a sealed file is read or written.
    pub fn vault(&self, home: &Path) -> vault::Vault {
        vault::Vault::new(home, self.keystore_mode.unwrap_or_default())
    }

    pub fn load(home: &Path) -> Result<Settings, SettingsError> {
        let path = home.join(SETTINGS_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Settings::default()),
            Err(error) => return Err(SettingsError::Read { path, error }),
        };
        serde_json::from_slice(&bytes).map_err(|error| SettingsError::Invalid { path, error })
    }

    pub fn save(&self, home: &Path) -> Result<(), SettingsError> {
        let path = home.join(SETTINGS_FILE);
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        write_private(&path, text.as_bytes()).map_err(|error| SettingsError::Write { path, error })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_is_defaults_and_unknown_keys_survive() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap(), Settings::default());
        std::fs::write(
            dir.path().join(SETTINGS_FILE),
            r#"{"allowedHosts":["conch.lan"],"defaultMode":"edits","future":{"x":1}}"#,
        )
        .unwrap();
        let s = Settings::load(dir.path()).unwrap();
        assert_eq!(s.allowed_hosts, ["conch.lan"]);
        assert_eq!(s.default_mode, Some(Mode::Edits));
        s.save(dir.path()).unwrap();
        let again = Settings::load(dir.path()).unwrap();
        assert_eq!(again.other["future"]["x"], 1);
    }

    #[test]
    fn a_broken_file_says_where() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(SETTINGS_FILE), "{\n  \"defaultMode\": ,\n}").unwrap();
        let err = Settings::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("move it aside"), "{err}");
    }
}
