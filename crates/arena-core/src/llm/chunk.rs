//! Reading one SSE `data:` payload of an OpenAI-style chat-completions stream.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{message_from_error_value, LlmError};
use super::timings::RuntimeTimings;
use super::tool_calls::ToolCallDelta;

/// Token counts reported by the endpoint (last chunk, with `include_usage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
}

/// A step's calls and a run's steps add their counts.
impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
    }
}

/// A piece of a streamed reply.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatDelta {
    Content(String),
    /// Thinking text: `delta.reasoning` (HF router) or `delta.reasoning_content` (llama.cpp).
    Reasoning(String),
    /// A fragment of a native tool call.
    ToolCall(ToolCallDelta),
    Usage(Usage),
    /// llama.cpp's own figures for the call (its last chunk).
    Timings(RuntimeTimings),
    /// The stream ended having skipped this many lines that were not valid JSON.
    Skipped(u32),
    /// The call waited this long (ms) for the model in this browser, which was answering
    /// another caller, before it was sent.
    WaitedForModel(f64),
}

/// What a payload meant.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    Deltas(Vec<ChatDelta>),
    Done,
    /// Not JSON, or JSON of no known shape; the stream goes on and the caller counts it.
    Malformed,
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<Usage>,
    /// llama.cpp's; a value of another shape is not ours to read and is left.
    timings: Option<Value>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    delta: Option<Delta>,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<String>,
    reasoning: Option<String>,
    reasoning_content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallChunk>>,
}

#[derive(Deserialize)]
struct ToolCallChunk {
    #[serde(default)]
    index: usize,
    id: Option<String>,
    function: Option<FunctionChunk>,
}

#[derive(Deserialize)]
struct FunctionChunk {
    name: Option<String>,
    arguments: Option<String>,
}

pub fn read_payload(data: &str) -> Result<Payload, LlmError> {
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(Payload::Done);
    }
    let chunk: Chunk = match serde_json::from_str(data) {
        Ok(c) => c,
        Err(_) => return Ok(Payload::Malformed),
    };
    if let Some(err) = chunk.error.filter(|e| !e.is_null()) {
        let wrapped = serde_json::json!({ "error": err });
        let message = message_from_error_value(&wrapped).unwrap_or_else(|| "unknown error".into());
        return Err(LlmError::Api { message });
    }
    let mut out = Vec::new();
    for delta in chunk.choices.into_iter().filter_map(|c| c.delta) {
        for r in [delta.reasoning, delta.reasoning_content]
            .into_iter()
            .flatten()
        {
            if !r.is_empty() {
                out.push(ChatDelta::Reasoning(r));
            }
        }
        if let Some(c) = delta.content.filter(|c| !c.is_empty()) {
            out.push(ChatDelta::Content(c));
        }
        for call in delta.tool_calls.into_iter().flatten() {
            let (name, arguments) = call
                .function
                .map_or((None, None), |f| (f.name, f.arguments));
            out.push(ChatDelta::ToolCall(ToolCallDelta {
                index: call.index,
                id: call.id,
                name,
                arguments: arguments.unwrap_or_default(),
            }));
        }
    }
    if let Some(u) = chunk.usage {
        out.push(ChatDelta::Usage(u));
    }
    if let Some(t) = chunk
        .timings
        .and_then(|t| serde_json::from_value::<RuntimeTimings>(t).ok())
    {
        out.push(ChatDelta::Timings(t.into_bounded()));
    }
    Ok(Payload::Deltas(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_reasoning_and_usage() {
        let p = read_payload(r#"{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}"#).unwrap();
        assert_eq!(p, Payload::Deltas(vec![ChatDelta::Content("Hi".into())]));
        let p = read_payload(r#"{"choices":[{"delta":{"reasoning":"hmm"}}]}"#).unwrap();
        assert_eq!(p, Payload::Deltas(vec![ChatDelta::Reasoning("hmm".into())]));
        let p =
            read_payload(r#"{"choices":[{"delta":{"reasoning_content":"so","content":null}}]}"#)
                .unwrap();
        assert_eq!(p, Payload::Deltas(vec![ChatDelta::Reasoning("so".into())]));
        let p = read_payload(r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},"timings":{"predicted_ms":1.0,"cache_n":4}}"#).unwrap();
        assert_eq!(
            p,
            Payload::Deltas(vec![
                ChatDelta::Usage(Usage {
                    prompt_tokens: 10,
                    completion_tokens: 5,
                    total_tokens: 15
                }),
                ChatDelta::Timings(RuntimeTimings {
                    predicted_ms: 1.0,
                    cache_n: 4,
                    ..RuntimeTimings::default()
                })
            ])
        );
        // Timings of a shape llama.cpp does not send are left, and the chunk still reads.
        let p =
            read_payload(r#"{"choices":[{"delta":{"content":"x"}}],"timings":"fast"}"#).unwrap();
        assert_eq!(p, Payload::Deltas(vec![ChatDelta::Content("x".into())]));
    }

    #[test]
    fn tool_call_fragments() {
        let p = read_payload(r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"call_9","type":"function","function":{"name":"weather","arguments":""}}]}}]}"#).unwrap();
        assert_eq!(
            p,
            Payload::Deltas(vec![ChatDelta::ToolCall(ToolCallDelta {
                index: 1,
                id: Some("call_9".into()),
                name: Some("weather".into()),
                arguments: String::new(),
            })])
        );
        let p = read_payload(r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"in"}}]}}]}"#).unwrap();
        assert_eq!(
            p,
            Payload::Deltas(vec![ChatDelta::ToolCall(ToolCallDelta {
                index: 1,
                arguments: "{\"in".into(),
                ..ToolCallDelta::default()
            })])
        );
    }

    #[test]
    fn done_and_malformed() {
        assert_eq!(read_payload("[DONE]").unwrap(), Payload::Done);
        assert_eq!(read_payload("not json").unwrap(), Payload::Malformed);
        assert_eq!(
            read_payload(r#"{"choices":"nope"}"#).unwrap(),
            Payload::Malformed
        );
        assert_eq!(
            read_payload(r#"{"choices":[{"delta":{"content":""}}]}"#).unwrap(),
            Payload::Deltas(vec![])
        );
    }

    #[test]
    fn error_object_mid_stream() {
        let e = read_payload(r#"{"error":{"message":"Model overloaded","type":"server_error"}}"#)
            .unwrap_err();
        assert_eq!(
            e,
            LlmError::Api {
                message: "Model overloaded".into()
            }
        );
        let e = read_payload(r#"{"error":"boom"}"#).unwrap_err();
        assert_eq!(
            e,
            LlmError::Api {
                message: "boom".into()
            }
        );
        // A null error field is not an error.
        assert!(read_payload(r#"{"choices":[],"error":null}"#).is_ok());
    }
}
