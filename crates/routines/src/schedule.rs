//! When a routine runs: a schedule as the owner wrote it (cron, or a few
//! plain-English forms, see [`crate::words`]), read into cron [`Spec`]s,
//! and the next time after a moment, in the owner's time zone.
//!
//! A time the clock shows is when it runs. Where the clocks change, the
//! rule is the one cron (cronie) follows and people expect:
//!
//! - a time that doesn't exist that day (the hour skipped in spring) runs
//!   as the clocks jump, as if the old offset still held (2:30 runs at
//!   3:30);
//! - a time that comes twice (the hour repeated in autumn) runs once, the
//!   first time.
//!
//! Every time is whole minutes; an instant is Unix seconds.

use jiff::civil::{Date, DateTime};
use jiff::tz::{AmbiguousOffset, TimeZone};
use jiff::Timestamp;

use crate::cron::{self, Spec};
use crate::words;

/// A schedule: the words it was written in, and what they mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    pub text: String,
    specs: Vec<Spec>,
}

/// The longest a schedule may go without running (the 29th of February
/// on a Monday, with room): past this, it is said never to come round.
const HORIZON_DAYS: u32 = 366 * 29;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleError(pub String);

impl std::fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScheduleError {}

impl Schedule {
    /// Reads `text`: a cron expression, or one of the plain-English forms.
    pub fn parse(text: &str) -> Result<Schedule, ScheduleError> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(ScheduleError(
                "The schedule is empty. Write it like \"every weekday at 8:00\" or \"0 8 * * 1-5\"."
                    .to_owned(),
            ));
        }
        if trimmed.chars().count() > 200 {
            return Err(ScheduleError(
                "That schedule is too long to be one (200 characters at most).".to_owned(),
            ));
        }
        let specs = if cron::looks_like_cron(trimmed) {
            vec![cron::parse(trimmed).map_err(|e| ScheduleError(e.0))?]
        } else {
            words::parse(trimmed).map_err(|e| ScheduleError(e.0))?
        };
        Ok(Schedule {
            text: trimmed.to_owned(),
            specs,
        })
    }

    /// The first time it runs strictly after `after` (Unix seconds), in
    /// `tz`; None when it never comes round within the horizon.
    pub fn next_after(&self, after: i64, tz: &TimeZone) -> Option<i64> {
        self.specs
            .iter()
            .filter_map(|s| next_for(s, after, tz))
            .min()
    }

    /// Whether a civil time of day on a date is one of its times: the
    /// clock's reading, before any change of the clocks is considered.
    pub fn matches_civil(&self, dt: DateTime) -> bool {
        self.specs.iter().any(|s| {
            matches_day(s, dt.date()) && s.time_matches(dt.hour() as u32, dt.minute() as u32)
        })
    }
}

fn matches_day(spec: &Spec, date: Date) -> bool {
    spec.day_matches(
        date.month() as u32,
        date.day() as u32,
        date.weekday().to_sunday_zero_offset() as u32,
    )
}

/// The smallest matching civil time at or after `from` (whole minutes).
fn next_civil(spec: &Spec, from: DateTime) -> Option<DateTime> {
    let mut date = from.date();
    let mut hour = from.hour() as u32;
    let mut minute =
        from.minute() as u32 + u32::from(from.second() > 0 || from.subsec_nanosecond() > 0);
    if minute == 60 {
        minute = 0;
        hour += 1;
    }
    for _ in 0..HORIZON_DAYS {
        if hour < 24 && matches_day(spec, date) {
            for h in spec.hours().filter(|h| *h >= hour) {
                let from_minute = if h == hour { minute } else { 0 };
                if let Some(m) = spec.minutes().find(|m| *m >= from_minute) {
                    return Some(date.at(h as i8, m as i8, 0, 0));
                }
            }
        }
        date = date.tomorrow().ok()?;
        hour = 0;
        minute = 0;
    }
    None
}

/// The instant a civil time runs at, and how far the clocks jumped over
/// it when it falls in a gap (else 0).
fn resolve(tz: &TimeZone, civil: DateTime) -> Option<(i64, i64)> {
    let ambiguous = tz.to_ambiguous_timestamp(civil);
    let gap = match ambiguous.offset() {
        AmbiguousOffset::Gap { before, after } => {
            i64::from(after.seconds()) - i64::from(before.seconds())
        }
        _ => 0,
    };
    Some((ambiguous.compatible().ok()?.as_second(), gap))
}

fn next_for(spec: &Spec, after: i64, tz: &TimeZone) -> Option<i64> {
    let ts = Timestamp::from_second(after).ok()?;
    // Civil times are in order, and so are their instants, except in a
    // gap: a time the clocks skipped runs as they jump, so it can be later
    // than `after` though the clock read later still. Start at the gap
    // when `after` is just past one.
    let mut start = tz.to_datetime(ts);
    if let Some(t) = tz
        .preceding(ts.checked_add(jiff::SignedDuration::from_secs(1)).ok()?)
        .next()
    {
        let before = tz.to_offset(
            t.timestamp()
                .checked_sub(jiff::SignedDuration::from_secs(1))
                .ok()?,
        );
        let jump = i64::from(t.offset().seconds()) - i64::from(before.seconds());
        if jump > 0 && after - t.timestamp().as_second() < jump {
            start = before.to_datetime(t.timestamp());
        }
    }
    let minute = jiff::SignedDuration::from_secs(60);
    let mut civil = next_civil(spec, start)?;
    for _ in 0..(HORIZON_DAYS as usize * 2) {
        let (at, gap) = resolve(tz, civil)?;
        if at > after {
            if gap == 0 {
                return Some(at);
            }
            // A skipped time runs as the clocks jump; a time just after
            // the jump can come first.
            let mut best = at;
            let until = civil
                .checked_add(jiff::SignedDuration::from_secs(gap))
                .ok()?;
            let mut next = next_civil(spec, civil.checked_add(minute).ok()?)?;
            while next < until {
                let (t, _) = resolve(tz, next)?;
                if t > after {
                    best = best.min(t);
                }
                next = next_civil(spec, next.checked_add(minute).ok()?)?;
            }
            return Some(best);
        }
        civil = next_civil(spec, civil.checked_add(minute).ok()?)?;
    }
    None
}

#[cfg(test)]
mod tests;
