//! The Open-Meteo forecast (https://open-meteo.com/en/docs): the request, the reading of its
//! current conditions and today's min/max, and the WMO weather codes in words.

use super::describe::{fixed, Measure, Reading};
use super::reply::{api_error, number, parse_json, text, unit_text};
use crate::tools::http::url_with_query;

pub(super) const CURRENT_FIELDS: &str =
    "temperature_2m,apparent_temperature,relative_humidity_2m,weather_code,wind_speed_10m";
pub(super) const DAILY_FIELDS: &str = "temperature_2m_max,temperature_2m_min";

pub fn forecast_url(base: &str, latitude: f64, longitude: f64) -> String {
    url_with_query(
        base,
        &[
            ("latitude", &latitude.to_string()),
            ("longitude", &longitude.to_string()),
            ("current", CURRENT_FIELDS),
            ("daily", DAILY_FIELDS),
            ("timezone", "auto"),
            ("forecast_days", "1"),
        ],
    )
}

pub(super) fn read_forecast(body: &str) -> Result<Reading, String> {
    let v = parse_json(body)?;
    if let Some(error) = api_error(&v) {
        return Err(format!("reported an error: {error}"));
    }
    let Some(current) = v.get("current").filter(|c| c.is_object()) else {
        return Err("sent unexpected JSON (no \"current\" conditions)".into());
    };
    let units = v.get("current_units");
    let unit = |field: &str, default: &str| {
        unit_text(units.and_then(|u| u.get(field))).unwrap_or_else(|| default.to_string())
    };
    let temperature_unit = unit("temperature_2m", "°C");
    let Some(temperature) = number(current.get("temperature_2m")) else {
        return Err("sent unexpected JSON (no current temperature_2m)".into());
    };
    let measure = |field: &str, decimals: usize, default: &str| {
        number(current.get(field))
            .map(|x| Measure::new(x, fixed(x, decimals), &unit(field, default)))
    };
    let daily = v.get("daily");
    let daily_units = v.get("daily_units");
    let today = |field: &str| {
        let x = number(daily.and_then(|d| d.get(field)).and_then(|a| a.get(0)))?;
        let unit = unit_text(daily_units.and_then(|u| u.get(field)))
            .unwrap_or_else(|| temperature_unit.clone());
        Some(Measure::new(x, fixed(x, 1), &unit))
    };
    Ok(Reading {
        time: text(current.get("time")),
        description: number(current.get("weather_code"))
            .filter(|c| c.fract() == 0.0 && (0.0..=1000.0).contains(c))
            .map(|c| weather_code_words(c as u16)),
        temperature: Measure::new(temperature, fixed(temperature, 1), &temperature_unit),
        feels_like: measure("apparent_temperature", 1, &temperature_unit),
        humidity: measure("relative_humidity_2m", 0, "%"),
        wind: measure("wind_speed_10m", 1, "km/h"),
        min: today("temperature_2m_min"),
        max: today("temperature_2m_max"),
    })
}

/// WMO weather interpretation codes as listed in Open-Meteo's forecast documentation; codes
/// inside a documented group but not listed get the group's word.
pub fn weather_code_words(code: u16) -> String {
    let words = match code {
        0 => "clear sky",
        1 => "mainly clear",
        2 => "partly cloudy",
        3 => "overcast",
        45 => "fog",
        48 => "depositing rime fog",
        51 => "light drizzle",
        53 => "moderate drizzle",
        55 => "dense drizzle",
        56 => "light freezing drizzle",
        57 => "dense freezing drizzle",
        52 | 54 => "drizzle",
        61 => "slight rain",
        63 => "moderate rain",
        65 => "heavy rain",
        66 => "light freezing rain",
        67 => "heavy freezing rain",
        62 | 64 => "rain",
        71 => "slight snow fall",
        73 => "moderate snow fall",
        75 => "heavy snow fall",
        77 => "snow grains",
        72 | 74 | 76 => "snow",
        80 => "slight rain showers",
        81 => "moderate rain showers",
        82 => "violent rain showers",
        85 => "slight snow showers",
        86 => "heavy snow showers",
        95 | 97 | 98 => "thunderstorm",
        96 => "thunderstorm with slight hail",
        99 => "thunderstorm with heavy hail",
        _ => return format!("weather code {code}"),
    };
    words.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weather_codes() {
        let words = |c| weather_code_words(c);
        assert_eq!(words(0), "clear sky");
        assert_eq!(words(1), "mainly clear");
        assert_eq!(words(2), "partly cloudy");
        assert_eq!(words(3), "overcast");
        assert_eq!(words(45), "fog");
        assert!(words(48).contains("fog"));
        for c in 51..=57 {
            assert!(words(c).contains("drizzle"), "{c}");
        }
        for c in 61..=67 {
            assert!(words(c).contains("rain"), "{c}");
        }
        for c in 71..=77 {
            assert!(words(c).contains("snow"), "{c}");
        }
        for c in 80..=82 {
            assert!(words(c).contains("rain showers"), "{c}");
        }
        for c in 85..=86 {
            assert!(words(c).contains("snow showers"), "{c}");
        }
        for c in 95..=99 {
            assert!(words(c).starts_with("thunderstorm"), "{c}");
        }
        assert_eq!(words(4), "weather code 4");
        assert_eq!(words(100), "weather code 100");
    }
}
