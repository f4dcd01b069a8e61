//! The MediaWiki Action API: the request URLs, article links, and one GET that gives the
//! JSON object or a sentence saying what went wrong.

use serde_json::Value;

use crate::tools::http::{url_with_query, HttpClient};
use crate::tools::json_read::{first_str, squashed};
use crate::tools::observation::{squash_whitespace, truncate};
use crate::tools::ToolFailure;

/// Wikimedia asks API clients to identify themselves; browsers forbid setting `User-Agent`.
pub(super) const USER_AGENT_HEADER: (&str, &str) =
    ("Api-User-Agent", "ReActArena/0.1 (browser app)");
pub(super) const SEARCH_LIMIT: &str = "5";
pub(super) const UNEXPECTED: &str = "Wikipedia returned an unexpected response.";
/// A suggestion corrects a short query; anything longer is cut.
const MAX_SUGGESTION_CHARS: usize = 100;

/// A `query` request answered as JSON (format version 2, anonymous CORS), then `params`.
fn query_url(api_url: &str, params: &[(&str, &str)]) -> String {
    let mut all = vec![
        ("action", "query"),
        ("format", "json"),
        ("formatversion", "2"),
        ("origin", "*"),
    ];
    all.extend_from_slice(params);
    url_with_query(api_url, &all)
}

/// One request for the 5 best matches with their intros, disambiguation flags and URLs.
pub fn search_url(api_url: &str, query: &str) -> String {
    query_url(
        api_url,
        &[
            ("generator", "search"),
            ("gsrsearch", query),
            ("gsrlimit", SEARCH_LIMIT),
            // In generator mode search metadata is only sent when asked for.
            ("gsrinfo", "suggestion"),
            ("prop", "extracts|pageprops|info"),
            ("exintro", "1"),
            ("explaintext", "1"),
            ("exlimit", SEARCH_LIMIT),
            ("ppprop", "disambiguation"),
            ("inprop", "url"),
            ("redirects", "1"),
        ],
    )
}

/// The whole article as plain text (TextExtracts gives one full extract per request).
pub fn full_text_url(api_url: &str, title: &str) -> String {
    query_url(
        api_url,
        &[
            ("prop", "extracts"),
            ("explaintext", "1"),
            ("titles", title),
            ("redirects", "1"),
        ],
    )
}

/// Full-text search listing titles and HTML snippets (the `web_search` fallback).
pub fn fulltext_url(api_url: &str, query: &str) -> String {
    url_with_query(
        api_url,
        &[
            ("action", "query"),
            ("list", "search"),
            ("srsearch", query),
            ("srlimit", SEARCH_LIMIT),
            ("format", "json"),
            ("formatversion", "2"),
            ("origin", "*"),
            ("srprop", "snippet"),
        ],
    )
}

/// `<scheme://host>/wiki/<Title>`, encoded the way MediaWiki writes its own links.
pub fn article_url(api_url: &str, title: &str) -> String {
    format!("{}/wiki/{}", origin_of(api_url), encode_title(title))
}

/// Scheme and host (with port) of a URL; empty for a relative URL, giving a relative link.
pub(super) fn origin_of(url: &str) -> &str {
    let url = url.trim();
    let Some(i) = url.find("://") else {
        return "";
    };
    let host_start = i + 3;
    let end = url[host_start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |j| host_start + j);
    &url[..end]
}

/// Spaces become underscores; like MediaWiki's `wfUrlencode`, `;@$!*(),/:~` stay readable.
pub(super) fn encode_title(title: &str) -> String {
    let mut out = String::new();
    for b in title.trim().replace(' ', "_").bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => out.push(b as char),
            b'-' | b'_' | b'.' | b'~' | b';' | b'@' | b'$' | b'!' | b'*' | b'(' | b')' | b','
            | b'/' | b':' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// GETs `url` and returns the JSON object, or the failure: its message names what went wrong,
/// its detail the address asked.
pub(super) async fn get_json(http: &dyn HttpClient, url: &str) -> Result<Value, ToolFailure> {
    let asked = |f: ToolFailure| f.with_detail(format!("GET {url}"));
    let response = http
        .get(url, &[USER_AGENT_HEADER])
        .await
        .map_err(|e| asked(ToolFailure::from_fetch(&e, "Wikipedia")))?;
    if !response.is_success() {
        let status = response.status;
        let message = match status {
            429 => "Wikipedia answered HTTP 429 (too many requests); wait before trying again."
                .to_string(),
            500..=599 => {
                format!("Wikipedia answered HTTP {status} (a server error); try again later.")
            }
            _ => format!("Wikipedia answered HTTP {status}."),
        };
        return Err(asked(ToolFailure::new(
            ToolFailure::status_kind(status),
            message,
        )));
    }
    let json: Value = serde_json::from_str(&response.body).map_err(|_| {
        asked(ToolFailure::upstream(format!(
            "{UNEXPECTED} It was not JSON."
        )))
    })?;
    if let Some(info) = api_error(&json) {
        return Err(asked(ToolFailure::upstream(format!(
            "Wikipedia reported an error: {info}"
        ))));
    }
    if !json.is_object() {
        return Err(asked(ToolFailure::upstream(UNEXPECTED)));
    }
    Ok(json)
}

/// The message of an API error: `{"error": {"code", "info"}}`, or `{"errors": [{"text"}]}` when
/// a non-default `errorformat` is in play.
pub(super) fn api_error(json: &Value) -> Option<String> {
    let error = json
        .get("error")
        .filter(|e| e.is_object())
        .or_else(|| json.get("errors").and_then(|e| e.get(0)))?;
    let text = error
        .as_object()
        .and_then(|e| first_str(e, &["info", "text", "*", "code"]))
        .map(squash_whitespace)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown error".into());
    Some(truncate(&text, 300))
}

/// " Did you mean "…"?" from `query.searchinfo.suggestion`, where MediaWiki puts it for both
/// `list=search` and `generator=search` (asked for with `gsrinfo`); empty when there is none.
/// The text is the API's: squashed to one line and cut short.
pub(super) fn did_you_mean(json: &Value) -> String {
    squashed(json.pointer("/query/searchinfo/suggestion"))
        .map(|s| format!(" Did you mean \"{}\"?", truncate(&s, MAX_SUGGESTION_CHARS)))
        .unwrap_or_default()
}

/// `query.pages` as a list; a missing `query` or `pages` means no pages (that is how the API
/// answers a search without matches). Accepts formatversion=1's object keyed by page id too.
pub(super) fn pages_of(json: &Value) -> Result<Vec<&Value>, ToolFailure> {
    let query = match json.get("query") {
        None => return Ok(Vec::new()),
        Some(q) if q.is_object() => q,
        Some(_) => return Err(ToolFailure::upstream(UNEXPECTED)),
    };
    match query.get("pages") {
        None => Ok(Vec::new()),
        Some(Value::Array(pages)) => Ok(pages.iter().collect()),
        Some(Value::Object(pages)) => Ok(pages.values().collect()),
        Some(_) => Err(ToolFailure::upstream(UNEXPECTED)),
    }
}
