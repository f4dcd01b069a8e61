//! Reading a model's reply in the JSON reaction protocol (Oori reActor style): a JSON list of
//! steps `{"action": "<tool or answer>", "arguments": ["…"], "explanation": "…"}`, several
//! tools per reply allowed.
//!
//! Models vary the format: a single object instead of a list, objects one after another
//! without a list (or a list with a trailing comma), code fences, prose before or after the
//! JSON, `arguments` as a list, a string, a number or an object. The first JSON value in the
//! reply that looks like steps is taken.

use serde_json::{Map, Value};

use super::json_finder::{json_starts, values_at};
use super::tool_json::{
    clean_tool_name, is_finish_name, names_no_tool, shown_input, ARGUMENT_KEYS, NAME_KEYS,
};

/// One tool call of a reaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonAction {
    pub tool: String,
    /// The arguments as the tool's input: several joined with ", ".
    pub input: String,
    /// The arguments as written, which the tool's schema reads (as a native call's are).
    pub args: Value,
    pub explanation: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonReaction {
    /// The tools to run, in order. If the reply also had an answer step, that answer is
    /// ignored: the model has not seen these tools' results yet, so it answers next step.
    Actions(Vec<JsonAction>),
    Answer {
        text: String,
        explanation: Option<String>,
    },
    /// Neither usable actions nor an answer; `problem` is told to the model.
    Invalid { problem: String },
}

/// The format description for the system prompt.
pub fn json_protocol_instructions() -> &'static str {
    r#"Reply with only a JSON list of steps. Each step is an object:
{"action": "<tool name>", "arguments": ["<input for the tool>"], "explanation": "<why>"}
You may call several tools in one reply; their results come back in the same order. Example:
[{"action": "calculator", "arguments": ["6*7"], "explanation": "Compute the product."},
 {"action": "weather", "arguments": ["Paris"], "explanation": "Check the weather in Paris."}]
When you know the answer, reply with a single step whose action is "answer":
[{"action": "answer", "arguments": ["6*7 is 42 and it is sunny in Paris."], "explanation": "Both results are in."}]"#
}

const SHAPE: &str = r#"[{"action": "<tool or answer>", "arguments": ["…"], "explanation": "…"}]"#;

const ANSWER_TEXT_KEYS: [&str; 3] = ["answer", "text", "content"];
const EXPLANATION_KEYS: [&str; 4] = ["explanation", "thought", "reason", "reasoning"];

/// Reads a reply.
pub fn parse_json_reaction(text: &str) -> JsonReaction {
    if text.trim().is_empty() {
        return invalid("The reply was empty.".into());
    }
    let steps = match find_steps(text) {
        Ok(steps) => steps,
        Err(problem) => return invalid(problem),
    };
    if steps.is_empty() {
        return invalid(format!("The list of steps is empty. Reply with {SHAPE}."));
    }
    let mut actions = Vec::new();
    let mut answer: Option<Result<(String, Option<String>), String>> = None;
    for (n, step) in steps.iter().enumerate() {
        let n = n + 1;
        let Value::Object(fields) = step else {
            return invalid(format!("Step {n} is not an object. Reply with {SHAPE}."));
        };
        let Some(action) = first_str(fields, &NAME_KEYS).map(clean_tool_name) else {
            return invalid(format!("Step {n} has no \"action\". Reply with {SHAPE}."));
        };
        let explanation = first_str(fields, &EXPLANATION_KEYS)
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_string);
        let arguments = first(fields, &ARGUMENT_KEYS);
        if is_finish_name(&action) {
            if answer.is_none() {
                let text = arguments
                    .or_else(|| first(fields, &ANSWER_TEXT_KEYS))
                    .map(|a| args_text(a).trim().to_string());
                answer = Some(match text {
                    Some(t) if !t.is_empty() => Ok((t, explanation)),
                    Some(_) => Err("The answer is empty.".into()),
                    None => Err("The answer step has no \"arguments\": reply with \
                                 [{\"action\": \"answer\", \"arguments\": [\"<the answer>\"]}]."
                        .into()),
                });
            }
            continue;
        }
        if names_no_tool(&action) {
            return invalid(format!("Step {n} names no tool in its \"action\"."));
        }
        let Some(arguments) = arguments else {
            return invalid(format!(
                "Step {n} ({action}) has no \"arguments\". Reply with {SHAPE}."
            ));
        };
        actions.push(JsonAction {
            tool: action,
            input: shown_input(arguments),
            args: arguments.clone(),
            explanation,
        });
    }
    if !actions.is_empty() {
        return JsonReaction::Actions(actions);
    }
    match answer {
        Some(Ok((text, explanation))) => JsonReaction::Answer { text, explanation },
        Some(Err(problem)) => invalid(problem),
        None => invalid(format!("The list of steps is empty. Reply with {SHAPE}.")),
    }
}

fn invalid(problem: String) -> JsonReaction {
    JsonReaction::Invalid { problem }
}

/// The steps of the first JSON in `text` that looks like steps.
fn find_steps(text: &str) -> Result<Vec<Value>, String> {
    let mut other_json = false;
    let mut empty_list = false;
    for start in json_starts(text) {
        let Some(values) = values_at(text, start) else {
            continue;
        };
        let steps = steps_of(values);
        if steps.iter().any(has_action) {
            return Ok(steps);
        }
        empty_list |= steps.is_empty();
        other_json = true;
    }
    if empty_list {
        return Ok(Vec::new());
    }
    Err(if other_json {
        format!("The JSON in the reply has no \"action\". Reply with {SHAPE}.")
    } else {
        format!("The reply has no JSON list of steps. Reply with {SHAPE}.")
    })
}

/// A list → its items; `{"actions": [...]}` → those; other objects → themselves.
fn steps_of(mut values: Vec<Value>) -> Vec<Value> {
    if values.len() != 1 {
        return values;
    }
    match values.pop().expect("one value") {
        Value::Array(items) => items,
        Value::Object(fields) => match fields.get("actions").or_else(|| fields.get("steps")) {
            Some(Value::Array(items)) if !fields.contains_key("action") => items.clone(),
            _ => vec![Value::Object(fields)],
        },
        other => vec![other],
    }
}

fn has_action(step: &Value) -> bool {
    matches!(step, Value::Object(fields) if first_str(fields, &NAME_KEYS).is_some())
}

fn first<'a>(fields: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().find_map(|k| fields.get(*k))
}

fn first_str<'a>(fields: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| match fields.get(*k) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.as_str()),
        _ => None,
    })
}

/// An answer's text from its `arguments`: plain values as text, lists joined with ", ", objects of
/// plain values their values joined (in written order: serde_json's `preserve_order`), other
/// objects as JSON text.
fn args_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter(|i| !i.is_null())
            .map(args_text)
            .collect::<Vec<_>>()
            .join(", "),
        Value::Object(fields) => {
            if fields
                .values()
                .all(|v| matches!(v, Value::Bool(_) | Value::Number(_) | Value::String(_)))
            {
                fields
                    .values()
                    .map(args_text)
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                v.to_string()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(tool: &str, input: &str) -> (String, String) {
        (tool.into(), input.into())
    }

    fn actions(text: &str) -> Vec<(String, String)> {
        match parse_json_reaction(text) {
            JsonReaction::Actions(a) => a.into_iter().map(|a| (a.tool, a.input)).collect(),
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    fn answer(text: &str) -> String {
        match parse_json_reaction(text) {
            JsonReaction::Answer { text: t, .. } => t,
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    fn problem(text: &str) -> String {
        match parse_json_reaction(text) {
            JsonReaction::Invalid { problem } => problem,
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    #[test]
    fn canonical_two_actions() {
        let r = parse_json_reaction(
            r#"[{"action": "calculator", "arguments": ["6*7"], "explanation": "Multiply."},
                {"action": "weather", "arguments": ["Paris"], "explanation": "Weather."}]"#,
        );
        assert_eq!(
            r,
            JsonReaction::Actions(vec![
                JsonAction {
                    tool: "calculator".into(),
                    input: "6*7".into(),
                    args: serde_json::json!(["6*7"]),
                    explanation: Some("Multiply.".into()),
                },
                JsonAction {
                    tool: "weather".into(),
                    input: "Paris".into(),
                    args: serde_json::json!(["Paris"]),
                    explanation: Some("Weather.".into()),
                },
            ])
        );
    }

    #[test]
    fn empty_arguments_reach_a_tool_without_parameters_as_an_object() {
        match parse_json_reaction(r#"[{"action": "read_notes", "arguments": {}}]"#) {
            JsonReaction::Actions(a) => assert_eq!(a[0].args, serde_json::json!({})),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn canonical_answer() {
        let r = parse_json_reaction(
            r#"[{"action": "answer", "arguments": ["42"], "explanation": "Done."}]"#,
        );
        assert_eq!(
            r,
            JsonReaction::Answer {
                text: "42".into(),
                explanation: Some("Done.".into())
            }
        );
    }

    /// How each shape of `arguments` is shown (as in every protocol: nothing hidden) and what
    /// the tool gets from it (the registry's reading against the tool's schema: one text
    /// `input`, or weather's `location` and `country`).
    #[test]
    fn argument_shapes() {
        use crate::tools::{args, text_parameters, weather::Weather, TypedTool};
        let cases = [
            (
                r#"{"action": "calculator", "arguments": "1+1"}"#,
                "1+1",
                "1+1",
            ),
            (r#"{"action": "calculator", "arguments": 7}"#, "7", "7"),
            (
                r#"{"action": "calculator", "arguments": 2.5}"#,
                "2.5",
                "2.5",
            ),
            (
                r#"{"action": "calculator", "arguments": true}"#,
                "true",
                "true",
            ),
            (
                r#"{"action": "calculator", "arguments": ["a", 1, false]}"#,
                "a, 1, false",
                "a, 1, false",
            ),
            (
                r#"{"action": "calculator", "arguments": ["a", null, "b"]}"#,
                "a, b",
                "a, b",
            ),
            (
                r#"{"action": "calculator", "arguments": {"input": "3*3"}}"#,
                "3*3",
                "3*3",
            ),
            (
                r#"{"action": "weather", "arguments": {"city": "Paris", "country": "France"}}"#,
                r#"{"city":"Paris","country":"France"}"#,
                r#"{"country":"France","location":"Paris"}"#,
            ),
            (
                r#"{"action": "weather", "arguments": {"z": "last", "a": "first"}}"#,
                r#"{"z":"last","a":"first"}"#,
                "refused",
            ),
            (
                r#"{"action": "python", "arguments": {"code": "x", "opts": {"a": [1]}}}"#,
                r#"{"code":"x","opts":{"a":[1]}}"#,
                "x",
            ),
            (
                r#"{"action": "python", "arguments": [{"input": "print(1)"}]}"#,
                r#"[{"input":"print(1)"}]"#,
                "print(1)",
            ),
            (
                r#"{"action": "python", "arguments": [["a", "b"], "c"]}"#,
                r#"[["a","b"],"c"]"#,
                "a, b, c",
            ),
            (
                r#"{"action": "calculator", "arguments": {}}"#,
                "{}",
                "refused",
            ),
            (
                r#"{"action": "calculator", "arguments": null}"#,
                "",
                "refused",
            ),
            (
                r#"{"action": "calculator", "arguments": []}"#,
                "",
                "refused",
            ),
            (
                r#"{"action": "x", "arguments": "é😀 \"q\"\n"}"#,
                "é😀 \"q\"\n",
                "é😀 \"q\"\n",
            ),
            (r#"{"tool": "calculator", "args": ["4"]}"#, "4", "4"),
            (r#"{"action": "calculator", "action_input": "5"}"#, "5", "5"),
            (r#"{"name": "calculator", "input": "6"}"#, "6", "6"),
        ];
        for (text, shown, given) in cases {
            let JsonReaction::Actions(got) = parse_json_reaction(text) else {
                panic!("{text}");
            };
            assert_eq!(got.len(), 1, "{text}");
            assert_eq!(got[0].input, shown, "{text}");
            let schema = match got[0].tool.as_str() {
                "weather" => Weather::parameters(),
                _ => text_parameters("x"),
            };
            let tool_gets = match args::read(&got[0].tool, &schema, &got[0].args) {
                Ok(Value::Object(read)) if read.len() == 1 && read.contains_key("input") => {
                    read["input"].as_str().unwrap_or_default().to_string()
                }
                // Fields in key order, so the expectation reads the same every time.
                Ok(read) => serde_json::to_string(
                    &read
                        .as_object()
                        .map(|m| m.iter().collect::<std::collections::BTreeMap<_, _>>())
                        .unwrap_or_default(),
                )
                .unwrap_or_default(),
                Err(_) => "refused".into(),
            };
            assert_eq!(tool_gets, given, "{text}");
        }
    }

    #[test]
    fn wrappers_fences_and_prose() {
        let two = vec![act("calculator", "1"), act("weather", "Oslo")];
        let list = r#"[{"action":"calculator","arguments":["1"]},{"action":"weather","arguments":["Oslo"]}]"#;
        for text in [
            list.to_string(),
            format!("```json\n{list}\n```"),
            format!("```\n{list}\n```"),
            format!("Sure! Here are my steps:\n{list}\nI will wait for the results."),
            format!("I think [maybe] {{this}} helps: {list} [done]"),
            r#"{"action":"calculator","arguments":["1"]}
               {"action":"weather","arguments":["Oslo"]}"#
                .to_string(),
            r#"{"action":"calculator","arguments":["1"]}, {"action":"weather","arguments":["Oslo"]}"#
                .to_string(),
            // A trailing comma breaks the list; the objects in it are still read.
            r#"[{"action":"calculator","arguments":["1"]}, {"action":"weather","arguments":["Oslo"]},]"#
                .to_string(),
            format!(r#"{{"actions": {list}}}"#),
            format!(r#"{{"steps": {list}}}"#),
            format!("Numbers [1, 2] first, then {list}"),
        ] {
            assert_eq!(actions(&text), two, "{text}");
        }
    }

    #[test]
    fn answers() {
        for (text, want) in [
            (r#"{"action": "Answer", "arguments": "Paris"}"#, "Paris"),
            (
                r#"[{"action": "final_answer", "arguments": ["Paris"]}]"#,
                "Paris",
            ),
            (
                r#"[{"action": "Final Answer", "arguments": ["Paris"]}]"#,
                "Paris",
            ),
            (
                r#"[{"action": "FINISH", "arguments": "  Paris  "}]"#,
                "Paris",
            ),
            (r#"[{"action": "answer", "arguments": [42]}]"#, "42"),
            (r#"[{"action": "answer", "answer": "Paris"}]"#, "Paris"),
            (
                r#"[{"action": "answer", "arguments": ["Paris", "France"]}]"#,
                "Paris, France",
            ),
            (
                r#"[{"action": "answer", "arguments": ["one"]}, {"action": "answer", "arguments": ["two"]}]"#,
                "one",
            ),
        ] {
            assert_eq!(answer(text), want, "{text}");
        }
        match parse_json_reaction(r#"{"action": "answer", "arguments": "x", "explanation": " "}"#) {
            JsonReaction::Answer { explanation, .. } => assert_eq!(explanation, None),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn tools_and_an_answer_together_run_the_tools() {
        let got = actions(
            r#"[{"action": "calculator", "arguments": ["2+2"]},
                {"action": "answer", "arguments": ["4"]}]"#,
        );
        assert_eq!(got, vec![act("calculator", "2+2")]);
        let got = actions(
            r#"[{"action": "answer", "arguments": []},
                {"action": "calculator", "arguments": ["2+2"]}]"#,
        );
        assert_eq!(got, vec![act("calculator", "2+2")]);
    }

    #[test]
    fn names_are_cleaned() {
        assert_eq!(
            actions(r#"{"action": " `calculator` ", "arguments": "1"}"#),
            vec![act("calculator", "1")]
        );
    }

    #[test]
    fn invalid_replies_say_what_is_wrong() {
        assert!(problem("").contains("empty"));
        assert!(problem("   \n").contains("empty"));
        assert!(problem("The answer is 4.").contains("no JSON"));
        assert!(problem("[1, 2, 3]").contains("no \"action\""));
        assert!(problem(r#"{"name": 5}"#).contains("no \"action\""));
        assert!(problem("[]").contains("empty"));
        assert!(problem(r#"{"actions": []}"#).contains("empty"));
        assert!(
            problem(r#"[{"action": "calculator", "arguments": "1"}, 5]"#)
                .contains("Step 2 is not an object")
        );
        assert!(
            problem(r#"[{"action": "calculator", "arguments": "1"}, {"arguments": "2"}]"#)
                .contains("Step 2 has no \"action\"")
        );
        assert!(
            problem(r#"[{"action": "calculator"}]"#).contains("(calculator) has no \"arguments\"")
        );
        assert!(problem(r#"[{"action": "none", "arguments": "1"}]"#).contains("names no tool"));
        assert!(problem(r#"[{"action": "answer", "arguments": ""}]"#).contains("answer is empty"));
        assert!(problem(r#"[{"action": "answer"}]"#).contains("no \"arguments\""));
        assert!(problem(r#"[{"action": 5, "arguments": "1"}]"#).contains("no \"action\""));
        assert!(problem(r#"[{"action": "calculator", "arguments": ["1""#).contains("no JSON"));
        // A list cut short after a whole step: the whole steps are read.
        assert_eq!(
            actions(r#"[{"action": "calculator", "arguments": ["1"]}, {"action": "wea"#),
            vec![act("calculator", "1")]
        );
        assert_eq!(
            actions(r#"[] [{"action": "calculator", "arguments": "1"}]"#),
            vec![act("calculator", "1")]
        );
        assert!(problem("{{{{ [[[[").contains("no JSON"));
    }

    #[test]
    fn huge_and_deep_inputs_do_not_panic() {
        let big = "x".repeat(200_000);
        let text = format!(r#"[{{"action": "python", "arguments": ["{big}"]}}]"#);
        assert_eq!(actions(&text), vec![act("python", &big)]);
        let deep = "[".repeat(20_000);
        assert!(matches!(
            parse_json_reaction(&deep),
            JsonReaction::Invalid { .. }
        ));
        let nested = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        assert!(matches!(
            parse_json_reaction(&nested),
            JsonReaction::Invalid { .. }
        ));
        let many = "{a} ".repeat(10_000) + r#"{"action": "calculator", "arguments": "1"}"#;
        // Only the first starts are tried: a reply this noisy is not read.
        assert!(matches!(
            parse_json_reaction(&many),
            JsonReaction::Invalid { .. }
        ));
    }

    #[test]
    fn instructions_show_both_examples_and_they_parse() {
        let s = json_protocol_instructions();
        let examples: Vec<&str> = s
            .split("Example:\n")
            .nth(1)
            .unwrap()
            .split(
                "When you know the answer, reply with a single step whose action is \"answer\":\n",
            )
            .collect();
        assert_eq!(examples.len(), 2);
        assert_eq!(
            actions(examples[0]),
            vec![act("calculator", "6*7"), act("weather", "Paris")]
        );
        assert!(answer(examples[1]).contains("42"));
    }
}
