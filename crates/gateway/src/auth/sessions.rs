//! Signed-in browsers. A session is a random token in an HttpOnly,
//! SameSite=Strict cookie; only its sha256 is kept, in memory, so a restart
//! signs everyone out and nothing on disk can be replayed.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::random;

pub const COOKIE: &str = "conch_session";
/// A session unused this long ends.
pub const IDLE: Duration = Duration::from_secs(7 * 24 * 3600);
/// "A recent password": a sign-in or re-entry within this long.
pub const RECENT: Duration = Duration::from_secs(10 * 60);

#[derive(Debug, Clone, Copy)]
pub struct Session {
    pub password_at: Instant,
    last_seen: Instant,
    /// How long a password counts as recent (RECENT, unless a test says).
    recent: Duration,
}

impl Session {
    pub fn recent_password(&self) -> bool {
        self.password_at.elapsed() < self.recent
    }
}

pub struct Sessions {
    map: Mutex<HashMap<String, Session>>,
    recent: Mutex<Duration>,
}

impl Default for Sessions {
    fn default() -> Sessions {
        Sessions {
            map: Mutex::new(HashMap::new()),
            recent: Mutex::new(RECENT),
        }
    }
}

impl Sessions {
    /// Starts a session after the password was checked; returns its token.
    pub fn start(&self) -> Result<String, getrandom::Error> {
        let token = random::token(52)?;
        let now = Instant::now();
        let mut map = self.lock();
        map.retain(|_, s| s.last_seen.elapsed() < IDLE);
        map.insert(
            random::digest(&token),
            Session {
                password_at: now,
                last_seen: now,
                recent: RECENT,
            },
        );
        Ok(token)
    }

    /// How long a password counts as recent (tests shorten it).
    pub fn set_recent(&self, recent: Duration) {
        *self.recent.lock().unwrap_or_else(|p| p.into_inner()) = recent;
    }

    /// The password was entered again in this session: it is recent now.
    pub fn confirm(&self, token: &str) -> bool {
        let mut map = self.lock();
        match map.get_mut(&random::digest(token)) {
            Some(session) => {
                session.password_at = Instant::now();
                true
            }
            None => false,
        }
    }

    pub fn check(&self, token: &str) -> Option<Session> {
        let mut map = self.lock();
        let key = random::digest(token);
        let session = map.get_mut(&key)?;
        if session.last_seen.elapsed() >= IDLE {
            map.remove(&key);
            return None;
        }
        session.last_seen = Instant::now();
        session.recent = *self.recent.lock().unwrap_or_else(|p| p.into_inner());
        Some(*session)
    }

    pub fn end(&self, token: &str) {
        self.lock().remove(&random::digest(token));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_check_end() {
        let sessions = Sessions::default();
        let token = sessions.start().unwrap();
        let session = sessions.check(&token).unwrap();
        assert!(session.recent_password());
        assert!(sessions.check("not-a-token").is_none());
        sessions.end(&token);
        assert!(sessions.check(&token).is_none());
    }
}
