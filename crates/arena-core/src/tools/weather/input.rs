//! What the model asked for: the tool's arguments, and a place read from plain text or JSON.

use serde::Deserialize;
use serde_json::Value;

use crate::tools::json_read::first_str;
use crate::tools::observation::squash_whitespace;

/// Longest place name accepted.
pub const MAX_PLACE_CHARS: usize = 100;

/// The weather tool's arguments.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(all(test, not(target_arch = "wasm32")), derive(schemars::JsonSchema))]
pub struct WeatherArgs {
    /// A place name, perhaps with its region or country after commas.
    pub location: String,
    #[serde(default)]
    pub country: Option<String>,
}

impl WeatherArgs {
    /// The place as one text: the location, with the country after a comma unless the
    /// location already has one.
    pub fn place_text(&self) -> String {
        match self.country.as_deref() {
            Some(country) if !country.trim().is_empty() && !self.location.contains(',') => {
                format!("{}, {country}", self.location)
            }
            _ => self.location.clone(),
        }
    }
}

/// What the model asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    /// The whole place as given, e.g. `Paris, France` (used in messages and for wttr.in).
    pub text: String,
    /// The part before the first comma: what Open-Meteo geocoding searches for.
    pub name: String,
    /// The parts after it (country, state or region), used to pick among the results.
    pub hints: Vec<String>,
}

/// Reads plain text (`Paris`, `"Paris, France"`) or JSON (`{"location": "Paris"}`, also
/// `city`, `place`, `input`, `query`, `name`; an optional `country` is added as a hint).
pub fn parse_input(input: &str) -> Result<Place, String> {
    const NEEDS_A_PLACE: &str = "The weather tool needs a place name, e.g. Paris or Paris, France.";
    let trimmed = input.trim();
    let raw = match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => {
            let place = first_str(
                &map,
                &["location", "city", "place", "input", "query", "name"],
            )
            .ok_or_else(|| {
                "The weather tool needs a place name, e.g. Paris or {\"location\": \"Paris\"}."
                    .to_string()
            })?;
            WeatherArgs {
                location: place.to_string(),
                country: map
                    .get("country")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }
            .place_text()
        }
        Ok(Value::String(s)) => s,
        Ok(Value::Array(_)) => return Err(NEEDS_A_PLACE.into()),
        _ if trimmed.starts_with('{') => return Err(
            "The input looks like JSON but could not be read; give just a place name, e.g. Paris."
                .into(),
        ),
        _ => trimmed.to_string(),
    };
    let text = squash_whitespace(&raw);
    let text = text
        .trim_matches(|c: char| {
            matches!(
                c,
                '"' | '\'' | '`' | '“' | '”' | '‘' | '’' | '.' | '?' | '!'
            ) || c.is_whitespace()
        })
        .to_string();
    if text.chars().count() > MAX_PLACE_CHARS {
        return Err(format!(
            "The place name is too long (over {MAX_PLACE_CHARS} characters); give just a place, e.g. Paris."
        ));
    }
    let mut parts = text.split(',').map(str::trim);
    let name = parts.next().unwrap_or_default().to_string();
    if name.is_empty() {
        return Err(NEEDS_A_PLACE.into());
    }
    let hints = parts
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    Ok(Place { text, name, hints })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_plain_and_json_input() {
        let place = |s: &str| parse_input(s).map(|p| (p.name, p.hints, p.text));
        let paris = Ok(("Paris".to_string(), vec![], "Paris".to_string()));
        for input in [
            "Paris",
            "  \"Paris\" ",
            "'Paris'",
            "`Paris`",
            "Paris.",
            "“Paris”",
            r#"{"location": "Paris"}"#,
            r#"{"city": " Paris "}"#,
            r#"{"input": "Paris"}"#,
            r#""Paris""#,
        ] {
            assert_eq!(place(input), paris, "{input}");
        }
        assert_eq!(
            place("Paris ,  Texas,United   States"),
            Ok((
                "Paris".into(),
                vec!["Texas".into(), "United States".into()],
                "Paris , Texas,United States".into()
            ))
        );
        assert_eq!(
            place(r#"{"city": "Paris", "country": "France"}"#),
            Ok((
                "Paris".into(),
                vec!["France".into()],
                "Paris, France".into()
            ))
        );
        assert_eq!(
            place("Côte d'Ivoire").map(|p| p.0),
            Ok("Côte d'Ivoire".into())
        );
        assert_eq!(place("Paris,").map(|p| p.1), Ok(vec![]));
    }
}
