//! The protocol layer: what a model's reply means for the loop, whichever protocol the run
//! speaks. The text protocol's `Reply`, the JSON protocol's `JsonReaction` and native tool
//! calls (or a call written as JSON in the content) all become one [`Decision`] here, so the
//! loop (`run`) matches on nothing else.

use super::action_protocol::Protocol;
use super::json_protocol::{parse_json_reaction, JsonReaction};
use serde_json::Value;

use super::native::{bare_json_answer, bare_json_call, planned_call};
use super::text::{parse_reply, parse_think, Reply};
use crate::llm::tool_calls::ToolCall;

/// One tool call the reply asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// The native call id, when the model made a native call.
    pub call_id: Option<String>,
    pub tool: String,
    /// The call's input as shown. `Err`: the arguments could not be read; the model is told
    /// why.
    pub input: Result<String, String>,
    /// What the tool is given: the text protocols' input as a JSON string, a native call's
    /// arguments as they came.
    pub args: Value,
}

impl Planned {
    /// A call written as text (text and JSON protocols, a call in a native reply's content).
    pub fn text(tool: String, input: String) -> Self {
        Self {
            call_id: None,
            tool,
            args: Value::String(input.clone()),
            input: Ok(input),
        }
    }
}

/// What a reply means for the loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Answer {
        thought: Option<String>,
        text: String,
    },
    Actions {
        thought: Option<String>,
        calls: Vec<Planned>,
        /// Told to the model with the first observation (e.g. only the first of several
        /// actions was run).
        note: Option<String>,
    },
    /// Neither usable actions nor an answer; `problem` is told to the model.
    Invalid {
        thought: Option<String>,
        problem: String,
    },
}

/// What a reply (its content, with reasoning set apart, and its native tool calls) means in
/// `protocol`. Native tool calls are taken in every protocol: a model that makes them means them.
pub fn decide(protocol: Protocol, content: &str, calls: &[ToolCall]) -> Decision {
    let content = content.trim();
    if !calls.is_empty() {
        let calls = calls
            .iter()
            .map(|c| {
                let (input, args) = planned_call(c);
                Planned {
                    call_id: Some(c.id.clone()),
                    tool: c.name.clone(),
                    input,
                    args,
                }
            })
            .collect();
        let thought = (!content.is_empty()).then(|| content.to_string());
        return Decision::Actions {
            thought,
            calls,
            note: None,
        };
    }
    match protocol {
        Protocol::Json => from_json(parse_json_reaction(content)),
        Protocol::Native => {
            if let Some(text) = bare_json_answer(content) {
                return Decision::Answer {
                    thought: None,
                    text,
                };
            }
            // A model that writes its call in the content instead of as a tool call.
            if let Some((tool, input, args)) = bare_json_call(content) {
                return Decision::Actions {
                    thought: None,
                    calls: vec![Planned {
                        call_id: None,
                        tool,
                        input: Ok(input),
                        args,
                    }],
                    note: None,
                };
            }
            match from_text(parse_reply(content)) {
                // No tool call and no label: in the native protocol plain text is the answer.
                Decision::Invalid { .. } if !content.is_empty() => Decision::Answer {
                    thought: None,
                    text: content.to_string(),
                },
                decision => decision,
            }
        }
        Protocol::Text => from_text(parse_reply(content)),
    }
}

/// A Think-only reply: its reasoning and its answer (the labelled answer, or else the whole
/// reasoning); `None` when it has no text at all.
pub fn think_answer(content: &str) -> Option<(Option<String>, String)> {
    match parse_think(content) {
        (thought, Some(answer)) => Some((thought, answer)),
        (None, None) => None,
        (Some(whole), None) => Some((None, whole)),
    }
}

/// The answer in a reply to the request for a final answer, in the text or the JSON
/// protocol's form; failing both, whatever the model wrote is the best answer there is.
pub fn forced_answer(content: &str) -> String {
    let content = content.trim();
    match (parse_reply(content), parse_json_reaction(content)) {
        (Reply::Answer { answer, .. }, _) => answer,
        (_, JsonReaction::Answer { text, .. }) => text,
        _ => content.to_string(),
    }
}

fn from_text(reply: Reply) -> Decision {
    match reply {
        Reply::Answer { thought, answer } => Decision::Answer {
            thought,
            text: answer,
        },
        Reply::Action {
            thought,
            tool,
            input,
            args,
            note,
        } => Decision::Actions {
            thought,
            calls: vec![Planned {
                call_id: None,
                tool,
                input: Ok(input),
                args,
            }],
            note,
        },
        Reply::Invalid { thought, problem } => Decision::Invalid { thought, problem },
    }
}

fn from_json(reaction: JsonReaction) -> Decision {
    match reaction {
        JsonReaction::Answer { text, explanation } => Decision::Answer {
            thought: explanation,
            text,
        },
        JsonReaction::Actions(actions) => {
            let explanations: Vec<String> = actions
                .iter()
                .filter_map(|a| a.explanation.clone())
                .filter(|e| !e.trim().is_empty())
                .collect();
            Decision::Actions {
                thought: (!explanations.is_empty()).then(|| explanations.join(" ")),
                calls: actions
                    .into_iter()
                    // The arguments as written: the tool's schema reads them.
                    .map(|a| Planned {
                        call_id: None,
                        tool: a.tool,
                        input: Ok(a.input),
                        args: a.args,
                    })
                    .collect(),
                note: None,
            }
        }
        JsonReaction::Invalid { problem } => Decision::Invalid {
            thought: None,
            problem,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Protocol; 3] = [Protocol::Text, Protocol::Native, Protocol::Json];

    fn call(tool: &str, input: &str) -> Planned {
        Planned::text(tool.into(), input.into())
    }

    /// `decision` with each call's arguments as its tool reads them (the standard tools'
    /// schemas): what reaches the tool, however the protocol wrote it.
    fn read(decision: Decision) -> Decision {
        use crate::tools::{text_parameters, weather::Weather, TypedTool};
        let schema = |tool: &str| match tool {
            "weather" => Some(Weather::parameters()),
            "calculator" | "wikipedia" => Some(text_parameters("x")),
            _ => None,
        };
        match decision {
            Decision::Actions {
                thought,
                calls,
                note,
            } => Decision::Actions {
                thought,
                calls: calls
                    .into_iter()
                    .map(|mut c| {
                        if let Some(schema) = schema(&c.tool) {
                            c.args = crate::tools::args::read(&c.tool, &schema, &c.args)
                                .unwrap_or_else(|e| Value::String(format!("refused: {e}")));
                        }
                        c
                    })
                    .collect(),
                note,
            },
            other => other,
        }
    }

    fn actions(thought: Option<&str>, calls: Vec<Planned>) -> Decision {
        Decision::Actions {
            thought: thought.map(str::to_string),
            calls,
            note: None,
        }
    }

    fn answer(thought: Option<&str>, text: &str) -> Decision {
        Decision::Answer {
            thought: thought.map(str::to_string),
            text: text.into(),
        }
    }

    /// The same call, written the way each protocol asks for it, is the same decision.
    #[test]
    fn each_protocol_s_own_form_gives_the_same_decision() {
        let want = actions(Some("I need the product."), vec![call("calculator", "6*7")]);
        let text = "Thought: I need the product.\nAction: calculator\nAction Input: 6*7";
        let json = r#"[{"action": "calculator", "arguments": ["6*7"], "explanation": "I need the product."}]"#;
        let native = [ToolCall {
            id: "call_0".into(),
            name: "calculator".into(),
            arguments: r#"{"input": "6*7"}"#.into(),
        }];
        assert_eq!(read(decide(Protocol::Text, text, &[])), read(want.clone()));
        assert_eq!(read(decide(Protocol::Json, json, &[])), read(want));
        let with_id = actions(
            Some("I need the product."),
            // The tool gets the native call's arguments as they came.
            vec![Planned {
                call_id: Some("call_0".into()),
                args: serde_json::json!({ "input": "6*7" }),
                ..call("calculator", "6*7")
            }],
        );
        for protocol in ALL {
            assert_eq!(
                decide(protocol, "I need the product.", &native),
                with_id,
                "{protocol:?}"
            );
        }
    }

    /// A JSON action's arguments of several fields reach the tool as fields, not joined.
    #[test]
    fn json_actions_keep_several_fields_for_the_tool() {
        let reply =
            r#"[{"action": "get-sum", "arguments": {"a": 2, "b": 3}, "explanation": "Add."}]"#;
        let Decision::Actions { calls, .. } = decide(Protocol::Json, reply, &[]) else {
            panic!("not an action");
        };
        assert_eq!(calls[0].args, serde_json::json!({"a": 2, "b": 3}));
        // Shown whole, as in every protocol: no field is hidden.
        assert_eq!(calls[0].input, Ok(r#"{"a":2,"b":3}"#.into()));
    }

    /// A call written as JSON in the content is read alike in every protocol.
    #[test]
    fn a_json_call_in_the_content_is_the_same_call_everywhere() {
        for content in [
            r#"{"name": "calculator", "arguments": {"input": "6*7"}}"#,
            "```json\n{\"action\": \"calculator\", \"action_input\": \"6*7\"}\n```",
            "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"input\": \"6*7\"}}\n</tool_call>",
            r#"[{"tool": "calculator", "tool_input": "6*7"}]"#,
        ] {
            for protocol in ALL {
                assert_eq!(
                    read(decide(protocol, content, &[])),
                    read(actions(None, vec![call("calculator", "6*7")])),
                    "{protocol:?} {content}"
                );
            }
        }
    }

    #[test]
    fn answers_in_each_protocol() {
        assert_eq!(
            decide(Protocol::Text, "Thought: Done.\nAnswer: 42", &[]),
            answer(Some("Done."), "42")
        );
        assert_eq!(
            decide(
                Protocol::Json,
                r#"[{"action": "answer", "arguments": ["42"], "explanation": "Done."}]"#,
                &[]
            ),
            answer(Some("Done."), "42")
        );
        // In the native protocol plain text is the answer.
        assert_eq!(decide(Protocol::Native, " 42 ", &[]), answer(None, "42"));
        let langchain = r#"{"action": "Final Answer", "action_input": "42"}"#;
        for protocol in ALL {
            assert_eq!(
                decide(protocol, langchain, &[]),
                answer(None, "42"),
                "{protocol:?}"
            );
        }
    }

    #[test]
    fn replies_that_fit_no_form_are_invalid() {
        for protocol in [Protocol::Text, Protocol::Json] {
            assert!(
                matches!(
                    decide(protocol, "I am not sure.", &[]),
                    Decision::Invalid { .. }
                ),
                "{protocol:?}"
            );
        }
        for protocol in ALL {
            match decide(protocol, "  ", &[]) {
                Decision::Invalid { problem, .. } => {
                    assert!(problem.contains("empty"), "{problem}")
                }
                other => panic!("{protocol:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn several_json_steps_are_several_calls_and_one_thought() {
        let json = r#"[{"action": "calculator", "arguments": ["1"], "explanation": "First."},
                       {"action": "weather", "arguments": ["Oslo"], "explanation": " "},
                       {"action": "wikipedia", "arguments": ["Oslo"], "explanation": "Third."}]"#;
        assert_eq!(
            read(decide(Protocol::Json, json, &[])),
            read(actions(
                Some("First. Third."),
                vec![
                    call("calculator", "1"),
                    call("weather", "Oslo"),
                    call("wikipedia", "Oslo")
                ]
            ))
        );
    }

    #[test]
    fn think_and_forced_answers() {
        assert_eq!(
            think_answer("Six sevens.\nAnswer: 42"),
            Some((Some("Six sevens.".into()), "42".into()))
        );
        assert_eq!(think_answer("It is 42."), Some((None, "It is 42.".into())));
        assert_eq!(think_answer(""), None);
        assert_eq!(forced_answer("Thought: x\nAnswer: 42"), "42");
        assert_eq!(
            forced_answer(r#"[{"action": "answer", "arguments": ["42"]}]"#),
            "42"
        );
        assert_eq!(forced_answer("  I think 42.  "), "I think 42.");
    }

    /// Replies that look like JSON and are not: no protocol takes them as a call, and in the
    /// native protocol, where prose is the answer, they are the answer as written.
    #[test]
    fn hostile_json_is_no_call_in_any_protocol() {
        let hostile = [
            "[".repeat(100_000),
            "{\"a\":".repeat(50_000),
            "{{{{ [[[[ }}}}".into(),
            r#"{"name": "calculator", "arguments": {"input": "6*7"}"#.into(),
            r#"Prose {"text": "a } inside", "n": 1"#.into(),
        ];
        for text in &hostile {
            for protocol in ALL {
                match decide(protocol, text, &[]) {
                    Decision::Actions { calls, .. } => {
                        panic!("{protocol:?} took {calls:?} from {:.40}", text)
                    }
                    Decision::Answer { text: answer, .. } => {
                        assert_eq!(protocol, Protocol::Native, "{:.40}", text);
                        assert_eq!(answer, text.trim());
                    }
                    Decision::Invalid { .. } => {}
                }
            }
        }
    }
}
