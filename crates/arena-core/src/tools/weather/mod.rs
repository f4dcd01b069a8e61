//! The `weather` tool: current conditions and today's min/max for a place name.
//!
//! Open-Meteo first: geocoding (https://open-meteo.com/en/docs/geocoding-api), then the
//! forecast (https://open-meteo.com/en/docs). When Open-Meteo fails (no answer, HTTP error,
//! unexpected reply; not when it finds no such place), wttr.in's JSON output (`format=j1`,
//! https://github.com/chubin/wttr.in) is the fallback. Neither needs a key.
//!
//! Replies are read from `serde_json::Value` field by field, so any shape (nulls, empty lists,
//! strings for numbers, HTML error pages) gives a sentence, never a panic.
//!
//! Here: the tool and its fallback order. `input` reads the arguments and the place;
//! `geocoding`, `forecast` and `wttr` make each service's request and read its reply; `reply`
//! holds the field readers they share and `describe` the observation's sentence.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use super::http::HttpClient;
use super::observation::{truncate, MAX_OBSERVATION_CHARS};
use super::{FailureKind, ToolFailure, TypedTool};

mod describe;
mod forecast;
mod geocoding;
mod input;
mod observed;
mod reply;
mod wttr;

pub use forecast::{forecast_url, weather_code_words};
pub use geocoding::geocoding_url;
pub use input::{parse_input, Place, WeatherArgs, MAX_PLACE_CHARS};
pub use wttr::wttr_url;

use forecast::read_forecast;
use geocoding::{choose, other_places, read_geocoding};
use observed::Observed;
use reply::api_error;
use wttr::read_wttr;

const OPEN_METEO: &str = "Open-Meteo";
const WTTR: &str = "wttr.in";

/// What the model reads when Open-Meteo knows no place of the name asked.
fn not_found(input: &str) -> String {
    let place = parse_input(input)
        .map(|p| p.text)
        .unwrap_or_else(|_| input.to_string());
    format!("No place named \"{place}\" was found (Open-Meteo geocoding).")
}

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
    pub async fn report(&self, input: &str) -> Result<String, ToolFailure> {
        Ok(match self.observe(input).await? {
            Some(observed) => truncate(&observed.text(), MAX_OBSERVATION_CHARS),
            None => not_found(input),
        })
    }

    /// What a CodeAct program gets for `input`: the reading as a dict; no such place is an
    /// error the program can catch (`ToolError`), not a string it would index.
    pub async fn report_value(&self, input: &str) -> Result<Value, ToolFailure> {
        match self.observe(input).await? {
            Some(observed) => Ok(observed.value()),
            None => Err(ToolFailure::not_found(not_found(input))),
        }
    }

    /// The reading for `input`; `None`: Open-Meteo knows no such place.
    async fn observe(&self, input: &str) -> Result<Option<Observed>, ToolFailure> {
        let place = parse_input(input).map_err(ToolFailure::bad_arguments)?;
        let open_meteo_failure = match self.open_meteo(&place).await {
            Ok(observed) => return Ok(observed),
            Err(failure) => failure,
        };
        let (open_meteo_failure, open_meteo_detail) =
            (open_meteo_failure.message, open_meteo_failure.detail);
        match self.wttr(&place, &open_meteo_failure).await {
            Ok(observed) => Ok(Some(observed)),
            // The last service's failure is the call's kind; both reasons are told, and both
            // addresses asked are the user's detail.
            Err(wttr_failure) => {
                let detail = [open_meteo_detail, wttr_failure.detail.clone()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join("\n");
                let failure = wttr_failure.map_message(|wttr_failure| {
                    format!(
                        "Weather is unavailable: {OPEN_METEO}: {open_meteo_failure}; {WTTR}: {wttr_failure}."
                    )
                });
                Err(if detail.is_empty() {
                    failure
                } else {
                    failure.with_detail(detail)
                })
            }
        }
    }

    /// `Ok(None)`: Open-Meteo knows no such place. `Err`: why Open-Meteo failed.
    async fn open_meteo(&self, place: &Place) -> Result<Option<Observed>, ToolFailure> {
        let url = geocoding_url(&self.endpoints.geocoding, &place.name);
        let results =
            read_geocoding(&self.get(&url, OPEN_METEO).await?).map_err(ToolFailure::upstream)?;
        let Some(pick) = choose(&results, &place.hints) else {
            return Ok(None);
        };
        let chosen = &results[pick.index];
        let url = forecast_url(&self.endpoints.forecast, chosen.latitude, chosen.longitude);
        let reading =
            read_forecast(&self.get(&url, OPEN_METEO).await?).map_err(ToolFailure::upstream)?;
        Ok(Some(Observed {
            place: chosen.label(),
            coords: Some((chosen.latitude, chosen.longitude)),
            reading,
            source: format!("Open-Meteo (https://open-meteo.com), {url}"),
            unmatched: (!pick.hint_matched).then(|| {
                format!(
                    "No place named \"{}\" matched \"{}\", so this is the most relevant one.",
                    chosen.name,
                    place.hints.join(", ")
                )
            }),
            other_places: other_places(&results, pick.index),
        }))
    }

    async fn wttr(&self, place: &Place, open_meteo_failure: &str) -> Result<Observed, ToolFailure> {
        let url = wttr_url(&self.endpoints.wttr, &place.text);
        let (label, coords, reading) =
            read_wttr(&self.get(&url, WTTR).await?, &place.text).map_err(ToolFailure::upstream)?;
        Ok(Observed {
            place: label.unwrap_or_else(|| place.text.clone()),
            coords,
            reading,
            source: format!("wttr.in (fallback; Open-Meteo failed: {open_meteo_failure}), {url}"),
            unmatched: None,
            other_places: Vec::new(),
        })
    }

    /// The body of a successful GET, or why there is none: a phrase without the service name,
    /// of the failure's kind, with the address asked as the user's detail.
    async fn get(&self, url: &str, service: &str) -> Result<String, ToolFailure> {
        let asked = |kind: FailureKind, phrase: String| {
            ToolFailure::new(kind, phrase).with_detail(format!("GET {url}"))
        };
        match self.http.get(url, &[]).await {
            Err(e) => {
                let failure = ToolFailure::from_fetch(&e, service);
                let phrase = failure
                    .message
                    .strip_prefix(service)
                    .unwrap_or(&failure.message);
                Err(asked(
                    failure.kind,
                    phrase.trim().trim_end_matches('.').to_string(),
                ))
            }
            Ok(response) if !response.is_success() => {
                let detail = serde_json::from_str::<Value>(&response.body)
                    .ok()
                    .and_then(|v| api_error(&v));
                let phrase = match detail {
                    Some(detail) => format!("answered HTTP {}: {detail}", response.status),
                    None => format!("answered HTTP {}", response.status),
                };
                Err(asked(ToolFailure::status_kind(response.status), phrase))
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

    fn run(&self, args: WeatherArgs) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
        Box::pin(async move { self.report(&args.place_text()).await })
    }

    fn output_schema() -> Option<Value> {
        Some(observed::output_schema())
    }

    fn run_value(&self, args: WeatherArgs) -> LocalBoxFuture<'_, Result<Value, ToolFailure>> {
        Box::pin(async move { self.report_value(&args.place_text()).await })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::http::fake::FakeHttp;
    use crate::tools::http::FetchError;
    use futures::executor::block_on;

    const GEOCODING_PARIS: &str =
        include_str!("../../../../../tests/fixtures/weather/geocoding_paris.json");
    const GEOCODING_EMPTY: &str =
        include_str!("../../../../../tests/fixtures/weather/geocoding_empty.json");
    const FORECAST_PARIS: &str =
        include_str!("../../../../../tests/fixtures/weather/forecast_paris.json");
    const WTTR_PARIS: &str = include_str!("../../../../../tests/fixtures/weather/wttr_paris.json");
    const WTTR_UNKNOWN: &str =
        include_str!("../../../../../tests/fixtures/weather/wttr_unknown_location.txt");

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
        let result = block_on(tool.report(input)).map_err(|f| f.message);
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
        let err = block_on(registry.call("weather", &json!({"location": 42})))
            .unwrap_err()
            .message;
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

    /// Issue 59, row 4: a CodeAct program gets the same reading as a dict, its figures as
    /// numbers (`weather(...)["temperature"] + 1` works), through the registry's value path,
    /// and the prompt's signature says `-> dict`.
    #[test]
    fn a_program_gets_the_reading_as_a_dict_of_numbers() {
        use crate::tools::{typed, Registry, Returns, Toolbox};
        use serde_json::json;
        let http = Rc::new(paris_routes());
        let registry = Registry::new(vec![typed(Weather::new(
            http.clone(),
            WeatherEndpoints::default(),
        ))]);
        let value =
            block_on(registry.call_value("weather", &json!({"location": "Paris"}))).unwrap();
        assert_eq!(
            value,
            json!({
                "place": "Paris, Île-de-France, France",
                "latitude": 48.85341, "longitude": 2.3488,
                "local_time": "2026-11-22T14:00",
                "conditions": "overcast",
                "temperature": 12.3, "feels_like": 10.1, "humidity": 81.0, "wind_speed": 14.2,
                "today_min": 8.1, "today_max": 13.0,
                "units": {
                    "temperature": "°C", "feels_like": "°C", "humidity": "%",
                    "wind_speed": "km/h", "today_min": "°C", "today_max": "°C"
                },
                "other_places": [
                    "Paris, Texas, United States", "Paris, Tennessee, United States",
                    "Paris, Ontario, Canada"
                ],
                "source": format!("Open-Meteo (https://open-meteo.com), {PARIS_FORECAST_URL}")
            })
        );
        assert_eq!(registry.specs()[0].returns(), Returns::Dict);
        // The run's cache gives a repeated call the same dict, asking nothing more.
        let asked = http.urls().len();
        let again = block_on(registry.call_value("weather", &json!({"location": "Paris"})));
        assert_eq!(again.unwrap(), value);
        assert_eq!(http.urls().len(), asked);
        // Every other mode still reads the sentence.
        let text = block_on(registry.call("weather", &json!({"location": "Paris"}))).unwrap();
        assert!(
            text.starts_with("Paris, Île-de-France, France (48.85°N"),
            "{text}"
        );
    }

    /// No such place is a `ToolError` a program can catch, not a string it would index.
    #[test]
    fn no_such_place_is_an_error_for_a_program() {
        let fake = FakeHttp::new().route(GEOCODING, 200, GEOCODING_EMPTY);
        let tool = Weather::new(Rc::new(fake), WeatherEndpoints::default());
        let failure = block_on(tool.report_value("Xyzzyville")).unwrap_err();
        assert_eq!(
            failure.message,
            "No place named \"Xyzzyville\" was found (Open-Meteo geocoding)."
        );
        assert_eq!(failure.kind, FailureKind::NotFound);
    }

    /// The fallback's dict says where it came from, and its figures are numbers too.
    #[test]
    fn the_fallback_s_dict_names_wttr_and_why() {
        let fake = FakeHttp::new()
            .route(GEOCODING, 503, "<html>Service Unavailable</html>")
            .route(WTTR_HOST, 200, WTTR_PARIS);
        let tool = Weather::new(Rc::new(fake), WeatherEndpoints::default());
        let value = block_on(tool.report_value("Paris")).unwrap();
        assert_eq!(value["temperature"], serde_json::json!(12.0));
        assert_eq!(value["place"], "Paris, Ile-de-France, France");
        assert_eq!(
            value["source"],
            "wttr.in (fallback; Open-Meteo failed: answered HTTP 503), https://wttr.in/Paris?format=j1"
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
        // The kind is the last service's; both addresses asked are the user's detail.
        let fake = FakeHttp::new()
            .fail(GEOCODING, FetchError::Timeout { seconds: 10 })
            .fail(WTTR_HOST, FetchError::Network(String::new()));
        let tool = Weather::new(Rc::new(fake), WeatherEndpoints::default());
        let failure = block_on(tool.report("Paris")).unwrap_err();
        assert_eq!(failure.kind, FailureKind::Network);
        let detail = failure.detail.unwrap_or_default();
        assert!(
            detail.starts_with("GET https://geocoding-api.open-meteo.com/")
                && detail.contains("\nGET https://wttr.in/"),
            "{detail}"
        );
        assert!(!failure.message.contains("https://"), "{}", failure.message);
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
