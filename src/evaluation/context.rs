//! What the arena page gives the Evaluate view when an evaluation starts: the settings and
//! token as they are now, and the origin the token would go to if the user has not yet
//! confirmed it. The two are separate wasm modules, so this crosses as JSON.

use serde::{Deserialize, Serialize};

use crate::settings::Settings;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EvalContext {
    pub settings: Settings,
    pub token: String,
    /// Set when the token would go to an origin the user has not confirmed.
    pub unconfirmed_host: Option<String>,
}

impl EvalContext {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn from_json(json: &str) -> Result<Self, String> {
        serde_json::from_str(json)
            .map_err(|e| format!("The page's settings could not be read: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_garbage() {
        let context = EvalContext {
            token: "hf_placeholder".into(),
            unconfirmed_host: Some("http://127.0.0.1:8080".into()),
            ..EvalContext::default()
        };
        assert_eq!(EvalContext::from_json(&context.to_json()), Ok(context));
        assert!(EvalContext::from_json("<html>").is_err());
    }
}
