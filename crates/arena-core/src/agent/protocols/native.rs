//! Native tool calls (OpenAI `tools`): the request's `tools` array, turning a call's JSON
//! arguments into a tool's input string, and recognising models that write a tool call as JSON
//! in their content instead of sending `tool_calls`.

use serde_json::{json, Map, Value};

use super::json_finder::whole_json;
use super::tool_json::{
    arguments_input, call_parts, is_finish_name, no_input, object_in_string, shown_input,
};

use crate::llm::tool_calls::ToolCall;
use crate::tools::ToolSpec;

/// The OpenAI `tools` request parameter for `specs`.
pub fn tools_param(specs: &[ToolSpec]) -> Value {
    Value::Array(
        specs
            .iter()
            .map(|s| {
                json!({
                    "type": "function",
                    "function": {
                        "name": s.name,
                        "description": s.description,
                        "parameters": s.parameters,
                    }
                })
            })
            .collect(),
    )
}

/// The input string for the tool `call` names, from its JSON arguments.
///
/// `{"input": "…"}` gives the string; an object with one field, or with exactly one string
/// field, gives that field; numbers and booleans give their text; a JSON string gives itself
/// (or, if it holds a JSON object, what that object gives: some servers encode twice); an
/// array of plain values gives them joined with ", ". Arguments that are not JSON but are not
/// empty and do not start with `{` or `[` are taken as the input itself (some models send the
/// raw string). `Err` is a message for the model.
pub fn call_input(call: &ToolCall) -> Result<String, String> {
    let name = &call.name;
    let args = call.arguments.trim();
    if args.is_empty() {
        return Err(no_input(name));
    }
    match serde_json::from_str::<Value>(args) {
        Ok(value) => arguments_input(name, &value),
        Err(_) if !args.starts_with(['{', '[']) => Ok(args.to_string()),
        Err(e) => Err(format!(
            "The arguments of {name} are not valid JSON: {e}. Send {{\"input\": \"…\"}}."
        )),
    }
}

/// A native call as the loop runs it: the text shown for it ([`call_input`]) and the arguments
/// the tool is given. The arguments are the call's JSON (a twice-encoded object decoded), or
/// its raw text when that is not JSON. An object of fields that gives no one input text (the
/// empty object of a tool without parameters among them) is shown as its JSON and still given
/// to the tool, whose schema decides whether it fits.
pub fn planned_call(call: &ToolCall) -> (Result<String, String>, Value) {
    let raw = call.arguments.trim();
    let args = match serde_json::from_str::<Value>(raw) {
        Ok(Value::String(s)) => object_in_string(&s).unwrap_or(Value::String(s)),
        Ok(value) => value,
        Err(_) => Value::String(raw.to_string()),
    };
    // Only arguments that are broken JSON cannot be read at all; the tool's schema judges
    // the rest, and they are shown as every protocol shows them.
    let broken = serde_json::from_str::<Value>(raw).is_err() && raw.starts_with(['{', '[']);
    let input = match call_input(call) {
        Err(e) if broken => Err(e),
        _ => Ok(shown_input(&args)),
    };
    (input, args)
}

/// A reply whose whole content is one tool call written as JSON (possibly in a ```json fence
/// or `<tool_call>` tags), as models do that "call" tools in content instead of `tool_calls`.
/// Recognised shapes (extra fields allowed; a one-element list of one of them too):
/// `{"name": …, "arguments" | "parameters": …}`, `{"tool": …, "tool_input": …}`,
/// `{"function": {"name": …, "arguments": …}}`, `{"action": …, "action_input": …}`.
/// Returns the tool name, its input as shown and its arguments as written (which the tool's
/// schema reads); `None` for anything else, and for LangChain's
/// `{"action": "Final Answer", …}` (see [`bare_json_answer`]).
pub fn bare_json_call(content: &str) -> Option<(String, String, Value)> {
    let obj = bare_object(content)?;
    let (name, args) = call_parts(&obj)?;
    if is_finish_name(&name) {
        return None;
    }
    let input = match args {
        Value::Null => String::new(),
        Value::Object(m) if m.is_empty() => String::new(),
        other => arguments_input(&name, other).ok()?,
    };
    let args = args.clone();
    Some((name, input, args))
}

/// LangChain's JSON-agent answer `{"action": "Final Answer", "action_input": "…"}` written as
/// the whole content: the answer text.
pub fn bare_json_answer(content: &str) -> Option<String> {
    let obj = bare_object(content)?;
    let (name, args) = call_parts(&obj)?;
    if !is_finish_name(&name) {
        return None;
    }
    match args {
        Value::String(s) => Some(s.clone()),
        other => arguments_input(&name, other).ok(),
    }
}

/// The one JSON object the whole content is (or a list of just one object).
fn bare_object(content: &str) -> Option<Map<String, Value>> {
    match whole_json(content)? {
        Value::Object(m) => Some(m),
        Value::Array(mut items) if items.len() == 1 => match items.pop()? {
            Value::Object(m) => Some(m),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: "call_0".into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    fn input(arguments: &str) -> Result<String, String> {
        call_input(&call("calculator", arguments))
    }

    #[test]
    fn tools_param_is_the_openai_shape() {
        let specs = vec![
            ToolSpec::new("calculator", "Does sums.", "an expression"),
            ToolSpec::new("weather", "Weather.", "a place"),
        ];
        let v = tools_param(&specs);
        assert_eq!(v.as_array().unwrap().len(), 2);
        assert_eq!(v[0]["type"], "function");
        assert_eq!(v[0]["function"]["name"], "calculator");
        assert_eq!(v[0]["function"]["description"], "Does sums.");
        assert_eq!(
            v[0]["function"]["parameters"]["properties"]["input"]["type"],
            "string"
        );
        assert_eq!(v[1]["function"]["parameters"]["required"][0], "input");
        assert_eq!(tools_param(&[]), json!([]));
    }

    #[test]
    fn call_input_shapes() {
        let ok = |a: &str, want: &str| assert_eq!(input(a).as_deref(), Ok(want), "{a:?}");
        ok(r#"{"input": "6*7"}"#, "6*7");
        ok(r#"  {"input":"6*7"}  "#, "6*7");
        ok(r#"{"expression": "6*7"}"#, "6*7");
        ok(r#"{"input": 42}"#, "42");
        ok(r#"{"input": 2.5}"#, "2.5");
        ok(r#"{"input": -3}"#, "-3");
        ok(r#"{"input": true}"#, "true");
        ok(r#"{"x": 7}"#, "7");
        ok(r#"{"input": "a", "other": "b"}"#, "a");
        ok(r#"{"query": "Paris", "limit": 5}"#, "Paris");
        ok(r#"{"input": ["1", 2, true]}"#, "1, 2, true");
        ok(r#"{"input": {"a": 1}}"#, r#"{"a":1}"#);
        ok(r#"{"input": [{"a": 1}]}"#, r#"[{"a":1}]"#);
        ok(r#"{"input": ""}"#, "");
        ok(r#""6*7""#, "6*7");
        ok("42", "42");
        ok(r#"["Paris", "France"]"#, "Paris, France");
        // Encoded twice.
        ok(r#""{\"input\": \"6*7\"}""#, "6*7");
        // Raw text instead of JSON.
        ok("6*7", "6*7");
        ok("Paris, France", "Paris, France");
        ok("  sqrt(2)  ", "sqrt(2)");
        ok("é😀", "é😀");
    }

    #[test]
    fn call_input_errors() {
        let err = |a: &str| input(a).expect_err(a);
        assert!(err("").contains("without an input"));
        assert!(err("   ").contains("without an input"));
        assert!(err("{}").contains("without an input"));
        assert!(err("null").contains("without an input"));
        assert!(err("[]").contains("without an input"));
        assert!(err(r#"{"input": null}"#).contains("without an input"));
        let e = err(r#"{"input": "6*7""#);
        assert!(
            e.starts_with("The arguments of calculator are not valid JSON: "),
            "{e}"
        );
        assert!(err("[1, 2").contains("not valid JSON"));
        assert!(err(r#"{"a": 1, "b": 2}"#).contains("fields a, b"));
        assert!(err(r#"[{"a": 1}]"#).contains("list of objects"));
    }

    #[test]
    fn a_call_with_no_arguments_reaches_the_tool_whose_schema_decides() {
        // A tool without parameters (an MCP server's `read_notes`) is called with `{}`.
        let (input, args) = planned_call(&call("read_notes", "{}"));
        assert_eq!(input.as_deref(), Ok("{}"));
        assert_eq!(args, json!({}));
        // A one-text tool still hears that it needs an input, from the registry's reading.
        assert!(
            crate::tools::args::read("calculator", &crate::tools::text_parameters("x"), &args)
                .unwrap_err()
                .contains("without an input")
        );
    }

    #[test]
    fn call_input_huge_string() {
        let big = "9".repeat(200_000);
        assert_eq!(input(&format!(r#"{{"input": "{big}"}}"#)), Ok(big.clone()));
        assert_eq!(input(&big).unwrap().len(), 200_000);
        let deep = "[".repeat(10_000);
        assert!(input(&deep).is_err()); // recursion limit: an error, no panic
    }

    fn bare(s: &str) -> Option<(String, String)> {
        bare_json_call(s).map(|(name, input, _)| (name, input))
    }

    fn some(name: &str, input: &str) -> Option<(String, String)> {
        Some((name.into(), input.into()))
    }

    #[test]
    fn bare_json_call_shapes() {
        let cases = [
            (
                r#"{"name": "calculator", "arguments": {"input": "6*7"}}"#,
                some("calculator", "6*7"),
            ),
            (
                r#"{"name": "calculator", "arguments": "{\"input\": \"6*7\"}"}"#,
                some("calculator", "6*7"),
            ),
            (
                r#"{"name": "calculator", "arguments": "6*7"}"#,
                some("calculator", "6*7"),
            ),
            (
                r#"{"name": "weather", "parameters": {"location": "Paris"}}"#,
                some("weather", "Paris"),
            ),
            (
                r#"{"tool": "weather", "tool_input": "Paris"}"#,
                some("weather", "Paris"),
            ),
            (
                r#"{"tool": "weather", "tool_input": {"input": "Paris"}}"#,
                some("weather", "Paris"),
            ),
            (
                r#"{"function": {"name": "calculator", "arguments": {"input": "1+1"}}}"#,
                some("calculator", "1+1"),
            ),
            (
                r#"{"type": "function", "function": {"name": "calculator", "arguments": "{\"input\":\"2\"}"}}"#,
                some("calculator", "2"),
            ),
            (
                r#"{"action": "web_search", "action_input": "capital of France"}"#,
                some("web_search", "capital of France"),
            ),
            (
                r#"{"action": "calculator", "action_input": 12}"#,
                some("calculator", "12"),
            ),
            (
                "```json\n{\"name\": \"calculator\", \"arguments\": {\"input\": \"3\"}}\n```",
                some("calculator", "3"),
            ),
            (
                "```\n{\"name\": \"calculator\", \"arguments\": {\"input\": \"3\"}}\n```",
                some("calculator", "3"),
            ),
            (
                "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"input\": \"4\"}}\n</tool_call>",
                some("calculator", "4"),
            ),
            (
                r#"[{"name": "calculator", "arguments": {"input": "5"}}]"#,
                some("calculator", "5"),
            ),
            (
                r#"{"name": "python", "arguments": {}}"#,
                some("python", ""),
            ),
            (
                r#"{"name": "python", "arguments": null}"#,
                some("python", ""),
            ),
            (
                r#"{"name": " calculator ", "arguments": {"input": "6"}, "explanation": "x"}"#,
                some("calculator", "6"),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(bare(text), want, "{text}");
        }
    }

    #[test]
    fn bare_json_call_rejects_everything_else() {
        for text in [
            "",
            "The answer is 42.",
            "null",
            "42",
            r#""calculator""#,
            "[]",
            "{}",
            r#"{"name": "Alice", "age": 3}"#,
            r#"{"name": 5, "arguments": {}}"#,
            r#"{"name": "", "arguments": {}}"#,
            r#"{"name": null, "arguments": "x"}"#,
            r#"{"tool": ["calculator"], "tool_input": "1"}"#,
            r#"{"function": {"name": "calculator"}}"#,
            r#"{"function": "not an object"}"#,
            r#"[{"name": "a", "arguments": "1"}, {"name": "b", "arguments": "2"}]"#,
            r#"[1]"#,
            r#"Sure: {"name": "calculator", "arguments": {"input": "1"}}"#,
            r#"{"name": "calculator", "arguments": {"input": "1"}} and more"#,
            "```python\n{\"name\": \"calculator\", \"arguments\": \"1\"}\n```",
            "```json\n{\"name\": \"calculator\", \"arguments\": \"1\"}",
            r#"{"name": "calculator", "arguments": {"a": 1, "b": 2}}"#,
            r#"{"name": "calculator", "arguments": [{"x": 1}]}"#,
            r#"{"action": "Final Answer", "action_input": "Paris"}"#,
            "{\"name\": \"calculator\", \"arguments\": {\"input\": \"1\"}",
        ] {
            assert_eq!(bare(text), None, "{text}");
        }
    }

    #[test]
    fn bare_json_call_huge_and_odd() {
        let big = "x".repeat(100_000);
        let text = format!(r#"{{"name": "python", "arguments": {{"input": "{big}"}}}}"#);
        assert_eq!(bare(&text), some("python", &big));
        assert_eq!(bare(&"{".repeat(5_000)), None);
        assert_eq!(bare(&"[".repeat(5_000)), None);
        assert_eq!(
            bare(r#"{"name": "calculator", "arguments": [1, 2.5, false]}"#),
            some("calculator", "1, 2.5, false")
        );
    }

    #[test]
    fn bare_json_answer_is_langchain_final_answer() {
        assert_eq!(
            bare_json_answer(r#"{"action": "Final Answer", "action_input": "Paris"}"#).as_deref(),
            Some("Paris")
        );
        assert_eq!(
            bare_json_answer("```json\n{\"action\": \"final_answer\", \"action_input\": 42}\n```")
                .as_deref(),
            Some("42")
        );
        assert_eq!(
            bare_json_answer(r#"{"action": "calculator", "action_input": "1"}"#),
            None
        );
        assert_eq!(bare_json_answer("Paris"), None);
    }
}
