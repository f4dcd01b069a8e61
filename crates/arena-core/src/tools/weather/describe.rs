//! The observation's sentence: a reading of current conditions, the place and its
//! coordinates, numbers with their units, place names folded for comparing.

use crate::tools::observation::squash_whitespace;

/// Current conditions: each figure as a number with its unit, and as the sentence shows it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Reading {
    pub(super) time: Option<String>,
    pub(super) description: Option<String>,
    pub(super) temperature: Measure,
    pub(super) feels_like: Option<Measure>,
    pub(super) humidity: Option<Measure>,
    pub(super) wind: Option<Measure>,
    pub(super) min: Option<Measure>,
    pub(super) max: Option<Measure>,
}

/// A figure: its value, its unit, and its digits as the sentence writes them.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Measure {
    pub(super) value: f64,
    pub(super) unit: String,
    pub(super) digits: String,
}

impl Measure {
    pub(super) fn new(value: f64, digits: String, unit: &str) -> Self {
        Self {
            value,
            unit: unit.to_string(),
            digits,
        }
    }

    /// `12.3°C`, `81 %`: as the sentence shows it.
    pub(super) fn shown(&self) -> String {
        with_unit(&self.digits, &self.unit)
    }
}

/// `<place> (<lat>, <lon>) at <time> local time: <conditions>. Today: min …, max ….`
pub(super) fn describe(place: &str, coords: Option<(f64, f64)>, r: &Reading) -> String {
    let mut out = place.to_string();
    if let Some((lat, lon)) = coords {
        out.push_str(&format!(
            " ({}, {})",
            coordinate(lat, 'N', 'S'),
            coordinate(lon, 'E', 'W')
        ));
    }
    if let Some(time) = &r.time {
        out.push_str(&format!(" at {time} local time"));
    }
    out.push_str(": ");
    let mut parts = Vec::new();
    if let Some(description) = &r.description {
        parts.push(description.clone());
    }
    parts.push(match &r.feels_like {
        Some(feels) => format!("{} (feels like {})", r.temperature.shown(), feels.shown()),
        None => r.temperature.shown(),
    });
    if let Some(humidity) = &r.humidity {
        parts.push(format!("humidity {}", humidity.shown()));
    }
    if let Some(wind) = &r.wind {
        parts.push(format!("wind {}", wind.shown()));
    }
    out.push_str(&parts.join(", "));
    out.push('.');
    let today: Vec<String> = [("min", &r.min), ("max", &r.max)]
        .iter()
        .filter_map(|(word, v)| v.as_ref().map(|v| format!("{word} {}", v.shown())))
        .collect();
    if !today.is_empty() {
        out.push_str(&format!(" Today: {}.", today.join(", ")));
    }
    out
}

/// `48.85°N`, `95.56°W`.
pub(super) fn coordinate(value: f64, positive: char, negative: char) -> String {
    let hemisphere = if value < 0.0 && value.abs() >= 0.005 {
        negative
    } else {
        positive
    };
    format!("{:.2}°{hemisphere}", value.abs())
}

/// `value` with `decimals` places, never `-0.0`.
pub(super) fn fixed(value: f64, decimals: usize) -> String {
    let s = format!("{value:.decimals$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => s,
    }
}

pub(super) fn with_unit(value: &str, unit: &str) -> String {
    if unit.is_empty() {
        value.to_string()
    } else {
        format!("{value} {unit}")
    }
}

/// Joins the present parts with ", ", skipping any that repeats an earlier one.
pub(super) fn label(parts: &[Option<String>]) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for part in parts.iter().flatten() {
        let part = part.trim();
        if !part.is_empty() && !kept.iter().any(|k| fold(k) == fold(part)) {
            kept.push(part);
        }
    }
    kept.join(", ")
}

/// Lower case, common Latin accents removed, `-` as a space, dots dropped, spaces squashed:
/// "Île-de-France" and "ile de france" fold alike, as do "U.S.A." and "usa".
pub(super) fn fold(s: &str) -> String {
    let mapped: String = s
        .chars()
        .flat_map(char::to_lowercase)
        .filter(|c| *c != '.')
        .map(|c| match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
            'ç' | 'ć' | 'č' => 'c',
            'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => 'e',
            'ì' | 'í' | 'î' | 'ï' | 'ī' | 'ı' => 'i',
            'ñ' | 'ń' | 'ň' => 'n',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => 'o',
            'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => 'u',
            'ý' | 'ÿ' => 'y',
            'ś' | 'š' | 'ş' => 's',
            'ź' | 'ż' | 'ž' => 'z',
            'ł' => 'l',
            'ř' => 'r',
            '-' | '_' | '\'' | '’' => ' ',
            c => c,
        })
        .collect();
    squash_whitespace(&mapped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_and_fixed_numbers() {
        assert_eq!(coordinate(-33.8688, 'N', 'S'), "33.87°S");
        assert_eq!(coordinate(-0.001, 'E', 'W'), "0.00°E");
        assert_eq!(coordinate(151.2093, 'E', 'W'), "151.21°E");
        assert_eq!(fixed(-0.04, 1), "0.0");
        assert_eq!(fixed(-1.25, 1), "-1.2");
        assert_eq!(fixed(13.0, 1), "13.0");
    }
}
