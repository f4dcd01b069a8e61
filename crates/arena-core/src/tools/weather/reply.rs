//! Reading a service's reply field by field: JSON or why it is no use, Open-Meteo's error
//! shape, numbers and short texts.

use serde_json::Value;

use crate::tools::json_read::squashed;
use crate::tools::observation::squash_whitespace;

/// Text taken from a reply (names, descriptions) is cut to this many characters.
pub(super) const MAX_FIELD_CHARS: usize = 80;
pub(super) const MAX_UNIT_CHARS: usize = 12;

pub(super) fn parse_json(body: &str) -> Result<Value, String> {
    serde_json::from_str(body).map_err(|_| not_json(body))
}

/// Why a body is no use, quoting the start of a short plain-text reply (not an HTML page).
pub(super) fn not_json(body: &str) -> String {
    let start = squash_whitespace(body);
    if start.is_empty() {
        return "sent an empty reply".into();
    }
    if start.starts_with('<') {
        return "sent a web page instead of JSON".into();
    }
    format!("sent a reply that is not JSON (\"{}\")", clip(&start, 60))
}

/// Open-Meteo's error shape: `{"error": true, "reason": "…"}`.
pub(super) fn api_error(v: &Value) -> Option<String> {
    if v.get("error").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    Some(text(v.get("reason")).unwrap_or_else(|| "no reason given".into()))
}

/// A finite number, from a JSON number or a numeric string (wttr.in sends strings).
pub(super) fn number(v: Option<&Value>) -> Option<f64> {
    let x = match v? {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    x.is_finite().then_some(x)
}

/// Non-empty text, whitespace squashed and clipped.
pub(super) fn text(v: Option<&Value>) -> Option<String> {
    squashed(v).map(|s| clip(&s, MAX_FIELD_CHARS))
}

pub(super) fn unit_text(v: Option<&Value>) -> Option<String> {
    text(v).map(|u| clip(&u, MAX_UNIT_CHARS))
}

pub(super) fn clip(s: &str, limit: usize) -> String {
    if s.chars().count() <= limit {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(limit).collect::<String>())
    }
}
