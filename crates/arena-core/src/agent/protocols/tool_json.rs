//! Tool calls written as JSON, read the same way by all three protocols: the keys a call's
//! tool name and arguments go by, which names mean "the final answer" or "no tool", and how a
//! written tool name is cleaned (how a JSON arguments value becomes a tool's text is
//! `tools::arguments_text`).
//! Before, each protocol had its own lists and rules, and the same reply could be a call in
//! one and an error in another.

use serde_json::{Map, Value};

// How a JSON arguments value becomes a tool's text is the tools' own rule; the protocols read
// it from there.
pub use crate::tools::arguments_text::{arguments_input, no_input, object_in_string, shown_input};

/// Keys that name the tool, in the order they are tried (OpenAI, Llama, LangChain, Hermes,
/// the JSON reaction protocol, and what small models write instead).
pub const NAME_KEYS: [&str; 6] = ["action", "name", "tool", "tool_name", "function", "command"];

/// Keys that hold the arguments, in the order they are tried.
pub const ARGUMENT_KEYS: [&str; 9] = [
    "action_input",
    "arguments",
    "input",
    "args",
    "parameters",
    "params",
    "tool_input",
    "argument",
    "query",
];

/// A tool name that means the model is answering: `Final Answer`, `final_answer`, `finish`,
/// `answer`, `final response`, in any case and separator.
pub fn is_finish_name(name: &str) -> bool {
    let words: String = name
        .to_lowercase()
        .chars()
        .map(|c| if c == '_' || c == '-' { ' ' } else { c })
        .filter(|c| c.is_alphanumeric() || *c == ' ')
        .collect();
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    matches!(
        words.as_str(),
        "final answer" | "finalanswer" | "finish" | "answer" | "final response"
    )
}

/// A tool name that names no tool: empty, `None`, `N/A`, `no tool needed`, a dash…
pub fn names_no_tool(tool: &str) -> bool {
    let t = tool.trim().to_ascii_lowercase();
    let starts_word = |w: &str| {
        t.strip_prefix(w)
            .is_some_and(|r| !r.starts_with(|c: char| c.is_alphanumeric()))
    };
    t.is_empty()
        || matches!(
            t.as_str(),
            "n/a" | "na" | "null" | "nil" | "nothing" | "no" | "-" | "—" | "..." | "…"
        )
        || starts_word("none")
        || starts_word("n/a")
        || t.starts_with("no tool")
        || t.starts_with("no action")
}

/// A tool name as written, without the quotes, backticks, emphasis and punctuation around it
/// (its first line only).
pub fn clean_tool_name(name: &str) -> String {
    let line = name.lines().next().unwrap_or("");
    line.trim_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '`' | '"' | '\'' | '*' | '_' | '.' | ',' | ';' | ':' | '<' | '>' | '[' | ']'
            )
    })
    .to_string()
}

/// The tool name and the arguments of a call-shaped object: OpenAI's
/// `{"function": {"name", "arguments"}}`, or a name under one of [`NAME_KEYS`] with arguments
/// under one of [`ARGUMENT_KEYS`]. `None` when it has no name or no arguments.
pub fn call_parts(obj: &Map<String, Value>) -> Option<(String, &Value)> {
    if let Some(Value::Object(inner)) = obj.get("function") {
        return call_parts(inner);
    }
    let name = NAME_KEYS.iter().find_map(|k| {
        obj.get(*k)
            .and_then(Value::as_str)
            .map(clean_tool_name)
            .filter(|n| !n.is_empty())
    })?;
    let args = ARGUMENT_KEYS.iter().find_map(|k| obj.get(*k))?;
    Some((name, args))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Before, `finish` was an answer in the text and JSON protocols but a tool in native
    /// content, and `final response` only in the text protocol.
    #[test]
    fn every_protocol_knows_the_same_answer_names() {
        for name in [
            "Final Answer",
            "final_answer",
            "FINAL-ANSWER",
            "finalAnswer",
            "finish",
            "answer",
            "Final Response",
            " final  answer ",
        ] {
            assert!(is_finish_name(name), "{name}");
        }
        for name in ["calculator", "final", "answers", "finish_line", ""] {
            assert!(!is_finish_name(name), "{name}");
        }
    }

    /// Before, the JSON protocol did not take `no tool needed` or `-` as naming no tool.
    #[test]
    fn every_protocol_knows_the_same_no_tool_names() {
        for name in ["", "None", "none needed", "N/A", "no tool needed", "-", "…"] {
            assert!(names_no_tool(name), "{name}");
        }
        for name in ["nonexistent_tool", "notes", "calculator"] {
            assert!(!names_no_tool(name), "{name}");
        }
    }

    /// Before, `tool_name`/`command` and `params`/`query` were keys only in the text
    /// protocol's reader, `argument` only in the JSON protocol's.
    #[test]
    fn one_reader_for_call_shaped_objects() {
        let cases = [
            (
                json!({"name": "calculator", "arguments": {"expression": "2+2"}}),
                "calculator",
            ),
            (
                json!({"function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}}),
                "weather",
            ),
            (
                json!({"action": "wikipedia", "action_input": "Eiffel Tower"}),
                "wikipedia",
            ),
            (
                json!({"tool_name": "`python`", "params": {"code": "1"}}),
                "python",
            ),
            (
                json!({"command": "web_search", "query": "rust"}),
                "web_search",
            ),
            (
                json!({"tool": "calculator", "argument": "1+1"}),
                "calculator",
            ),
        ];
        for (value, tool) in cases {
            let Value::Object(obj) = &value else {
                unreachable!()
            };
            let (name, args) = call_parts(obj).unwrap_or_else(|| panic!("{value}"));
            assert_eq!(name, tool);
            assert!(arguments_input(&name, args).is_ok(), "{value}");
        }
        let Value::Object(no_args) = json!({"name": "calculator"}) else {
            unreachable!()
        };
        assert!(call_parts(&no_args).is_none());
    }
}
