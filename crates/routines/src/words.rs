//! A few plain-English schedules, each read into the same cron [`Spec`]s a
//! cron expression gives, so there is one way to work out when a routine
//! runs:
//!
//! - `every minute`, `every 15 minutes`, `every hour`, `every 2 hours`,
//!   `hourly` (counted from the top of the hour, as cron's `*/15`);
//! - `every day at 8:00`, `daily at 7am`, `every weekday at 8:00`,
//!   `every weekend at 10`, `every monday at 9:30`,
//!   `every mon, wed and fri at 18:00`, `mondays at noon`;
//! - `every month on the 1st at 9:00`, `every month on the 1st and 15th at 9`;
//! - several times: `every day at 8:00 and 17:30`; the time may come first
//!   (`at 8:00 every weekday`).
//!
//! Times are `8`, `8:30`, `08:30`, `8am`, `8:30 pm`, `noon`, `midnight`.
//! Pure: no clock, no time zone.

use crate::cron::Spec;

/// Why the words aren't a schedule this reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordsError(pub String);

impl std::fmt::Display for WordsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

const DAY_NAMES: [(&str, u32); 14] = [
    ("sunday", 0),
    ("monday", 1),
    ("tuesday", 2),
    ("wednesday", 3),
    ("thursday", 4),
    ("friday", 5),
    ("saturday", 6),
    ("sun", 0),
    ("mon", 1),
    ("tue", 2),
    ("wed", 3),
    ("thu", 4),
    ("fri", 5),
    ("sat", 6),
];

const ALL_MINUTES: u64 = (1 << 60) - 1;
const ALL_HOURS: u32 = (1 << 24) - 1;
const ALL_DAYS: u32 = ((1u64 << 32) - 2) as u32;
const ALL_MONTHS: u16 = ((1 << 13) - 2) as u16;
const ALL_WEEKDAYS: u8 = (1 << 7) - 1;

fn spec() -> Spec {
    Spec {
        minutes: ALL_MINUTES,
        hours: ALL_HOURS,
        days: ALL_DAYS,
        months: ALL_MONTHS,
        weekdays: ALL_WEEKDAYS,
        days_star: true,
        weekdays_star: true,
    }
}

/// What repeats: the part before "at".
#[derive(Debug, PartialEq)]
enum Period {
    Minutes(u32),
    Hours(u32),
    /// Days of the week (a bit each, Sunday 0).
    Days(u8),
    /// Days of the month.
    Month(u32),
}

fn unreadable(text: &str) -> WordsError {
    WordsError(format!(
        "\"{}\" isn't a schedule I can read. Write it like \"every weekday at 8:00\", \"every monday at 9:30\", \"every 15 minutes\", or as cron: \"0 8 * * 1-5\".",
        text.trim().chars().take(120).collect::<String>()
    ))
}

/// Reads a plain-English schedule into one spec per distinct minute of the
/// hour it names.
pub fn parse(text: &str) -> Result<Vec<Spec>, WordsError> {
    let lower = text.to_lowercase();
    // Words, with commas and "and" as mere separators.
    let mut words: Vec<String> = lower
        .replace(',', " ")
        .split_whitespace()
        .filter(|w| *w != "and" && *w != "&")
        .map(str::to_owned)
        .collect();
    // "at 8:00 every weekday": the time goes last.
    if words.first().map(String::as_str) == Some("at") {
        let period_at = words
            .iter()
            .position(|w| w == "every" || w == "each" || w == "daily" || w == "hourly")
            .ok_or_else(|| unreadable(text))?;
        let times: Vec<String> = words.drain(..period_at).collect();
        words.extend(times);
    }
    if matches!(
        words.first().map(String::as_str),
        Some("every" | "each" | "on")
    ) {
        words.remove(0);
    }
    let (period_words, time_words) = match words.iter().position(|w| w == "at") {
        Some(at) => (words[..at].to_vec(), Some(words[at + 1..].to_vec())),
        None => (words.clone(), None),
    };
    let period = period(&period_words).ok_or_else(|| unreadable(text))?;
    let times = match &time_words {
        Some(t) => Some(times(t).ok_or_else(|| unreadable(text))?),
        None => None,
    };
    match period {
        Period::Minutes(n) | Period::Hours(n) if times.is_some() => {
            let _ = n;
            Err(WordsError(format!(
                "\"{}\" repeats through the day, so it has no \"at\". Say \"every day at 8:00\", or use cron.",
                text.trim()
            )))
        }
        Period::Minutes(n) => {
            let mut s = spec();
            s.minutes = every(n, 60)?;
            Ok(vec![s])
        }
        Period::Hours(n) => {
            let mut s = spec();
            s.minutes = 1;
            s.hours = every(n, 24)? as u32;
            Ok(vec![s])
        }
        Period::Days(_) | Period::Month(_) if times.is_none() => Err(WordsError(format!(
            "\"{}\" needs a time of day: add one, like \"at 8:00\".",
            text.trim()
        ))),
        Period::Days(weekdays) => Ok(at_times(times.unwrap_or_default(), |s| {
            if weekdays != ALL_WEEKDAYS {
                s.weekdays = weekdays;
                s.weekdays_star = false;
            }
        })),
        Period::Month(days) => Ok(at_times(times.unwrap_or_default(), |s| {
            s.days = days;
            s.days_star = false;
        })),
    }
}

/// Every `n` counted from 0, below `limit`, as a bit set.
fn every(n: u32, limit: u32) -> Result<u64, WordsError> {
    if n == 0 || n >= limit {
        return Err(WordsError(format!(
            "Every {n} doesn't fit: use 1 to {}.",
            limit - 1
        )));
    }
    Ok((0..limit)
        .step_by(n as usize)
        .fold(0, |set, v| set | 1 << v))
}

/// One spec per distinct minute, each with the hours at that minute.
fn at_times(times: Vec<(u32, u32)>, days: impl Fn(&mut Spec)) -> Vec<Spec> {
    let mut by_minute: Vec<(u32, u32)> = Vec::new();
    for (h, m) in times {
        match by_minute.iter_mut().find(|(minute, _)| *minute == m) {
            Some((_, hours)) => *hours |= 1 << h,
            None => by_minute.push((m, 1 << h)),
        }
    }
    by_minute
        .into_iter()
        .map(|(m, hours)| {
            let mut s = spec();
            s.minutes = 1 << m;
            s.hours = hours;
            days(&mut s);
            s
        })
        .collect()
}

fn period(words: &[String]) -> Option<Period> {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["minute"] => Some(Period::Minutes(1)),
        ["hour" | "hourly"] => Some(Period::Hours(1)),
        [n, "minutes" | "mins" | "min"] => Some(Period::Minutes(n.parse().ok()?)),
        [n, "hours" | "hrs"] => Some(Period::Hours(n.parse().ok()?)),
        ["day" | "daily" | "days" | "morning" | "evening" | "night"] => {
            Some(Period::Days(ALL_WEEKDAYS))
        }
        ["weekday" | "weekdays"] => Some(Period::Days(0b0011_1110)),
        ["weekend" | "weekends"] => Some(Period::Days(0b0100_0001)),
        ["month" | "monthly", "on", rest @ ..] | ["month" | "monthly", rest @ ..]
            if !rest.is_empty() =>
        {
            let rest: Vec<&str> = rest
                .iter()
                .copied()
                .filter(|w| *w != "the" && *w != "on" && *w != "day")
                .collect();
            let mut days = 0u32;
            for word in rest {
                let digits: String = word.chars().take_while(char::is_ascii_digit).collect();
                let suffix = &word[digits.len()..];
                if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") {
                    return None;
                }
                let d: u32 = digits.parse().ok()?;
                if !(1..=31).contains(&d) {
                    return None;
                }
                days |= 1 << d;
            }
            (days != 0).then_some(Period::Month(days))
        }
        // "week on monday", "monday", "mondays", "mon wed fri".
        ["week", "on", days @ ..] | days => {
            let mut set = 0u8;
            for &word in days.iter() {
                let word = word
                    .strip_suffix('s')
                    .filter(|w| w.len() > 2)
                    .unwrap_or(word);
                let (_, d) = DAY_NAMES.iter().find(|(name, _)| *name == word)?;
                set |= 1 << d;
            }
            (set != 0).then_some(Period::Days(set))
        }
    }
}

fn times(words: &[String]) -> Option<Vec<(u32, u32)>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = words[i].as_str();
        // "8 am", "8:30 pm": the suffix as its own word.
        let next = words.get(i + 1).map(String::as_str);
        let (text, used) = match next {
            Some(s @ ("am" | "pm" | "a.m." | "p.m.")) => (format!("{word}{s}"), 2),
            _ => (word.to_owned(), 1),
        };
        out.push(time(&text)?);
        i += used;
    }
    (!out.is_empty()).then_some(out)
}

/// One time of day: `8`, `8:30`, `08:30`, `8am`, `8:30pm`, `noon`, `midnight`.
fn time(text: &str) -> Option<(u32, u32)> {
    match text {
        "noon" | "midday" => return Some((12, 0)),
        "midnight" => return Some((0, 0)),
        _ => {}
    }
    let text = text.replace('.', "");
    let (clock, half) = if let Some(c) = text.strip_suffix("am") {
        (c, Some(false))
    } else if let Some(c) = text.strip_suffix("pm") {
        (c, Some(true))
    } else {
        (text.as_str(), None)
    };
    let (h, m) = match clock.split_once(':').or_else(|| clock.split_once('h')) {
        Some((h, "")) => (h, "0"),
        Some((h, m)) => (h, m),
        None => (clock, "0"),
    };
    if h.is_empty() || h.len() > 2 || m.len() > 2 || (m.len() == 1 && clock.contains(':')) {
        return None;
    }
    let (mut h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    if m > 59 {
        return None;
    }
    match half {
        Some(pm) => {
            if !(1..=12).contains(&h) {
                return None;
            }
            h = h % 12 + if pm { 12 } else { 0 };
        }
        None if h > 23 => return None,
        None => {}
    }
    Some((h, m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cron;

    fn same(words: &str, cron_text: &str) {
        assert_eq!(
            parse(words).unwrap(),
            vec![cron::parse(cron_text).unwrap()],
            "{words}"
        );
    }

    #[test]
    fn each_form_is_the_cron_it_means() {
        same("every weekday at 8:00", "0 8 * * 1-5");
        same("Every weekday at 8:00", "0 8 * * 1-5");
        same("weekdays at 8am", "0 8 * * 1-5");
        same("every day at 7:30", "30 7 * * *");
        same("daily at 7:30 pm", "30 19 * * *");
        same("every weekend at 10", "0 10 * * 0,6");
        same("every monday at 9:30", "30 9 * * 1");
        same("every mon, wed and fri at 18:00", "0 18 * * 1,3,5");
        same("mondays at noon", "0 12 * * 1");
        same("every week on friday at midnight", "0 0 * * 5");
        same("at 8:00 every weekday", "0 8 * * 1-5");
        same("every minute", "* * * * *");
        same("every 15 minutes", "*/15 * * * *");
        same("every hour", "0 * * * *");
        same("hourly", "0 * * * *");
        same("every 2 hours", "0 */2 * * *");
        same("every month on the 1st at 9:00", "0 9 1 * *");
        same("every month on the 1st and 15th at 9", "0 9 1,15 * *");
        same("every day at 12am", "0 0 * * *");
        same("every day at 12pm", "0 12 * * *");
        same("every day at 20h", "0 20 * * *");
    }

    #[test]
    fn several_times_with_different_minutes_are_several_specs() {
        let specs = parse("every day at 8:00 and 17:30").unwrap();
        assert_eq!(
            specs,
            vec![
                cron::parse("0 8 * * *").unwrap(),
                cron::parse("30 17 * * *").unwrap()
            ]
        );
        let specs = parse("every day at 8, 12 and 18").unwrap();
        assert_eq!(specs, vec![cron::parse("0 8,12,18 * * *").unwrap()]);
    }

    #[test]
    fn what_isnt_a_schedule_says_how_to_write_one() {
        for bad in [
            "sometimes",
            "every day",
            "every 15 minutes at 8:00",
            "every day at 25:00",
            "every day at 8:75",
            "every day at 13pm",
            "every 0 minutes",
            "every 60 minutes",
            "every blursday at 8",
            "every month on the 32nd at 9",
            "",
        ] {
            let e = parse(bad);
            assert!(e.is_err(), "{bad} was read as {e:?}");
        }
        let e = parse("every day").unwrap_err().to_string();
        assert!(e.contains("needs a time of day"), "{e}");
        let e = parse("sometimes").unwrap_err().to_string();
        assert!(e.contains("every weekday at 8:00"), "{e}");
    }
}
