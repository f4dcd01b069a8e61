//! The MediaWiki Action API: the request URLs, article links, and one GET that gives the
//! JSON object or a sentence saying what went wrong.

use percent_encoding::{utf8_percent_encode, AsciiSet};
use serde_json::Value;

use crate::tools::http::{url_with_query, HttpClient, ALL_BUT_UNRESERVED};
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

/// What a title keeps readable, like MediaWiki's `wfUrlencode`: unreserved characters and
/// `;@$!*(),/:`.
const TITLE: &AsciiSet = &ALL_BUT_UNRESERVED
    .remove(b';')
    .remove(b'@')
    .remove(b'$')
    .remove(b'!')
    .remove(b'*')
    .remove(b'(')
    .remove(b')')
    .remove(b',')
    .remove(b'/')
    .remove(b':');

/// Spaces become underscores; the rest is percent-encoded but `TITLE`'s readable characters.
pub(super) fn encode_title(title: &str) -> String {
    utf8_percent_encode(&title.trim().replace(' ', "_"), TITLE).to_string()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::http::encoded_keeping_only;

    #[test]
    fn a_title_is_written_the_way_mediawiki_links_it() {
        assert_eq!(
            encode_title(" C++ (language);@$!*,/:~-._ "),
            "C%2B%2B_(language);@$!*,/:~-._"
        );
        assert_eq!(encode_title("?#%&=+'\"é"), "%3F%23%25%26%3D%2B%27%22%C3%A9");
        assert!(encoded_keeping_only(
            &encode_title("a (b)/c:d?"),
            "-._~;@$!*(),/:"
        ));
    }

    // proptest is a host-only dev-dependency.
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]
        /// Any title is written with only `TITLE`'s readable characters and reads back as the
        /// title with its spaces made underscores.
        #[test]
        fn a_title_reads_back_and_keeps_only_its_set(s in "(?s)([ -~]|.){0,40}") {
            let encoded = encode_title(&s);
            proptest::prop_assert!(
                encoded_keeping_only(&encoded, "-._~;@$!*(),/:"),
                "{:?}",
                encoded
            );
            let title = s.trim().replace(' ', "_");
            let decoded = percent_encoding::percent_decode_str(&encoded).decode_utf8();
            proptest::prop_assert_eq!(decoded.as_deref(), Ok(title.as_str()));
        }
    }
}
