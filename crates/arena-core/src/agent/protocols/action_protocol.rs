//! How a run's model asks for tools: the text protocol (`Action:` lines), native tool calls
//! (OpenAI `tools`), or JSON reactions. "Auto" resolves once per Run from what the endpoint's
//! `/v1/models` says about the model.

use serde::{Deserialize, Serialize};

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
            // Short enough for a phone's select; the settings explain each below it.
            ProtocolChoice::Auto => "Auto",
            ProtocolChoice::Text => "Text lines",
            ProtocolChoice::Native => "Native tool calls",
            ProtocolChoice::Json => "JSON actions",
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

#[cfg(test)]
mod tests {
    use super::*;

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
