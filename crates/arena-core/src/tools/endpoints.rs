//! Where each tool sends its requests. Every base URL is a setting, so the tests (and users
//! behind a proxy or mirror) can point the tools elsewhere.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolEndpoints {
    /// MediaWiki Action API (`…/w/api.php`).
    pub wikipedia_api: String,
    /// DuckDuckGo Instant Answer API.
    pub duckduckgo_api: String,
    /// Open-Meteo geocoding search.
    pub geocoding_api: String,
    /// Open-Meteo forecast.
    pub forecast_api: String,
    /// wttr.in, the weather fallback.
    pub wttr: String,
    /// Folder holding `pyodide.mjs` and its files.
    pub pyodide: String,
}

/// Pyodide as the browser tests load it: the files of the npm package `pyodide` at the version
/// `package.json` pins (a host test checks the two agree), from a mirror of npm packages.
pub const PYODIDE_DEFAULT: &str = "https://cdn.jsdelivr.net/npm/pyodide@314.0.7/";

impl Default for ToolEndpoints {
    fn default() -> Self {
        Self {
            wikipedia_api: "https://en.wikipedia.org/w/api.php".into(),
            duckduckgo_api: "https://api.duckduckgo.com/".into(),
            geocoding_api: "https://geocoding-api.open-meteo.com/v1/search".into(),
            forecast_api: "https://api.open-meteo.com/v1/forecast".into(),
            wttr: "https://wttr.in".into(),
            pyodide: PYODIDE_DEFAULT.into(),
        }
    }
}

/// One editable endpoint: its settings id, label, and accessors.
pub struct EndpointField {
    pub id: &'static str,
    pub label: &'static str,
    pub get: fn(&ToolEndpoints) -> &String,
    pub get_mut: fn(&mut ToolEndpoints) -> &mut String,
}

pub const ENDPOINT_FIELDS: [EndpointField; 6] = [
    EndpointField {
        id: "wikipedia_api",
        label: "Wikipedia API",
        get: |e| &e.wikipedia_api,
        get_mut: |e| &mut e.wikipedia_api,
    },
    EndpointField {
        id: "duckduckgo_api",
        label: "DuckDuckGo API",
        get: |e| &e.duckduckgo_api,
        get_mut: |e| &mut e.duckduckgo_api,
    },
    EndpointField {
        id: "geocoding_api",
        label: "Open-Meteo geocoding",
        get: |e| &e.geocoding_api,
        get_mut: |e| &mut e.geocoding_api,
    },
    EndpointField {
        id: "forecast_api",
        label: "Open-Meteo forecast",
        get: |e| &e.forecast_api,
        get_mut: |e| &mut e.forecast_api,
    },
    EndpointField {
        id: "wttr",
        label: "wttr.in (weather fallback)",
        get: |e| &e.wttr,
        get_mut: |e| &mut e.wttr,
    },
    EndpointField {
        id: "pyodide",
        label: "Pyodide base URL",
        get: |e| &e.pyodide,
        get_mut: |e| &mut e.pyodide,
    },
];

/// Only absolute http(s) URLs are accepted as endpoints.
pub fn is_http_url(url: &str) -> bool {
    let url = url.trim();
    (url.starts_with("https://") || url.starts_with("http://")) && url.len() > "https://".len()
}

impl ToolEndpoints {
    /// Replaces unusable URLs with the defaults (a stored setting may be damaged).
    pub fn repaired(mut self) -> Self {
        let defaults = Self::default();
        for field in &ENDPOINT_FIELDS {
            let value = (field.get_mut)(&mut self);
            *value = value.trim().to_string();
            if !is_http_url(value) {
                value.clone_from((field.get)(&defaults));
            }
        }
        if !self.pyodide.ends_with('/') {
            self.pyodide.push('/');
        }
        // The earlier default, kept in settings saved before: a path no test loaded.
        if self.pyodide == "https://cdn.jsdelivr.net/pyodide/v314.0.7/full/" {
            self.pyodide = PYODIDE_DEFAULT.into();
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Production loads what CI tested: the default names the package version the tests
    /// self-host.
    #[test]
    fn the_default_pyodide_is_the_version_the_tests_load() {
        let manifest = include_str!("../../../../package.json");
        let package: serde_json::Value = serde_json::from_str(manifest).unwrap();
        let version = package["devDependencies"]["pyodide"]
            .as_str()
            .or(package["dependencies"]["pyodide"].as_str())
            .expect("package.json pins pyodide");
        assert!(
            version.chars().all(|c| c.is_ascii_digit() || c == '.'),
            "an exact version, not a range: {version}"
        );
        assert_eq!(
            PYODIDE_DEFAULT,
            format!("https://cdn.jsdelivr.net/npm/pyodide@{version}/")
        );
        assert_eq!(ToolEndpoints::default().pyodide, PYODIDE_DEFAULT);
        let saved_before = ToolEndpoints {
            pyodide: "https://cdn.jsdelivr.net/pyodide/v314.0.7/full/".into(),
            ..ToolEndpoints::default()
        };
        assert_eq!(saved_before.repaired().pyodide, PYODIDE_DEFAULT);
    }

    #[test]
    fn damaged_urls_fall_back_to_defaults() {
        let e = ToolEndpoints {
            wikipedia_api: "javascript:alert(1)".into(),
            wttr: " http://127.0.0.1:9/wttr ".into(),
            pyodide: "http://127.0.0.1:9/pyodide".into(),
            ..ToolEndpoints::default()
        }
        .repaired();
        assert_eq!(e.wikipedia_api, ToolEndpoints::default().wikipedia_api);
        assert_eq!(e.wttr, "http://127.0.0.1:9/wttr");
        assert_eq!(e.pyodide, "http://127.0.0.1:9/pyodide/");
    }
}
