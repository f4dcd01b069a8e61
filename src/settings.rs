//! User settings: what they are, their defaults, and the rules on them. Storage is in `ui`.

use serde::{Deserialize, Serialize};

use crate::agent::action_protocol::ProtocolChoice;
use crate::tools::endpoints::ToolEndpoints;
use crate::tools::python::DEFAULT_TIMEOUT_SECS;

pub const DEFAULT_MODEL: &str = "openai/gpt-oss-20b";
pub const DEFAULT_BASE_URL: &str = "https://router.huggingface.co/v1";

/// Everything but the token, which is stored apart (session by default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub model: String,
    pub base_url: String,
    pub temperature: f32,
    pub max_tokens: u32,
    pub max_steps: u32,
    /// Keep the token in localStorage (survives closing the browser) instead of sessionStorage.
    pub remember_token: bool,
    /// Tools the user switched off (by name); every other tool is offered to the model.
    pub disabled_tools: Vec<String>,
    pub tool_endpoints: ToolEndpoints,
    /// Time limit of one python call.
    pub python_timeout_secs: u32,
    /// How the model asks for tools.
    pub protocol: ProtocolChoice,
    /// A model stream that sends nothing for this long is cut.
    pub stream_idle_timeout_secs: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            model: DEFAULT_MODEL.into(),
            base_url: DEFAULT_BASE_URL.into(),
            temperature: 0.3,
            max_tokens: 1024,
            max_steps: 5,
            remember_token: false,
            disabled_tools: Vec::new(),
            tool_endpoints: ToolEndpoints::default(),
            python_timeout_secs: DEFAULT_TIMEOUT_SECS,
            protocol: ProtocolChoice::Auto,
            stream_idle_timeout_secs: 60,
        }
    }
}

pub const MAX_STEPS_LIMIT: u32 = 20;
pub const MAX_PYTHON_TIMEOUT_SECS: u32 = 120;

impl Settings {
    /// Reads stored settings; anything unreadable falls back to the defaults, field by field.
    pub fn from_json(json: &str) -> Self {
        serde_json::from_str::<Settings>(json)
            .unwrap_or_default()
            .clamped()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Keeps numbers within what the providers accept.
    pub fn clamped(mut self) -> Self {
        if !self.temperature.is_finite() {
            self.temperature = Settings::default().temperature;
        }
        self.temperature = self.temperature.clamp(0.0, 2.0);
        self.max_tokens = self.max_tokens.clamp(16, 32_768);
        self.max_steps = self.max_steps.clamp(1, MAX_STEPS_LIMIT);
        self.python_timeout_secs = self.python_timeout_secs.clamp(1, MAX_PYTHON_TIMEOUT_SECS);
        self.stream_idle_timeout_secs = self.stream_idle_timeout_secs.clamp(1, 600);
        self.tool_endpoints = self.tool_endpoints.repaired();
        self
    }

    pub fn tool_enabled(&self, name: &str) -> bool {
        !self.disabled_tools.iter().any(|d| d == name)
    }

    pub fn set_tool_enabled(&mut self, name: &str, enabled: bool) {
        self.disabled_tools.retain(|d| d != name);
        if !enabled {
            self.disabled_tools.push(name.to_string());
        }
    }

    /// True when the endpoint is on this machine, where no token is needed.
    pub fn endpoint_is_local(&self) -> bool {
        is_local_url(&self.base_url)
    }
}

/// Why Run cannot start yet, as the Run button should say it; `None` when it can.
pub fn missing_for_run(settings: &Settings, token: &str, question: &str) -> Option<&'static str> {
    if token.trim().is_empty() && !settings.endpoint_is_local() {
        return Some("Add your Hugging Face token in Settings");
    }
    if settings.model.trim().is_empty() {
        return Some("Set a model id in Settings");
    }
    if !(settings.base_url.starts_with("http://") || settings.base_url.starts_with("https://")) {
        return Some("Set an http(s) API base URL in Settings");
    }
    if question.trim().is_empty() {
        return Some("Type a question");
    }
    None
}

/// Set when the token would cross the network unencrypted: the user confirms before it is sent.
pub fn insecure_token_warning(settings: &Settings, token: &str) -> Option<&'static str> {
    let plain_http = settings.base_url.trim().starts_with("http://");
    (plain_http && !settings.endpoint_is_local() && !token.trim().is_empty())
        .then_some("Send the token over plain HTTP?")
}

fn is_local_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or("");
    let host_port = rest.split('/').next().unwrap_or("");
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host_port.split(':').next().unwrap_or(""),
    };
    matches!(host, "localhost" | "127.0.0.1" | "::1") || host.ends_with(".localhost")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_round_trip() {
        let s = Settings::default();
        assert_eq!(s.model, "openai/gpt-oss-20b");
        assert_eq!(s.base_url, "https://router.huggingface.co/v1");
        assert_eq!(s.max_steps, 5);
        assert_eq!(Settings::from_json(&s.to_json()), s);
    }

    #[test]
    fn bad_storage_falls_back_instead_of_failing() {
        assert_eq!(Settings::from_json("not json"), Settings::default());
        let partial = Settings::from_json(r#"{"model":"x","max_steps":999,"temperature":-3}"#);
        assert_eq!(partial.model, "x");
        assert_eq!(partial.max_steps, MAX_STEPS_LIMIT);
        assert_eq!(partial.temperature, 0.0);
        assert_eq!(partial.base_url, DEFAULT_BASE_URL);
    }

    #[test]
    fn tools_can_be_switched_off_and_back_on() {
        let mut s = Settings::default();
        assert!(s.tool_enabled("python"));
        s.set_tool_enabled("python", false);
        s.set_tool_enabled("python", false);
        assert!(!s.tool_enabled("python"));
        assert_eq!(s.disabled_tools, ["python"]);
        let back = Settings::from_json(&s.to_json());
        assert!(!back.tool_enabled("python") && back.tool_enabled("weather"));
        s.set_tool_enabled("python", true);
        assert!(s.tool_enabled("python"));
        let odd = Settings::from_json(
            r#"{"python_timeout_secs":0,"tool_endpoints":{"wttr":"file:///etc"}}"#,
        );
        assert_eq!(odd.python_timeout_secs, 1);
        assert_eq!(odd.tool_endpoints, ToolEndpoints::default());
    }

    #[test]
    fn run_says_what_is_missing() {
        let s = Settings::default();
        assert_eq!(
            missing_for_run(&s, "", "q"),
            Some("Add your Hugging Face token in Settings")
        );
        assert_eq!(missing_for_run(&s, "hf_x", " "), Some("Type a question"));
        assert_eq!(missing_for_run(&s, "hf_x", "q"), None);
        let local = Settings {
            base_url: "http://127.0.0.1:8080/v1".into(),
            ..Settings::default()
        };
        assert_eq!(
            missing_for_run(&local, "", "q"),
            None,
            "a local server needs no token"
        );
        let bad = Settings {
            base_url: "ftp://x".into(),
            ..Settings::default()
        };
        assert!(missing_for_run(&bad, "t", "q")
            .unwrap()
            .contains("base URL"));
    }

    #[test]
    fn plain_http_to_a_remote_host_needs_a_confirmation() {
        let at = |url: &str| Settings {
            base_url: url.into(),
            ..Settings::default()
        };
        assert!(insecure_token_warning(&at("http://10.0.0.2:8000/v1"), "hf_x").is_some());
        assert!(insecure_token_warning(&at("http://10.0.0.2:8000/v1"), "").is_none());
        assert!(insecure_token_warning(&at("http://127.0.0.1:8000/v1"), "hf_x").is_none());
        assert!(insecure_token_warning(&at("https://router.huggingface.co/v1"), "hf_x").is_none());
    }

    #[test]
    fn local_hosts() {
        for u in [
            "http://localhost:1/v1",
            "http://127.0.0.1/v1",
            "http://[::1]:8/v1",
            "http://app.localhost/v1",
        ] {
            assert!(is_local_url(u), "{u}");
        }
        for u in [
            "https://router.huggingface.co/v1",
            "http://localhost.evil.com/v1",
            "http://127.0.0.1.nip.io/",
        ] {
            assert!(!is_local_url(u), "{u}");
        }
    }
}
