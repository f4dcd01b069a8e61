//! What can go wrong talking to a model endpoint, and what to tell the user about it.

use serde_json::Value;

use crate::hidden_text::is_invisible;

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
    /// No response headers arrived within this many seconds; the request was aborted.
    NoHeaders { seconds: u32 },
    /// The endpoint answered with a redirect, which is not followed: it would resend the
    /// conversation and the token to an address the user never set.
    Redirected,
    /// A success status, but the body is not an event stream (a login page, plain JSON…).
    NotEventStream {
        /// The Content-Type header as sent, if any.
        content_type: Option<String>,
        /// The start of the body as plain, clipped text; empty when there was none.
        snippet: String,
    },
    /// For this many seconds only keep-alive comments or blank lines came, no data.
    KeepAliveOnly { seconds: u32 },
    /// The stream was still going after its total time limit.
    TooLong { seconds: u32 },
    /// The model in this browser could not answer; the message says why and what to do.
    InBrowser(String),
}

/// Longest provider message we show; bodies can be whole HTML error pages.
const MAX_MESSAGE_CHARS: usize = 300;
/// Longest start of an unexpected body we quote: enough to recognise a login page.
const MAX_SNIPPET_CHARS: usize = 160;

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
            LlmError::NoHeaders { seconds } => format!(
                "No response headers within {seconds} s: the model endpoint did not answer, so the request was aborted. The provider may be overloaded; try again later or pick another model."
            ),
            LlmError::Redirected => "The model endpoint answered with a redirect to another address. Redirects are not followed, so the conversation and the token were not sent there: set the API base URL in Settings to the endpoint's own address.".to_string(),
            LlmError::NotEventStream {
                content_type,
                snippet,
            } => {
                let what = match content_type.as_deref().map(str::trim) {
                    Some(t) if !t.is_empty() => format!("content type \"{}\"", clip_to(t, 80)),
                    _ => "no content type".to_string(),
                };
                let began = if snippet.is_empty() {
                    " The body was empty.".to_string()
                } else {
                    format!(" It began: \"{snippet}\"")
                };
                format!(
                    "The model endpoint answered with {what} instead of a stream of events (text/event-stream), so there is no reply to read. Check the API base URL in Settings: it must be an OpenAI-compatible /v1 base.{began}"
                )
            }
            LlmError::KeepAliveOnly { seconds } => format!(
                "The stream sent only keep-alive messages and no reply for {seconds} s, so it was cut there. The provider may be overloaded; try again later or pick another model."
            ),
            LlmError::TooLong { seconds } => format!(
                "The reply was still streaming after {seconds} s, the longest one reply may take, so it was cut there. What arrived is kept above."
            ),
            LlmError::InBrowser(message) => message.clone(),
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
    clip_to(s, MAX_MESSAGE_CHARS)
}

fn clip_to(s: &str, max_chars: usize) -> String {
    let s = s.trim();
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The start of an unexpected response body as one short line of plain text: markup and the
/// contents of script and style elements are dropped, control and invisible characters
/// removed, whitespace collapsed. The panel shows it as text; this only keeps it readable.
pub fn body_snippet(body: &str) -> String {
    let mut text = String::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        text.push(' ');
        let tag = &rest[open..];
        let skip_to = ["script", "style"].iter().find_map(|name| {
            let starts = tag
                .get(1..=name.len())
                .is_some_and(|t| t.eq_ignore_ascii_case(name));
            starts.then(|| format!("</{name}"))
        });
        let after = match skip_to {
            Some(close) => find_ignore_case(tag, &close)
                .and_then(|at| tag[at..].find('>').map(|gt| at + gt + 1)),
            None => tag.find('>').map(|gt| gt + 1),
        };
        match after {
            Some(end) => rest = &tag[end..],
            None => {
                rest = "";
                break;
            }
        }
    }
    text.push_str(rest);
    let readable: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|&c| !is_invisible(c))
        .collect();
    let collapsed = readable.split_whitespace().collect::<Vec<_>>().join(" ");
    clip_to(&collapsed, MAX_SNIPPET_CHARS)
}

fn find_ignore_case(haystack: &str, needle: &str) -> Option<usize> {
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
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

    #[test]
    fn limits_say_what_happened() {
        let m = LlmError::NoHeaders { seconds: 60 }.user_message();
        assert!(m.starts_with("No response headers within 60 s"), "{m}");
        let m = LlmError::Redirected.user_message();
        assert!(m.contains("redirect") && m.contains("not followed"), "{m}");
        let m = LlmError::KeepAliveOnly { seconds: 2 }.user_message();
        assert!(
            m.contains("only keep-alive messages") && m.contains("2 s"),
            "{m}"
        );
        let m = LlmError::TooLong { seconds: 600 }.user_message();
        assert!(m.contains("still streaming after 600 s"), "{m}");
    }

    #[test]
    fn a_body_that_is_not_a_stream_is_named_with_its_start() {
        let m = LlmError::NotEventStream {
            content_type: Some("text/html; charset=utf-8".into()),
            snippet: "Sign in to continue".into(),
        }
        .user_message();
        assert!(
            m.contains("content type \"text/html; charset=utf-8\"")
                && m.contains("text/event-stream")
                && m.ends_with("It began: \"Sign in to continue\""),
            "{m}"
        );
        assert!(!m.contains("max tokens") && !m.contains("Max tokens"));
        let m = LlmError::NotEventStream {
            content_type: None,
            snippet: String::new(),
        }
        .user_message();
        assert!(
            m.contains("no content type") && m.contains("body was empty"),
            "{m}"
        );
    }

    #[test]
    fn snippets_are_short_plain_text() {
        let page = "<!doctype html>\n<html><head><title>Sign in &middot; Proxy</title>\
            <style>body { color: red }</style><SCRIPT>document.title='pwned'</SCRIPT></head>\
            <body>\n\n  <h1>Please\tsign in</h1>\u{202e}\u{200b}<p>to go on</p></body></html>";
        assert_eq!(
            body_snippet(page),
            "Sign in &middot; Proxy Please sign in to go on"
        );
        assert_eq!(
            body_snippet(r#"{"id":"chatcmpl-1","object":"chat.completion"}"#),
            r#"{"id":"chatcmpl-1","object":"chat.completion"}"#
        );
        let long = body_snippet(&"word ".repeat(500));
        assert_eq!(long.chars().count(), MAX_SNIPPET_CHARS + 1);
        assert!(long.ends_with('…'));
        assert_eq!(body_snippet("<p>unclosed <b"), "unclosed");
        assert_eq!(body_snippet("<script>never closed"), "");
        assert_eq!(body_snippet("bell\u{7}and\u{0}nul"), "bell and nul");
    }
}
