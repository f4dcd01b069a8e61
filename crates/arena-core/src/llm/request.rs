//! The OpenAI chat-completions request body (streaming, with usage in the last chunk).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::tool_calls::ToolCall;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    /// A native tool result, answering the assistant's call with the same id.
    Tool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
    /// Native tool calls the assistant made in this message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `Role::Tool`: the call this message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
    pub fn assistant_calling(content: impl Into<String>, calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls: calls,
            ..Self::new(Role::Assistant, content)
        }
    }
    pub fn tool_result(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(call_id.into()),
            ..Self::new(Role::Tool, content)
        }
    }

    /// The message as the chat-completions API expects it.
    fn wire(&self) -> Value {
        let mut m = json!({ "role": self.role, "content": self.content });
        if !self.tool_calls.is_empty() {
            m["tool_calls"] = self
                .tool_calls
                .iter()
                .map(|c| {
                    json!({
                        "id": c.id,
                        "type": "function",
                        "function": { "name": c.name, "arguments": c.arguments },
                    })
                })
                .collect();
        }
        if let Some(id) = &self.tool_call_id {
            m["tool_call_id"] = json!(id);
        }
        m
    }
}

/// One model call: the conversation so far, stop sequences, and (native protocol) the tools.
#[derive(Debug, Clone, Copy)]
pub struct ChatCall<'a> {
    pub messages: &'a [ChatMessage],
    pub stop: &'a [&'a str],
    /// The OpenAI `tools` array; `None` when the call must not use native tools.
    pub tools: Option<&'a Value>,
}

/// Per-request sampling settings chosen by the user.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatParams {
    pub model: String,
    pub temperature: f32,
    pub max_tokens: u32,
}

/// The JSON body for `POST {base}/chat/completions`.
pub fn request_body(params: &ChatParams, call: &ChatCall<'_>) -> String {
    let messages: Vec<Value> = call.messages.iter().map(ChatMessage::wire).collect();
    let mut body = json!({
        "model": params.model,
        "messages": messages,
        "stream": true,
        "stream_options": { "include_usage": true },
        "temperature": params.temperature,
        "max_tokens": params.max_tokens,
    });
    if !call.stop.is_empty() {
        body["stop"] = json!(call.stop);
    }
    if let Some(tools) = call.tools {
        body["tools"] = tools.clone();
        body["tool_choice"] = json!("auto");
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
        let messages = [ChatMessage::system("s"), ChatMessage::user("q")];
        let call = ChatCall {
            messages: &messages,
            stop: &["\nObservation:"],
            tools: None,
        };
        let b: Value = serde_json::from_str(&request_body(&p, &call)).unwrap();
        assert_eq!(b["model"], "openai/gpt-oss-20b");
        assert_eq!(b["stream"], true);
        assert_eq!(b["stream_options"]["include_usage"], true);
        assert_eq!(b["messages"][1]["role"], "user");
        assert_eq!(b["messages"][1]["content"], "q");
        assert_eq!(b["stop"][0], "\nObservation:");
        assert_eq!(b["max_tokens"], 256);
        assert!(b.get("tools").is_none());
    }

    #[test]
    fn native_tools_and_tool_messages_on_the_wire() {
        let p = ChatParams {
            model: "m".into(),
            temperature: 0.0,
            max_tokens: 16,
        };
        let calls = vec![ToolCall {
            id: "call_1".into(),
            name: "weather".into(),
            arguments: "{\"input\":\"Paris\"}".into(),
        }];
        let messages = [
            ChatMessage::assistant_calling("", calls),
            ChatMessage::tool_result("call_1", "Sunny"),
        ];
        let tools = serde_json::json!([{"type": "function", "function": {"name": "weather"}}]);
        let call = ChatCall {
            messages: &messages,
            stop: &[],
            tools: Some(&tools),
        };
        let b: Value = serde_json::from_str(&request_body(&p, &call)).unwrap();
        assert_eq!(b["tools"][0]["function"]["name"], "weather");
        assert_eq!(b["tool_choice"], "auto");
        let m0 = &b["messages"][0];
        assert_eq!(m0["tool_calls"][0]["id"], "call_1");
        assert_eq!(m0["tool_calls"][0]["type"], "function");
        assert_eq!(
            m0["tool_calls"][0]["function"]["arguments"],
            "{\"input\":\"Paris\"}"
        );
        assert_eq!(b["messages"][1]["role"], "tool");
        assert_eq!(b["messages"][1]["tool_call_id"], "call_1");
        assert!(b["messages"][1].get("tool_calls").is_none());
    }

    #[test]
    fn no_stop_field_when_there_is_no_stop() {
        let p = ChatParams {
            model: "m".into(),
            temperature: 0.0,
            max_tokens: 1,
        };
        let call = ChatCall {
            messages: &[],
            stop: &[],
            tools: None,
        };
        let b: Value = serde_json::from_str(&request_body(&p, &call)).unwrap();
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
