//! The `wikipedia` tool: ReAct's `search` / `lookup` over the MediaWiki Action API, plus the
//! full-text search that `web_search` falls back to.
//!
//! Everything here is pure Rust over [`HttpClient`], so it runs the same in the browser and in
//! host tests. Requests are cross-origin GETs: `origin=*` makes the API answer with CORS headers
//! for anonymous requests, and `Api-User-Agent` identifies us because a browser may not set
//! `User-Agent`. Response shapes (`format=json&formatversion=2`):
//! https://www.mediawiki.org/wiki/API:Query , https://www.mediawiki.org/wiki/API:Search ,
//! https://www.mediawiki.org/wiki/Extension:TextExtracts#API ,
//! https://www.mediawiki.org/wiki/API:Pageprops ; fixtures in `tests/fixtures/wikipedia/`.
//!
//! Parsing goes through `serde_json::Value` and never indexes blindly: a response of the wrong
//! shape is an `Err` sentence for the model, never a panic.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::http::{url_with_query, HttpClient};
use super::observation::{first_sentences, squash_whitespace, truncate, MAX_OBSERVATION_CHARS};
use super::{TextInput, TypedTool};

pub const DEFAULT_API_URL: &str = "https://en.wikipedia.org/w/api.php";
/// Longest query or keyword accepted: titles and keywords are short, longer input is a mistake.
pub const MAX_INPUT_CHARS: usize = 300;

/// Wikimedia asks API clients to identify themselves; browsers forbid setting `User-Agent`.
const USER_AGENT_HEADER: (&str, &str) = ("Api-User-Agent", "ReActArena/0.1 (browser app)");
const SEARCH_LIMIT: &str = "5";
const MAX_RESULTS: usize = 5;
const INTRO_SENTENCES: usize = 5;
/// The intro is capped below the observation limit so the source and licence always survive.
const MAX_INTRO_CHARS: usize = 1000;
const LICENCE: &str = "text CC BY-SA 4.0";
const UNEXPECTED: &str = "Wikipedia returned an unexpected response.";
const NO_PAGE_YET: &str = "Search for a page first, then look up a keyword in it.";

// ---------------------------------------------------------------------------------------------
// Input

/// What the model asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Search(String),
    Lookup(String),
}

/// Reads `search: q`, `search[q]`, `lookup: k`, `lookup[k]` (any case), a JSON object
/// `{"action": "search"|"lookup", "query"|"keyword"|"input": …}`, or plain text (a search).
pub fn parse_input(input: &str) -> Result<Command, String> {
    let trimmed = input.trim();
    let command = match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => from_json_object(&map)?,
        Ok(Value::String(s)) => from_text(&s),
        _ => from_text(trimmed),
    };
    let (Command::Search(text) | Command::Lookup(text)) = &command;
    if text.is_empty() {
        return Err(
            "The wikipedia tool needs a query: use search: <topic> or lookup: <keyword>.".into(),
        );
    }
    if text.chars().count() > MAX_INPUT_CHARS {
        return Err(format!(
            "The wikipedia query is longer than {MAX_INPUT_CHARS} characters; use a title or a few keywords."
        ));
    }
    Ok(command)
}

fn from_json_object(map: &serde_json::Map<String, Value>) -> Result<Command, String> {
    let text = ["query", "keyword", "input", "q"]
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str))
        .unwrap_or_default();
    let action = map
        .get("action")
        .and_then(Value::as_str)
        .map(|a| a.trim().to_ascii_lowercase());
    match action.as_deref() {
        Some("search") => Ok(Command::Search(clean(text))),
        Some("lookup") => Ok(Command::Lookup(clean(text))),
        Some(other) => Err(format!(
            "Unknown wikipedia action \"{}\"; use search or lookup.",
            truncate(other, 40)
        )),
        // No action: a `keyword` means lookup; otherwise the text may itself say `lookup: …`.
        None if map.get("keyword").is_some_and(Value::is_string) => {
            Ok(Command::Lookup(clean(text)))
        }
        None => Ok(from_text(text)),
    }
}

fn from_text(text: &str) -> Command {
    let t = text.trim();
    for word in ["search", "lookup"] {
        let Some(rest) = strip_prefix_ignore_case(t, word) else {
            continue;
        };
        let rest = rest.trim_start();
        let argument = if let Some(inner) = rest.strip_prefix('[') {
            let inner = inner.trim_end();
            inner.strip_suffix(']').unwrap_or(inner)
        } else if let Some(inner) = rest.strip_prefix(':') {
            inner
        } else {
            continue; // "searching for …" is plain text
        };
        let argument = clean(argument);
        return if word == "lookup" {
            Command::Lookup(argument)
        } else {
            Command::Search(argument)
        };
    }
    Command::Search(clean(t))
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// Squashes whitespace and drops one pair of surrounding quotes (models often quote titles).
fn clean(text: &str) -> String {
    let t = text.trim();
    let pairs = [('"', '"'), ('\'', '\''), ('“', '”'), ('‘', '’')];
    let unquoted = pairs
        .iter()
        .find_map(|&(open, close)| {
            t.strip_prefix(open)
                .and_then(|inner| inner.strip_suffix(close))
        })
        .unwrap_or(t);
    squash_whitespace(unquoted)
}

// ---------------------------------------------------------------------------------------------
// Requests

/// One request for the 5 best matches with their intros, disambiguation flags and URLs.
pub fn search_url(api_url: &str, query: &str) -> String {
    url_with_query(
        api_url,
        &[
            ("action", "query"),
            ("format", "json"),
            ("formatversion", "2"),
            ("origin", "*"),
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
    url_with_query(
        api_url,
        &[
            ("action", "query"),
            ("format", "json"),
            ("formatversion", "2"),
            ("origin", "*"),
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
fn origin_of(url: &str) -> &str {
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
fn encode_title(title: &str) -> String {
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

/// GETs `url` and returns the JSON object, or a sentence saying what went wrong.
async fn get_json(http: &dyn HttpClient, url: &str) -> Result<Value, String> {
    let response = http
        .get(url, &[USER_AGENT_HEADER])
        .await
        .map_err(|e| e.describe("Wikipedia"))?;
    if !response.is_success() {
        return Err(match response.status {
            429 => "Wikipedia answered HTTP 429 (too many requests); wait before trying again."
                .to_string(),
            s @ 500..=599 => {
                format!("Wikipedia answered HTTP {s} (a server error); try again later.")
            }
            s => format!("Wikipedia answered HTTP {s}."),
        });
    }
    let json: Value = serde_json::from_str(&response.body)
        .map_err(|_| format!("{UNEXPECTED} It was not JSON."))?;
    if let Some(info) = api_error(&json) {
        return Err(format!("Wikipedia reported an error: {info}"));
    }
    if !json.is_object() {
        return Err(UNEXPECTED.into());
    }
    Ok(json)
}

/// The message of an API error: `{"error": {"code", "info"}}`, or `{"errors": [{"text"}]}` when
/// a non-default `errorformat` is in play.
fn api_error(json: &Value) -> Option<String> {
    let error = json
        .get("error")
        .filter(|e| e.is_object())
        .or_else(|| json.get("errors").and_then(|e| e.get(0)))?;
    let text = ["info", "text", "*", "code"]
        .iter()
        .find_map(|k| error.get(*k).and_then(Value::as_str))
        .map(squash_whitespace)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown error".into());
    Some(truncate(&text, 300))
}

/// `query.pages` as a list; a missing `query` or `pages` means no pages (that is how the API
/// answers a search without matches). Accepts formatversion=1's object keyed by page id too.
fn pages_of(json: &Value) -> Result<Vec<&Value>, String> {
    let query = match json.get("query") {
        None => return Ok(Vec::new()),
        Some(q) if q.is_object() => q,
        Some(_) => return Err(UNEXPECTED.into()),
    };
    match query.get("pages") {
        None => Ok(Vec::new()),
        Some(Value::Array(pages)) => Ok(pages.iter().collect()),
        Some(Value::Object(pages)) => Ok(pages.values().collect()),
        Some(_) => Err(UNEXPECTED.into()),
    }
}

// ---------------------------------------------------------------------------------------------
// The tool

/// One per agent run: remembers the page last found and where `lookup` has got to in it.
pub struct Wikipedia {
    http: Rc<dyn HttpClient>,
    api_url: String,
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    page: Option<PageState>,
    cursor: Option<Cursor>,
}

struct PageState {
    title: String,
    /// The article's sentences, fetched on the first lookup.
    sentences: Option<Rc<Vec<String>>>,
}

/// Where the lookups for one keyword have got to.
struct Cursor {
    keyword: String,
    matches: Vec<String>,
    next: usize,
}

impl Wikipedia {
    pub fn new(http: Rc<dyn HttpClient>, api_url: impl Into<String>) -> Self {
        Self {
            http,
            api_url: api_url.into(),
            state: RefCell::default(),
        }
    }

    async fn search(&self, query: &str) -> Result<String, String> {
        let json = get_json(self.http.as_ref(), &search_url(&self.api_url, query)).await?;
        let found = read_search(&json, query, &self.api_url)?;
        // A new answer replaces the page (even "nothing found"), so lookups never silently
        // search an older page. No RefCell borrow is held across an await.
        *self.state.borrow_mut() = State {
            page: found.page.map(|title| PageState {
                title,
                sentences: None,
            }),
            cursor: None,
        };
        Ok(found.observation)
    }

    async fn lookup(&self, keyword: &str) -> Result<String, String> {
        let (title, cached) = {
            let state = self.state.borrow();
            let page = state.page.as_ref().ok_or(NO_PAGE_YET)?;
            (page.title.clone(), page.sentences.clone())
        };
        let sentences = match cached {
            Some(sentences) => sentences,
            None => {
                let json =
                    get_json(self.http.as_ref(), &full_text_url(&self.api_url, &title)).await?;
                let sentences = Rc::new(split_sentences(&full_text(&json, &title)?));
                let mut state = self.state.borrow_mut();
                if let Some(page) = state.page.as_mut().filter(|p| p.title == title) {
                    page.sentences = Some(sentences.clone());
                }
                sentences
            }
        };
        let mut state = self.state.borrow_mut();
        Ok(next_match(&mut state.cursor, &sentences, keyword, &title))
    }
}

impl TypedTool for Wikipedia {
    const NAME: &'static str = "wikipedia";
    const DESCRIPTION: &'static str = "Wikipedia: `search: <topic>` reads the best-matching article's introduction; `lookup: <keyword>` then gives, one per call, the next sentence of that article containing the keyword.";
    const INPUT_HINT: &'static str = "search: <topic or title>, or lookup: <keyword> (in the page last found), e.g. search: Things Fall Apart";
    type Args = TextInput;

    fn run(&self, args: TextInput) -> LocalBoxFuture<'_, Result<String, String>> {
        Box::pin(async move { self.answer(&args.input).await })
    }
}

impl Wikipedia {
    /// The observation for the search or lookup in `input`, or a readable error.
    pub async fn answer(&self, input: &str) -> Result<String, String> {
        let observation = match parse_input(input)? {
            Command::Search(query) => self.search(&query).await?,
            Command::Lookup(keyword) => self.lookup(&keyword).await?,
        };
        Ok(truncate(&observation, MAX_OBSERVATION_CHARS))
    }
}

// ---------------------------------------------------------------------------------------------
// Reading a search

struct SearchOutcome {
    observation: String,
    /// The page later lookups read.
    page: Option<String>,
}

/// One search result, from a `query.pages[]` entry.
struct Hit {
    /// Search rank (1 = best); pages arrive in page-id order, not rank order.
    index: u64,
    title: String,
    extract: String,
    url: Option<String>,
    disambiguation: bool,
}

impl Hit {
    fn from_page(page: &Value) -> Option<Hit> {
        if page.get("missing").is_some() || page.get("invalid").is_some() {
            return None;
        }
        let title = squash_whitespace(page.get("title")?.as_str()?);
        if title.is_empty() {
            return None;
        }
        Some(Hit {
            index: page
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(u64::MAX),
            title,
            extract: page
                .get("extract")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            // Only web links are cited; anything else is rebuilt from the title.
            url: page
                .get("fullurl")
                .and_then(Value::as_str)
                .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
                .map(str::to_string),
            disambiguation: page
                .get("pageprops")
                .and_then(|p| p.get("disambiguation"))
                .is_some(),
        })
    }

    fn url(&self, api_url: &str) -> String {
        self.url
            .clone()
            .unwrap_or_else(|| article_url(api_url, &self.title))
    }
}

fn read_search(json: &Value, query: &str, api_url: &str) -> Result<SearchOutcome, String> {
    let mut hits: Vec<Hit> = pages_of(json)?
        .into_iter()
        .filter_map(Hit::from_page)
        .collect();
    hits.sort_by_key(|h| h.index); // stable: pages without an index keep their order, last

    let Some(top) = hits.first() else {
        let mut observation = format!("No Wikipedia page matches \"{query}\".");
        let suggestion = json
            .pointer("/query/searchinfo/suggestion")
            .and_then(Value::as_str)
            .map(squash_whitespace)
            .filter(|s| !s.is_empty());
        if let Some(suggestion) = suggestion {
            observation.push_str(&format!(" Did you mean \"{suggestion}\"?"));
        }
        return Ok(SearchOutcome {
            observation,
            page: None,
        });
    };

    let Some(best) = hits.iter().find(|h| !h.disambiguation) else {
        // Only disambiguation pages: name them and ask for a specific title. The top page stays
        // readable, since its full text lists the meanings and `lookup` can search them.
        let options: Vec<&str> = hits.iter().map(|h| h.title.as_str()).collect();
        let observation = format!(
            "Wikipedia: \"{}\" is ambiguous; every match is a disambiguation page. Options: {}. \
             Search for a specific title, or look up a keyword in \"{}\". (source: {}; {LICENCE})",
            top.title,
            options.join("; "),
            top.title,
            top.url(api_url),
        );
        return Ok(SearchOutcome {
            observation,
            page: Some(top.title.clone()),
        });
    };

    let mut observation = String::new();
    if top.disambiguation {
        observation.push_str(&format!(
            "\"{}\" is ambiguous; showing {}. ",
            top.title, best.title
        ));
    }
    let intro = first_sentences(&best.extract, INTRO_SENTENCES);
    let intro = if intro.is_empty() {
        "(no introduction available)".to_string()
    } else {
        truncate(&intro, MAX_INTRO_CHARS)
    };
    observation.push_str(&format!(
        "Wikipedia: {} — {intro} (source: {}; {LICENCE})",
        best.title,
        best.url(api_url)
    ));
    // The disambiguation page already named above is left out of the other matches.
    let others: Vec<&str> = hits
        .iter()
        .filter(|h| h.title != best.title && !(top.disambiguation && h.title == top.title))
        .map(|h| h.title.as_str())
        .collect();
    if !others.is_empty() {
        observation.push_str(&format!(" Other matches: {}.", others.join("; ")));
    }
    Ok(SearchOutcome {
        observation,
        page: Some(best.title.clone()),
    })
}

// ---------------------------------------------------------------------------------------------
// Lookup

/// The plain-text article from a `prop=extracts` answer for `title`.
fn full_text(json: &Value, title: &str) -> Result<String, String> {
    let pages = pages_of(json)?;
    let Some(page) = pages.first() else {
        return Err(UNEXPECTED.into());
    };
    if page.get("missing").is_some() {
        return Err(format!(
            "Wikipedia has no page titled \"{title}\" any more."
        ));
    }
    page.get("extract")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| UNEXPECTED.into())
}

/// The next sentence containing `keyword` (case-insensitive); a new keyword starts over.
fn next_match(
    cursor: &mut Option<Cursor>,
    sentences: &[String],
    keyword: &str,
    title: &str,
) -> String {
    let key = keyword.to_lowercase();
    if cursor.as_ref().is_some_and(|c| c.keyword != key) {
        *cursor = None;
    }
    let c = cursor.get_or_insert_with(|| Cursor {
        matches: sentences
            .iter()
            .filter(|s| s.to_lowercase().contains(&key))
            .cloned()
            .collect(),
        keyword: key,
        next: 0,
    });
    if c.matches.is_empty() {
        return format!("\"{keyword}\" does not appear in {title}.");
    }
    match c.matches.get(c.next) {
        Some(sentence) => {
            c.next += 1;
            format!("(result {} / {}) {sentence}", c.next, c.matches.len())
        }
        None => format!("No more results for \"{keyword}\"."),
    }
}

/// Splits plain article text into sentences, dropping `== Heading ==` lines. A sentence ends at
/// `.`, `!` or `?` (after any closing quote or bracket) before whitespace or the line's end,
/// except after an initial ("W. B. Yeats") or a common abbreviation ("Dr.").
pub fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut push = |s: &str| {
        let s = squash_whitespace(s);
        if !s.is_empty() {
            out.push(s);
        }
    };
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || (line.starts_with("==") && line.ends_with("==")) {
            continue;
        }
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let mut start = 0;
        for (k, &(i, c)) in chars.iter().enumerate() {
            if !matches!(c, '.' | '!' | '?') {
                continue;
            }
            let mut j = k + 1;
            while chars
                .get(j)
                .is_some_and(|&(_, q)| matches!(q, '"' | '\'' | '”' | '’' | ')' | ']'))
            {
                j += 1;
            }
            let end = match chars.get(j) {
                None => line.len(),
                Some(&(at, next)) if next.is_whitespace() => at,
                Some(_) => continue,
            };
            if c == '.' && ends_with_abbreviation(&line[start..i]) {
                continue;
            }
            push(&line[start..end]);
            start = end;
        }
        push(&line[start..]);
    }
    out
}

fn ends_with_abbreviation(before_dot: &str) -> bool {
    const ABBREVIATIONS: [&str; 14] = [
        "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "e.g", "i.e", "c", "ca", "mt",
    ];
    let word = before_dot
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or_default()
        .trim_start_matches(['(', '"', '\'', '“', '‘']);
    let mut letters = word.chars();
    let is_initial =
        matches!((letters.next(), letters.next()), (Some(l), None) if l.is_uppercase());
    is_initial || ABBREVIATIONS.contains(&word.to_lowercase().as_str())
}

// ---------------------------------------------------------------------------------------------
// Full-text search (the web_search fallback)

/// Lists the top matches of a full-text search with their snippets and article URLs.
pub async fn fulltext_search(
    http: &dyn HttpClient,
    api_url: &str,
    query: &str,
) -> Result<String, String> {
    let query = squash_whitespace(query);
    if query.is_empty() {
        return Err("The search query is empty.".into());
    }
    let json = get_json(http, &fulltext_url(api_url, &query)).await?;
    read_fulltext(&json, &query, api_url).map(|s| truncate(&s, MAX_OBSERVATION_CHARS))
}

fn read_fulltext(json: &Value, query: &str, api_url: &str) -> Result<String, String> {
    let hits: &[Value] = match json.get("query") {
        None => &[],
        Some(q) if q.is_object() => match q.get("search") {
            None => &[],
            Some(Value::Array(hits)) => hits,
            Some(_) => return Err(UNEXPECTED.into()),
        },
        Some(_) => return Err(UNEXPECTED.into()),
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
        let mut observation = format!("Wikipedia has no results for \"{query}\".");
        if let Some(s) = json
            .pointer("/query/searchinfo/suggestion")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
        {
            observation.push_str(&format!(" Did you mean \"{}\"?", squash_whitespace(s)));
        }
        return Ok(observation);
    }
    Ok(format!(
        "Wikipedia search results for \"{query}\": {}",
        items.join(" ")
    ))
}

/// Snippet HTML to plain text: tags dropped (search matches are `<span>`s), entities decoded
/// once (so an escaped `&lt;i&gt;` stays visible text), whitespace squashed.
pub fn strip_html(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        text.push_str(&rest[..lt]);
        match rest[lt..].find('>') {
            Some(gt) => rest = &rest[lt + gt + 1..],
            None => {
                // An unclosed `<` is not a tag: keep it as text.
                text.push_str(&rest[lt..]);
                rest = "";
            }
        }
    }
    text.push_str(rest);
    squash_whitespace(&decode_entities(&text))
}

fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let decoded = after
            .find(';')
            .filter(|&semi| semi <= 10)
            .and_then(|semi| decode_entity(&after[..semi]).map(|c| (c, semi)));
        match decoded {
            Some((c, semi)) => {
                out.push(c);
                rest = &after[semi + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn decode_entity(name: &str) -> Option<char> {
    let c = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "ndash" => '–',
        "mdash" => '—',
        "hellip" => '…',
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code).filter(|c| !c.is_control() || c.is_whitespace())?
        }
    };
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::http::fake::FakeHttp;
    use crate::tools::http::FetchError;
    use futures::executor::block_on;

    const SEARCH_TFA: &str =
        include_str!("../../../../tests/fixtures/wikipedia/search_things_fall_apart.json");
    const FULL_TFA: &str =
        include_str!("../../../../tests/fixtures/wikipedia/full_things_fall_apart.json");
    const SEARCH_MERCURY: &str =
        include_str!("../../../../tests/fixtures/wikipedia/search_mercury.json");
    const SEARCH_ALL_DISAMBIGUATION: &str =
        include_str!("../../../../tests/fixtures/wikipedia/search_all_disambiguation.json");
    const SEARCH_NOT_FOUND: &str =
        include_str!("../../../../tests/fixtures/wikipedia/search_not_found.json");
    const FULLTEXT: &str =
        include_str!("../../../../tests/fixtures/wikipedia/fulltext_search.json");
    const API_ERROR: &str = include_str!("../../../../tests/fixtures/wikipedia/error.json");

    const API: &str = "https://en.wikipedia.org/w/api.php";

    fn wiki(http: FakeHttp) -> (Wikipedia, Rc<FakeHttp>) {
        let http = Rc::new(http);
        (Wikipedia::new(http.clone(), API), http)
    }

    fn run(tool: &Wikipedia, input: &str) -> Result<String, String> {
        block_on(tool.answer(input))
    }

    /// The usual scripted Wikipedia: the Things Fall Apart search and its full text.
    fn tfa() -> FakeHttp {
        FakeHttp::new()
            .route("generator=search", 200, SEARCH_TFA)
            .route("titles=", 200, FULL_TFA)
    }

    #[test]
    fn builds_the_search_request_with_the_api_user_agent() {
        let (tool, http) = wiki(tfa());
        run(&tool, "search: Things Fall Apart").unwrap();
        let requests = http.requests.borrow();
        let (url, headers) = &requests[0];
        assert_eq!(
            url,
            "https://en.wikipedia.org/w/api.php?action=query&format=json&formatversion=2&origin=*\
             &generator=search&gsrsearch=Things%20Fall%20Apart&gsrlimit=5&gsrinfo=suggestion\
             &prop=extracts%7Cpageprops%7Cinfo&exintro=1&explaintext=1&exlimit=5\
             &ppprop=disambiguation&inprop=url&redirects=1"
        );
        assert_eq!(
            headers,
            &vec![(
                "Api-User-Agent".to_string(),
                "ReActArena/0.1 (browser app)".to_string()
            )]
        );
    }

    #[test]
    fn search_reads_the_best_page_and_cites_it() {
        let (tool, _) = wiki(tfa());
        let out = run(&tool, "search: Things Fall Apart").unwrap();
        assert!(
            out.starts_with(
                "Wikipedia: Things Fall Apart — Things Fall Apart is a novel by the Nigerian writer Chinua Achebe, first published in 1958. It tells"
            ),
            "{out}"
        );
        // Five sentences of the seven-sentence intro.
        assert!(out.contains("far beyond. (source: https://en.wikipedia.org/wiki/Things_Fall_Apart; text CC BY-SA 4.0)"), "{out}");
        assert!(!out.contains("founding work"), "{out}");
        // Ranked by `index`, not by the order pages arrive in.
        assert!(
            out.ends_with(
                " Other matches: Chinua Achebe; No Longer at Ease; Arrow of God; Okonkwo (Things Fall Apart)."
            ),
            "{out}"
        );
    }

    #[test]
    fn a_disambiguation_top_result_is_named_and_skipped() {
        let (tool, _) = wiki(FakeHttp::new().route("gsrsearch=Mercury", 200, SEARCH_MERCURY));
        let out = run(&tool, "Mercury").unwrap();
        assert!(
            out.starts_with(
                "\"Mercury\" is ambiguous; showing Mercury (planet). Wikipedia: Mercury (planet) — Mercury is the first planet from the Sun"
            ),
            "{out}"
        );
        assert!(out.contains("(source: https://en.wikipedia.org/wiki/Mercury_(planet);"));
        assert!(
            out.ends_with(" Other matches: Mercury (element); Mercury (mythology)."),
            "{out}"
        );
    }

    #[test]
    fn only_disambiguation_pages_lists_the_options_and_keeps_the_page_for_lookup() {
        let full = r#"{"batchcomplete":true,"query":{"pages":[{"pageid":104123,"ns":0,"title":"Springfield","extract":"Springfield may refer to:\nSpringfield, Illinois, the capital of Illinois\nSpringfield, Massachusetts, a city in New England"}]}}"#;
        let (tool, http) = wiki(
            FakeHttp::new()
                .route("generator=search", 200, SEARCH_ALL_DISAMBIGUATION)
                .route("titles=Springfield", 200, full),
        );
        let out = run(&tool, "search[Springfield]").unwrap();
        assert_eq!(
            out,
            "Wikipedia: \"Springfield\" is ambiguous; every match is a disambiguation page. \
             Options: Springfield; Springfield Township. Search for a specific title, or look up \
             a keyword in \"Springfield\". (source: https://en.wikipedia.org/wiki/Springfield; \
             text CC BY-SA 4.0)"
        );
        let out = run(&tool, "lookup[capital]").unwrap();
        assert_eq!(
            out,
            "(result 1 / 1) Springfield, Illinois, the capital of Illinois"
        );
        assert!(http.urls()[1].contains("titles=Springfield&"));
    }

    #[test]
    fn no_match_is_an_observation_with_the_suggestion() {
        let (tool, _) = wiki(FakeHttp::new().route("generator=search", 200, SEARCH_NOT_FOUND));
        assert_eq!(
            run(&tool, "search: Thngs Fal Apartt"),
            Ok("No Wikipedia page matches \"Thngs Fal Apartt\". Did you mean \"things fall apart\"?".into())
        );
        let (tool, _) =
            wiki(FakeHttp::new().route("generator=search", 200, r#"{"batchcomplete":true}"#));
        assert_eq!(
            run(&tool, "qwxzv"),
            Ok("No Wikipedia page matches \"qwxzv\".".into())
        );
        // Nothing was found, so there is no page to look things up in.
        assert_eq!(run(&tool, "lookup: x"), Err(NO_PAGE_YET.into()));
    }

    #[test]
    fn lookup_steps_through_matching_sentences_then_runs_out() {
        let (tool, http) = wiki(tfa());
        run(&tool, "search: Things Fall Apart").unwrap();
        assert_eq!(
            run(&tool, "lookup: Achebe").unwrap(),
            "(result 1 / 3) Things Fall Apart is a novel by the Nigerian writer Chinua Achebe, first published in 1958."
        );
        assert_eq!(
            run(&tool, "lookup[achebe]").unwrap(),
            "(result 2 / 3) Achebe continued the story of Umuofia in No Longer at Ease, published in 1960."
        );
        assert_eq!(
            run(&tool, "Lookup: ACHEBE").unwrap(),
            "(result 3 / 3) Achebe wrote the novel in the 1950s while working for the Nigerian Broadcasting Service."
        );
        assert_eq!(
            run(&tool, "lookup: Achebe").unwrap(),
            "No more results for \"Achebe\"."
        );
        // A new keyword starts over; headings are not sentences; `!` ends a sentence.
        assert_eq!(
            run(&tool, r#"{"action": "lookup", "keyword": "hero"}"#).unwrap(),
            "(result 1 / 1) Many readers see Okonkwo as a tragic hero!"
        );
        assert_eq!(
            run(&tool, "lookup: Plot").unwrap(),
            "\"Plot\" does not appear in Things Fall Apart."
        );
        // The full text was fetched once, with the lookup URL.
        let fetches: Vec<String> = http
            .urls()
            .into_iter()
            .filter(|u| u.contains("titles="))
            .collect();
        assert_eq!(
            fetches,
            vec!["https://en.wikipedia.org/w/api.php?action=query&format=json&formatversion=2&origin=*&prop=extracts&explaintext=1&titles=Things%20Fall%20Apart&redirects=1".to_string()]
        );
    }

    #[test]
    fn lookup_before_any_search_is_refused_without_a_request() {
        let (tool, http) = wiki(tfa());
        assert_eq!(
            run(&tool, "lookup: Achebe"),
            Err("Search for a page first, then look up a keyword in it.".into())
        );
        assert!(http.urls().is_empty());
    }

    #[test]
    fn a_new_search_resets_the_lookup() {
        let (tool, http) = wiki(tfa());
        run(&tool, "search: Things Fall Apart").unwrap();
        assert!(run(&tool, "lookup: Achebe")
            .unwrap()
            .starts_with("(result 1 / 3)"));
        run(&tool, "search: Things Fall Apart").unwrap();
        assert!(run(&tool, "lookup: Achebe")
            .unwrap()
            .starts_with("(result 1 / 3)"));
        assert_eq!(
            http.urls().iter().filter(|u| u.contains("titles=")).count(),
            2
        );
    }

    #[test]
    fn a_failed_full_text_fetch_is_an_error_and_is_retried() {
        let (tool, http) = wiki(
            FakeHttp::new()
                .route("generator=search", 200, SEARCH_TFA)
                .route("titles=", 503, "busy"),
        );
        run(&tool, "search: Things Fall Apart").unwrap();
        let e = run(&tool, "lookup: Achebe").unwrap_err();
        assert!(e.contains("503"), "{e}");
        let _ = run(&tool, "lookup: Achebe");
        assert_eq!(http.urls().len(), 3, "nothing cached after a failure");
    }

    #[test]
    fn fulltext_search_lists_titles_plain_snippets_and_urls() {
        let http = FakeHttp::new().route("list=search", 200, FULLTEXT);
        let out = block_on(fulltext_search(&http, API, "Things Fall Apart")).unwrap();
        assert_eq!(
            http.urls()[0],
            "https://en.wikipedia.org/w/api.php?action=query&list=search&srsearch=Things%20Fall%20Apart&srlimit=5&format=json&formatversion=2&origin=*&srprop=snippet"
        );
        assert!(
            out.starts_with(
                "Wikipedia search results for \"Things Fall Apart\": 1. Things Fall Apart — Things Fall Apart is a novel by the Nigerian writer Chinua Achebe, first published in 1958. It tells the story of Okonkwo, a proud wrestler (https://en.wikipedia.org/wiki/Things_Fall_Apart) 2. Chinua Achebe — "
            ),
            "{out}"
        );
        assert!(!out.contains("<span") && !out.contains("&quot;") && !out.contains("&amp;"));
        assert!(out.contains("appeared in 1958 & was soon read"), "{out}");
        assert!(
            out.contains("protagonist of \"Things Fall Apart\" and"),
            "{out}"
        );
        assert!(out.contains("the two writers' 1980 meeting"), "{out}");
        assert!(
            out.contains("and <i>race</i> ("),
            "escaped text stays text: {out}"
        );
        assert!(out.contains("(https://en.wikipedia.org/wiki/Okonkwo_(Things_Fall_Apart))"));
        assert!(out.contains("(https://en.wikipedia.org/wiki/Achebe%E2%80%93Baldwin_conversation)"));
        assert!(out.contains(" 5. The Second Coming (poem) — "), "{out}");
    }

    #[test]
    fn fulltext_urls_follow_the_configured_api_origin() {
        let http = FakeHttp::new().route("list=search", 200, FULLTEXT);
        let out = block_on(fulltext_search(
            &http,
            "http://127.0.0.1:8099/w/api.php",
            "Things Fall Apart",
        ))
        .unwrap();
        assert!(
            out.contains("(http://127.0.0.1:8099/wiki/Things_Fall_Apart)"),
            "{out}"
        );
        assert_eq!(article_url("/w/api.php", "A b"), "/wiki/A_b");
        assert_eq!(
            article_url("https://fr.wikipedia.org/w/api.php?x=1", "Ça & là"),
            "https://fr.wikipedia.org/wiki/%C3%87a_%26_l%C3%A0"
        );
    }

    #[test]
    fn fulltext_search_without_results() {
        let body = r#"{"batchcomplete":true,"query":{"searchinfo":{"totalhits":0},"search":[]}}"#;
        let http = FakeHttp::new().route("list=search", 200, body);
        assert_eq!(
            block_on(fulltext_search(&http, API, "zzqx")),
            Ok("Wikipedia has no results for \"zzqx\".".into())
        );
    }

    #[test]
    fn failures_are_readable_errors() {
        let cases: Vec<(FakeHttp, &str)> = vec![
            (FakeHttp::new().route("api.php", 500, "oops"), "HTTP 500"),
            (FakeHttp::new().route("api.php", 429, ""), "too many requests"),
            (
                FakeHttp::new().fail("api.php", FetchError::Timeout { seconds: 8 }),
                "Wikipedia did not answer within 8 s.",
            ),
            (
                FakeHttp::new().fail("api.php", FetchError::Network(String::new())),
                "Wikipedia could not be reached",
            ),
            (
                FakeHttp::new().route("api.php", 200, API_ERROR),
                "Wikipedia reported an error: An error has occurred while searching: Search is currently too busy.",
            ),
            (
                FakeHttp::new().route("api.php", 200, "<html>Bad gateway</html>"),
                "Wikipedia returned an unexpected response.",
            ),
            (
                FakeHttp::new().route("api.php", 200, "[1, 2]"),
                "Wikipedia returned an unexpected response.",
            ),
        ];
        for (http, expected) in cases {
            let http = Rc::new(http);
            let tool = Wikipedia::new(http.clone(), API);
            let e = run(&tool, "search: Things Fall Apart").unwrap_err();
            assert!(e.contains(expected), "{e:?} should contain {expected:?}");
            let e = block_on(fulltext_search(http.as_ref(), API, "x")).unwrap_err();
            assert!(e.contains(expected), "{e:?} should contain {expected:?}");
        }
    }

    #[test]
    fn input_forms() {
        let s = |q: &str| Ok(Command::Search(q.into()));
        let l = |q: &str| Ok(Command::Lookup(q.into()));
        assert_eq!(
            parse_input("search: Things Fall Apart"),
            s("Things Fall Apart")
        );
        assert_eq!(
            parse_input("Search[Things  Fall Apart]"),
            s("Things Fall Apart")
        );
        assert_eq!(parse_input("SEARCH : \"Mercury\""), s("Mercury"));
        assert_eq!(parse_input("lookup: 1958"), l("1958"));
        assert_eq!(parse_input("Lookup[Achebe]"), l("Achebe"));
        assert_eq!(parse_input("lookup[Achebe"), l("Achebe"));
        assert_eq!(parse_input("  Chinua Achebe "), s("Chinua Achebe"));
        assert_eq!(parse_input("'Mercury'"), s("Mercury"));
        assert_eq!(
            parse_input("searching for meaning"),
            s("searching for meaning")
        );
        assert_eq!(parse_input("\"lookup: planet\""), l("planet"));
        assert_eq!(
            parse_input(r#"{"action": "search", "query": "Mercury"}"#),
            s("Mercury")
        );
        assert_eq!(
            parse_input(r#"{"action": "Lookup", "query": "planet"}"#),
            l("planet")
        );
        assert_eq!(parse_input(r#"{"keyword": "planet"}"#), l("planet"));
        assert_eq!(parse_input(r#"{"input": "lookup: planet"}"#), l("planet"));
        assert_eq!(parse_input(r#"{"input": "Mercury"}"#), s("Mercury"));
        assert!(parse_input(r#"{"action": "edit", "query": "x"}"#)
            .unwrap_err()
            .contains("use search or lookup"));
        for empty in [
            "",
            "   ",
            "search:",
            "lookup[]",
            "{}",
            r#"{"action": "lookup"}"#,
            "\"\"",
        ] {
            let e = parse_input(empty).unwrap_err();
            assert!(e.contains("needs a query"), "{empty:?}: {e}");
        }
        assert!(parse_input(&"é".repeat(301))
            .unwrap_err()
            .contains("longer than 300"));
        assert!(parse_input(&"é".repeat(300)).is_ok());
    }

    #[test]
    fn sentences_split_at_ends_not_at_initials_or_headings() {
        assert_eq!(
            split_sentences(
                "A poem by W. B. Yeats gave the title. Dr. Smith agreed!\n\n== Reception ==\nHe said \"no.\" Then (briefly) left? Pi is 3.14 today"
            ),
            vec![
                "A poem by W. B. Yeats gave the title.",
                "Dr. Smith agreed!",
                "He said \"no.\"",
                "Then (briefly) left?",
                "Pi is 3.14 today",
            ]
        );
        assert!(split_sentences("").is_empty());
        assert!(split_sentences("== Only a heading ==").is_empty());
    }

    #[test]
    fn html_snippets_become_plain_text() {
        assert_eq!(
            strip_html("<span class=\"searchmatch\">Ça</span>  va &amp;amp; &#39;x&#x27; &#8212; 1 &lt; 2 &bogus; &#0; a & b <unclosed"),
            "Ça va &amp; 'x' — 1 < 2 &bogus; &#0; a & b <unclosed"
        );
    }

    #[test]
    fn long_text_is_cut_but_keeps_its_source() {
        let extract = "word ".repeat(5000);
        let body = serde_json::json!({"query": {"pages": [
            {"index": 1, "title": "Long", "extract": extract, "fullurl": "https://en.wikipedia.org/wiki/Long"}
        ]}})
        .to_string();
        let (tool, _) = wiki(FakeHttp::new().route("generator=search", 200, &body));
        let out = run(&tool, "Long").unwrap();
        assert!(
            out.chars().count() <= MAX_OBSERVATION_CHARS + 40,
            "{}",
            out.len()
        );
        assert!(
            out.ends_with("(source: https://en.wikipedia.org/wiki/Long; text CC BY-SA 4.0)"),
            "{out}"
        );
    }

    #[test]
    fn odd_responses_and_inputs_never_panic() {
        let huge = "é".repeat(200_000);
        let huge_json = serde_json::json!({"query": {
            "pages": [{"index": 1, "title": huge, "extract": huge, "fullurl": huge}],
            "search": [{"title": huge, "snippet": format!("<{huge}&#x{huge};")}],
        }})
        .to_string();
        let bodies = [
            "",
            "null",
            "[]",
            "{}",
            "\"text\"",
            "42",
            "{\"query\": null}",
            "{\"query\": []}",
            "{\"query\": {\"pages\": null, \"search\": null}}",
            "{\"query\": {\"pages\": [null, 1, \"x\", [], {}]}}",
            "{\"query\": {\"pages\": [{\"title\": 5}, {\"title\": \"\"}, {\"title\": \"T\", \"index\": \"1\", \"pageprops\": [], \"extract\": null, \"fullurl\": \"javascript:alert(1)\"}]}}",
            "{\"query\": {\"pages\": {\"12\": {\"title\": \"Keyed\", \"extract\": \"Old format.\"}}}}",
            "{\"query\": {\"pages\": [{\"title\": \"M\", \"missing\": true}], \"search\": [{\"snippet\": \"no title\"}, 7]}}",
            "{\"query\": {\"searchinfo\": {\"suggestion\": 3}}}",
            "{\"error\": null}",
            "{\"error\": {\"info\": 7}}",
            "{\"errors\": [{\"text\": \"Bad &lt;thing&gt;\"}]}",
            &huge_json,
        ];
        for body in bodies {
            let (tool, http) = wiki(FakeHttp::new().route("api.php", 200, body));
            for input in [
                "search: x",
                "lookup: x",
                "lookup: é",
                "search: x",
                "lookup: x",
            ] {
                let _ = run(&tool, input);
            }
            let _ = block_on(fulltext_search(http.as_ref(), API, "x"));
        }
        for input in [
            "search[",
            "lookup:",
            "[]",
            "{\"action\": 5}",
            "\u{0}",
            "é",
            "sé",
            "lookup\u{301}: x",
        ] {
            let _ = parse_input(input);
        }
        // Pages that are not objects or lack a title are skipped, not fatal.
        let (tool, _) = wiki(FakeHttp::new().route("api.php", 200, bodies[10]));
        let out = run(&tool, "search: T").unwrap();
        assert_eq!(
            out,
            "Wikipedia: T — (no introduction available) (source: https://en.wikipedia.org/wiki/T; text CC BY-SA 4.0)"
        );
    }
}
