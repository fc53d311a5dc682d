//! Slowing down guessing: sign-ins, password confirmations and setup links.
//!
//! Failures are counted per client address and in total. The first few are
//! free; after that each attempt must wait since the last one, twice as long
//! as the one before, up to a cap. An attempt that comes too early is
//! refused before the password is even looked at (429 with `Retry-After`),
//! and doesn't count. The right password after the wait still works, and
//! clears its address's count.
//!
//! An attempt is counted as a failure when it is let in, before the check
//! runs, and taken back if it turns out right: so a burst of simultaneous
//! guesses is counted in full, and only the free ones reach the check.
//!
//! Pure: the caller gives the time, so every rule is a table test.
//!
//! What it doesn't do: a guesser on this computer shares the owner's
//! address (127.0.0.1), and a guesser anywhere fills the total, so while
//! someone keeps guessing the owner waits too, at most `cap` at a time.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// How hard guessing is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Failures from one address before waits begin.
    pub free: u32,
    /// Failures in total before waits begin for everyone.
    pub free_total: u32,
    /// The first wait; each further failure doubles it.
    pub base: Duration,
    /// The longest wait.
    pub cap: Duration,
    /// A count not added to for this long starts again from nothing.
    pub forget: Duration,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            free: 5,
            free_total: 20,
            base: Duration::from_secs(1),
            cap: Duration::from_secs(60),
            forget: Duration::from_secs(3600),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Count {
    failures: u32,
    last: Instant,
}

impl Count {
    /// When the next attempt may come, if it must wait at all.
    fn ready_at(&self, free: u32, policy: &Policy) -> Option<Instant> {
        let over = self.failures.checked_sub(free)?;
        let wait = policy
            .base
            .checked_mul(1u32.checked_shl(over).unwrap_or(u32::MAX))
            .unwrap_or(policy.cap)
            .min(policy.cap);
        Some(self.last + wait)
    }
}

/// Most addresses remembered; past it the quietest are forgotten first.
const MAX_ADDRESSES: usize = 10_000;

/// The counts.
#[derive(Debug)]
pub struct Throttle {
    policy: Policy,
    by_address: HashMap<IpAddr, Count>,
    total: Option<Count>,
}

/// An attempt let in: settle it with [`Throttle::right`] or
/// [`Throttle::not_a_guess`]; left alone, it stays counted as a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct Attempt {
    pub address: IpAddr,
}

/// The key an address is counted under: an IPv6 address by its /64, which
/// is what one household or server gets.
fn key(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V6(v6) => {
            let mut segments = v6.segments();
            segments[4..].fill(0);
            IpAddr::V6(segments.into())
        }
        v4 => v4,
    }
}

impl Throttle {
    pub fn new(policy: Policy) -> Throttle {
        Throttle {
            policy,
            by_address: HashMap::new(),
            total: None,
        }
    }

    /// Lets an attempt from `address` in, counting it as a failure until
    /// it's settled; or says how long to wait first.
    pub fn admit(&mut self, address: IpAddr, now: Instant) -> Result<Attempt, Duration> {
        let address = key(address);
        self.forget_old(now);
        let policy = self.policy;
        let waits = [
            self.by_address
                .get(&address)
                .and_then(|c| c.ready_at(policy.free, &policy)),
            self.total
                .as_ref()
                .and_then(|c| c.ready_at(policy.free_total, &policy)),
        ];
        if let Some(ready) = waits.into_iter().flatten().filter(|r| *r > now).max() {
            return Err(ready - now);
        }
        for count in [
            self.by_address.entry(address).or_insert(Count {
                failures: 0,
                last: now,
            }),
            self.total.get_or_insert(Count {
                failures: 0,
                last: now,
            }),
        ] {
            count.failures = count.failures.saturating_add(1);
            count.last = now;
        }
        Ok(Attempt { address })
    }

    /// The attempt was right: its address starts again from nothing.
    pub fn right(&mut self, attempt: Attempt) {
        self.by_address.remove(&attempt.address);
        self.take_back_total();
    }

    /// The attempt wasn't a guess after all (no password set yet, a
    /// malformed request, Conch failing): it doesn't count.
    pub fn not_a_guess(&mut self, attempt: Attempt) {
        if let Some(count) = self.by_address.get_mut(&attempt.address) {
            count.failures = count.failures.saturating_sub(1);
        }
        self.take_back_total();
    }

    fn take_back_total(&mut self) {
        if let Some(total) = self.total.as_mut() {
            total.failures = total.failures.saturating_sub(1);
        }
    }

    fn forget_old(&mut self, now: Instant) {
        let forget = self.policy.forget;
        let stale = |c: &Count| now.saturating_duration_since(c.last) >= forget;
        self.by_address.retain(|_, c| !stale(c));
        if self.total.as_ref().is_some_and(stale) {
            self.total = None;
        }
        if self.by_address.len() >= MAX_ADDRESSES {
            let mut lasts: Vec<Instant> = self.by_address.values().map(|c| c.last).collect();
            lasts.sort();
            let cut = lasts[lasts.len() / 2];
            self.by_address.retain(|_, c| c.last > cut);
        }
    }
}

/// `Retry-After` in whole seconds, rounded up so a client that waits that
/// long is let in.
pub fn retry_after_secs(wait: Duration) -> u64 {
    let secs = wait.as_secs();
    if wait.subsec_nanos() > 0 {
        secs + 1
    } else {
        secs.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn policy() -> Policy {
        Policy::default()
    }

    #[test]
    fn the_first_failures_are_free_then_waits_double_up_to_the_cap() {
        let mut t = Throttle::new(policy());
        let now = Instant::now();
        let a = ip("192.0.2.1");
        for _ in 0..5 {
            let _ = t.admit(a, now).unwrap();
        }
        // The sixth waits the base, from the fifth.
        assert_eq!(t.admit(a, now), Err(Duration::from_secs(1)));
        let mut at = now + Duration::from_secs(1);
        let _ = t.admit(a, at).unwrap();
        // Then 2, 4, 8 … seconds, never more than the cap.
        let mut expected = Duration::from_secs(2);
        for _ in 0..12 {
            assert_eq!(t.admit(a, at), Err(expected));
            at += expected;
            let _ = t.admit(a, at).unwrap();
            expected = (expected * 2).min(Duration::from_secs(60));
        }
        assert_eq!(t.admit(a, at), Err(Duration::from_secs(60)));
    }

    #[test]
    fn an_early_attempt_does_not_count_and_the_right_password_works_after_the_wait() {
        let mut t = Throttle::new(policy());
        let now = Instant::now();
        let a = ip("192.0.2.1");
        for _ in 0..5 {
            let _ = t.admit(a, now).unwrap();
        }
        for ms in [0, 100, 500, 999] {
            assert!(t.admit(a, now + Duration::from_millis(ms)).is_err());
        }
        let attempt = t.admit(a, now + Duration::from_secs(1)).unwrap();
        t.right(attempt);
        // Its address starts again from nothing.
        for _ in 0..5 {
            let _ = t.admit(a, now + Duration::from_secs(1)).unwrap();
        }
    }

    #[test]
    fn a_burst_is_counted_before_any_check_runs() {
        let mut t = Throttle::new(policy());
        let now = Instant::now();
        let let_in = (0..200)
            .filter(|_| t.admit(ip("127.0.0.1"), now).is_ok())
            .count();
        assert_eq!(let_in, 5);
    }

    #[test]
    fn addresses_are_counted_apart_and_in_total() {
        let mut t = Throttle::new(policy());
        let now = Instant::now();
        for i in 0..4 {
            let a = ip(&format!("192.0.2.{i}"));
            for _ in 0..5 {
                let _ = t.admit(a, now).unwrap();
            }
            assert!(
                t.admit(a, now).is_err(),
                "each address waits after its own five"
            );
        }
        // Twenty failures in total: a fresh address waits too.
        assert_eq!(
            t.admit(ip("198.51.100.9"), now),
            Err(Duration::from_secs(1))
        );
    }

    #[test]
    fn one_ipv6_network_is_one_address() {
        let mut t = Throttle::new(policy());
        let now = Instant::now();
        for i in 0..5 {
            let _ = t.admit(ip(&format!("2001:db8:1:2::{i:x}")), now).unwrap();
        }
        assert!(t.admit(ip("2001:db8:1:2:ffff::1"), now).is_err());
        assert!(t.admit(ip("2001:db8:1:3::1"), now).is_ok());
        // An IPv4 address mapped into IPv6 is that IPv4 address.
        let mut t = Throttle::new(policy());
        for _ in 0..5 {
            let _ = t.admit(ip("::ffff:192.0.2.1"), now).unwrap();
        }
        assert!(t.admit(ip("192.0.2.1"), now).is_err());
    }

    #[test]
    fn what_isnt_a_guess_is_taken_back() {
        let mut t = Throttle::new(policy());
        let now = Instant::now();
        for _ in 0..50 {
            let attempt = t.admit(ip("192.0.2.1"), now).unwrap();
            t.not_a_guess(attempt);
        }
        assert!(t.admit(ip("192.0.2.1"), now).is_ok());
    }

    #[test]
    fn counts_are_forgotten_after_an_hour_quiet() {
        let mut t = Throttle::new(policy());
        let now = Instant::now();
        for _ in 0..30 {
            let _ = t.admit(ip("192.0.2.1"), now);
        }
        assert!(t.admit(ip("192.0.2.1"), now).is_err());
        assert!(t
            .admit(ip("192.0.2.1"), now + Duration::from_secs(3600))
            .is_ok());
    }

    #[test]
    fn retry_after_rounds_up() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1500)), 2);
        assert_eq!(retry_after_secs(Duration::from_secs(60)), 60);
    }
}
