//! What went wrong with an MCP server, said so the user can act on it. A browser reports a
//! server that does not allow the page (no CORS headers) only as "Failed to fetch", so that
//! message says what the server must allow.

use super::wire::{REQUEST_HEADERS, SESSION_HEADER};
use crate::tools::http::MAX_RESPONSE_BYTES;
use crate::tools::{FailureKind, ToolFailure};

#[derive(Debug, Clone, PartialEq)]
pub enum McpFailure {
    /// Nothing could be read: the server is down, the address is wrong, or it does not allow
    /// this page (CORS); the browser does not say which.
    Unreachable,
    /// 403: the server refuses requests from this page's origin.
    Refused,
    /// 401: the server wants OAuth sign-in, or refused the bearer token given.
    SignIn {
        sent_token: bool,
    },
    /// The answer was not JSON-RPC (a web page, say): what it looked like.
    NotMcp(String),
    /// Another HTTP status.
    Http(u16),
    /// A JSON-RPC error.
    Rpc {
        code: i64,
        message: String,
    },
    Timeout {
        seconds: u32,
    },
    TooLarge,
    /// The stream ended without the answer.
    NoAnswer,
    /// The session ended (404) again right after it was renewed.
    Expired,
}

impl McpFailure {
    /// The kind of tool failure this is: what the registry's retry and the panel go by.
    pub fn kind(&self) -> FailureKind {
        match self {
            McpFailure::Unreachable => FailureKind::Network,
            McpFailure::Http(status) => ToolFailure::status_kind(*status),
            // JSON-RPC's "invalid params": the server refused the arguments.
            McpFailure::Rpc { code: -32602, .. } => FailureKind::BadArguments,
            McpFailure::Timeout { .. } => FailureKind::TimedOut,
            McpFailure::Refused
            | McpFailure::SignIn { .. }
            | McpFailure::NotMcp(_)
            | McpFailure::Rpc { .. }
            | McpFailure::TooLarge
            | McpFailure::NoAnswer
            | McpFailure::Expired => FailureKind::Upstream,
        }
    }

    /// A message naming `server`; `page_origin` is the origin the server must allow.
    pub fn describe(&self, server: &str, page_origin: &str) -> String {
        match self {
            McpFailure::Unreachable => format!(
                "{server} could not be reached. If it is running, it must allow this page \
                 ({page_origin}) to call it (CORS): answer with Access-Control-Allow-Origin: \
                 {page_origin} (or *), allow the request headers {}, and expose the response \
                 header {SESSION_HEADER} (Access-Control-Expose-Headers).",
                REQUEST_HEADERS.join(", ")
            ),
            McpFailure::Refused => format!(
                "{server} refused this page's origin ({page_origin}) with 403 Forbidden: the \
                 server must list {page_origin} among the origins it accepts."
            ),
            McpFailure::SignIn { sent_token: false } => format!(
                "{server} asks for OAuth sign-in (401), which the arena does not support yet. \
                 A bearer token does work: paste one (an API key or access token) in the \
                 server's Token field."
            ),
            McpFailure::SignIn { sent_token: true } => format!(
                "{server} refused the bearer token (401). Check the token in the server's \
                 Token field; OAuth sign-in is not supported yet."
            ),
            McpFailure::NotMcp(what) => format!(
                "{server} did not answer as an MCP server (it sent {what}). Check the URL: it \
                 should be the server's Streamable HTTP endpoint, which often ends in /mcp."
            ),
            McpFailure::Http(status) => format!(
                "{server} answered HTTP {status}{}. Check the URL: it should be the server's \
                 Streamable HTTP endpoint, which often ends in /mcp.",
                match status {
                    404 => " (not found)",
                    405 => " (method not allowed)",
                    500..=599 => " (a server error)",
                    _ => "",
                }
            ),
            McpFailure::Rpc { code, message } => {
                format!("{server} answered with an error: {message} (code {code}).")
            }
            McpFailure::Timeout { seconds } => {
                format!("{server} did not answer within {seconds} s; the call was cancelled.")
            }
            McpFailure::TooLarge => format!(
                "{server} answered with more than {} MiB, so the answer was not read.",
                MAX_RESPONSE_BYTES / (1024 * 1024)
            ),
            McpFailure::NoAnswer => {
                format!("{server} ended its answer without a result.")
            }
            McpFailure::Expired => format!(
                "{server} ended the session again right after it was renewed; try again later."
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_server_is_told_what_to_allow() {
        let text = McpFailure::Unreachable.describe("Notes (http://mcp.test)", "https://a.test");
        for needed in [
            "Access-Control-Allow-Origin: https://a.test",
            "Content-Type, Authorization, Mcp-Session-Id, MCP-Protocol-Version",
            "expose the response header Mcp-Session-Id",
        ] {
            assert!(text.contains(needed), "{needed} missing from: {text}");
        }
    }

    #[test]
    fn sign_in_says_oauth_is_not_supported_and_a_token_is() {
        let text = McpFailure::SignIn { sent_token: false }.describe("S", "o");
        assert!(text.contains("OAuth sign-in (401)") && text.contains("bearer token does work"));
        let text = McpFailure::SignIn { sent_token: true }.describe("S", "o");
        assert!(text.contains("refused the bearer token"));
        assert!(McpFailure::TooLarge
            .describe("S", "o")
            .contains("more than 2 MiB"));
    }
}
