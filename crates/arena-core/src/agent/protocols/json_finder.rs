//! Finding JSON in a model's reply: the one place where the three protocols read a reply's
//! text as JSON.
//!
//! Before, each protocol had a reader of its own (the text protocol's `json_calls`, the native
//! protocol's `bare_object`, the JSON protocol's `find_steps`), and they disagreed: Hermes
//! `<tool_call>` tags in any case in one and only in lower case in another, code fences with any
//! language tag (closed or not) in one and only closed ```json fences in another. Now the
//! value, the fence and the tag are read here, one way, and a protocol says only where it looks:
//!
//! - [`whole_json`]: the reply is one JSON value and nothing else, bare, in a closed fence with
//!   no language tag or `json`, or in `<tool_call>` tags. The native protocol, where prose is
//!   the answer, takes a call written in its content only in this form.
//! - [`find_tool_call`], [`line_starts`] and [`leading_json`]: the value after `<tool_call>`,
//!   or one starting a line, fenced or not, with anything after it ignored (the text protocol,
//!   when a reply has no labels).
//! - [`json_starts`] and [`values_at`]: every `{` and `[` in order, and the value there with the
//!   objects that follow it (the JSON protocol, which finds its steps anywhere in prose).
//!
//! Every search tries a bounded number of places ([`MAX_STARTS`], [`MAX_LINES`]), and serde_json's
//! recursion limit bounds each parse, so no reply makes the search slow or overflows the stack.

use serde_json::Value;

/// How many `[`/`{` positions [`json_starts`] gives.
pub const MAX_STARTS: usize = 256;

/// How many lines [`line_starts`] gives.
pub const MAX_LINES: usize = 20;

const TOOL_CALL: &str = "<tool_call>";
const TOOL_CALL_END: &str = "</tool_call>";

/// The first JSON value at the start of `s`, and the text it spans; what follows it is ignored.
pub fn first_json(s: &str) -> Option<(Value, &str)> {
    let mut stream = serde_json::Deserializer::from_str(s).into_iter::<Value>();
    match stream.next() {
        Some(Ok(value)) => {
            let end = stream.byte_offset();
            Some((value, s.get(..end)?))
        }
        _ => None,
    }
}

/// A code fence at the start of a text: ``` (or more backticks), an optional language tag on
/// the same line, the body, and the closing ```.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence<'a> {
    /// The language tag (`""` when there is none); `None` when the body starts on the fence's
    /// own line (```{"a": 1}```).
    pub tag: Option<&'a str>,
    pub body: &'a str,
    /// Whether a closing ``` was found; an unclosed fence runs to the end of the text.
    pub closed: bool,
    /// The text after the closing fence.
    pub rest: &'a str,
}

/// The fence `s` starts with, if it starts with one.
pub fn fence(s: &str) -> Option<Fence<'_>> {
    let ticks = s.len() - s.trim_start_matches('`').len();
    if ticks < 3 {
        return None;
    }
    let after = &s[ticks..];
    let line_end = after.find('\n').unwrap_or(after.len());
    let tag = after[..line_end].trim();
    let is_tag = tag.is_empty()
        || (tag.chars().next().is_some_and(char::is_alphabetic)
            && tag
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '+' | '-' | '.' | '#')));
    let body = if is_tag && line_end < after.len() {
        &after[line_end + 1..]
    } else if is_tag && !tag.is_empty() {
        ""
    } else {
        after
    };
    let tag = is_tag.then_some(tag);
    Some(match body.find("```") {
        Some(end) => Fence {
            tag,
            body: &body[..end],
            closed: true,
            rest: body[end..].trim_start_matches('`'),
        },
        None => Fence {
            tag,
            body,
            closed: false,
            rest: "",
        },
    })
}

/// The body of the code fence `s` starts with (unclosed fences run to the end); `s` itself
/// when it starts with none.
pub fn unfence(s: &str) -> &str {
    fence(s).map_or(s, |f| f.body)
}

/// The JSON value a text starts with (after white space), in a code fence or not; anything
/// after it is ignored.
pub fn leading_json(s: &str) -> Option<Value> {
    let s = s.trim_start();
    let body = if s.starts_with("```") { unfence(s) } else { s };
    first_json(body.trim()).map(|(value, _)| value)
}

/// The one JSON value the whole of `content` is: bare, in a closed fence with no language tag
/// or `json`, or in `<tool_call>` tags (the closing tag may be missing). A value with prose
/// around it, a truncated value, or one in a fence of another language is not.
pub fn whole_json(content: &str) -> Option<Value> {
    let mut s = content.trim();
    if starts_with_ci(s, TOOL_CALL) {
        let inner = s[TOOL_CALL.len()..].trim();
        s = strip_suffix_ci(inner, TOOL_CALL_END)
            .unwrap_or(inner)
            .trim();
    }
    if s.starts_with("```") {
        let f = fence(s)?;
        let json_tag = f
            .tag
            .is_none_or(|t| t.is_empty() || t.eq_ignore_ascii_case("json"));
        if !f.closed || !f.rest.trim().is_empty() || !json_tag {
            return None;
        }
        s = f.body.trim();
    }
    if !s.starts_with(['{', '[']) {
        return None;
    }
    let (value, raw) = first_json(s)?;
    (raw.len() == s.len()).then_some(value)
}

/// The first `<tool_call>` tag (in any case): where it starts, the text after it, and how many
/// such tags the content holds.
pub fn find_tool_call(content: &str) -> Option<(usize, &str, usize)> {
    // ASCII lower-casing keeps every byte where it was, so offsets carry over.
    let lower = content.to_ascii_lowercase();
    let at = lower.find(TOOL_CALL)?;
    let count = lower.matches(TOOL_CALL).count();
    Some((at, &content[at + TOOL_CALL.len()..], count))
}

/// Where the first [`MAX_LINES`] lines that start (after white space) with `{`, `[` or a
/// code fence start.
pub fn line_starts(content: &str) -> impl Iterator<Item = usize> + '_ {
    content
        .split_inclusive('\n')
        .scan(0, |offset, line| {
            let start = *offset;
            *offset += line.len();
            Some((start, line))
        })
        .filter_map(|(start, line)| {
            let t = line.trim_start();
            (t.starts_with(['{', '[']) || t.starts_with("```"))
                .then(|| start + (line.len() - t.len()))
        })
        .take(MAX_LINES)
}

/// Where the first [`MAX_STARTS`] `{` and `[` of `text` are, in order.
pub fn json_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.char_indices()
        .filter(|(_, c)| matches!(c, '[' | '{'))
        .map(|(i, _)| i)
        .take(MAX_STARTS)
}

/// The JSON value starting at byte `start` of `text` and, if it is an object, the objects that
/// follow it separated by white space or a comma (models that write one step after another
/// without a list).
pub fn values_at(text: &str, start: usize) -> Option<Vec<Value>> {
    let (first, raw) = first_json(text.get(start..)?)?;
    let mut end = start + raw.len();
    let mut values = vec![first];
    if values[0].is_object() {
        loop {
            let rest = &text[end..];
            let skipped = rest.trim_start();
            let skipped = skipped.strip_prefix(',').unwrap_or(skipped).trim_start();
            if !skipped.starts_with('{') {
                break;
            }
            match first_json(skipped) {
                Some((v @ Value::Object(_), raw)) => {
                    values.push(v);
                    end += rest.len() - skipped.len() + raw.len();
                }
                _ => break,
            }
        }
    }
    Some(values)
}

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.as_bytes()
        .get(..prefix.len())
        .is_some_and(|h| h.eq_ignore_ascii_case(prefix.as_bytes()))
}

fn strip_suffix_ci<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = s.len().checked_sub(suffix.len())?;
    (s.is_char_boundary(cut) && s[cut..].eq_ignore_ascii_case(suffix)).then(|| &s[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CALL: &str = r#"{"name": "calculator", "arguments": {"input": "6*7"}}"#;

    fn call() -> Value {
        json!({"name": "calculator", "arguments": {"input": "6*7"}})
    }

    /// Every value the JSON protocol's search finds in `text`.
    fn anywhere(text: &str) -> Vec<Vec<Value>> {
        json_starts(text)
            .filter_map(|at| values_at(text, at))
            .collect()
    }

    /// The values the text protocol's search finds in `text`.
    fn at_lines(text: &str) -> Vec<Value> {
        line_starts(text)
            .filter_map(|at| leading_json(&text[at..]))
            .collect()
    }

    #[test]
    fn the_forms_every_protocol_reads() {
        for text in [
            CALL.to_string(),
            format!("  {CALL}\n"),
            format!("```json\n{CALL}\n```"),
            format!("```JSON\n{CALL}\n```\n"),
            format!("```\n{CALL}\n```"),
            format!("```{CALL}```"),
            format!("<tool_call>\n{CALL}\n</tool_call>"),
            format!("<TOOL_CALL>{CALL}</Tool_Call>"),
            format!("<tool_call>\n{CALL}"),
            format!("<tool_call>\n```json\n{CALL}\n```\n</tool_call>"),
            format!("[{CALL}]"),
        ] {
            let want = if text.contains('[') {
                json!([call()])
            } else {
                call()
            };
            assert_eq!(whole_json(&text), Some(want.clone()), "{text}");
            let after_tag = find_tool_call(&text).map_or(text.as_str(), |(_, after, _)| after);
            assert_eq!(leading_json(after_tag), Some(want), "{text}");
            assert!(
                anywhere(&text).iter().any(|v| v.contains(&call())),
                "{text}"
            );
        }
    }

    #[test]
    fn whole_json_is_only_a_reply_that_is_json() {
        for text in [
            String::new(),
            "The answer is 42.".into(),
            format!("Sure: {CALL}"),
            format!("{CALL} and more"),
            format!("{CALL}\n{CALL}"),
            format!("```python\n{CALL}\n```"),
            format!("```json\n{CALL}"),
            format!("```json\n{CALL}\n```\nDone."),
            "42".into(),
            r#""text""#.into(),
            "{\"name\": \"calculator\", \"arguments\": {\"input\": \"1\"}".into(),
        ] {
            assert_eq!(whole_json(&text), None, "{text}");
        }
    }

    #[test]
    fn json_after_prose_in_a_fence() {
        let text = format!("I will compute it.\nHere is the call:\n```json\n{CALL}\n```\nWait.");
        assert_eq!(whole_json(&text), None);
        // The fence's line and the JSON's own line both start with it.
        assert_eq!(at_lines(&text), vec![call(), call()]);
        assert_eq!(anywhere(&text)[0], vec![call()]);
        // Mid-line, only the JSON protocol's search looks.
        let inline = format!("The call is {CALL} as you see.");
        assert_eq!(at_lines(&inline), Vec::<Value>::new());
        assert_eq!(anywhere(&inline)[0], vec![call()]);
    }

    #[test]
    fn braces_inside_strings_are_text() {
        let text = r#"Prose } with { a brace, then {"a": "x}y{", "b": ["]", "["]} end"#;
        let found = anywhere(text);
        assert_eq!(found[0], vec![json!({"a": "x}y{", "b": ["]", "["]})]);
        // Later starts inside the value are tried too; the one inside a string fails.
        assert_eq!(found[1..], [vec![json!(["]", "["])]]);
        let (value, raw) = first_json(r#"{"a": "}"} {"b": 1}"#).unwrap();
        assert_eq!((value, raw), (json!({"a": "}"}), r#"{"a": "}"}"#));
    }

    #[test]
    fn several_objects_one_after_another() {
        let text = r#"{"a": 1}, {"b": 2}
            {"c": 3} [4]"#;
        assert_eq!(
            values_at(text, 0),
            Some(vec![json!({"a": 1}), json!({"b": 2}), json!({"c": 3})])
        );
        // A list is one value; what follows it is not gathered.
        assert_eq!(values_at("[1] {\"a\": 1}", 0), Some(vec![json!([1])]));
        // The objects gathered stop at the first one cut short.
        assert_eq!(
            values_at(r#"{"a": 1} {"b": 2"#, 0),
            Some(vec![json!({"a": 1})])
        );
    }

    #[test]
    fn truncated_and_unbalanced_json_is_not_read() {
        for text in [
            r#"{"a": [1, 2"#,
            r#"{"a": "unterminated"#,
            "{{{{ [[[[",
            "}}}} ]]]] {",
            "{] [}",
            "```json\n{\"a\": ",
        ] {
            assert_eq!(whole_json(text), None, "{text}");
            assert_eq!(leading_json(text), None, "{text}");
            assert_eq!(anywhere(text), Vec::<Vec<Value>>::new(), "{text}");
        }
        // The whole values inside a list cut short are still there to be found.
        let cut = r#"[{"a": 1}, {"b": "#;
        assert_eq!(anywhere(cut), vec![vec![json!({"a": 1})]]);
    }

    #[test]
    fn deep_nesting_is_refused_without_a_stack_overflow() {
        for open in ["[", "{\"a\":"] {
            let deep = open.repeat(100_000);
            assert_eq!(whole_json(&deep), None);
            assert_eq!(leading_json(&deep), None);
            assert_eq!(anywhere(&deep), Vec::<Vec<Value>>::new());
            assert_eq!(json_starts(&deep).count(), MAX_STARTS);
        }
        let closed = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(whole_json(&closed), None);
        // Nesting within serde_json's limit is read.
        let ok = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        assert!(whole_json(&ok).is_some());
    }

    #[test]
    fn searches_are_bounded() {
        let lines = "{x}\n".repeat(1_000);
        assert_eq!(line_starts(&lines).count(), MAX_LINES);
        let text = "{a} ".repeat(10_000) + r#"{"a": 1}"#;
        assert_eq!(anywhere(&text), Vec::<Vec<Value>>::new());
    }

    #[test]
    fn fences() {
        let f = fence("```json\n{}\n```\nafter").unwrap();
        assert_eq!(
            f,
            Fence {
                tag: Some("json"),
                body: "{}\n",
                closed: true,
                rest: "\nafter"
            }
        );
        assert_eq!(fence("````py\nx\n````").unwrap().rest, "");
        assert_eq!(fence("```{}```").unwrap().tag, None);
        assert!(!fence("```\nx").unwrap().closed);
        assert_eq!(fence("``x``"), None);
        assert_eq!(unfence("```python\nprint(1)\n```"), "print(1)\n");
        assert_eq!(unfence("```python"), "");
        assert_eq!(unfence("no fence"), "no fence");
    }

    #[test]
    fn tool_call_tags_in_any_case_and_multibyte_text() {
        let text = "é <Tool_Call>{\"a\": 1}</tool_call> <tool_call>{\"b\": 2}";
        let (at, after, count) = find_tool_call(text).unwrap();
        assert_eq!(&text[at..at + TOOL_CALL.len()], "<Tool_Call>");
        assert_eq!(leading_json(after), Some(json!({"a": 1})));
        assert_eq!(count, 2);
        assert_eq!(find_tool_call("none here"), None);
        assert_eq!(strip_suffix_ci("é", "</tool_call>"), None);
        assert_eq!(strip_suffix_ci("ééééééé", "</tool_call>"), None);
    }
}
