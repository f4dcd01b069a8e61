//! Reading a search: the best page's introduction, disambiguation pages named and skipped,
//! the other matches and the API's suggestion.

use serde_json::Value;

use super::api::{article_url, did_you_mean, pages_of};
use crate::tools::observation::{first_sentences, squash_whitespace, truncate};

pub(super) const INTRO_SENTENCES: usize = 5;
/// The intro is capped below the observation limit so the source and licence always survive.
pub(super) const MAX_INTRO_CHARS: usize = 1000;
pub(super) const LICENCE: &str = "text CC BY-SA 4.0";

pub(super) struct SearchOutcome {
    pub(super) observation: String,
    /// The page later lookups read.
    pub(super) page: Option<String>,
}

/// One search result, from a `query.pages[]` entry.
pub(super) struct Hit {
    /// Search rank (1 = best); pages arrive in page-id order, not rank order.
    pub(super) index: u64,
    pub(super) title: String,
    pub(super) extract: String,
    pub(super) url: Option<String>,
    pub(super) disambiguation: bool,
}

impl Hit {
    pub(super) fn from_page(page: &Value) -> Option<Hit> {
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

    pub(super) fn url(&self, api_url: &str) -> String {
        self.url
            .clone()
            .unwrap_or_else(|| article_url(api_url, &self.title))
    }
}

pub(super) fn read_search(
    json: &Value,
    query: &str,
    api_url: &str,
) -> Result<SearchOutcome, crate::tools::ToolFailure> {
    let mut hits: Vec<Hit> = pages_of(json)?
        .into_iter()
        .filter_map(Hit::from_page)
        .collect();
    hits.sort_by_key(|h| h.index); // stable: pages without an index keep their order, last

    let Some(top) = hits.first() else {
        return Ok(SearchOutcome {
            observation: format!(
                "No Wikipedia page matches \"{query}\".{}",
                did_you_mean(json)
            ),
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
