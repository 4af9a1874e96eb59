//! Unix times and spans of seconds as a person reads them in a terminal: `14:02:19 UTC
//! (in 9 min 40 s)`, `3 h 20 min`. Times are printed in UTC: a chain's clock has no time
//! zone, and a player comparing two machines' output should read the same text.

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (UTC; the proleptic Gregorian calendar).
pub fn rfc3339(unix: i64) -> String {
    let (date, time) = civil(unix);
    format!("{date}T{time}Z")
}

/// A moment `unix` seen at `now`: `14:02:19 UTC (in 9 min 40 s)`, `… (2 min ago)`, with
/// the date in front when it is not `now`'s day (`2026-11-28 14:02:19 UTC (in 23 h 5 min)`).
pub fn when(unix: u64, now: u64) -> String {
    let (date, time) = civil(unix.min(i64::MAX as u64) as i64);
    let (today, _) = civil(now.min(i64::MAX as u64) as i64);
    let relative = match unix.cmp(&now) {
        std::cmp::Ordering::Greater => format!("in {}", span(unix - now)),
        std::cmp::Ordering::Less => format!("{} ago", span(now - unix)),
        std::cmp::Ordering::Equal => "now".to_owned(),
    };
    if date == today {
        format!("{time} UTC ({relative})")
    } else {
        format!("{date} {time} UTC ({relative})")
    }
}

/// A span of seconds in its two largest units: `40 s`, `9 min 40 s`, `3 h 20 min`,
/// `2 d 4 h`; a whole larger unit alone (`10 min`, `1 d`).
pub fn span(seconds: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(86_400, "d"), (3_600, "h"), (60, "min"), (1, "s")];
    if seconds == 0 {
        return "0 s".to_owned();
    }
    let Some(first) = UNITS.iter().position(|&(size, _)| seconds >= size) else {
        unreachable!("every positive span has at least one second");
    };
    let (size, name) = UNITS[first];
    let mut text = format!("{} {name}", seconds / size);
    if let Some(&(next, next_name)) = UNITS.get(first + 1) {
        let rest = seconds % size / next;
        if rest > 0 {
            text.push_str(&format!(" {rest} {next_name}"));
        }
    }
    text
}

/// The UTC date (`YYYY-MM-DD`) and time of day (`HH:MM:SS`) of `unix`.
fn civil(unix: i64) -> (String, String) {
    let (days, secs) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        format!("{year:04}-{month:02}-{day:02}"),
        format!(
            "{:02}:{:02}:{:02}",
            secs / 3_600,
            secs % 3_600 / 60,
            secs % 60
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(1_795_635_600), "2026-11-25T19:40:00Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn test_span_in_its_two_largest_units() {
        assert_eq!(span(0), "0 s");
        assert_eq!(span(40), "40 s");
        assert_eq!(span(60), "1 min");
        assert_eq!(span(580), "9 min 40 s");
        assert_eq!(span(3_600), "1 h");
        assert_eq!(span(12_000), "3 h 20 min");
        assert_eq!(span(12_059), "3 h 20 min");
        assert_eq!(span(86_400), "1 d");
        assert_eq!(span(187_200), "2 d 4 h");
    }

    #[test]
    fn test_when_says_the_time_and_how_far() {
        // 2026-11-25T19:40:00Z.
        let now = 1_795_635_600;
        assert_eq!(when(now + 580, now), "19:49:40 UTC (in 9 min 40 s)");
        assert_eq!(when(now - 120, now), "19:38:00 UTC (2 min ago)");
        assert_eq!(when(now, now), "19:40:00 UTC (now)");
        assert_eq!(when(now + 86_400, now), "2026-11-26 19:40:00 UTC (in 1 d)");
    }
}
