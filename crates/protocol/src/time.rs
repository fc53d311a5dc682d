//! RFC 3339 timestamps for `at`, in UTC with milliseconds. Small enough to
//! write here rather than pull a date crate into every reader of the log.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `2026-11-29T15:30:23.123Z`. Times before 1970 are written as 1970.
pub fn format_rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    let secs = since.as_secs() as i64;
    let millis = since.subsec_millis();
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Milliseconds since the Unix epoch, for `YYYY-MM-DD`, or a full RFC 3339
/// time with `Z` or a numeric offset and optional fraction.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || !(1..=12).contains(&mo) {
        return None;
    }
    if d < 1 || d > days_in_month(y, mo) {
        return None;
    }
    let day_ms = days_from_civil(y, mo, d) * 86_400_000;
    if b.len() == 10 {
        return Some(day_ms);
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) || b.get(13) != Some(&b':') {
        return None;
    }
    let (h, mi, s) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if b.get(16) != Some(&b':') || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            if i - start < 3 {
                millis = millis * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        for _ in (i - start)..3 {
            millis *= 10;
        }
    }
    let offset_min = match b.get(i) {
        Some(b'Z' | b'z') if b.len() == i + 1 => 0,
        Some(sign @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
            let total = num(i + 1, 2)? * 60 + num(i + 4, 2)?;
            if *sign == b'+' {
                total
            } else {
                -total
            }
        }
        _ => return None,
    };
    Some(day_ms + ((h * 60 + mi - offset_min) * 60 + s) * 1000 + millis)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's days_from_civil / civil_from_days.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        let t = UNIX_EPOCH + Duration::from_millis(1_795_966_223_123);
        assert_eq!(format_rfc3339(t), "2026-11-29T15:30:23.123Z");
        assert_eq!(format_rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(format_rfc3339(leap), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn parses_what_it_formats() {
        for ms in [
            0i64,
            1,
            951_782_400_000,
            1_795_966_223_123,
            4_102_444_800_999,
        ] {
            let t = UNIX_EPOCH + Duration::from_millis(ms as u64);
            assert_eq!(parse_rfc3339(&format_rfc3339(t)), Some(ms));
        }
    }

    #[test]
    fn parses_dates_offsets_and_fractions() {
        assert_eq!(parse_rfc3339("1970-01-02"), Some(86_400_000));
        assert_eq!(parse_rfc3339("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00.5Z"), Some(500));
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00.123456Z"), Some(123));
    }

    #[test]
    fn refuses_what_is_not_a_time() {
        for bad in [
            "",
            "2026",
            "2026-13-01",
            "2026-02-30",
            "2026-01-01T25:00:00Z",
            "2026-01-01T00:00:00",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00Zjunk",
            "２０２６-01-01",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
