//! What can go wrong talking to a model endpoint, and what to tell the user about it.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LlmError {
    /// The endpoint answered with a non-success status.
    Http {
        status: u16,
        message: Option<String>,
        /// Seconds from a `Retry-After` header, when the endpoint sent one.
        retry_after: Option<u32>,
    },
    /// An error object arrived inside an otherwise successful stream.
    Api { message: String },
    /// The request never got an answer, or the connection broke.
    Network(String),
    /// The user stopped the run.
    Aborted,
    /// The stream sent nothing for this long.
    Stalled { seconds: u32 },
    /// The response passed the size limit; reading stopped.
    TooLarge { bytes: usize },
}

/// Longest provider message we show; bodies can be whole HTML error pages.
const MAX_MESSAGE_CHARS: usize = 300;

impl LlmError {
    /// A sentence for the panel: what happened and what the user can do about it.
    pub fn user_message(&self) -> String {
        match self {
            LlmError::Http { status, message, .. } => {
                let advice = match status {
                    401 => "The token was rejected (HTTP 401). Check the token in Settings: it must be valid and allowed to call Inference Providers.",
                    402 => "The provider says payment is required (HTTP 402): your included credits are used up. Add credits or pick another provider or model.",
                    403 => "Access denied (HTTP 403). The token may lack the permission to call Inference Providers, or the model is gated.",
                    404 => "Not found (HTTP 404). Check the model id and the API base URL in Settings.",
                    422 => "The endpoint could not process the request (HTTP 422). Check the model id, and try the text protocol for tool calls in Settings.",
                    429 => "Rate-limited (HTTP 429). Wait a moment and run again.",
                    500..=599 => "The provider had a server error. Try again in a moment or pick another model.",
                    _ => "The model endpoint refused the request.",
                };
                match message {
                    Some(m) => format!("{advice} Provider said ({status}): {m}"),
                    None if (500..=599).contains(status) || !matches!(status, 401..=404 | 429) => {
                        format!("{advice} (HTTP {status})")
                    }
                    None => advice.to_string(),
                }
            }
            LlmError::Api { message } => format!("The model stream reported an error: {message}"),
            LlmError::Network(detail) => format!(
                "Network error: could not reach the model endpoint ({detail}). Check the API base URL, your connection, and that the server allows cross-origin requests (CORS)."
            ),
            LlmError::Aborted => "Stopped.".to_string(),
            LlmError::Stalled { seconds } => format!(
                "The stream stalled: nothing arrived for {seconds} s, so the reply was cut there. What arrived is kept above."
            ),
            LlmError::TooLarge { bytes } => format!(
                "The reply passed {} MB, so reading stopped. What arrived is kept above; lower Max tokens in Settings.",
                bytes / 1_000_000
            ),
        }
    }
}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.user_message())
    }
}

/// Reads the error shapes providers use: `{"error": "…"}`, `{"error": {"message": …}}`,
/// `{"message": …}` (also `{"detail": …}` from some proxies). Returns `None` for anything else.
pub fn message_from_error_value(v: &Value) -> Option<String> {
    let msg = match v.get("error") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Object(o)) => o
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| Some(Value::Object(o.clone()).to_string())),
        Some(other) if !other.is_null() => Some(other.to_string()),
        _ => v
            .get("message")
            .or_else(|| v.get("detail"))
            .and_then(Value::as_str)
            .map(str::to_string),
    }?;
    Some(clip(&msg))
}

/// The message carried by an HTTP error body, JSON or plain text.
pub fn message_from_error_body(body: &str) -> Option<String> {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return None;
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(v) => message_from_error_value(&v),
        // Not JSON: an HTML error page says nothing useful; a short text line might.
        Err(_) if trimmed.starts_with('<') => None,
        Err(_) => Some(clip(trimmed)),
    }
}

fn clip(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_all_documented_error_shapes() {
        assert_eq!(
            message_from_error_body(r#"{"error":"Invalid credentials in Authorization header"}"#)
                .as_deref(),
            Some("Invalid credentials in Authorization header")
        );
        assert_eq!(
            message_from_error_body(
                r#"{"error":{"message":"Rate limit reached","type":"rate_limit","code":429}}"#
            )
            .as_deref(),
            Some("Rate limit reached")
        );
        assert_eq!(
            message_from_error_body(r#"{"message":"Model not found"}"#).as_deref(),
            Some("Model not found")
        );
        assert_eq!(
            message_from_error_body(r#"{"detail":"Not Found"}"#).as_deref(),
            Some("Not Found")
        );
        assert_eq!(
            message_from_error_body("upstream timed out").as_deref(),
            Some("upstream timed out")
        );
        assert_eq!(
            message_from_error_body("<html><body>502</body></html>"),
            None
        );
        assert_eq!(message_from_error_body("   "), None);
    }

    #[test]
    fn long_messages_are_clipped() {
        let long = "x".repeat(1000);
        let m = message_from_error_body(&long).unwrap();
        assert_eq!(m.chars().count(), MAX_MESSAGE_CHARS + 1);
    }

    #[test]
    fn messages_tell_the_user_what_to_do() {
        let m = |s| {
            LlmError::Http {
                status: s,
                message: None,
                retry_after: None,
            }
            .user_message()
        };
        assert!(m(401).contains("token"));
        assert!(m(402).contains("credits"));
        assert!(m(429).contains("Rate-limited"));
        assert!(m(503).contains("server error") && m(503).contains("503"));
        let with = LlmError::Http {
            status: 429,
            message: Some("slow down".into()),
            retry_after: None,
        }
        .user_message();
        assert!(with.contains("slow down"));
        assert!(LlmError::Network("Failed to fetch".into())
            .user_message()
            .contains("CORS"));
    }
}
