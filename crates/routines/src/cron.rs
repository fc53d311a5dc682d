//! Standard cron expressions: five fields (minute, hour, day of the month,
//! month, day of the week), each `*`, a number, a range `a-b`, a step
//! `*/n`, `a-b/n` or `a/n`, or a comma-separated list of those; months and
//! days may be named (`jan`, `mon`); Sunday is 0 or 7. The macros
//! `@hourly`, `@daily` (`@midnight`), `@weekly`, `@monthly`, `@yearly`
//! (`@annually`) are read too.
//!
//! The day rule is cron's own (Vixie cron, cronie): when both day fields
//! are restricted, a day matches when *either* does; a field that starts
//! with `*` (`*/2` too) counts as unrestricted.
//!
//! Pure: no clock, no time zone. [`crate::Schedule`] turns a [`Spec`] into
//! times.

/// One cron expression, as sets of allowed values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// Bit m: minute m (0–59).
    pub minutes: u64,
    /// Bit h: hour h (0–23).
    pub hours: u32,
    /// Bit d: day d of the month (1–31).
    pub days: u32,
    /// Bit m: month m (1–12).
    pub months: u16,
    /// Bit d: day d of the week, Sunday 0 … Saturday 6.
    pub weekdays: u8,
    /// The day-of-month field started with `*`.
    pub days_star: bool,
    /// The day-of-week field started with `*`.
    pub weekdays_star: bool,
}

/// Why a cron expression can't be read, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CronError(pub String);

impl std::fmt::Display for CronError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/// The longest each month can be (February in a leap year).
const MONTH_DAYS: [u32; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

struct Field {
    name: &'static str,
    low: u32,
    high: u32,
    names: &'static [&'static str],
    /// Where the first name counts from (1 for months, 0 for days).
    names_from: u32,
}

const FIELDS: [Field; 5] = [
    Field {
        name: "minute",
        low: 0,
        high: 59,
        names: &[],
        names_from: 0,
    },
    Field {
        name: "hour",
        low: 0,
        high: 23,
        names: &[],
        names_from: 0,
    },
    Field {
        name: "day of the month",
        low: 1,
        high: 31,
        names: &[],
        names_from: 0,
    },
    Field {
        name: "month",
        low: 1,
        high: 12,
        names: &MONTHS,
        names_from: 1,
    },
    // 7 is Sunday too, folded into 0 below.
    Field {
        name: "day of the week",
        low: 0,
        high: 7,
        names: &DAYS,
        names_from: 0,
    },
];

/// Whether `text` looks like a cron expression at all (five fields, or a
/// macro), so the plain-English reader can have everything else.
pub fn looks_like_cron(text: &str) -> bool {
    let text = text.trim();
    if text.starts_with('@') {
        return true;
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    fields.len() == 5
        && fields.iter().all(|f| {
            f.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '*' | ',' | '-' | '/'))
        })
        && fields[..3]
            .iter()
            .all(|f| f.chars().all(|c| !c.is_ascii_alphabetic()))
}

/// Reads a cron expression.
pub fn parse(text: &str) -> Result<Spec, CronError> {
    let text = text.trim();
    let expanded = match text.to_ascii_lowercase().as_str() {
        "@hourly" => "0 * * * *".to_owned(),
        "@daily" | "@midnight" => "0 0 * * *".to_owned(),
        "@weekly" => "0 0 * * 0".to_owned(),
        "@monthly" => "0 0 1 * *".to_owned(),
        "@yearly" | "@annually" => "0 0 1 1 *".to_owned(),
        "@reboot" => {
            return Err(CronError(
                "@reboot isn't a time: a routine runs on a schedule. Use a time, like @daily."
                    .to_owned(),
            ))
        }
        m if m.starts_with('@') => {
            return Err(CronError(format!(
                "{text} isn't a cron macro. Use @hourly, @daily, @weekly, @monthly or @yearly."
            )))
        }
        _ => text.to_owned(),
    };
    let parts: Vec<&str> = expanded.split_whitespace().collect();
    if parts.len() != 5 {
        return Err(CronError(format!(
            "A cron expression has five fields (minute hour day month weekday); \"{text}\" has {}.",
            parts.len()
        )));
    }
    let mut sets = [0u64; 5];
    for (i, (part, field)) in parts.iter().zip(FIELDS.iter()).enumerate() {
        sets[i] = parse_field(part, field)?;
    }
    // Sunday is 0 and 7.
    let weekdays = ((sets[4] & 0x7f) | ((sets[4] >> 7) & 1)) as u8;
    let spec = Spec {
        minutes: sets[0],
        hours: sets[1] as u32,
        days: sets[2] as u32,
        months: sets[3] as u16,
        weekdays,
        days_star: parts[2].starts_with('*'),
        weekdays_star: parts[4].starts_with('*'),
    };
    spec.comes_round().map_err(CronError)?;
    Ok(spec)
}

fn parse_field(text: &str, field: &Field) -> Result<u64, CronError> {
    let mut set = 0u64;
    for item in text.split(',') {
        set |= parse_item(item, field)?;
    }
    Ok(set)
}

fn parse_item(item: &str, field: &Field) -> Result<u64, CronError> {
    let bad = |why: &str| CronError(format!("\"{item}\" isn't a {} for cron: {why}", field.name));
    if item.is_empty() {
        return Err(bad("it's empty."));
    }
    let (range, step) = match item.split_once('/') {
        Some((r, s)) => {
            let step: u32 = s
                .parse()
                .map_err(|_| bad("the step after / must be a number."))?;
            if step == 0 || step > field.high {
                return Err(bad(&format!("the step must be 1 to {}.", field.high)));
            }
            (r, Some(step))
        }
        None => (item, None),
    };
    let (low, high) = if range == "*" {
        (field.low, field.high)
    } else if let Some((a, b)) = range.split_once('-') {
        (value(a, field, &bad)?, value(b, field, &bad)?)
    } else {
        let v = value(range, field, &bad)?;
        // `a/n` runs from a to the end, as Vixie cron reads it.
        (v, if step.is_some() { field.high } else { v })
    };
    if low > high {
        return Err(bad(&format!("{low} comes after {high}.")));
    }
    let step = step.unwrap_or(1);
    let mut set = 0u64;
    let mut v = low;
    while v <= high {
        set |= 1 << v;
        v += step;
    }
    Ok(set)
}

fn value(text: &str, field: &Field, bad: &dyn Fn(&str) -> CronError) -> Result<u32, CronError> {
    let lower = text.to_ascii_lowercase();
    if let Some(i) = field.names.iter().position(|n| *n == lower) {
        return Ok(i as u32 + field.names_from);
    }
    let v: u32 = text.parse().map_err(|_| {
        bad(&if field.names.is_empty() {
            "use numbers.".to_owned()
        } else {
            format!("use numbers or names like {}.", field.names[1])
        })
    })?;
    if v < field.low || v > field.high {
        return Err(bad(&format!("it must be {} to {}.", field.low, field.high)));
    }
    Ok(v)
}

impl Spec {
    /// Whether `day` (1–31) of `month` (1–12), a `weekday` (Sunday 0), is
    /// one of its days.
    pub fn day_matches(&self, month: u32, day: u32, weekday: u32) -> bool {
        if self.months & (1 << month) == 0 {
            return false;
        }
        let by_day = self.days & (1 << day) != 0;
        let by_weekday = self.weekdays & (1 << weekday) != 0;
        match (self.days_star, self.weekdays_star) {
            (true, true) => true,
            (true, false) => by_weekday,
            (false, true) => by_day,
            (false, false) => by_day || by_weekday,
        }
    }

    /// Whether a time of day is one of its times.
    pub fn time_matches(&self, hour: u32, minute: u32) -> bool {
        self.hours & (1 << hour) != 0 && self.minutes & (1 << minute) != 0
    }

    /// The hours and minutes it runs at, in order.
    pub fn hours(&self) -> impl Iterator<Item = u32> + '_ {
        (0..24).filter(|h| self.hours & (1 << h) != 0)
    }

    pub fn minutes(&self) -> impl Iterator<Item = u32> + '_ {
        (0..60).filter(|m| self.minutes & (1 << m) != 0)
    }

    /// A schedule whose only days are dates no chosen month has (the 30th
    /// of February) never runs: said when it's read, not found out later.
    fn comes_round(&self) -> Result<(), String> {
        if self.minutes == 0 || self.hours == 0 || self.months == 0 {
            return Err("That schedule has no time in it.".to_owned());
        }
        // With days of the week in play, some day always matches.
        if self.days_star || !self.weekdays_star {
            return Ok(());
        }
        let fits = (1..=12u32).any(|m| {
            self.months & (1 << m) != 0
                && (1..=MONTH_DAYS[m as usize - 1]).any(|d| self.days & (1 << d) != 0)
        });
        if fits {
            Ok(())
        } else {
            Err("That schedule never comes round: none of its months has that day.".to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minutes(spec: &Spec) -> Vec<u32> {
        spec.minutes().collect()
    }

    #[test]
    fn fields_ranges_steps_lists_and_names() {
        let s = parse("*/15 9-17 * * mon-fri").unwrap();
        assert_eq!(minutes(&s), [0, 15, 30, 45]);
        assert_eq!(s.hours().collect::<Vec<_>>(), (9..=17).collect::<Vec<_>>());
        assert_eq!(s.weekdays, 0b0011_1110);
        assert!(s.days_star && !s.weekdays_star);
        let s = parse("5,10-12,50/5 0 1 JAN,jul 0").unwrap();
        assert_eq!(minutes(&s), [5, 10, 11, 12, 50, 55]);
        assert_eq!(s.months, (1 << 1) | (1 << 7));
        assert_eq!(s.weekdays, 1);
        // Sunday is 7 too.
        assert_eq!(parse("0 0 * * 7").unwrap().weekdays, 1);
        assert_eq!(parse("@weekly").unwrap(), parse("0 0 * * 0").unwrap());
        assert_eq!(parse("@daily").unwrap(), parse("0 0 * * *").unwrap());
    }

    #[test]
    fn either_day_field_matches_when_both_are_restricted() {
        // The 1st and 15th, and every Monday.
        let s = parse("0 9 1,15 * 1").unwrap();
        assert!(s.day_matches(3, 1, 3));
        assert!(s.day_matches(3, 4, 1));
        assert!(!s.day_matches(3, 4, 2));
        // `*/2` counts as unrestricted: only the weekday decides.
        let s = parse("0 9 */2 * 1").unwrap();
        assert!(!s.day_matches(3, 1, 3));
        assert!(s.day_matches(3, 4, 1));
    }

    #[test]
    fn bad_expressions_say_what_is_wrong() {
        for (bad, says) in [
            ("60 * * * *", "minute"),
            ("* 24 * * *", "hour"),
            ("* * 0 * *", "day of the month"),
            ("* * * 13 *", "month"),
            ("* * * * 8", "day of the week"),
            ("*/0 * * * *", "step"),
            ("5-1 * * * *", "comes after"),
            ("* * * *", "five fields"),
            ("0 0 30 2 *", "never comes round"),
            ("0 0 31 4,6 *", "never comes round"),
            ("@reboot", "isn't a time"),
            ("x * * * *", "numbers"),
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
        // The 29th of February comes round (in leap years).
        assert!(parse("0 0 29 2 *").is_ok());
        // With a weekday too, some day always matches.
        assert!(parse("0 0 30 2 1").is_ok());
    }

    #[test]
    fn what_looks_like_cron() {
        assert!(looks_like_cron("0 8 * * 1-5"));
        assert!(looks_like_cron("@daily"));
        assert!(!looks_like_cron("every weekday at 8:00"));
        assert!(!looks_like_cron("every day at 8 am ok"));
    }
}
