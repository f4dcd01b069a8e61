//! The wttr.in fallback (`format=j1`, https://github.com/chubin/wttr.in): the request and the
//! reading of its reply.

use serde_json::Value;

use super::describe::{label, Measure, Reading};
use super::reply::{not_json, number, text};
use crate::tools::calculator::format_number;
use crate::tools::http::{encode_component, url_with_query};

pub fn wttr_url(base: &str, place: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    url_with_query(
        &format!("{base}/{}", encode_component(place)),
        &[("format", "j1")],
    )
}

/// Area label, area coordinates, conditions.
pub(super) type WttrReading = (Option<String>, Option<(f64, f64)>, Reading);

/// Reads wttr.in's `format=j1` (`place` is what was asked, for the "Unknown location" reply).
pub(super) fn read_wttr(body: &str, place: &str) -> Result<WttrReading, String> {
    let v = match serde_json::from_str::<Value>(body) {
        Ok(v) => v,
        Err(_) => {
            let lower = body.to_lowercase();
            if lower.contains("unknown location") || lower.contains("location not found") {
                return Err(format!("answered \"Unknown location\" for \"{place}\""));
            }
            return Err(not_json(body));
        }
    };
    // The WorldWeatherOnline shape wttr.in passes through: {"data":{"error":[{"msg":…}]}}.
    let wwo_error = v.get("data").and_then(|d| d.get("error")).and_then(first);
    if let Some(msg) = text(wwo_error.and_then(|e| e.get("msg"))) {
        return Err(format!("reported an error: {msg}"));
    }
    let current = v.get("current_condition").and_then(first);
    let field = |name: &str| current.and_then(|c| c.get(name));
    let Some(temperature) = number(field("temp_C")) else {
        return Err("sent unexpected JSON (no current_condition temp_C)".into());
    };
    let area = v.get("nearest_area").and_then(first);
    let area_text = |name: &str| text(area.and_then(|a| a.get(name)).and_then(first_value));
    let label = area_text("areaName")
        .map(|name| label(&[Some(name), area_text("region"), area_text("country")]));
    let coords = match (
        number(area.and_then(|a| a.get("latitude"))),
        number(area.and_then(|a| a.get("longitude"))),
    ) {
        (Some(lat), Some(lon)) if lat.abs() <= 90.0 && lon.abs() <= 180.0 => Some((lat, lon)),
        _ => None,
    };
    let measure = |x: Option<f64>, unit: &str| x.map(|x| Measure::new(x, format_number(x), unit));
    let day = v.get("weather").and_then(first);
    let reading = Reading {
        time: text(field("localObsDateTime")),
        description: text(field("weatherDesc").and_then(first_value)).map(|d| d.to_lowercase()),
        temperature: Measure::new(temperature, format_number(temperature), "°C"),
        feels_like: measure(number(field("FeelsLikeC")), "°C"),
        humidity: measure(number(field("humidity")), "%"),
        wind: measure(number(field("windspeedKmph")), "km/h"),
        min: measure(number(day.and_then(|d| d.get("mintempC"))), "°C"),
        max: measure(number(day.and_then(|d| d.get("maxtempC"))), "°C"),
    };
    Ok((label, coords, reading))
}

pub(super) fn first(v: &Value) -> Option<&Value> {
    v.as_array().and_then(|a| a.first())
}

/// wttr.in wraps text as `[{"value": "…"}]`.
pub(super) fn first_value(v: &Value) -> Option<&Value> {
    first(v).and_then(|item| item.get("value"))
}
