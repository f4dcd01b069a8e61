//! One weather reading with where it came from, told two ways: the sentence the model reads
//! (every mode's observation) and the dict a CodeAct program gets (`weather(...)["temperature"]`).

use serde_json::{json, Map, Value};

use super::describe::{describe, Measure, Reading};

/// A reading of a place, by one service.
pub(super) struct Observed {
    pub(super) place: String,
    pub(super) coords: Option<(f64, f64)>,
    pub(super) reading: Reading,
    /// The service and the address it was asked at (`Open-Meteo (https://open-meteo.com), …`).
    pub(super) source: String,
    /// Said when the hints given (a country, a region) matched none of the places found.
    pub(super) unmatched: Option<String>,
    /// Other places the name is also of.
    pub(super) other_places: Vec<String>,
}

impl Observed {
    /// The sentence: the reading, the notes, the source.
    pub(super) fn text(&self) -> String {
        let mut out = describe(&self.place, self.coords, &self.reading);
        if let Some(unmatched) = &self.unmatched {
            out.push_str(&format!(" {unmatched}"));
        }
        out.push_str(&format!(" Source: {}", self.source));
        if !self.other_places.is_empty() {
            out.push_str(&format!(
                " (Other places with this name: {})",
                self.other_places.join("; ")
            ));
        }
        out
    }

    /// The dict: figures as numbers, their units apart, the notes and the source as text.
    pub(super) fn value(&self) -> Value {
        let r = &self.reading;
        let mut out = Map::new();
        out.insert("place".into(), json!(self.place));
        if let Some((latitude, longitude)) = self.coords {
            out.insert("latitude".into(), json!(latitude));
            out.insert("longitude".into(), json!(longitude));
        }
        if let Some(time) = &r.time {
            out.insert("local_time".into(), json!(time));
        }
        if let Some(conditions) = &r.description {
            out.insert("conditions".into(), json!(conditions));
        }
        let mut units = Map::new();
        let figures: [(&str, Option<&Measure>); 6] = [
            ("temperature", Some(&r.temperature)),
            ("feels_like", r.feels_like.as_ref()),
            ("humidity", r.humidity.as_ref()),
            ("wind_speed", r.wind.as_ref()),
            ("today_min", r.min.as_ref()),
            ("today_max", r.max.as_ref()),
        ];
        for (name, measure) in figures {
            if let Some(m) = measure {
                out.insert(name.into(), json!(m.value));
                units.insert(name.into(), json!(m.unit));
            }
        }
        out.insert("units".into(), Value::Object(units));
        if let Some(unmatched) = &self.unmatched {
            out.insert("note".into(), json!(unmatched));
        }
        if !self.other_places.is_empty() {
            out.insert("other_places".into(), json!(self.other_places));
        }
        out.insert("source".into(), json!(self.source));
        Value::Object(out)
    }
}

/// The dict's shape, for the prompt's signature (`-> dict`) and its keys.
pub(super) fn output_schema() -> Value {
    let number = json!({"type": "number"});
    let text = json!({"type": "string"});
    json!({
        "type": "object",
        "properties": {
            "place": text, "latitude": number, "longitude": number, "local_time": text,
            "conditions": text, "temperature": number, "feels_like": number,
            "humidity": number, "wind_speed": number, "today_min": number, "today_max": number,
            "units": {"type": "object"}, "note": text, "other_places": {"type": "array"},
            "source": text,
        },
        "required": ["place", "temperature", "units", "source"],
    })
}
