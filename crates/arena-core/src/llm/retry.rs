//! When a failed model call is tried again, and after how long. Only failures before the
//! first token are retried: after that, what arrived is kept and the step is cut.

use super::LlmError;

/// Attempts after the first.
pub const MAX_RETRIES: u32 = 4;
const BASE_DELAY_MS: u32 = 1_000;
const MAX_DELAY_MS: u32 = 16_000;
/// A `Retry-After` longer than this is not waited for: the user is better told.
const MAX_RETRY_AFTER_SECS: u32 = 60;

/// Transient failures: rate limits, server errors, a broken connection, an overloaded model.
/// 401/402/403/404/422 are the user's to fix and are never retried.
///
/// No response headers within the time limit is retried like a network error: before the
/// headers nothing reached the panel, so a retry can repeat nothing, and a hung request is
/// often one stuck connection or backend. What the endpoint answered on purpose (a redirect,
/// a body that is not an event stream) would come back the same, and so would a stream that
/// only keeps itself alive (the endpoint is up but holds the request; a second copy would queue
/// behind it); a reply past its total time already streamed for that long.
pub fn is_retryable(e: &LlmError) -> bool {
    match e {
        LlmError::Http {
            status,
            retry_after,
            ..
        } => {
            (*status == 429 || matches!(status, 500..=599 if *status != 501))
                && retry_after.is_none_or(|s| s <= MAX_RETRY_AFTER_SECS)
        }
        LlmError::Network(_)
        | LlmError::Api { .. }
        | LlmError::Stalled { .. }
        | LlmError::NoHeaders { .. } => true,
        LlmError::Aborted
        | LlmError::TooLarge { .. }
        | LlmError::Redirected
        | LlmError::NotEventStream { .. }
        | LlmError::KeepAliveOnly { .. }
        | LlmError::TooLong { .. }
        | LlmError::InBrowser(_) => false,
    }
}

/// The wait before retry number `attempt` (1-based): `Retry-After` when given, otherwise
/// exponential backoff (1, 2, 4, 8 s, capped) with ±25 % jitter (`jitter` in 0..1) so that
/// three panels hitting the same limit do not retry in lockstep.
pub fn delay_ms(attempt: u32, retry_after: Option<u32>, jitter: f64) -> u32 {
    if let Some(secs) = retry_after {
        return secs.min(MAX_RETRY_AFTER_SECS) * 1_000;
    }
    let exp = BASE_DELAY_MS.saturating_mul(1 << attempt.saturating_sub(1).min(10));
    let base = exp.min(MAX_DELAY_MS) as f64;
    let factor = 0.75 + 0.5 * jitter.clamp(0.0, 1.0);
    (base * factor).round() as u32
}

/// How a wait for a rate limit begins; `rate_limit_wait_secs` reads it back.
const RATE_LIMITED: &str = "Rate-limited (HTTP 429)";

/// The wait a rate-limit notice announces, in seconds: a batch of runs holds its new starts
/// for that long, rather than adding requests to a limit already reached.
pub fn rate_limit_wait_secs(notice: &str) -> Option<u32> {
    let rest = notice
        .strip_prefix(RATE_LIMITED)?
        .strip_prefix("; retrying in ")?;
    rest.split_once(" s")?.0.parse().ok()
}

/// What the panel says while waiting, e.g. "Rate-limited (HTTP 429); retrying in 4 s (2/4)."
pub fn waiting_message(e: &LlmError, attempt: u32, wait_ms: u32) -> String {
    let what = match e {
        LlmError::Http { status: 429, .. } => RATE_LIMITED.to_string(),
        LlmError::Http { status, .. } => format!("Server error (HTTP {status})"),
        LlmError::Network(_) => "Network error".to_string(),
        LlmError::Stalled { .. } => "The stream stalled".to_string(),
        LlmError::NoHeaders { seconds } => format!("No response headers within {seconds} s"),
        _ => "The provider reported an error".to_string(),
    };
    let secs = (wait_ms as f64 / 1000.0).ceil() as u32;
    format!("{what}; retrying in {secs} s ({attempt}/{MAX_RETRIES}).")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, retry_after: Option<u32>) -> LlmError {
        LlmError::Http {
            status,
            message: None,
            retry_after,
        }
    }

    #[test]
    fn a_rate_limit_notice_gives_its_wait_back() {
        let e = http(429, Some(7));
        let notice = waiting_message(&e, 1, delay_ms(1, Some(7), 0.5));
        assert_eq!(rate_limit_wait_secs(&notice), Some(7));
        let server = waiting_message(&http(503, None), 1, 2_000);
        assert_eq!(rate_limit_wait_secs(&server), None);
        assert_eq!(
            rate_limit_wait_secs("Rate-limited (HTTP 429); retrying in x s"),
            None
        );
    }

    #[test]
    fn only_transient_failures_are_retried() {
        for s in [429, 500, 502, 503, 504, 529] {
            assert!(is_retryable(&http(s, None)), "{s}");
        }
        for s in [400, 401, 402, 403, 404, 422, 501] {
            assert!(!is_retryable(&http(s, None)), "{s}");
        }
        assert!(is_retryable(&LlmError::Network("x".into())));
        assert!(!is_retryable(&LlmError::Aborted));
        assert!(
            !is_retryable(&http(429, Some(3600))),
            "an hour is not worth waiting for"
        );
    }

    #[test]
    fn backoff_doubles_with_jitter_and_honours_retry_after() {
        assert_eq!(delay_ms(1, None, 0.5), 1_000);
        assert_eq!(delay_ms(2, None, 0.5), 2_000);
        assert_eq!(delay_ms(3, None, 0.5), 4_000);
        assert_eq!(delay_ms(9, None, 0.5), 16_000);
        assert_eq!(delay_ms(1, None, 0.0), 750);
        assert_eq!(delay_ms(1, None, 1.0), 1_250);
        assert_eq!(delay_ms(3, Some(7), 0.9), 7_000);
        assert_eq!(delay_ms(u32::MAX, None, 2.0), 20_000);
    }

    #[test]
    fn the_panel_says_what_and_how_long() {
        assert_eq!(
            waiting_message(&http(429, None), 2, 4_000),
            "Rate-limited (HTTP 429); retrying in 4 s (2/4)."
        );
        assert_eq!(
            waiting_message(&http(503, None), 1, 750),
            "Server error (HTTP 503); retrying in 1 s (1/4)."
        );
        assert_eq!(
            waiting_message(&LlmError::NoHeaders { seconds: 60 }, 3, 4_000),
            "No response headers within 60 s; retrying in 4 s (3/4)."
        );
    }

    #[test]
    fn a_missing_header_is_retried_but_answers_given_on_purpose_are_not() {
        assert!(is_retryable(&LlmError::NoHeaders { seconds: 60 }));
        for answered in [
            LlmError::Redirected,
            LlmError::NotEventStream {
                content_type: Some("text/html".into()),
                snippet: "Sign in".into(),
            },
            LlmError::KeepAliveOnly { seconds: 60 },
            LlmError::TooLong { seconds: 600 },
            LlmError::TooLarge { bytes: 9_000_000 },
        ] {
            assert!(!is_retryable(&answered), "{answered:?}");
        }
    }
}
