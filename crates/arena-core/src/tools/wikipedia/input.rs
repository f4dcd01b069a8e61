//! What the model asked for: `search: …` or `lookup: …`, as text or a JSON object.

use serde_json::Value;

use crate::tools::json_read::first_str;
use crate::tools::observation::{squash_whitespace, truncate};

/// Longest query or keyword accepted: titles and keywords are short, longer input is a mistake.
pub const MAX_INPUT_CHARS: usize = 300;

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

pub(super) fn from_json_object(map: &serde_json::Map<String, Value>) -> Result<Command, String> {
    let text = first_str(map, &["query", "keyword", "input", "q"]).unwrap_or_default();
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

pub(super) fn from_text(text: &str) -> Command {
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

pub(super) fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// Squashes whitespace and drops one pair of surrounding quotes (models often quote titles).
pub(super) fn clean(text: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
