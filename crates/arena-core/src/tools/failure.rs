//! A tool call's failure, typed: its kind (the registry's retry and the panel act on the kind,
//! never on the words), the text the model reads, and a detail only the user sees (the
//! address asked, the status answered), which would be noise or a leak in a prompt.

use serde::{Deserialize, Serialize};

use super::http::FetchError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The arguments do not fit the tool (its schema, or what it can read).
    BadArguments,
    /// No such tool, page or place.
    NotFound,
    /// The service answered with an error, or with something that could not be read.
    Upstream,
    /// The service asked the page to slow down (HTTP 429).
    RateLimited,
    /// No answer within the time limit.
    TimedOut,
    /// The user stopped the run while the call was going.
    Stopped,
    /// The service could not be reached.
    Network,
    /// The user declined the call when asked.
    Declined,
    /// The same call came too many times in a row; it was not run again.
    Repeated,
    /// A kind this version does not know (a file from a newer one).
    #[serde(other)]
    Other,
}

impl FailureKind {
    /// A few words for the panel, Inspect and exports.
    pub fn label(self) -> &'static str {
        match self {
            FailureKind::BadArguments => "bad arguments",
            FailureKind::NotFound => "not found",
            FailureKind::Upstream => "upstream error",
            FailureKind::RateLimited => "rate limited",
            FailureKind::TimedOut => "timed out",
            FailureKind::Stopped => "stopped",
            FailureKind::Network => "network",
            FailureKind::Declined => "declined",
            FailureKind::Repeated => "repeated",
            FailureKind::Other => "failed",
        }
    }

    /// Whether the registry makes the call once more by itself, at once: a blip of the
    /// network may pass. A rate limit asks for waiting, a time-out has already cost the user
    /// its wait, a server's error or answer would most likely come again, and the other
    /// kinds would fail the same way.
    pub fn retried_at_once(self) -> bool {
        matches!(self, FailureKind::Network)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolFailure {
    pub kind: FailureKind,
    /// What the model reads (and the user too).
    pub message: String,
    /// What only the user sees.
    pub detail: Option<String>,
}

impl ToolFailure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            detail: None,
        }
    }

    pub fn bad_arguments(message: impl Into<String>) -> Self {
        Self::new(FailureKind::BadArguments, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(FailureKind::NotFound, message)
    }

    pub fn upstream(message: impl Into<String>) -> Self {
        Self::new(FailureKind::Upstream, message)
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// A request to `service` that got no usable response.
    pub fn from_fetch(error: &FetchError, service: &str) -> Self {
        let kind = match error {
            FetchError::Timeout { .. } => FailureKind::TimedOut,
            FetchError::Network(_) => FailureKind::Network,
            FetchError::TooLarge { .. } => FailureKind::Upstream,
        };
        Self::new(kind, error.describe(service))
    }

    /// The kind an HTTP error status means.
    pub fn status_kind(status: u16) -> FailureKind {
        match status {
            400 | 422 => FailureKind::BadArguments,
            404 | 410 => FailureKind::NotFound,
            408 | 504 => FailureKind::TimedOut,
            429 => FailureKind::RateLimited,
            _ => FailureKind::Upstream,
        }
    }

    /// The same failure with its message put through `f` (cut short, joined to another).
    pub fn map_message(mut self, f: impl FnOnce(String) -> String) -> Self {
        self.message = f(self.message);
        self
    }
}

impl std::fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What the record keeps of a failed call: its kind and the user's detail (the message is the
/// observation itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failed {
    pub kind: FailureKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl From<&ToolFailure> for Failed {
    fn from(f: &ToolFailure) -> Self {
        Failed {
            kind: f.kind,
            detail: f.detail.clone(),
        }
    }
}
