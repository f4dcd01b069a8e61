//! The `weather` tool: current conditions and today's min/max for a place name.
//!
//! Open-Meteo first: geocoding (https://open-meteo.com/en/docs/geocoding-api), then the
//! forecast (https://open-meteo.com/en/docs). When Open-Meteo fails (no answer, HTTP error,
//! unexpected reply; not when it finds no such place), wttr.in's JSON output (`format=j1`,
//! https://github.com/chubin/wttr.in) is the fallback. Neither needs a key.
//!
//! Replies are read from `serde_json::Value` field by field, so any shape (nulls, empty lists,
//! strings for numbers, HTML error pages) gives a sentence, never a panic.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde::Deserialize;
use serde_json::{json, Value};

use super::calculator::format_number;
use super::http::{encode_component, url_with_query, HttpClient};
use super::observation::{squash_whitespace, truncate, MAX_OBSERVATION_CHARS};
use super::TypedTool;

/// Longest place name accepted.
pub const MAX_PLACE_CHARS: usize = 100;
/// How many geocoding results to ask for (the pick and the "other places" come from these).
const GEOCODING_COUNT: &str = "5";
const MAX_OTHER_PLACES: usize = 3;
/// Text taken from a reply (names, descriptions) is cut to this many characters.
const MAX_FIELD_CHARS: usize = 80;
const MAX_UNIT_CHARS: usize = 12;

const OPEN_METEO: &str = "Open-Meteo";
const WTTR: &str = "wttr.in";
const CURRENT_FIELDS: &str =
    "temperature_2m,apparent_temperature,relative_humidity_2m,weather_code,wind_speed_10m";
const DAILY_FIELDS: &str = "temperature_2m_max,temperature_2m_min";

/// Base URLs of the three services (settings can point them at mirrors or test servers).
#[derive(Debug, Clone, PartialEq)]
pub struct WeatherEndpoints {
    /// Open-Meteo geocoding search.
    pub geocoding: String,
    /// Open-Meteo forecast.
    pub forecast: String,
    /// wttr.in, without a trailing path.
    pub wttr: String,
}

impl Default for WeatherEndpoints {
    fn default() -> Self {
        Self {
            geocoding: "https://geocoding-api.open-meteo.com/v1/search".into(),
            forecast: "https://api.open-meteo.com/v1/forecast".into(),
            wttr: "https://wttr.in".into(),
        }
    }
}

pub struct Weather {
    http: Rc<dyn HttpClient>,
    endpoints: WeatherEndpoints,
}

impl Weather {
    pub fn new(http: Rc<dyn HttpClient>, endpoints: WeatherEndpoints) -> Self {
        Self { http, endpoints }
    }

    /// The observation for `input`, or a readable error.
    pub async fn report(&self, input: &str) -> Result<String, String> {
        let place = parse_input(input)?;
        let open_meteo_failure = match self.open_meteo(&place).await {
            Ok(Some(observation)) => return Ok(truncate(&observation, MAX_OBSERVATION_CHARS)),
            Ok(None) => {
                return Ok(format!(
                    "No place named \"{}\" was found (Open-Meteo geocoding).",
                    place.text
                ))
            }
            Err(reason) => reason,
        };
        match self.wttr(&place, &open_meteo_failure).await {
            Ok(observation) => Ok(truncate(&observation, MAX_OBSERVATION_CHARS)),
            Err(wttr_failure) => Err(format!(
                "Weather is unavailable: {OPEN_METEO}: {open_meteo_failure}; {WTTR}: {wttr_failure}."
            )),
        }
    }

    /// `Ok(None)`: Open-Meteo knows no such place. `Err`: why Open-Meteo failed.
    async fn open_meteo(&self, place: &Place) -> Result<Option<String>, String> {
        let url = geocoding_url(&self.endpoints.geocoding, &place.name);
        let results = read_geocoding(&self.get(&url, OPEN_METEO).await?)?;
        let Some(pick) = choose(&results, &place.hints) else {
            return Ok(None);
        };
        let chosen = &results[pick.index];
        let url = forecast_url(&self.endpoints.forecast, chosen.latitude, chosen.longitude);
        let reading = read_forecast(&self.get(&url, OPEN_METEO).await?)?;

        let mut out = describe(
            &chosen.label(),
            Some((chosen.latitude, chosen.longitude)),
            &reading,
        );
        if !pick.hint_matched {
            out.push_str(&format!(
                " No place named \"{}\" matched \"{}\", so this is the most relevant one.",
                chosen.name,
                place.hints.join(", ")
            ));
        }
        out.push_str(&format!(
            " Source: Open-Meteo (https://open-meteo.com), {url}"
        ));
        let others = other_places(&results, pick.index);
        if !others.is_empty() {
            out.push_str(&format!(
                " (Other places with this name: {})",
                others.join("; ")
            ));
        }
        Ok(Some(out))
    }

    async fn wttr(&self, place: &Place, open_meteo_failure: &str) -> Result<String, String> {
        let url = wttr_url(&self.endpoints.wttr, &place.text);
        let (label, coords, reading) = read_wttr(&self.get(&url, WTTR).await?, &place.text)?;
        let label = label.unwrap_or_else(|| place.text.clone());
        Ok(format!(
            "{} Source: wttr.in (fallback; Open-Meteo failed: {open_meteo_failure}), {url}",
            describe(&label, coords, &reading)
        ))
    }

    /// The body of a successful GET, or why there is none (a phrase without the service name).
    async fn get(&self, url: &str, service: &str) -> Result<String, String> {
        match self.http.get(url, &[]).await {
            Err(e) => {
                let sentence = e.describe(service);
                let phrase = sentence.strip_prefix(service).unwrap_or(&sentence);
                Err(phrase.trim().trim_end_matches('.').to_string())
            }
            Ok(response) if !response.is_success() => {
                let detail = serde_json::from_str::<Value>(&response.body)
                    .ok()
                    .and_then(|v| api_error(&v));
                Err(match detail {
                    Some(detail) => format!("answered HTTP {}: {detail}", response.status),
                    None => format!("answered HTTP {}", response.status),
                })
            }
            Ok(response) => Ok(response.body),
        }
    }
}

impl TypedTool for Weather {
    const NAME: &'static str = "weather";
    const DESCRIPTION: &'static str = "Current weather and today's min/max for a place name.";
    const INPUT_HINT: &'static str = "a place name, e.g. Paris or Paris, France";
    type Args = WeatherArgs;

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "location": { "type": "string", "description": Self::INPUT_HINT },
                "country": {
                    "type": "string",
                    "description": "the place's country, to tell places of one name apart",
                },
            },
            "required": ["location"],
        })
    }

    fn run(&self, args: WeatherArgs) -> LocalBoxFuture<'_, Result<String, String>> {
        Box::pin(async move { self.report(&args.place_text()).await })
    }
}

/// The weather tool's arguments.
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
            let place = ["location", "city", "place", "input", "query", "name"]
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str))
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

pub fn wttr_url(base: &str, place: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    url_with_query(
        &format!("{base}/{}", encode_component(place)),
        &[("format", "j1")],
    )
}

/// One Open-Meteo geocoding result.
#[derive(Debug, Clone, PartialEq)]
struct GeoPlace {
    name: String,
    latitude: f64,
    longitude: f64,
    country: Option<String>,
    country_code: Option<String>,
    admin1: Option<String>,
}

impl GeoPlace {
    /// `name, admin1, country`, skipping missing and repeated parts.
    fn label(&self) -> String {
        label(&[
            Some(self.name.clone()),
            self.admin1.clone(),
            self.country.clone(),
        ])
    }
}

/// Places in ranking order; empty when Open-Meteo found none.
fn read_geocoding(body: &str) -> Result<Vec<GeoPlace>, String> {
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

fn geo_place(v: &Value) -> Option<GeoPlace> {
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

struct Pick {
    index: usize,
    /// False when there were hints and no result matched any of them.
    hint_matched: bool,
}

/// The result matching most hints; ties (and no hints) go to Open-Meteo's ranking.
fn choose(results: &[GeoPlace], hints: &[String]) -> Option<Pick> {
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
fn matches_hint(place: &GeoPlace, hint: &str) -> bool {
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

fn same_folded(field: &Option<String>, folded: &str) -> bool {
    field.as_deref().is_some_and(|f| fold(f) == folded)
}

/// Everyday names whose country Open-Meteo spells differently (folded, lower-case code).
const COUNTRY_ALIASES: [(&str, &str); 16] = [
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
const US_STATES: [(&str, &str); 51] = [
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

/// Lower case, common Latin accents removed, `-` as a space, dots dropped, spaces squashed:
/// "Île-de-France" and "ile de france" fold alike, as do "U.S.A." and "usa".
fn fold(s: &str) -> String {
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

/// Labels of other results with the same name, in ranking order, at most `MAX_OTHER_PLACES`.
fn other_places(results: &[GeoPlace], chosen: usize) -> Vec<String> {
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

/// Current conditions, with numbers already formatted and units attached.
#[derive(Debug, Clone, PartialEq, Default)]
struct Reading {
    time: Option<String>,
    description: Option<String>,
    temperature: String,
    feels_like: Option<String>,
    humidity: Option<String>,
    wind: Option<String>,
    min: Option<String>,
    max: Option<String>,
}

/// `<place> (<lat>, <lon>) at <time> local time: <conditions>. Today: min …, max ….`
fn describe(place: &str, coords: Option<(f64, f64)>, r: &Reading) -> String {
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
        Some(feels) => format!("{} (feels like {feels})", r.temperature),
        None => r.temperature.clone(),
    });
    if let Some(humidity) = &r.humidity {
        parts.push(format!("humidity {humidity}"));
    }
    if let Some(wind) = &r.wind {
        parts.push(format!("wind {wind}"));
    }
    out.push_str(&parts.join(", "));
    out.push('.');
    let today: Vec<String> = [("min", &r.min), ("max", &r.max)]
        .iter()
        .filter_map(|(word, v)| v.as_ref().map(|v| format!("{word} {v}")))
        .collect();
    if !today.is_empty() {
        out.push_str(&format!(" Today: {}.", today.join(", ")));
    }
    out
}

/// `48.85°N`, `95.56°W`.
fn coordinate(value: f64, positive: char, negative: char) -> String {
    let hemisphere = if value < 0.0 && value.abs() >= 0.005 {
        negative
    } else {
        positive
    };
    format!("{:.2}°{hemisphere}", value.abs())
}

fn read_forecast(body: &str) -> Result<Reading, String> {
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
        number(current.get(field)).map(|x| with_unit(&fixed(x, decimals), &unit(field, default)))
    };
    let daily = v.get("daily");
    let daily_units = v.get("daily_units");
    let today = |field: &str| {
        let x = number(daily.and_then(|d| d.get(field)).and_then(|a| a.get(0)))?;
        let unit = unit_text(daily_units.and_then(|u| u.get(field)))
            .unwrap_or_else(|| temperature_unit.clone());
        Some(with_unit(&fixed(x, 1), &unit))
    };
    Ok(Reading {
        time: text(current.get("time")),
        description: number(current.get("weather_code"))
            .filter(|c| c.fract() == 0.0 && (0.0..=1000.0).contains(c))
            .map(|c| weather_code_words(c as u16)),
        temperature: with_unit(&fixed(temperature, 1), &temperature_unit),
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

/// Area label, area coordinates, conditions.
type WttrReading = (Option<String>, Option<(f64, f64)>, Reading);

/// Reads wttr.in's `format=j1` (`place` is what was asked, for the "Unknown location" reply).
fn read_wttr(body: &str, place: &str) -> Result<WttrReading, String> {
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
    let measure = |x: Option<f64>, unit: &str| x.map(|x| with_unit(&format_number(x), unit));
    let day = v.get("weather").and_then(first);
    let reading = Reading {
        time: text(field("localObsDateTime")),
        description: text(field("weatherDesc").and_then(first_value)).map(|d| d.to_lowercase()),
        temperature: with_unit(&format_number(temperature), "°C"),
        feels_like: measure(number(field("FeelsLikeC")), "°C"),
        humidity: measure(number(field("humidity")), "%"),
        wind: measure(number(field("windspeedKmph")), "km/h"),
        min: measure(number(day.and_then(|d| d.get("mintempC"))), "°C"),
        max: measure(number(day.and_then(|d| d.get("maxtempC"))), "°C"),
    };
    Ok((label, coords, reading))
}

fn first(v: &Value) -> Option<&Value> {
    v.as_array().and_then(|a| a.first())
}

/// wttr.in wraps text as `[{"value": "…"}]`.
fn first_value(v: &Value) -> Option<&Value> {
    first(v).and_then(|item| item.get("value"))
}

fn parse_json(body: &str) -> Result<Value, String> {
    serde_json::from_str(body).map_err(|_| not_json(body))
}

/// Why a body is no use, quoting the start of a short plain-text reply (not an HTML page).
fn not_json(body: &str) -> String {
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
fn api_error(v: &Value) -> Option<String> {
    if v.get("error").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    Some(text(v.get("reason")).unwrap_or_else(|| "no reason given".into()))
}

/// A finite number, from a JSON number or a numeric string (wttr.in sends strings).
fn number(v: Option<&Value>) -> Option<f64> {
    let x = match v? {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    x.is_finite().then_some(x)
}

/// Non-empty text, whitespace squashed and clipped.
fn text(v: Option<&Value>) -> Option<String> {
    let s = squash_whitespace(v?.as_str()?);
    (!s.is_empty()).then(|| clip(&s, MAX_FIELD_CHARS))
}

fn unit_text(v: Option<&Value>) -> Option<String> {
    text(v).map(|u| clip(&u, MAX_UNIT_CHARS))
}

fn clip(s: &str, limit: usize) -> String {
    if s.chars().count() <= limit {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(limit).collect::<String>())
    }
}

/// `value` with `decimals` places, never `-0.0`.
fn fixed(value: f64, decimals: usize) -> String {
    let s = format!("{value:.decimals$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => s,
    }
}

fn with_unit(value: &str, unit: &str) -> String {
    if unit.is_empty() {
        value.to_string()
    } else {
        format!("{value} {unit}")
    }
}

/// Joins the present parts with ", ", skipping any that repeats an earlier one.
fn label(parts: &[Option<String>]) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for part in parts.iter().flatten() {
        let part = part.trim();
        if !part.is_empty() && !kept.iter().any(|k| fold(k) == fold(part)) {
            kept.push(part);
        }
    }
    kept.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::http::fake::FakeHttp;
    use crate::tools::http::FetchError;
    use futures::executor::block_on;

    const GEOCODING_PARIS: &str =
        include_str!("../../../../tests/fixtures/weather/geocoding_paris.json");
    const GEOCODING_EMPTY: &str =
        include_str!("../../../../tests/fixtures/weather/geocoding_empty.json");
    const FORECAST_PARIS: &str =
        include_str!("../../../../tests/fixtures/weather/forecast_paris.json");
    const WTTR_PARIS: &str = include_str!("../../../../tests/fixtures/weather/wttr_paris.json");
    const WTTR_UNKNOWN: &str =
        include_str!("../../../../tests/fixtures/weather/wttr_unknown_location.txt");

    const GEOCODING: &str = "geocoding-api.open-meteo.com";
    const FORECAST: &str = "api.open-meteo.com/v1/forecast";
    const WTTR_HOST: &str = "wttr.in";

    const PARIS_FORECAST_URL: &str = "https://api.open-meteo.com/v1/forecast?latitude=48.85341&longitude=2.3488&current=temperature_2m%2Capparent_temperature%2Crelative_humidity_2m%2Cweather_code%2Cwind_speed_10m&daily=temperature_2m_max%2Ctemperature_2m_min&timezone=auto&forecast_days=1";

    fn paris_routes() -> FakeHttp {
        FakeHttp::new()
            .route(GEOCODING, 200, GEOCODING_PARIS)
            .route(FORECAST, 200, FORECAST_PARIS)
            .route(WTTR_HOST, 200, WTTR_PARIS)
    }

    /// Runs the tool against `fake`; returns the result and the URLs it asked for.
    fn run(fake: FakeHttp, input: &str) -> (Result<String, String>, Vec<String>) {
        let http = Rc::new(fake);
        let tool = Weather::new(http.clone(), WeatherEndpoints::default());
        let result = block_on(tool.report(input));
        (result, http.urls())
    }

    #[test]
    fn the_registry_gives_weather_typed_arguments() {
        use crate::tools::{typed, Registry, Toolbox};
        use serde_json::json;
        let http = Rc::new(paris_routes());
        let registry = Registry::new(vec![typed(Weather::new(
            http.clone(),
            WeatherEndpoints::default(),
        ))]);
        let structured = json!({"location": "Paris", "country": "France"});
        let out = block_on(registry.call("weather", &structured)).unwrap();
        assert!(out.contains("Paris"), "{out}");
        assert!(http.urls()[0].contains("name=Paris&"), "{:?}", http.urls());
        // The schema before typed tools, `{"input": …}`, still reaches `location`.
        let old = block_on(registry.call("weather", &json!({"input": "Paris"}))).unwrap();
        assert!(old.contains("Paris"), "{old}");
        let asked = http.urls().len();
        let err = block_on(registry.call("weather", &json!({"location": 42}))).unwrap_err();
        assert!(
            err.starts_with(
                "The arguments of weather do not fit: `location` should be a string, not an integer."
            ),
            "{err}"
        );
        assert_eq!(http.urls().len(), asked, "nothing was fetched");
    }

    #[test]
    fn spec_names_the_tool() {
        let tool = Weather::new(Rc::new(FakeHttp::new()), WeatherEndpoints::default());
        let spec = crate::tools::Tool::spec(&crate::tools::Typed(tool));
        assert_eq!(spec.name, "weather");
        assert!(spec.description.contains("min/max"));
        assert!(spec.input_hint.contains("Paris, France"));
        assert_eq!(spec.parameters["required"], serde_json::json!(["location"]));
    }

    #[test]
    fn builds_both_open_meteo_urls() {
        let (result, urls) = run(paris_routes(), "Paris");
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(
            urls,
            vec![
                "https://geocoding-api.open-meteo.com/v1/search?name=Paris&count=5&language=en&format=json"
                    .to_string(),
                PARIS_FORECAST_URL.to_string(),
            ]
        );
        assert_eq!(
            geocoding_url("http://127.0.0.1:9/geo?key=1", "São Paulo"),
            "http://127.0.0.1:9/geo?key=1&name=S%C3%A3o%20Paulo&count=5&language=en&format=json"
        );
        assert_eq!(
            wttr_url("https://wttr.in/", "Paris, United States"),
            "https://wttr.in/Paris%2C%20United%20States?format=j1"
        );
    }

    #[test]
    fn full_observation_for_paris() {
        let (result, _) = run(paris_routes(), "Paris");
        assert_eq!(
            result.unwrap(),
            format!(
                "Paris, Île-de-France, France (48.85°N, 2.35°E) at 2026-11-22T14:00 local time: \
                 overcast, 12.3 °C (feels like 10.1 °C), humidity 81 %, wind 14.2 km/h. \
                 Today: min 8.1 °C, max 13.0 °C. Source: Open-Meteo (https://open-meteo.com), \
                 {PARIS_FORECAST_URL} (Other places with this name: Paris, Texas, United States; \
                 Paris, Tennessee, United States; Paris, Ontario, Canada)"
            )
        );
    }

    #[test]
    fn country_or_state_after_a_comma_picks_the_match() {
        for input in [
            "Paris, United States",
            "Paris, USA",
            "Paris, TX",
            "Paris, Texas, US",
        ] {
            let (result, urls) = run(paris_routes(), input);
            let obs = result.unwrap();
            assert!(
                obs.starts_with("Paris, Texas, United States (33.66°N, 95.56°W) at "),
                "{input}: {obs}"
            );
            assert!(urls[0].contains("?name=Paris&"), "{input}: {urls:?}");
            assert!(
                urls[1].contains("latitude=33.66094&longitude=-95.55551&"),
                "{urls:?}"
            );
            assert!(
                obs.ends_with("(Other places with this name: Paris, Île-de-France, France; Paris, Tennessee, United States; Paris, Ontario, Canada)"),
                "{obs}"
            );
            assert!(!obs.contains("most relevant"), "{obs}");
        }
        let (result, _) = run(paris_routes(), "paris, tennessee");
        assert!(result
            .unwrap()
            .starts_with("Paris, Tennessee, United States (36.30°N, 88.33°W)"));
        let (result, _) = run(paris_routes(), "Paris, ile de france");
        assert!(result
            .unwrap()
            .starts_with("Paris, Île-de-France, France ("));
        let (result, _) = run(paris_routes(), "Paris, CA"); // Canada's code ranks before any state
        assert!(result
            .unwrap()
            .starts_with("Paris, Ontario, Canada (43.20°N, 80.38°W)"));
    }

    #[test]
    fn unmatched_hint_keeps_the_top_result_and_says_so() {
        let (result, _) = run(paris_routes(), "Paris, Atlantis");
        let obs = result.unwrap();
        assert!(obs.starts_with("Paris, Île-de-France, France ("), "{obs}");
        assert!(
            obs.contains(
                "No place named \"Paris\" matched \"Atlantis\", so this is the most relevant one. Source: Open-Meteo"
            ),
            "{obs}"
        );
    }

    #[test]
    fn unknown_place_is_a_normal_observation() {
        let fake = FakeHttp::new()
            .route(GEOCODING, 200, GEOCODING_EMPTY)
            .route(WTTR_HOST, 200, WTTR_PARIS);
        let (result, urls) = run(fake, "Xyzzyville, France");
        assert_eq!(
            result,
            Ok("No place named \"Xyzzyville, France\" was found (Open-Meteo geocoding).".into())
        );
        assert_eq!(urls.len(), 1, "no forecast and no fallback: {urls:?}");
        assert!(urls[0].contains("name=Xyzzyville&"));
        for body in [r#"{"results":[]}"#, r#"{"results":null}"#] {
            let fake = FakeHttp::new().route(GEOCODING, 200, body);
            let (result, _) = run(fake, "Xyzzyville");
            assert!(result.unwrap().starts_with("No place named"));
        }
    }

    const WTTR_PARIS_OBSERVATION: &str = "Paris, Ile-de-France, France (48.87°N, 2.33°E) at 2026-11-22 02:00 PM local time: \
        overcast, 12 °C (feels like 10 °C), humidity 81 %, wind 14 km/h. Today: min 8 °C, max 13 °C. \
        Source: wttr.in (fallback; Open-Meteo failed: ";

    #[test]
    fn falls_back_to_wttr_when_open_meteo_answers_503() {
        let fake = FakeHttp::new()
            .route(
                GEOCODING,
                503,
                "<html><body>Service Unavailable</body></html>",
            )
            .route(WTTR_HOST, 200, WTTR_PARIS);
        let (result, urls) = run(fake, "Paris");
        assert_eq!(
            result.unwrap(),
            format!("{WTTR_PARIS_OBSERVATION}answered HTTP 503), https://wttr.in/Paris?format=j1")
        );
        assert_eq!(urls.len(), 2);
        assert_eq!(urls[1], "https://wttr.in/Paris?format=j1");
    }

    #[test]
    fn falls_back_to_wttr_when_the_forecast_times_out() {
        let fake = FakeHttp::new()
            .route(GEOCODING, 200, GEOCODING_PARIS)
            .fail(FORECAST, FetchError::Timeout { seconds: 10 })
            .route(WTTR_HOST, 200, WTTR_PARIS);
        let (result, urls) = run(fake, "Paris, France");
        let obs = result.unwrap();
        assert!(
            obs.ends_with(
                "(fallback; Open-Meteo failed: did not answer within 10 s), https://wttr.in/Paris%2C%20France?format=j1"
            ),
            "{obs}"
        );
        assert_eq!(urls.len(), 3);
    }

    #[test]
    fn open_meteo_error_reason_is_passed_on() {
        let fake = FakeHttp::new()
            .route(
                GEOCODING,
                400,
                r#"{"error":true,"reason":"Parameter 'count' must be between 1 and 100."}"#,
            )
            .route(WTTR_HOST, 200, WTTR_PARIS);
        let (result, _) = run(fake, "Paris");
        assert!(result.unwrap().contains(
            "Open-Meteo failed: answered HTTP 400: Parameter 'count' must be between 1 and 100.)"
        ));
    }

    #[test]
    fn wttr_unknown_location_is_a_failure() {
        let fake = FakeHttp::new()
            .fail(GEOCODING, FetchError::Network(String::new()))
            .route(WTTR_HOST, 200, WTTR_UNKNOWN);
        let (result, _) = run(fake, "Xyzzyville");
        assert_eq!(
            result,
            Err(
                "Weather is unavailable: Open-Meteo: could not be reached (network error); \
                 wttr.in: answered \"Unknown location\" for \"Xyzzyville\"."
                    .into()
            )
        );
    }

    #[test]
    fn both_failing_names_both() {
        let fake = FakeHttp::new()
            .fail(GEOCODING, FetchError::Timeout { seconds: 10 })
            .fail(WTTR_HOST, FetchError::Network("CORS".into()));
        let (result, _) = run(fake, "Paris");
        assert_eq!(
            result,
            Err(
                "Weather is unavailable: Open-Meteo: did not answer within 10 s; \
                 wttr.in: could not be reached (CORS)."
                    .into()
            )
        );
        let fake = FakeHttp::new()
            .route(GEOCODING, 200, GEOCODING_PARIS)
            .route(FORECAST, 500, "")
            .route(WTTR_HOST, 502, "Bad Gateway");
        let (result, _) = run(fake, "Paris");
        assert_eq!(
            result,
            Err("Weather is unavailable: Open-Meteo: answered HTTP 500; wttr.in: answered HTTP 502.".into())
        );
    }

    #[test]
    fn malformed_replies_fall_back_or_fail_without_panicking() {
        let bad_geocoding = [
            "",
            "<!DOCTYPE html><html><body>502 Bad Gateway</body></html>",
            "Rate limit exceeded",
            "null",
            "[]",
            "42",
            r#"{"results":"Paris"}"#,
            r#"{"results":[{"name":"Paris"}]}"#,
            r#"{"results":[{"name":"Paris","latitude":"NaN","longitude":2}]}"#,
            r#"{"results":[{"name":"Paris","latitude":123,"longitude":2}]}"#,
            r#"{"results":[{"name":null,"latitude":1,"longitude":2}]}"#,
            r#"{"results":[null, 5, []]}"#,
            r#"{"error":true}"#,
            r#"{"results":[{"name":"Paris","latitude":1e999,"longitude":2}]}"#,
        ];
        for body in bad_geocoding {
            let fake = FakeHttp::new()
                .route(GEOCODING, 200, body)
                .route(WTTR_HOST, 200, WTTR_PARIS);
            let (result, urls) = run(fake, "Paris");
            let obs = result.unwrap_or_else(|e| panic!("{body}: {e}"));
            assert!(
                obs.contains("(fallback; Open-Meteo failed: "),
                "{body}: {obs}"
            );
            assert_eq!(urls.len(), 2, "{body}");
        }
        let bad_forecast = [
            "{}",
            r#"{"current":null}"#,
            r#"{"current":[]}"#,
            r#"{"current":{"temperature_2m":null}}"#,
            r#"{"current":{"temperature_2m":"warm"}}"#,
            r#"{"error":true,"reason":"Cannot initialize WeatherVariable from invalid String value x"}"#,
        ];
        for body in bad_forecast {
            let fake = FakeHttp::new()
                .route(GEOCODING, 200, GEOCODING_PARIS)
                .route(FORECAST, 200, body)
                .route(WTTR_HOST, 200, "{}");
            let (result, _) = run(fake, "Paris");
            let err = result.unwrap_err();
            assert!(
                err.starts_with("Weather is unavailable: Open-Meteo: ")
                    && err.ends_with(
                        "; wttr.in: sent unexpected JSON (no current_condition temp_C)."
                    ),
                "{body}: {err}"
            );
        }
        for body in [
            "",
            "<html>Oops</html>",
            "[]",
            r#"{"current_condition":[]}"#,
            r#"{"current_condition":[{"temp_C":"n/a"}]}"#,
            r#"{"current_condition":{"temp_C":"12"}}"#,
            r#"{"data":{"error":[{"msg":"Unable to find any matching weather location to the query submitted!"}]}}"#,
        ] {
            let fake = FakeHttp::new()
                .fail(GEOCODING, FetchError::Network(String::new()))
                .route(WTTR_HOST, 200, body);
            let (result, _) = run(fake, "Paris");
            assert!(result.unwrap_err().contains("; wttr.in: "), "{body}");
        }
    }

    #[test]
    fn sparse_replies_give_what_they_have() {
        let forecast = r#"{"current":{"temperature_2m":-0.04,"weather_code":"x","wind_speed_10m":null},
            "current_units":{"temperature_2m":"°F"},"daily":{"temperature_2m_max":[],"temperature_2m_min":[null]}}"#;
        let geocoding = r#"{"results":[{"name":"Ushuaia","latitude":-54.8,"longitude":-68.3}]}"#;
        let fake = FakeHttp::new()
            .route(GEOCODING, 200, geocoding)
            .route(FORECAST, 200, forecast);
        let (result, _) = run(fake, "Ushuaia");
        let obs = result.unwrap();
        assert!(
            obs.starts_with("Ushuaia (54.80°S, 68.30°W): 0.0 °F. Source: Open-Meteo"),
            "{obs}"
        );

        let wttr = r#"{"current_condition":[{"temp_C":"-3","weatherDesc":[{"value":" Light  snow "}]}],
            "nearest_area":[],"weather":[{"maxtempC":"1"}]}"#;
        let fake = FakeHttp::new()
            .fail(GEOCODING, FetchError::Timeout { seconds: 10 })
            .route(WTTR_HOST, 200, wttr);
        let (result, _) = run(fake, "Ushuaia");
        let obs = result.unwrap();
        assert!(
            obs.starts_with("Ushuaia: light snow, -3 °C. Today: max 1 °C. Source: wttr.in"),
            "{obs}"
        );
    }

    #[test]
    fn uses_the_units_the_api_returned() {
        let forecast = FORECAST_PARIS
            .replace("°C", "°F")
            .replace("km/h", "mp/h")
            .replace("12.3", "54.1");
        let fake = FakeHttp::new()
            .route(GEOCODING, 200, GEOCODING_PARIS)
            .route(FORECAST, 200, &forecast);
        let (result, _) = run(fake, "Paris");
        let obs = result.unwrap();
        assert!(
            obs.contains(": overcast, 54.1 °F (feels like 10.1 °F), humidity 81 %, wind 14.2 mp/h. Today: min 8.1 °F, max 13.0 °F."),
            "{obs}"
        );
    }

    #[test]
    fn every_field_replaced_by_a_wrong_shape_never_panics() {
        let replacements = [
            Value::Null,
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!("x"),
            serde_json::json!(-1),
            serde_json::json!(1e308),
            serde_json::json!("NaN"),
        ];
        type Reads = fn(&str) -> bool;
        let readers: [(&str, Reads); 3] = [
            (GEOCODING_PARIS, |b| read_geocoding(b).is_ok()),
            (FORECAST_PARIS, |b| read_forecast(b).is_ok()),
            (WTTR_PARIS, |b| read_wttr(b, "Paris").is_ok()),
        ];
        for (fixture, read) in readers {
            let original: Value = serde_json::from_str(fixture).unwrap();
            assert!(read(fixture));
            let mut pointers = Vec::new();
            collect_pointers(&original, String::new(), &mut pointers);
            for pointer in pointers {
                for replacement in &replacements {
                    let mut v = original.clone();
                    *v.pointer_mut(&pointer).unwrap() = replacement.clone();
                    let _ = read(&v.to_string());
                }
            }
        }
    }

    /// JSON pointers to every node, skipping wttr.in's hourly and astronomy blocks (unread).
    fn collect_pointers(v: &Value, at: String, out: &mut Vec<String>) {
        if at.ends_with("/hourly") || at.ends_with("/astronomy") {
            return;
        }
        if !at.is_empty() {
            out.push(at.clone());
        }
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    collect_pointers(child, format!("{at}/{k}"), out);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    collect_pointers(child, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }

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

    #[test]
    fn rejects_empty_long_and_unreadable_input() {
        for input in ["", "   ", "\"\"", ", France", "{\"location\": \"\"}", "[]"] {
            let err = parse_input(input).unwrap_err();
            assert!(err.contains("needs a place name"), "{input}: {err}");
        }
        let err = parse_input(r#"{"where": "Paris"}"#).unwrap_err();
        assert!(err.contains("{\"location\": \"Paris\"}"), "{err}");
        let err = parse_input(r#"{"location": 42}"#).unwrap_err();
        assert!(err.contains("needs a place name"), "{err}");
        let err = parse_input("{location: Paris").unwrap_err();
        assert!(err.contains("looks like JSON"), "{err}");
        let err = parse_input(&"a".repeat(MAX_PLACE_CHARS + 1)).unwrap_err();
        assert!(err.contains("too long"), "{err}");
        assert!(parse_input(&"é".repeat(MAX_PLACE_CHARS)).is_ok());
        // The tool reports input errors without any request.
        let (result, urls) = run(paris_routes(), "");
        assert!(result.is_err());
        assert!(urls.is_empty());
    }

    #[test]
    fn weather_codes_and_coordinates() {
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

        assert_eq!(coordinate(-33.8688, 'N', 'S'), "33.87°S");
        assert_eq!(coordinate(-0.001, 'E', 'W'), "0.00°E");
        assert_eq!(coordinate(151.2093, 'E', 'W'), "151.21°E");
        assert_eq!(fixed(-0.04, 1), "0.0");
        assert_eq!(fixed(-1.25, 1), "-1.2");
        assert_eq!(fixed(13.0, 1), "13.0");
    }

    // proptest is a host-only dev-dependency; wasm32 runs no #[test]s anyway.
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        #[test]
        fn arbitrary_input_and_bodies_never_panic(input in "\\PC{0,130}", body in "\\PC{0,200}") {
            let _ = parse_input(&input);
            let _ = read_geocoding(&body);
            let _ = read_forecast(&body);
            let _ = read_wttr(&body, &input);
            let fake = FakeHttp::new()
                .route(GEOCODING, 200, &body)
                .route(FORECAST, 200, &body)
                .route(WTTR_HOST, 200, &body);
            let _ = run(fake, &input);
        }
    }
}
