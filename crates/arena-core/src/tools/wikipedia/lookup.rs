//! Lookup: the article's plain text in sentences, and the next sentence holding a keyword.

use serde_json::Value;

use super::api::{pages_of, UNEXPECTED};
use super::Cursor;
use crate::tools::observation::squash_whitespace;
use crate::tools::ToolFailure;

/// The plain-text article from a `prop=extracts` answer for `title`.
pub(super) fn full_text(json: &Value, title: &str) -> Result<String, ToolFailure> {
    let pages = pages_of(json)?;
    let Some(page) = pages.first() else {
        return Err(ToolFailure::upstream(UNEXPECTED));
    };
    if page.get("missing").is_some() {
        return Err(ToolFailure::not_found(format!(
            "Wikipedia has no page titled \"{title}\" any more."
        )));
    }
    page.get("extract")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| ToolFailure::upstream(UNEXPECTED))
}

/// The next sentence containing `keyword` (case-insensitive); a new keyword starts over.
pub(super) fn next_match(
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

pub(super) fn ends_with_abbreviation(before_dot: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
