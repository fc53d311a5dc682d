//! The one-time link `conch serve` prints when no password is set: a token
//! valid for 15 minutes, shown only in the terminal, used once.
//!
//! Used once means claimed before anything else happens: [`SetupLink::claim`]
//! checks the token and takes the link in one step under one lock, so of
//! several uses at the same moment exactly one gets it and every other is
//! told the link was used. A claim that comes to nothing (the password
//! couldn't be saved) puts the link back.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::random;

pub const VALID_FOR: Duration = Duration::from_secs(15 * 60);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkCheck {
    Valid,
    Expired,
    Wrong,
    /// It was used (or is being used right now).
    Used,
    /// There is no link (a password was already set when Conch started).
    Gone,
}

#[derive(Debug, Clone)]
enum State {
    None,
    Issued {
        digest: String,
        at: Instant,
        lasts: Duration,
    },
    /// Claimed by a use: spent, unless that use gives it back.
    Claimed {
        digest: String,
        at: Instant,
        lasts: Duration,
    },
    Used,
}

pub struct SetupLink {
    state: Mutex<State>,
    /// How long a link issued from now on lasts, in seconds.
    lasts: AtomicU64,
}

impl Default for SetupLink {
    fn default() -> SetupLink {
        SetupLink {
            state: Mutex::new(State::None),
            lasts: AtomicU64::new(VALID_FOR.as_secs()),
        }
    }
}

/// "15 minutes", "1 minute", "30 seconds": how long a link lasts, in words.
pub fn lasting_words(lasts: Duration) -> String {
    let secs = lasts.as_secs();
    let (n, unit) = if secs >= 60 && secs.is_multiple_of(60) {
        (secs / 60, "minute")
    } else {
        (secs, "second")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// A claimed link. Dropped without [`Claim::spend`], the link is given back.
#[must_use]
pub struct Claim<'a> {
    link: &'a SetupLink,
    spent: bool,
}

impl Claim<'_> {
    /// The password was set with it: the link is used for good.
    pub fn spend(mut self) {
        self.spent = true;
        *self.link.lock() = State::Used;
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if self.spent {
            return;
        }
        let mut state = self.link.lock();
        if let State::Claimed { digest, at, lasts } = &*state {
            *state = State::Issued {
                digest: digest.clone(),
                at: *at,
                lasts: *lasts,
            };
        }
    }
}

impl SetupLink {
    /// Makes a new link's token, replacing any earlier one (which stops
    /// working), even one that was used: a used link is spent, not the
    /// right to ask for another while no password is set.
    pub fn issue(&self) -> Result<String, getrandom::Error> {
        let token = random::token(32)?;
        *self.lock() = State::Issued {
            digest: random::digest(&token),
            at: Instant::now(),
            lasts: self.lasts(),
        };
        Ok(token)
    }

    /// How long links issued from now on last (15 minutes unless set; a
    /// second at least).
    pub fn last_for(&self, lasts: Duration) {
        self.lasts.store(lasts.as_secs().max(1), Ordering::Relaxed);
    }

    pub fn lasts(&self) -> Duration {
        Duration::from_secs(self.lasts.load(Ordering::Relaxed))
    }

    /// What `token` would get, without taking the link.
    pub fn check(&self, token: &str) -> LinkCheck {
        judge(&self.lock(), token)
    }

    /// Takes the link for `token`, or says why not. Checking and taking are
    /// one step: two uses can't both get it.
    pub fn claim(&self, token: &str) -> Result<Claim<'_>, LinkCheck> {
        let mut state = self.lock();
        match judge(&state, token) {
            LinkCheck::Valid => {
                if let State::Issued { digest, at, lasts } = &*state {
                    *state = State::Claimed {
                        digest: digest.clone(),
                        at: *at,
                        lasts: *lasts,
                    };
                }
                Ok(Claim {
                    link: self,
                    spent: false,
                })
            }
            other => Err(other),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn judge(state: &State, token: &str) -> LinkCheck {
    let matches = |digest: &str| random::same(digest, &random::digest(token));
    match state {
        State::None => LinkCheck::Gone,
        State::Used => LinkCheck::Used,
        State::Claimed { digest, .. } if matches(digest) => LinkCheck::Used,
        State::Claimed { .. } => LinkCheck::Wrong,
        State::Issued { digest, .. } if !matches(digest) => LinkCheck::Wrong,
        State::Issued { at, lasts, .. } if at.elapsed() >= *lasts => LinkCheck::Expired,
        State::Issued { .. } => LinkCheck::Valid,
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
        link.claim(&token).unwrap().spend();
        assert_eq!(link.check(&token), LinkCheck::Used);
        assert_eq!(link.claim(&token).err(), Some(LinkCheck::Used));
    }

    #[test]
    fn one_claim_at_a_time_and_a_failed_one_gives_it_back() {
        let link = SetupLink::default();
        let token = link.issue().unwrap();
        let first = link.claim(&token).unwrap();
        assert_eq!(link.claim(&token).err(), Some(LinkCheck::Used));
        assert_eq!(link.claim("wrong").err(), Some(LinkCheck::Wrong));
        drop(first);
        assert_eq!(link.check(&token), LinkCheck::Valid);
        link.claim(&token).unwrap().spend();
        assert_eq!(link.check(&token), LinkCheck::Used);
    }

    #[test]
    fn a_short_link_expires_and_a_new_one_replaces_it() {
        let link = SetupLink::default();
        link.last_for(Duration::from_millis(0));
        assert_eq!(link.lasts(), Duration::from_secs(1));
        let token = link.issue().unwrap();
        std::thread::sleep(Duration::from_millis(1100));
        assert_eq!(link.check(&token), LinkCheck::Expired);
        let again = link.issue().unwrap();
        assert_eq!(link.check(&token), LinkCheck::Wrong);
        assert_eq!(link.check(&again), LinkCheck::Valid);
        assert_eq!(lasting_words(Duration::from_secs(900)), "15 minutes");
        assert_eq!(lasting_words(Duration::from_secs(60)), "1 minute");
        assert_eq!(lasting_words(Duration::from_secs(90)), "90 seconds");
    }

    #[test]
    fn many_threads_one_winner() {
        let link = std::sync::Arc::new(SetupLink::default());
        let token = link.issue().unwrap();
        let winners: usize = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16)
                .map(|_| {
                    let link = link.clone();
                    let token = token.clone();
                    s.spawn(move || match link.claim(&token) {
                        Ok(claim) => {
                            claim.spend();
                            1
                        }
                        Err(LinkCheck::Used) => 0,
                        Err(other) => panic!("{other:?}"),
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(winners, 1);
    }
}
