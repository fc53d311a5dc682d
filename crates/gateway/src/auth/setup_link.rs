//! The one-time link `conch serve` prints when no password is set: a token
//! valid for 15 minutes, shown only in the terminal, used once.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::random;

pub const VALID_FOR: Duration = Duration::from_secs(15 * 60);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkCheck {
    Valid,
    Expired,
    Wrong,
    /// There is no link (a password was already set, or it was used).
    Gone,
}

#[derive(Default)]
pub struct SetupLink {
    token: Mutex<Option<(String, Instant)>>,
}

impl SetupLink {
    /// Makes a new link's token, replacing any earlier one.
    pub fn issue(&self) -> Result<String, getrandom::Error> {
        let token = random::token(32)?;
        *self.lock() = Some((random::digest(&token), Instant::now()));
        Ok(token)
    }

    pub fn check(&self, token: &str) -> LinkCheck {
        match &*self.lock() {
            None => LinkCheck::Gone,
            Some((digest, _)) if !random::same(digest, &random::digest(token)) => LinkCheck::Wrong,
            Some((_, issued)) if issued.elapsed() >= VALID_FOR => LinkCheck::Expired,
            Some(_) => LinkCheck::Valid,
        }
    }

    /// Uses the link up: it works once.
    pub fn spend(&self) {
        self.lock().take();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(String, Instant)>> {
        self.token.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn works_once() {
        let link = SetupLink::default();
        assert_eq!(link.check("x"), LinkCheck::Gone);
        let token = link.issue().unwrap();
        assert_eq!(link.check("x"), LinkCheck::Wrong);
        assert_eq!(link.check(&token), LinkCheck::Valid);
        link.spend();
        assert_eq!(link.check(&token), LinkCheck::Gone);
    }
}
