use super::*;

fn tz(name: &str) -> TimeZone {
    TimeZone::get(name).unwrap()
}

fn at(text: &str) -> i64 {
    text.parse::<Timestamp>().unwrap().as_second()
}

fn show(secs: i64) -> String {
    Timestamp::from_second(secs).unwrap().to_string()
}

#[test]
fn a_weekday_at_eight_in_the_owners_zone() {
    let s = Schedule::parse("every weekday at 8:00").unwrap();
    let paris = tz("Europe/Paris");
    // Friday 2026-11-27 09:00 in Paris: next is Monday 08:00 (07:00Z).
    let next = s.next_after(at("2026-11-27T08:00:00Z"), &paris).unwrap();
    assert_eq!(show(next), "2026-11-30T07:00:00Z");
    // Exactly at a run, the next is the one after.
    assert_eq!(
        show(s.next_after(next, &paris).unwrap()),
        "2026-12-01T07:00:00Z"
    );
}

#[test]
fn a_time_the_clocks_skip_runs_as_they_jump() {
    let ny = tz("America/New_York");
    let s = Schedule::parse("30 2 * * *").unwrap();
    // 2024-03-10 02:30 doesn't exist in New York: it runs at 03:30 EDT.
    let next = s.next_after(at("2024-03-10T05:00:00Z"), &ny).unwrap();
    assert_eq!(show(next), "2024-03-10T07:30:00Z");
    // Just after the jump, the skipped time is still to come.
    let next = s.next_after(at("2024-03-10T07:05:00Z"), &ny).unwrap();
    assert_eq!(show(next), "2024-03-10T07:30:00Z");
}

#[test]
fn a_time_that_comes_twice_runs_once() {
    let ny = tz("America/New_York");
    let s = Schedule::parse("30 1 * * *").unwrap();
    let first = s.next_after(at("2024-11-03T04:00:00Z"), &ny).unwrap();
    assert_eq!(show(first), "2024-11-03T05:30:00Z");
    // Not again at 01:30 EST (06:30Z): tomorrow.
    let again = s.next_after(first, &ny).unwrap();
    assert_eq!(show(again), "2024-11-04T06:30:00Z");
}

#[test]
fn the_29th_of_february_comes_round() {
    let s = Schedule::parse("0 12 29 2 *").unwrap();
    let next = s
        .next_after(at("2025-03-01T00:00:00Z"), &tz("UTC"))
        .unwrap();
    assert_eq!(show(next), "2028-02-29T12:00:00Z");
}

/// xorshift64*, seeded per example so a failure is reproducible.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random cron expression that runs at least daily-ish, so the brute
/// force below stays small.
fn random_cron(rng: &mut Rng) -> String {
    let field = |rng: &mut Rng, low: u64, high: u64, star_odds: u64| -> String {
        match rng.below(star_odds) {
            0 => "*".to_owned(),
            1 => format!("*/{}", 1 + rng.below(high.min(20))),
            2 => {
                let a = low + rng.below(high - low + 1);
                let b = a + rng.below(high - a + 1);
                format!("{a}-{b}")
            }
            _ => {
                let n = 1 + rng.below(3);
                (0..n)
                    .map(|_| (low + rng.below(high - low + 1)).to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            }
        }
    };
    format!(
        "{} {} {} * {}",
        field(rng, 0, 59, 4),
        if rng.below(2) == 0 {
            // The hours the clocks change in, mostly.
            let h = [0, 1, 2, 3, 23][rng.below(5) as usize];
            match rng.below(3) {
                0 => format!("{h}"),
                1 => format!("{h}-{}", (h + 1 + rng.below(2)).min(23)),
                _ => format!("{h},{}", rng.below(24)),
            }
        } else {
            field(rng, 0, 23, 4)
        },
        if rng.below(3) == 0 {
            field(rng, 1, 28, 4)
        } else {
            "*".to_owned()
        },
        if rng.below(3) == 0 {
            field(rng, 0, 6, 4)
        } else {
            "*".to_owned()
        },
    )
}

/// The definition, minute by minute: every civil minute the clock could
/// show that matches runs at its instant (a skipped one as the clocks
/// jump, a repeated one the first time); the next is the least of those
/// after `after`.
fn brute_next(s: &Schedule, after: i64, tz: &TimeZone, days: i64) -> Option<i64> {
    let start = tz
        .to_datetime(Timestamp::from_second(after - 2 * 86_400).unwrap())
        .date()
        .at(0, 0, 0, 0);
    let mut best: Option<i64> = None;
    let mut civil = start;
    for _ in 0..(days + 4) * 1440 {
        if s.matches_civil(civil) {
            let t = tz.to_timestamp(civil).unwrap().as_second();
            if t > after && best.is_none_or(|b| t < b) {
                best = Some(t);
            }
        }
        civil = civil
            .checked_add(jiff::SignedDuration::from_secs(60))
            .unwrap();
    }
    best
}

/// Moments within two hours of each clock change of `tz` in 2024 (and
/// Samoa's skipped day in 2011), where the rules matter.
fn around_changes(tz: &TimeZone) -> Vec<i64> {
    let mut out = Vec::new();
    for year_start in ["2011-12-01T00:00:00Z", "2024-01-01T00:00:00Z"] {
        let start: Timestamp = year_start.parse().unwrap();
        for t in tz.following(start).take(3) {
            out.push(t.timestamp().as_second());
        }
    }
    out
}

#[test]
fn property_next_after_is_the_least_run_after_in_every_zone() {
    let zones = [
        "UTC",
        "America/New_York",
        "Europe/London",
        "Australia/Lord_Howe",
        "Asia/Kolkata",
        "Pacific/Apia",
        "America/Santiago",
        "America/Havana",
    ];
    let mut checked_near_changes = 0;
    for seed in 1..=600u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let text = random_cron(&mut rng);
        let s = Schedule::parse(&text).unwrap();
        let zone = tz(zones[rng.below(zones.len() as u64) as usize]);
        let changes = around_changes(&zone);
        let moment = if changes.is_empty() || rng.below(4) == 0 {
            at("2026-06-15T12:00:30Z") + rng.below(30 * 86_400) as i64
        } else {
            checked_near_changes += 1;
            changes[rng.below(changes.len() as u64) as usize] + rng.below(4 * 3600) as i64
                - 2 * 3600
        };
        let fast = s.next_after(moment, &zone);
        let slow = brute_next(&s, moment, &zone, 40);
        // The brute force looks 40 days ahead; past that it has no answer.
        if slow.is_some() || fast.is_some_and(|f| f - moment < 38 * 86_400) {
            assert_eq!(
                fast.map(show),
                slow.map(show),
                "seed {seed}: {text} after {} in {:?}",
                show(moment),
                zone.iana_name()
            );
        }
    }
    assert!(checked_near_changes > 300);
}

#[test]
fn a_skipped_time_doesnt_run_after_a_later_one_that_exists() {
    // Lord Howe's clocks go from 02:00 to 02:30 (2024-10-06): 02:10 is
    // skipped and runs as if the old offset held (02:40), after 02:30.
    let lh = tz("Australia/Lord_Howe");
    let s = Schedule::parse("10,30 2 * * *").unwrap();
    let before = lh
        .to_timestamp(jiff::civil::date(2024, 10, 6).at(1, 50, 0, 0))
        .unwrap();
    let first = s.next_after(before.as_second(), &lh).unwrap();
    let at_230 = lh
        .to_timestamp(jiff::civil::date(2024, 10, 6).at(2, 30, 0, 0))
        .unwrap();
    assert_eq!(show(first), at_230.to_string());
    let second = s.next_after(first, &lh).unwrap();
    assert_eq!(second - first, 10 * 60);
}
