//! The `web_search` tool: DuckDuckGo Instant Answers, with Wikipedia full-text search as the
//! fallback when DuckDuckGo has nothing useful.
//!
//! DuckDuckGo's API sends no CORS header but answers JSONP (`callback=`). Its script runs only
//! in a sandboxed iframe without `allow-same-origin` (`ui::jsonp`, `public/search-frame.*`),
//! which hands back the JSON by `postMessage`; this file builds the URL and reads the JSON.
//! Response fields: https://duckduckgo.com/duckduckgo-help-pages/open-source/instant-answer-interface/
//! and the API's own examples (`Heading`, `AbstractText`, `AbstractURL`, `AbstractSource`,
//! `Answer`, `Definition`, `DefinitionURL`, `RelatedTopics`, `Results`).

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::http::{url_with_query, FetchError, HttpClient};
use super::json_read::{first_str, squashed};
use super::observation::{squash_whitespace, truncate, MAX_OBSERVATION_CHARS};
use super::wikipedia::fulltext_search;
use super::{TextInput, ToolFailure, TypedTool};

pub const DEFAULT_API_URL: &str = "https://api.duckduckgo.com/";
const MAX_QUERY_CHARS: usize = 300;
const MAX_RELATED: usize = 5;

/// Fetches a JSONP URL in isolation and returns the JSON it passed to the callback.
/// The implementation appends the `callback` parameter itself.
pub trait JsonpClient {
    fn get<'a>(&'a self, url: &'a str) -> LocalBoxFuture<'a, Result<String, FetchError>>;
}

pub struct WebSearch {
    jsonp: Rc<dyn JsonpClient>,
    http: Rc<dyn HttpClient>,
    api_url: String,
    wikipedia_api_url: String,
}

impl WebSearch {
    pub fn new(
        jsonp: Rc<dyn JsonpClient>,
        http: Rc<dyn HttpClient>,
        api_url: impl Into<String>,
        wikipedia_api_url: impl Into<String>,
    ) -> Self {
        Self {
            jsonp,
            http,
            api_url: api_url.into(),
            wikipedia_api_url: wikipedia_api_url.into(),
        }
    }
}

impl TypedTool for WebSearch {
    const NAME: &'static str = "web_search";
    const DESCRIPTION: &'static str = "Searches the web for a short factual answer (DuckDuckGo Instant Answers; falls back to Wikipedia search).";
    const INPUT_HINT: &'static str = "a search query, e.g. height of the Eiffel Tower";
    type Args = TextInput;

    fn run(&self, args: TextInput) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
        Box::pin(async move { self.search(&args.input).await })
    }
}

impl WebSearch {
    /// The observation for the query in `input`, or a readable error.
    pub async fn search(&self, input: &str) -> Result<String, ToolFailure> {
        let query = read_query(input).map_err(ToolFailure::bad_arguments)?;
        let why_fallback = match self
            .jsonp
            .get(&instant_answer_url(&self.api_url, &query))
            .await
        {
            Ok(json) => match summarise(&json) {
                Ok(Some(found)) => return Ok(truncate(&found, MAX_OBSERVATION_CHARS)),
                Ok(None) => "DuckDuckGo has no instant answer for this query".to_string(),
                Err(e) => e,
            },
            Err(e) => e.describe("DuckDuckGo"),
        };
        let wiki = fulltext_search(self.http.as_ref(), &self.wikipedia_api_url, &query)
            .await
            // The fallback's failure is the call's: its kind, with both reasons told.
            .map_err(|e| {
                e.map_message(|m| format!("{why_fallback}; the Wikipedia fallback failed too: {m}"))
            })?;
        Ok(truncate(
            &format!("{why_fallback}; searched Wikipedia instead. {wiki}"),
            MAX_OBSERVATION_CHARS,
        ))
    }
}

fn read_query(input: &str) -> Result<String, String> {
    let trimmed = input.trim();
    let query = match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => first_str(&map, &["query", "q", "input"])
            .unwrap_or_default()
            .to_string(),
        Ok(Value::String(s)) => s,
        _ => trimmed.trim_matches(|c| c == '"' || c == '\'').to_string(),
    };
    let query = squash_whitespace(&query);
    if query.is_empty() {
        return Err("The search query is empty. Put what to search for in Action Input.".into());
    }
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(format!(
            "The search query is longer than {MAX_QUERY_CHARS} characters; use a few keywords."
        ));
    }
    Ok(query)
}

/// The Instant Answer URL, without the callback (the JSONP client adds it).
pub fn instant_answer_url(api_url: &str, query: &str) -> String {
    url_with_query(
        api_url,
        &[
            ("q", query),
            ("format", "json"),
            ("no_html", "1"),
            ("skip_disambig", "1"),
            ("t", "react-arena"),
        ],
    )
}

/// Reads an Instant Answer response. `Ok(None)`: valid but nothing useful in it.
pub fn summarise(json: &str) -> Result<Option<String>, String> {
    let v: Value = serde_json::from_str(json)
        .map_err(|_| "DuckDuckGo returned something that is not JSON".to_string())?;
    if !v.is_object() {
        return Err("DuckDuckGo returned an unexpected response".into());
    }
    let text = |key: &str| squashed(v.get(key));
    let mut parts = Vec::new();
    if let Some(answer) = text("Answer") {
        parts.push(format!("Answer: {answer}."));
    }
    if let Some(abstract_text) = text("AbstractText") {
        let source = text("AbstractSource").unwrap_or_else(|| "source".into());
        let cite = text("AbstractURL").map_or(String::new(), |u| format!(" ({source}: {u})"));
        let heading = text("Heading").map_or(String::new(), |h| format!("{h}: "));
        parts.push(format!("{heading}{abstract_text}{cite}"));
    }
    if let Some(definition) = text("Definition") {
        let cite = text("DefinitionURL").map_or(String::new(), |u| format!(" ({u})"));
        parts.push(format!("Definition: {definition}{cite}"));
    }
    let related = related_topics(&v);
    if !related.is_empty() {
        let list: Vec<String> = related
            .iter()
            .enumerate()
            .map(|(i, (text, url))| format!("{}. {text} ({url})", i + 1))
            .collect();
        parts.push(format!("Related: {}", list.join(" ")));
    }
    if parts.is_empty() {
        return Ok(None);
    }
    Ok(Some(format!("DuckDuckGo: {}", parts.join(" "))))
}

/// `Results` first, then `RelatedTopics`, flattening the named groups DuckDuckGo nests.
fn related_topics(v: &Value) -> Vec<(String, String)> {
    fn collect(items: &Value, out: &mut Vec<(String, String)>) {
        for item in items.as_array().into_iter().flatten() {
            if out.len() >= MAX_RELATED {
                return;
            }
            if let Some(topics) = item.get("Topics") {
                collect(topics, out);
                continue;
            }
            let text = item
                .get("Text")
                .and_then(Value::as_str)
                .map(squash_whitespace);
            let url = item.get("FirstURL").and_then(Value::as_str);
            if let (Some(text), Some(url)) = (text, url) {
                if !text.is_empty() && (url.starts_with("https://") || url.starts_with("http://")) {
                    out.push((text, url.to_string()));
                }
            }
        }
    }
    let mut out = Vec::new();
    collect(&v["Results"], &mut out);
    collect(&v["RelatedTopics"], &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::http::fake::FakeHttp;
    use futures::executor::block_on;
    use std::cell::RefCell;

    const EIFFEL: &str = include_str!("../../../../tests/fixtures/web_search/eiffel_tower.json");
    const EMPTY: &str = include_str!("../../../../tests/fixtures/web_search/empty.json");
    const ANSWER: &str = include_str!("../../../../tests/fixtures/web_search/answer.json");
    const WIKI_SEARCH: &str =
        include_str!("../../../../tests/fixtures/wikipedia/fulltext_search.json");

    struct FakeJsonp {
        answer: Result<String, FetchError>,
        urls: RefCell<Vec<String>>,
    }

    impl JsonpClient for FakeJsonp {
        fn get<'a>(&'a self, url: &'a str) -> LocalBoxFuture<'a, Result<String, FetchError>> {
            self.urls.borrow_mut().push(url.to_string());
            let answer = self.answer.clone();
            Box::pin(async move { answer })
        }
    }

    fn search(
        answer: Result<&str, FetchError>,
        http: FakeHttp,
        input: &str,
    ) -> (Result<String, String>, Vec<String>) {
        let jsonp = Rc::new(FakeJsonp {
            answer: answer.map(str::to_string),
            urls: RefCell::default(),
        });
        let tool = WebSearch::new(
            jsonp.clone(),
            Rc::new(http),
            "https://ddg.test/",
            "https://en.wiki.test/w/api.php",
        );
        let out = block_on(tool.search(input)).map_err(|f| f.message);
        let urls = jsonp.urls.borrow().clone();
        (out, urls)
    }

    #[test]
    fn builds_the_instant_answer_url() {
        assert_eq!(
            instant_answer_url("https://api.duckduckgo.com/", "Eiffel Tower height"),
            "https://api.duckduckgo.com/?q=Eiffel%20Tower%20height&format=json&no_html=1&skip_disambig=1&t=react-arena"
        );
    }

    #[test]
    fn abstract_with_source_and_related_topics() {
        let (out, urls) = search(Ok(EIFFEL), FakeHttp::new(), "Eiffel Tower");
        let out = out.unwrap();
        assert!(urls[0].contains("q=Eiffel%20Tower"));
        assert!(out.starts_with("DuckDuckGo: Eiffel Tower: "), "{out}");
        assert!(
            out.contains("(Wikipedia: https://en.wikipedia.org/wiki/Eiffel_Tower)"),
            "{out}"
        );
        assert!(out.contains("Related: 1. "), "{out}");
        assert!(out.matches(" (https://duckduckgo.com/").count() <= MAX_RELATED);
    }

    #[test]
    fn direct_answers_come_first() {
        let (out, _) = search(Ok(ANSWER), FakeHttp::new(), r#"{"query": "2+2"}"#);
        assert!(out.unwrap().starts_with("DuckDuckGo: Answer: "));
    }

    #[test]
    fn nothing_useful_falls_back_to_wikipedia_and_says_so() {
        let http = FakeHttp::new().route("list=search", 200, WIKI_SEARCH);
        let (out, _) = search(Ok(EMPTY), http, "Things Fall Apart");
        let out = out.unwrap();
        assert!(
            out.starts_with(
                "DuckDuckGo has no instant answer for this query; searched Wikipedia instead."
            ),
            "{out}"
        );
        assert!(out.contains("Wikipedia search results"), "{out}");
    }

    #[test]
    fn the_wikipedia_fallback_passes_on_its_suggestion() {
        let body = include_str!("../../../../tests/fixtures/wikipedia/fulltext_chest_set.json");
        let http = FakeHttp::new().route("list=search&srsearch=chest%20set&", 200, body);
        let (out, _) = search(Ok(EMPTY), http, "chest set");
        assert_eq!(
            out.unwrap(),
            "DuckDuckGo has no instant answer for this query; searched Wikipedia instead. \
             Wikipedia has no results for \"chest set\". Did you mean \"chess set\"?"
        );
    }

    #[test]
    fn an_unreachable_duckduckgo_also_falls_back() {
        let http = FakeHttp::new().route("list=search", 200, WIKI_SEARCH);
        let (out, _) = search(Err(FetchError::Timeout { seconds: 8 }), http, "x");
        assert!(out
            .unwrap()
            .starts_with("DuckDuckGo did not answer within 8 s.; searched Wikipedia instead."));
    }

    #[test]
    fn both_failing_is_a_readable_error() {
        let http = FakeHttp::new().route("list=search", 503, "<html>down</html>");
        let (out, _) = search(Ok("<html>not json</html>"), http, "x");
        let e = out.unwrap_err();
        assert!(
            e.contains("not JSON") && e.contains("Wikipedia fallback failed"),
            "{e}"
        );
    }

    #[test]
    fn bad_queries_are_refused_before_any_request() {
        let (out, urls) = search(Ok(EMPTY), FakeHttp::new(), "   ");
        assert!(out.unwrap_err().contains("empty"));
        assert!(urls.is_empty());
        let (out, _) = search(Ok(EMPTY), FakeHttp::new(), &"a ".repeat(400));
        assert!(out.unwrap_err().contains("longer than"));
    }

    #[test]
    fn odd_json_never_panics() {
        for body in ["null", "[]", "{}", "{\"RelatedTopics\": 5}", "{\"RelatedTopics\": [{\"Topics\": null}, 3, {\"Text\": \"t\", \"FirstURL\": \"javascript:x\"}]}", "{\"AbstractText\": 7}"] {
            let _ = summarise(body);
        }
        assert_eq!(summarise("{}"), Ok(None));
        assert_eq!(
            summarise("{\"RelatedTopics\": [{\"Text\": \"t\", \"FirstURL\": \"javascript:x\"}]}"),
            Ok(None),
            "only web links are cited"
        );
    }
}
