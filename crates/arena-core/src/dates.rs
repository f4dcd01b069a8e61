//! Dates and durations read from a run file, which anyone can write: each is checked against
//! a plausible range first, and one outside it is "unknown". Nothing here loops on a value
//! from the file (the calendar is worked out in closed form).

/// What the page says of a time or duration a file gives that cannot be right.
pub const UNKNOWN: &str = "unknown";

/// 9999-12-31 23:59:59.999 UTC: the last instant a four-digit year can name.
pub const LAST_EPOCH_MS: f64 = 253_402_300_799_999.0;

/// Longer than any run can last (the stream limit is an hour a call, a run at most 20 steps a
/// question): a duration above it was not measured, it was written.
pub const LONGEST_DURATION_MS: f64 = 30.0 * 24.0 * 3_600_000.0;

/// Whether `epoch_ms` (ms since the Unix epoch) names an instant from 1970 to 9999.
pub fn is_plausible_time(epoch_ms: f64) -> bool {
    (0.0..=LAST_EPOCH_MS).contains(&epoch_ms)
}

/// Whether `ms` can be the length of something a run did.
pub fn is_plausible_duration(ms: f64) -> bool {
    (0.0..=LONGEST_DURATION_MS).contains(&ms)
}

/// (year, month, day, hour, minute) in UTC of a time in ms since the Unix epoch; `None` for a
/// time before 1970 or after 9999 (or not a number).
pub fn utc_date_time(epoch_ms: f64) -> Option<(i64, u32, u32, u32, u32)> {
    if !is_plausible_time(epoch_ms) {
        return None;
    }
    let secs = (epoch_ms / 1000.0) as i64;
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let minutes = secs.rem_euclid(86_400) / 60;
    Some((
        year,
        month,
        day,
        (minutes / 60) as u32,
        (minutes % 60) as u32,
    ))
}

/// The proleptic Gregorian date of a day counted from 1970-01-01, in closed form: eras of 400
/// years (146,097 days) hold the same calendar, and a year counted from March puts the leap
/// day last.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// "2026-11-25", or "unknown".
pub fn date(epoch_ms: f64) -> String {
    match utc_date_time(epoch_ms) {
        Some((y, m, d, _, _)) => format!("{y:04}-{m:02}-{d:02}"),
        None => UNKNOWN.into(),
    }
}

/// "2026-11-25 09:30 UTC", or "unknown".
pub fn date_time(epoch_ms: f64) -> String {
    match utc_date_time(epoch_ms) {
        Some((y, m, d, h, min)) => format!("{y:04}-{m:02}-{d:02} {h:02}:{min:02} UTC"),
        None => UNKNOWN.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calendar counted one day at a time, as a check on the closed form.
    fn counted(days: i64) -> (i64, u32, u32) {
        let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let (mut year, mut left) = (1970, days);
        loop {
            let in_year = if leap(year) { 366 } else { 365 };
            if left < in_year {
                break;
            }
            left -= in_year;
            year += 1;
        }
        let february = if leap(year) { 29 } else { 28 };
        let mut month = 1;
        for length in [31, february, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] {
            if left < length {
                break;
            }
            left -= length;
            month += 1;
        }
        (year, month, left as u32 + 1)
    }

    #[test]
    fn the_closed_form_agrees_with_counting_every_day_to_year_2500() {
        let days: Vec<i64> = (0..530 * 366).step_by(97).collect();
        for &d in &days {
            assert_eq!(civil_from_days(d), counted(d), "day {d}");
        }
        assert!(civil_from_days(*days.last().unwrap()).0 > 2400);
    }

    #[test]
    fn dates_are_counted_right_across_leap_years() {
        assert_eq!(utc_date_time(0.0), Some((1970, 1, 1, 0, 0)));
        // 2024-02-29 12:34 UTC and the day after.
        assert_eq!(
            utc_date_time(1_709_210_040_000.0),
            Some((2024, 2, 29, 12, 34))
        );
        assert_eq!(utc_date_time(1_709_251_200_000.0), Some((2024, 3, 1, 0, 0)));
        assert_eq!(utc_date_time(951_782_400_000.0), Some((2000, 2, 29, 0, 0)));
        assert_eq!(utc_date_time(LAST_EPOCH_MS), Some((9999, 12, 31, 23, 59)));
    }

    #[test]
    fn absurd_times_are_unknown_and_take_no_time() {
        let started = std::time::Instant::now();
        for t in [
            -5.0,
            1e300,
            -1e300,
            f64::MAX,
            f64::NAN,
            f64::INFINITY,
            LAST_EPOCH_MS + 1.0,
        ] {
            assert_eq!(utc_date_time(t), None, "{t}");
            assert_eq!(date(t), "unknown");
            assert_eq!(date_time(t), "unknown");
        }
        // The date is found in closed form (no loop to count): this bound only catches a hang,
        // the old calendar's counting of years one at a time.
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        assert_eq!(date_time(1_709_210_040_000.0), "2024-02-29 12:34 UTC");
    }

    #[test]
    fn durations_longer_than_a_month_or_negative_are_not_plausible() {
        assert!(is_plausible_duration(0.0));
        assert!(is_plausible_duration(3_600_000.0));
        for ms in [-1.0, LONGEST_DURATION_MS + 1.0, 1e300, f64::NAN] {
            assert!(!is_plausible_duration(ms), "{ms}");
        }
    }
}
