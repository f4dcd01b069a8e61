//! Open-Meteo geocoding (https://open-meteo.com/en/docs/geocoding-api): the request, its
//! results, and picking the one the model's hints (country, state, region) describe.

use serde_json::Value;

use super::describe::{fold, label};
use super::reply::{api_error, number, parse_json, text};
use crate::tools::http::url_with_query;

/// How many geocoding results to ask for (the pick and the "other places" come from these).
pub(super) const GEOCODING_COUNT: &str = "5";
pub(super) const MAX_OTHER_PLACES: usize = 3;

pub fn geocoding_url(base: &str, name: &str) -> String {
    url_with_query(
        base,
        &[
            ("name", name),
            ("count", GEOCODING_COUNT),
            ("language", "en"),
            ("format", "json"),
        ],
    )
}

/// One Open-Meteo geocoding result.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct GeoPlace {
    pub(super) name: String,
    pub(super) latitude: f64,
    pub(super) longitude: f64,
    pub(super) country: Option<String>,
    pub(super) country_code: Option<String>,
    pub(super) admin1: Option<String>,
}

impl GeoPlace {
    /// `name, admin1, country`, skipping missing and repeated parts.
    pub(super) fn label(&self) -> String {
        label(&[
            Some(self.name.clone()),
            self.admin1.clone(),
            self.country.clone(),
        ])
    }
}

/// Places in ranking order; empty when Open-Meteo found none.
pub(super) fn read_geocoding(body: &str) -> Result<Vec<GeoPlace>, String> {
    let v = parse_json(body)?;
    let Some(object) = v.as_object() else {
        return Err("sent unexpected JSON (not an object)".into());
    };
    if let Some(error) = api_error(&v) {
        return Err(format!("reported an error: {error}"));
    }
    match object.get("results") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => {
            let places: Vec<GeoPlace> = items.iter().filter_map(geo_place).collect();
            if places.is_empty() && !items.is_empty() {
                Err("sent places without a name or coordinates".into())
            } else {
                Ok(places)
            }
        }
        Some(_) => Err("sent unexpected JSON (\"results\" is not a list)".into()),
    }
}

pub(super) fn geo_place(v: &Value) -> Option<GeoPlace> {
    let latitude = number(v.get("latitude")).filter(|x| (-90.0..=90.0).contains(x))?;
    let longitude = number(v.get("longitude")).filter(|x| (-180.0..=180.0).contains(x))?;
    Some(GeoPlace {
        name: text(v.get("name"))?,
        latitude,
        longitude,
        country: text(v.get("country")),
        country_code: text(v.get("country_code")),
        admin1: text(v.get("admin1")),
    })
}

pub(super) struct Pick {
    pub(super) index: usize,
    /// False when there were hints and no result matched any of them.
    pub(super) hint_matched: bool,
}

/// The result matching most hints; ties (and no hints) go to Open-Meteo's ranking.
pub(super) fn choose(results: &[GeoPlace], hints: &[String]) -> Option<Pick> {
    let mut best: Option<(usize, usize)> = None;
    for (index, place) in results.iter().enumerate() {
        let score = hints.iter().filter(|h| matches_hint(place, h)).count();
        if best.is_none_or(|(_, s)| score > s) {
            best = Some((index, score));
        }
    }
    best.map(|(index, score)| Pick {
        index,
        hint_matched: hints.is_empty() || score > 0,
    })
}

/// Does "Texas", "TX", "United States", "USA" or "US" describe `place`?
pub(super) fn matches_hint(place: &GeoPlace, hint: &str) -> bool {
    let h = fold(hint);
    if h.is_empty() {
        return false;
    }
    let code = place.country_code.as_deref().map(str::to_ascii_lowercase);
    let same = |field: &Option<String>| field.as_deref().is_some_and(|f| fold(f) == h);
    if same(&place.country) || same(&place.admin1) || code.as_deref() == Some(h.as_str()) {
        return true;
    }
    if let Some((_, alias_code)) = COUNTRY_ALIASES.iter().find(|(alias, _)| *alias == h) {
        if code.as_deref() == Some(*alias_code) {
            return true;
        }
    }
    code.as_deref() == Some("us")
        && US_STATES
            .iter()
            .any(|(abbr, state)| *abbr == h && same_folded(&place.admin1, state))
}

pub(super) fn same_folded(field: &Option<String>, folded: &str) -> bool {
    field.as_deref().is_some_and(|f| fold(f) == folded)
}

/// Everyday names whose country Open-Meteo spells differently (folded, lower-case code).
pub(super) const COUNTRY_ALIASES: [(&str, &str); 16] = [
    ("usa", "us"),
    ("america", "us"),
    ("united states of america", "us"),
    ("uk", "gb"),
    ("britain", "gb"),
    ("great britain", "gb"),
    ("england", "gb"),
    ("scotland", "gb"),
    ("wales", "gb"),
    ("northern ireland", "gb"),
    ("holland", "nl"),
    ("the netherlands", "nl"),
    ("czech republic", "cz"),
    ("korea", "kr"),
    ("uae", "ae"),
    ("russian federation", "ru"),
];

/// US postal abbreviations, as in "Paris, TX" (folded state names).
pub(super) const US_STATES: [(&str, &str); 51] = [
    ("al", "alabama"),
    ("ak", "alaska"),
    ("az", "arizona"),
    ("ar", "arkansas"),
    ("ca", "california"),
    ("co", "colorado"),
    ("ct", "connecticut"),
    ("de", "delaware"),
    ("dc", "district of columbia"),
    ("fl", "florida"),
    ("ga", "georgia"),
    ("hi", "hawaii"),
    ("id", "idaho"),
    ("il", "illinois"),
    ("in", "indiana"),
    ("ia", "iowa"),
    ("ks", "kansas"),
    ("ky", "kentucky"),
    ("la", "louisiana"),
    ("me", "maine"),
    ("md", "maryland"),
    ("ma", "massachusetts"),
    ("mi", "michigan"),
    ("mn", "minnesota"),
    ("ms", "mississippi"),
    ("mo", "missouri"),
    ("mt", "montana"),
    ("ne", "nebraska"),
    ("nv", "nevada"),
    ("nh", "new hampshire"),
    ("nj", "new jersey"),
    ("nm", "new mexico"),
    ("ny", "new york"),
    ("nc", "north carolina"),
    ("nd", "north dakota"),
    ("oh", "ohio"),
    ("ok", "oklahoma"),
    ("or", "oregon"),
    ("pa", "pennsylvania"),
    ("ri", "rhode island"),
    ("sc", "south carolina"),
    ("sd", "south dakota"),
    ("tn", "tennessee"),
    ("tx", "texas"),
    ("ut", "utah"),
    ("vt", "vermont"),
    ("va", "virginia"),
    ("wa", "washington"),
    ("wv", "west virginia"),
    ("wi", "wisconsin"),
    ("wy", "wyoming"),
];

/// Labels of other results with the same name, in ranking order, at most `MAX_OTHER_PLACES`.
pub(super) fn other_places(results: &[GeoPlace], chosen: usize) -> Vec<String> {
    let name = fold(&results[chosen].name);
    let mut seen = vec![results[chosen].label()];
    for place in results {
        if seen.len() > MAX_OTHER_PLACES {
            break;
        }
        let label = place.label();
        if fold(&place.name) == name && !seen.contains(&label) {
            seen.push(label);
        }
    }
    seen.split_off(1)
}
