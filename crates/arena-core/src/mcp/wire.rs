//! The MCP messages the arena sends and reads: JSON-RPC 2.0 over Streamable HTTP, as the
//! Model Context Protocol specification (revision 2025-11-25, "Base Protocol" and
//! "Transports") defines them. Pure: building request bodies and reading the one response that
//! answers a request, whether it came as a JSON body or as an event of an SSE stream.

use serde_json::{json, Value};

use crate::llm::sse::SseDecoder;

/// Protocol revisions the arena speaks, newest first: `initialize` offers the first, and the
/// session goes on with whichever of them the server answers.
pub const PROTOCOL_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// The request headers a server must allow (CORS) for the page to call it.
pub const REQUEST_HEADERS: [&str; 4] = [
    "Content-Type",
    "Authorization",
    "Mcp-Session-Id",
    "MCP-Protocol-Version",
];

/// The response header a server must expose (CORS) for the page to keep its session.
pub const SESSION_HEADER: &str = "Mcp-Session-Id";

pub fn initialize(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL_VERSIONS[0],
            "capabilities": {},
            "clientInfo": { "name": "react-arena", "version": env!("CARGO_PKG_VERSION") },
        },
    })
}

pub fn initialized() -> Value {
    json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })
}

pub fn list_tools(id: u64, cursor: Option<&str>) -> Value {
    let params = match cursor {
        Some(cursor) => json!({ "cursor": cursor }),
        None => json!({}),
    };
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params })
}

pub fn call_tool(id: u64, name: &str, arguments: &Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": { "name": name, "arguments": arguments },
    })
}

/// Tells the server the request `id` is no longer wanted (Stop, or its time ran out).
pub fn cancelled(id: u64, reason: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": { "requestId": id, "reason": reason },
    })
}

/// Why a body is not the answer to a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Unanswered {
    /// Not JSON-RPC at all (a web page, a login form, plain text): what it looked like.
    NotJsonRpc(String),
    /// A JSON-RPC error object.
    Error { code: i64, message: String },
}

/// The `result` of the JSON-RPC response to `id` in `body` (one message, or a batch).
pub fn read_response(body: &str, id: u64) -> Result<Value, Unanswered> {
    let value: Value =
        serde_json::from_str(body.trim()).map_err(|_| Unanswered::NotJsonRpc(looks_like(body)))?;
    let messages = match value {
        Value::Array(items) => items,
        one => vec![one],
    };
    let answer = messages
        .into_iter()
        .find(|m| answers(m, id))
        .ok_or_else(|| Unanswered::NotJsonRpc("JSON without a JSON-RPC response".into()))?;
    if let Some(error) = answer.get("error") {
        return Err(Unanswered::Error {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("no message")
                .chars()
                .take(300)
                .collect(),
        });
    }
    match answer.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(Unanswered::NotJsonRpc(
            "a JSON-RPC message with neither result nor error".into(),
        )),
    }
}

/// True when `message` is the JSON-RPC response to request `id`.
fn answers(message: &Value, id: u64) -> bool {
    message.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && message.get("method").is_none()
        && message.get("id").and_then(Value::as_u64) == Some(id)
}

/// A few words on what a body that is not JSON-RPC looked like, for the user.
fn looks_like(body: &str) -> String {
    let start = body.trim_start().get(..200).unwrap_or(body.trim_start());
    let lower = start.to_ascii_lowercase();
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        "a web page".into()
    } else if body.trim().is_empty() {
        "an empty body".into()
    } else {
        "text that is not JSON".into()
    }
}

/// Finds, in an SSE stream read piece by piece, the event carrying the response to one request:
/// servers may send notifications and requests of their own first.
pub struct StreamedAnswer {
    id: u64,
    decoder: SseDecoder,
}

impl StreamedAnswer {
    pub fn new(id: u64) -> Self {
        Self {
            id,
            decoder: SseDecoder::new(),
        }
    }

    /// Feeds bytes; returns the data of the event that answers the request once it is complete.
    pub fn push(&mut self, bytes: &[u8]) -> Option<String> {
        self.decoder
            .push(bytes)
            .into_iter()
            .map(|event| event.data)
            .find(|data| self.is_answer(data))
    }

    /// The stream ended: an answer in an event without its closing blank line.
    pub fn finish(&mut self) -> Option<String> {
        self.decoder
            .finish()
            .map(|event| event.data)
            .filter(|data| self.is_answer(data))
    }

    fn is_answer(&self, data: &str) -> bool {
        serde_json::from_str::<Value>(data).is_ok_and(|m| answers(&m, self.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_result_or_the_error_of_its_own_response() {
        let ok = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#;
        assert_eq!(read_response(ok, 3), Ok(json!({"tools": []})));
        assert!(matches!(
            read_response(ok, 4),
            Err(Unanswered::NotJsonRpc(_))
        ));
        let err = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool: x"}}"#;
        assert_eq!(
            read_response(err, 3),
            Err(Unanswered::Error {
                code: -32602,
                message: "Unknown tool: x".into()
            })
        );
        // A batch holding a notification and the answer.
        let batch = r#"[{"jsonrpc":"2.0","method":"notifications/progress","params":{}},
                        {"jsonrpc":"2.0","id":7,"result":{"ok":true}}]"#;
        assert_eq!(read_response(batch, 7), Ok(json!({"ok": true})));
    }

    #[test]
    fn names_what_a_body_that_is_not_json_rpc_looked_like() {
        let page = "<!DOCTYPE html><html><body>Sign in</body></html>";
        assert_eq!(
            read_response(page, 1),
            Err(Unanswered::NotJsonRpc("a web page".into()))
        );
        assert_eq!(
            read_response("", 1),
            Err(Unanswered::NotJsonRpc("an empty body".into()))
        );
        // A server's request to us carries an id and a method: it is not our answer.
        let request = r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage"}"#;
        assert!(read_response(request, 1).is_err());
        // Multi-byte text cut at 200 bytes does not panic.
        assert!(read_response(&"é".repeat(300), 1).is_err());
    }

    #[test]
    fn finds_the_answer_among_streamed_events_split_anywhere() {
        let stream = concat!(
            ": keep-alive\n\n",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n\n",
        );
        for cut in [1, 7, 40, 90, 130] {
            let mut finder = StreamedAnswer::new(2);
            let (a, b) = stream.as_bytes().split_at(cut.min(stream.len()));
            let found = finder.push(a).or_else(|| finder.push(b));
            assert_eq!(
                found.as_deref(),
                Some("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}"),
                "cut at {cut}"
            );
        }
        let mut other = StreamedAnswer::new(9);
        assert_eq!(other.push(stream.as_bytes()), None);
        // An answer whose blank line never came, at the end of the stream.
        let mut late = StreamedAnswer::new(5);
        assert_eq!(
            late.push(b"data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}"),
            None
        );
        assert!(late.finish().is_some());
    }

    #[test]
    fn initialize_offers_the_newest_version_and_cancel_names_the_request() {
        assert_eq!(initialize(1)["params"]["protocolVersion"], "2025-11-25");
        assert_eq!(cancelled(4, "Stopped")["params"]["requestId"], 4);
        assert_eq!(list_tools(2, Some("c2"))["params"]["cursor"], "c2");
        assert!(initialized().get("id").is_none());
    }
}
