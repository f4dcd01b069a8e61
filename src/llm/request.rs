//! The OpenAI chat-completions request body (streaming, with usage in the last chunk).

use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: Role::System,
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// Per-request sampling settings chosen by the user.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatParams {
    pub model: String,
    pub temperature: f32,
    pub max_tokens: u32,
}

/// The JSON body for `POST {base}/chat/completions`.
pub fn request_body(params: &ChatParams, messages: &[ChatMessage], stop: &[&str]) -> String {
    let mut body = json!({
        "model": params.model,
        "messages": messages,
        "stream": true,
        "stream_options": { "include_usage": true },
        "temperature": params.temperature,
        "max_tokens": params.max_tokens,
    });
    if !stop.is_empty() {
        body["stop"] = json!(stop);
    }
    body.to_string()
}

/// `{base}/chat/completions`, tolerant of a trailing slash on the base.
pub fn completions_url(base: &str) -> String {
    format!("{}/chat/completions", base.trim().trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn body_asks_for_a_stream_with_usage() {
        let p = ChatParams {
            model: "openai/gpt-oss-20b".into(),
            temperature: 0.5,
            max_tokens: 256,
        };
        let b: Value = serde_json::from_str(&request_body(
            &p,
            &[ChatMessage::system("s"), ChatMessage::user("q")],
            &["\nObservation:"],
        ))
        .unwrap();
        assert_eq!(b["model"], "openai/gpt-oss-20b");
        assert_eq!(b["stream"], true);
        assert_eq!(b["stream_options"]["include_usage"], true);
        assert_eq!(b["messages"][1]["role"], "user");
        assert_eq!(b["messages"][1]["content"], "q");
        assert_eq!(b["stop"][0], "\nObservation:");
        assert_eq!(b["max_tokens"], 256);
    }

    #[test]
    fn no_stop_field_when_there_is_no_stop() {
        let p = ChatParams {
            model: "m".into(),
            temperature: 0.0,
            max_tokens: 1,
        };
        let b: Value = serde_json::from_str(&request_body(&p, &[], &[])).unwrap();
        assert!(b.get("stop").is_none());
    }

    #[test]
    fn url_joins_without_double_slash() {
        assert_eq!(
            completions_url("https://router.huggingface.co/v1/"),
            "https://router.huggingface.co/v1/chat/completions"
        );
        assert_eq!(
            completions_url("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
    }
}
