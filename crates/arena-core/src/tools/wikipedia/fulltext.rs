//! Full-text search listing titles, plain snippets and article URLs (the `web_search`
//! fallback).

use serde_json::Value;

use super::api::{article_url, did_you_mean, fulltext_url, get_json, UNEXPECTED};
use super::html::strip_html;
use crate::tools::http::HttpClient;
use crate::tools::observation::{squash_whitespace, truncate, MAX_OBSERVATION_CHARS};
use crate::tools::ToolFailure;

pub(super) const MAX_RESULTS: usize = 5;

/// Lists the top matches of a full-text search with their snippets and article URLs.
pub async fn fulltext_search(
    http: &dyn HttpClient,
    api_url: &str,
    query: &str,
) -> Result<String, ToolFailure> {
    let query = squash_whitespace(query);
    if query.is_empty() {
        return Err(ToolFailure::bad_arguments("The search query is empty."));
    }
    let json = get_json(http, &fulltext_url(api_url, &query)).await?;
    read_fulltext(&json, &query, api_url).map(|s| truncate(&s, MAX_OBSERVATION_CHARS))
}

pub(super) fn read_fulltext(
    json: &Value,
    query: &str,
    api_url: &str,
) -> Result<String, ToolFailure> {
    let hits: &[Value] = match json.get("query") {
        None => &[],
        Some(q) if q.is_object() => match q.get("search") {
            None => &[],
            Some(Value::Array(hits)) => hits,
            Some(_) => return Err(ToolFailure::upstream(UNEXPECTED)),
        },
        Some(_) => return Err(ToolFailure::upstream(UNEXPECTED)),
    };
    let items: Vec<String> = hits
        .iter()
        .filter_map(|hit| {
            let title = squash_whitespace(hit.get("title")?.as_str()?);
            let snippet = hit
                .get("snippet")
                .and_then(Value::as_str)
                .map(strip_html)
                .unwrap_or_default();
            (!title.is_empty()).then_some((title, snippet))
        })
        .take(MAX_RESULTS)
        .enumerate()
        .map(|(i, (title, snippet))| {
            let url = article_url(api_url, &title);
            if snippet.is_empty() {
                format!("{}. {title} ({url})", i + 1)
            } else {
                format!("{}. {title} — {snippet} ({url})", i + 1)
            }
        })
        .collect();
    if items.is_empty() {
        return Ok(format!(
            "Wikipedia has no results for \"{query}\".{}",
            did_you_mean(json)
        ));
    }
    Ok(format!(
        "Wikipedia search results for \"{query}\": {}",
        items.join(" ")
    ))
}
