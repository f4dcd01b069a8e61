//! How a run's model asks for tools: the text protocol (`Action:` lines), native tool calls
//! (OpenAI `tools`), or JSON reactions. "Auto" resolves once per Run from what the endpoint's
//! `/v1/models` says about the model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The user's setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProtocolChoice {
    #[default]
    Auto,
    Text,
    Native,
    Json,
}

impl ProtocolChoice {
    pub const ALL: [ProtocolChoice; 4] = [
        ProtocolChoice::Auto,
        ProtocolChoice::Text,
        ProtocolChoice::Native,
        ProtocolChoice::Json,
    ];

    pub fn id(self) -> &'static str {
        match self {
            ProtocolChoice::Auto => "auto",
            ProtocolChoice::Text => "text",
            ProtocolChoice::Native => "native",
            ProtocolChoice::Json => "json",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ProtocolChoice::Auto => "Auto (native tool calls when the model supports them)",
            ProtocolChoice::Text => "Text (Thought / Action / Action Input lines)",
            ProtocolChoice::Native => "Native tool calls (OpenAI tools)",
            ProtocolChoice::Json => "JSON actions (several per step)",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// The protocol a run actually speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Text,
    Native,
    Json,
}

/// How a run starts, and whether an endpoint that rejects `tools` sends it back to text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtocolPlan {
    pub protocol: Protocol,
    pub fall_back_to_text: bool,
}

impl ProtocolPlan {
    pub const TEXT: ProtocolPlan = ProtocolPlan {
        protocol: Protocol::Text,
        fall_back_to_text: false,
    };

    /// `supports_tools`: what `/v1/models` said about the model (`None`: it did not say).
    /// Auto stays with text unless the endpoint says the model takes tools: text works with
    /// every model, native only with some.
    pub fn resolve(choice: ProtocolChoice, supports_tools: Option<bool>) -> Self {
        let native = ProtocolPlan {
            protocol: Protocol::Native,
            fall_back_to_text: true,
        };
        match choice {
            ProtocolChoice::Auto if supports_tools == Some(true) => native,
            ProtocolChoice::Auto | ProtocolChoice::Text => Self::TEXT,
            ProtocolChoice::Native => native,
            ProtocolChoice::Json => ProtocolPlan {
                protocol: Protocol::Json,
                fall_back_to_text: false,
            },
        }
    }
}

/// Reads an OpenAI-style `/v1/models` list for `model` (a `:provider` / `:fastest` suffix
/// allowed). The Hugging Face router lists `providers[].supports_tools`; other servers may put
/// `supports_tools` on the model itself. `None` when the list does not say.
pub fn supports_tools(models_json: &str, model: &str) -> Option<bool> {
    let v: Value = serde_json::from_str(models_json).ok()?;
    let (id, suffix) = match model.trim().split_once(':') {
        Some((id, suffix)) => (id, Some(suffix)),
        None => (model.trim(), None),
    };
    let entry = v
        .get("data")?
        .as_array()?
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(id))?;
    if let Some(flag) = entry.get("supports_tools").and_then(Value::as_bool) {
        return Some(flag);
    }
    let providers = entry.get("providers")?.as_array()?;
    let flag_of = |p: &Value| p.get("supports_tools").and_then(Value::as_bool);
    let named = suffix.and_then(|s| {
        providers
            .iter()
            .find(|p| p.get("provider").and_then(Value::as_str) == Some(s))
    });
    match named {
        Some(p) => flag_of(p),
        // No provider pinned: the router picks one; say yes only if any live one supports tools.
        None => {
            let flags: Vec<bool> = providers.iter().filter_map(flag_of).collect();
            (!flags.is_empty()).then(|| flags.iter().any(|f| *f))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUTER: &str = r#"{"object":"list","data":[
        {"id":"openai/gpt-oss-20b","object":"model","owned_by":"openai","providers":[
            {"provider":"groq","status":"live","context_length":131072,"pricing":{"input":0.1,"output":0.5},"supports_tools":true,"supports_structured_output":true},
            {"provider":"novita","status":"live","supports_tools":false}]},
        {"id":"some/base-model","object":"model","providers":[{"provider":"x","supports_tools":false}]},
        {"id":"local","object":"model","supports_tools":true}
    ]}"#;

    #[test]
    fn reads_supports_tools_from_the_router_list() {
        assert_eq!(supports_tools(ROUTER, "openai/gpt-oss-20b"), Some(true));
        assert_eq!(
            supports_tools(ROUTER, "openai/gpt-oss-20b:novita"),
            Some(false)
        );
        assert_eq!(
            supports_tools(ROUTER, "openai/gpt-oss-20b:groq"),
            Some(true)
        );
        assert_eq!(
            supports_tools(ROUTER, "openai/gpt-oss-20b:fastest"),
            Some(true)
        );
        assert_eq!(supports_tools(ROUTER, "some/base-model"), Some(false));
        assert_eq!(supports_tools(ROUTER, "local"), Some(true));
        assert_eq!(supports_tools(ROUTER, "unknown/model"), None);
        assert_eq!(supports_tools("not json", "x"), None);
        // llama.cpp lists models without the flag
        assert_eq!(
            supports_tools(r#"{"data":[{"id":"m","object":"model"}]}"#, "m"),
            None
        );
    }

    #[test]
    fn auto_is_native_only_when_the_endpoint_says_so() {
        use ProtocolChoice::*;
        assert_eq!(
            ProtocolPlan::resolve(Auto, Some(true)).protocol,
            Protocol::Native
        );
        assert!(ProtocolPlan::resolve(Auto, Some(true)).fall_back_to_text);
        assert_eq!(ProtocolPlan::resolve(Auto, None), ProtocolPlan::TEXT);
        assert_eq!(ProtocolPlan::resolve(Auto, Some(false)), ProtocolPlan::TEXT);
        assert_eq!(
            ProtocolPlan::resolve(Native, Some(false)).protocol,
            Protocol::Native
        );
        assert_eq!(ProtocolPlan::resolve(Json, None).protocol, Protocol::Json);
        for c in ProtocolChoice::ALL {
            assert_eq!(ProtocolChoice::from_id(c.id()), Some(c));
        }
    }
}
