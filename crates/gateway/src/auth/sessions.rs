//! Signed-in browsers. A session is a random token (260 bits) in an
//! HttpOnly, SameSite=Strict cookie. Only its sha256 is kept, with when it
//! ends, in `sessions.json` in Conch's folder (0600, replaced whole and
//! atomically), so a restart or an upgrade doesn't sign the owner out, and
//! the file alone lets nobody in.
//!
//! A session ends after 7 days unused. Being used moves its end, written
//! down at most once an hour per session so reading a page doesn't write a
//! file. "Sign out everywhere" (`DELETE /api/sessions`, `conch sessions
//! revoke`) empties the file; the running gateway sees the file change and
//! drops what it had, as it does for access keys.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::file_stamp::{stamp, FileStamp};
use super::random;
use conversations::private_file::write_private;

pub const COOKIE: &str = "conch_session";
pub const SESSIONS_FILE: &str = "sessions.json";
const LOCK_FILE: &str = ".sessions.lock";
/// A session unused this long ends.
pub const IDLE: Duration = Duration::from_secs(7 * 24 * 3600);
/// "A recent password": a sign-in or re-entry within this long.
pub const RECENT: Duration = Duration::from_secs(10 * 60);
/// A session's new end is written down when it moved by more than this.
const TOUCH: Duration = Duration::from_secs(3600);

/// One session as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Stored {
    /// sha256 of the token, hex.
    hash: String,
    created: String,
    /// When the password was last entered in it.
    password_at: String,
    /// When it ends unless used before then.
    expires: String,
}

#[derive(Debug)]
pub enum SessionError {
    Io(std::io::Error),
    Damaged(String),
    Random,
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Io(e) => write!(f, "Conch couldn't read or save sessions.json: {e}."),
            SessionError::Damaged(why) => write!(
                f,
                "sessions.json is damaged ({why}), so every browser is signed out. Sign in again; the file is replaced."
            ),
            SessionError::Random => f.write_str("This computer gave Conch no randomness for a session."),
        }
    }
}

impl std::error::Error for SessionError {}

/// A session as a request sees it.
#[derive(Debug, Clone, Copy)]
pub struct Session {
    /// When the password was last entered in it (ms since 1970).
    pub password_at_ms: i64,
    /// How long a password counts as recent (RECENT, unless a test says).
    recent: Duration,
}

impl Session {
    pub fn recent_password(&self) -> bool {
        let age = now_ms() - self.password_at_ms;
        (0..self.recent.as_millis() as i64).contains(&age)
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn ms(text: &str) -> i64 {
    protocol::parse_rfc3339(text).unwrap_or(0)
}

fn time(ms: i64) -> String {
    protocol::format_rfc3339(UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64))
}

struct Cache {
    stamp: Option<FileStamp>,
    map: HashMap<String, Stored>,
}

pub struct Sessions {
    path: PathBuf,
    cache: Mutex<Cache>,
    recent: Mutex<Duration>,
}

/// Every stored session; a damaged file is none (and says so).
fn load(path: &Path) -> HashMap<String, Stored> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return HashMap::new(),
        Err(e) => {
            conversations::warn(&SessionError::Io(e).to_string());
            return HashMap::new();
        }
    };
    match serde_json::from_slice::<Vec<Stored>>(&bytes) {
        Ok(list) => list.into_iter().map(|s| (s.hash.clone(), s)).collect(),
        Err(e) => {
            conversations::warn(&SessionError::Damaged(e.to_string()).to_string());
            HashMap::new()
        }
    }
}

fn save(path: &Path, map: &HashMap<String, Stored>) -> Result<(), SessionError> {
    let now = now_ms();
    let mut list: Vec<&Stored> = map.values().filter(|s| ms(&s.expires) > now).collect();
    list.sort_by(|a, b| a.created.cmp(&b.created).then(a.hash.cmp(&b.hash)));
    let text =
        serde_json::to_string_pretty(&list).map_err(|e| SessionError::Damaged(e.to_string()))?;
    write_private(path, text.as_bytes()).map_err(SessionError::Io)
}

/// Serialises read-change-write of the file between processes.
fn lock(home: &Path) -> Result<vault::FileLock, SessionError> {
    vault::lock(&home.join(LOCK_FILE)).map_err(SessionError::Io)
}

/// Changes the file: locked against other processes, read fresh, changed,
/// written whole. Returns what `change` returned.
fn change<T>(
    path: &Path,
    change: impl FnOnce(&mut HashMap<String, Stored>) -> T,
) -> Result<(T, HashMap<String, Stored>), SessionError> {
    let home = path.parent().unwrap_or(Path::new("."));
    let _lock = lock(home)?;
    let mut map = load(path);
    let out = change(&mut map);
    save(path, &map)?;
    let now = now_ms();
    map.retain(|_, s| ms(&s.expires) > now);
    Ok((out, map))
}

/// Signs every browser out: `conch sessions revoke`. Returns how many
/// sessions there were.
pub fn revoke_all(home: &Path) -> Result<usize, SessionError> {
    let path = home.join(SESSIONS_FILE);
    let now = now_ms();
    let (ended, _) = change(&path, |map| {
        let live = map.values().filter(|s| ms(&s.expires) > now).count();
        map.clear();
        live
    })?;
    Ok(ended)
}

impl Sessions {
    pub fn new(home: &Path) -> Sessions {
        Sessions {
            path: home.join(SESSIONS_FILE),
            cache: Mutex::new(Cache {
                stamp: None,
                map: HashMap::new(),
            }),
            recent: Mutex::new(RECENT),
        }
    }

    /// Changes the file, and keeps what it now says.
    fn change<T>(
        &self,
        f: impl FnOnce(&mut HashMap<String, Stored>) -> T,
    ) -> Result<T, SessionError> {
        let mut cache = self.lock();
        let (out, map) = change(&self.path, f)?;
        *cache = Cache {
            stamp: stamp(&self.path),
            map,
        };
        Ok(out)
    }

    /// Starts a session after the password was checked; returns its token.
    /// It is on disk before the token is handed out.
    pub fn start(&self) -> Result<String, SessionError> {
        let token = random::token(52).map_err(|_| SessionError::Random)?;
        let now = now_ms();
        let stored = Stored {
            hash: random::digest(&token),
            created: time(now),
            password_at: time(now),
            expires: time(now + IDLE.as_millis() as i64),
        };
        self.change(|map| {
            map.insert(stored.hash.clone(), stored);
        })?;
        Ok(token)
    }

    /// How long a password counts as recent (tests shorten it).
    pub fn set_recent(&self, recent: Duration) {
        *self.recent.lock().unwrap_or_else(|p| p.into_inner()) = recent;
    }

    /// The password was entered again in this session: it is recent now.
    pub fn confirm(&self, token: &str) -> Result<bool, SessionError> {
        let key = random::digest(token);
        let now = time(now_ms());
        self.change(|map| match map.get_mut(&key) {
            Some(session) => {
                session.password_at = now;
                true
            }
            None => false,
        })
    }

    /// The session for `token`, if it is live; using it moves its end.
    pub fn check(&self, token: &str) -> Option<Session> {
        let key = random::digest(token);
        let now = now_ms();
        let (session, touch) = {
            let mut cache = self.lock();
            let on_disk = stamp(&self.path);
            if cache.stamp != on_disk || on_disk.is_none() {
                *cache = Cache {
                    stamp: on_disk,
                    map: load(&self.path),
                };
            }
            let stored = cache.map.get(&key)?;
            let expires = ms(&stored.expires);
            if expires <= now {
                return None;
            }
            let session = Session {
                password_at_ms: ms(&stored.password_at),
                recent: *self.recent.lock().unwrap_or_else(|p| p.into_inner()),
            };
            let moved = now + IDLE.as_millis() as i64 - expires;
            (session, moved > TOUCH.as_millis() as i64)
        };
        if touch {
            let expires = time(now + IDLE.as_millis() as i64);
            if let Err(e) = self.change(|map| {
                if let Some(s) = map.get_mut(&key) {
                    s.expires = expires;
                }
            }) {
                conversations::warn(&e.to_string());
            }
        }
        Some(session)
    }

    /// Signs one browser out.
    pub fn end(&self, token: &str) -> Result<(), SessionError> {
        let key = random::digest(token);
        self.change(|map| {
            map.remove(&key);
        })
    }

    /// Signs every browser out. Returns how many sessions there were.
    pub fn end_all(&self) -> Result<usize, SessionError> {
        let now = now_ms();
        self.change(|map| {
            let live = map.values().filter(|s| ms(&s.expires) > now).count();
            map.clear();
            live
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_check_end() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::new(dir.path());
        let token = sessions.start().unwrap();
        let session = sessions.check(&token).unwrap();
        assert!(session.recent_password());
        assert!(sessions.check("not-a-token").is_none());
        sessions.end(&token).unwrap();
        assert!(sessions.check(&token).is_none());
    }

    #[test]
    fn only_hashes_are_kept_and_a_restart_keeps_them() {
        let dir = tempfile::tempdir().unwrap();
        let token = Sessions::new(dir.path()).start().unwrap();
        let path = dir.path().join(SESSIONS_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(&token));
        assert!(text.contains(&random::digest(&token)));
        assert!(text.contains("\"expires\""));
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        // Another process (a restarted gateway) knows the session.
        assert!(Sessions::new(dir.path()).check(&token).is_some());
    }

    #[test]
    fn revoking_from_the_terminal_counts_on_a_running_gateway() {
        let dir = tempfile::tempdir().unwrap();
        let running = Sessions::new(dir.path());
        let a = running.start().unwrap();
        let b = running.start().unwrap();
        assert!(running.check(&a).is_some());
        assert_eq!(revoke_all(dir.path()).unwrap(), 2);
        assert!(running.check(&a).is_none());
        assert!(running.check(&b).is_none());
        // Signing in again works, and only the new session counts.
        let c = running.start().unwrap();
        assert!(running.check(&c).is_some());
        assert!(running.check(&a).is_none());
    }

    #[test]
    fn an_expired_session_ends_and_is_dropped_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SESSIONS_FILE);
        let old = Stored {
            hash: random::digest("old-token"),
            created: time(0),
            password_at: time(0),
            expires: time(now_ms() - 1),
        };
        std::fs::write(&path, serde_json::to_string(&[old]).unwrap()).unwrap();
        let sessions = Sessions::new(dir.path());
        assert!(sessions.check("old-token").is_none());
        sessions.start().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(&random::digest("old-token")));
    }

    #[test]
    fn a_damaged_file_signs_everyone_out_and_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(SESSIONS_FILE), "[{").unwrap();
        let sessions = Sessions::new(dir.path());
        assert!(sessions.check("anything").is_none());
        let token = sessions.start().unwrap();
        assert!(sessions.check(&token).is_some());
    }
}
