//! `bridges.json`: each chat app's people and places. Who the owner is
//! (linked once with a one-time code), who else may talk to the bot, where
//! reading updates got to, and which app chat is which Conch chat. Not
//! secret (the token is in the sealed `secrets.json`) but private: 0600,
//! written atomically, one writer at a time across processes
//! (`bridges.lock`), because `conch bridges …` and `conch serve` both
//! change it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub const BRIDGES_FILE: &str = "bridges.json";
const LOCK_FILE: &str = "bridges.lock";

/// One app's state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BridgeState {
    /// Where the app's API is, when not its usual address (tests, a proxy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_base: Option<String>,
    /// The owner's own account, once linked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<Owner>,
    /// Who else may talk to the bot.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<Allowed>,
    /// The one-time code waiting to link the owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkCode>,
    /// The owner's public address, when the app should push updates to
    /// `{webhook}/hooks/{app}` instead of being polled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<String>,
    /// Every update up to this one is handled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u64>,
    /// The app's chat id → the Conch chat it is.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub chats: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Owner {
    /// The owner's account id in the app.
    pub id: String,
    /// The owner's own chat with the bot, where questions go.
    pub chat: String,
    pub name: String,
}

/// Someone the owner allowed: by id, or by handle until they first write
/// (then their id is kept too, and only the id counts from then on, so a
/// handle that later passes to someone else lets nobody new in).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Allowed {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Lowercase, without `@`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// Their name as last seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A link code, kept only as its hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkCode {
    pub sha256: String,
    /// Unix seconds after which it no longer links.
    pub expires: i64,
    /// Wrong codes sent so far, by everyone.
    #[serde(default)]
    pub tries: u32,
    /// Wrong codes sent so far, by sender (their account id): a sender
    /// who ran out can't link with this code, and it stays the owner's.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub tries_by: std::collections::BTreeMap<String, u32>,
}

#[derive(Debug)]
pub enum StateError {
    Io(PathBuf, std::io::Error),
    Damaged(PathBuf, serde_json::Error),
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::Io(path, e) => write!(f, "{} can't be used: {e}.", path.display()),
            StateError::Damaged(path, e) => write!(
                f,
                "{} is damaged ({e}), so chat apps can't be used. Fix the file, or move it aside and add them again.",
                path.display()
            ),
        }
    }
}

impl std::error::Error for StateError {}

/// One app as `conch bridges list --json` and `GET /api/bridges` show it
/// (camelCase; never the token, only whether there is one).
pub fn summary(
    app: &str,
    s: &BridgeState,
    token: bool,
    default_base: &str,
    now: i64,
) -> serde_json::Value {
    serde_json::json!({
        "app": app,
        "token": token,
        "apiBase": s.api_base.clone().unwrap_or_else(|| default_base.to_owned()),
        "owner": s.owner.as_ref().map(|o| serde_json::json!({ "id": o.id, "name": o.name })),
        "linkWaiting": s.link.as_ref().is_some_and(|l| l.expires > now),
        "allowed": s.allowed.iter().map(|a| serde_json::json!({ "id": a.id, "handle": a.handle, "name": a.name })).collect::<Vec<_>>(),
        "chats": s.chats.len(),
        "webhook": s.webhook,
    })
}

/// `bridges.json` in one home folder.
#[derive(Debug, Clone)]
pub struct StateFile {
    home: PathBuf,
}

impl StateFile {
    pub fn new(home: &Path) -> StateFile {
        StateFile {
            home: home.to_path_buf(),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.home.join(BRIDGES_FILE)
    }

    fn file(&self) -> vault::JsonFile {
        vault::JsonFile::new(self.path(), self.home.join(LOCK_FILE))
    }

    /// Every app's state; an app never added isn't there.
    pub fn load(&self) -> Result<BTreeMap<String, BridgeState>, StateError> {
        Ok(self.file().load()?)
    }

    /// One app's state (the default when it was never added).
    pub fn get(&self, app: &str) -> Result<BridgeState, StateError> {
        Ok(self.load()?.remove(app).unwrap_or_default())
    }

    /// Changes one app's state, read fresh under the lock and written
    /// atomically; `f`'s result is returned.
    pub fn update<T>(
        &self,
        app: &str,
        f: impl FnOnce(&mut BridgeState) -> T,
    ) -> Result<T, StateError> {
        let (out, _) = self
            .file()
            .update(|all: &mut BTreeMap<String, BridgeState>| {
                f(all.entry(app.to_owned()).or_default())
            })?;
        Ok(out)
    }

    /// Forgets an app (its token is removed from secrets by the caller).
    pub fn remove(&self, app: &str) -> Result<bool, StateError> {
        let (had, _) = self
            .file()
            .update(|all: &mut BTreeMap<String, BridgeState>| all.remove(app).is_some())?;
        Ok(had)
    }
}

impl From<vault::JsonFileError> for StateError {
    fn from(e: vault::JsonFileError) -> StateError {
        match e {
            vault::JsonFileError::Read(p, e) | vault::JsonFileError::Write(p, e) => {
                StateError::Io(p, e)
            }
            vault::JsonFileError::Damaged(p, e) => StateError::Damaged(p, e),
        }
    }
}

/// The allowlist entry `conch bridges allow` adds, unless it is there.
pub fn allow(state: &StateFile, app: &str, who: Allowed) -> Result<bool, StateError> {
    state.update(app, |s| {
        let there = s.allowed.iter().any(|a| {
            (who.id.is_some() && a.id == who.id) || (who.handle.is_some() && a.handle == who.handle)
        });
        if !there {
            s.allowed.push(who);
        }
        !there
    })
}

/// Takes someone off the allowlist (by id or handle); whether they were on it.
pub fn disallow(state: &StateFile, app: &str, who: &Allowed) -> Result<bool, StateError> {
    state.update(app, |s| {
        let before = s.allowed.len();
        s.allowed.retain(|a| {
            !((who.id.is_some() && a.id == who.id)
                || (who.handle.is_some() && a.handle == who.handle))
        });
        before != s.allowed.len()
    })
}
