//! JSON tool calls written in the text (LangChain, Hermes `<tool_call>`, Llama), read when the
//! reply has no labels; the call's parts come from `tool_json`, as in every protocol.

use super::*;

pub(super) struct BlobCall {
    pub(super) tool: String,
    pub(super) input: Written,
    /// How many calls the reply held.
    pub(super) count: usize,
}

pub(super) fn blob_outcome(call: BlobCall) -> Outcome {
    if names_no_tool(&call.tool) {
        Outcome::NoTool
    } else if is_finish_name(&call.tool) {
        Outcome::Finish(clean_answer(&call.input.shown))
    } else if call.input.shown.is_empty() {
        Outcome::Problem(format!("The input for {} is empty.", call.tool))
    } else {
        Outcome::Call {
            tool: call.tool,
            input: call.input,
        }
    }
}

pub(super) fn blob_reply(
    thought: Option<String>,
    call: BlobCall,
    cut: bool,
    mut notes: Vec<String>,
) -> Reply {
    let count = call.count;
    match blob_outcome(call) {
        Outcome::Call { tool, input } => {
            if count > 1 {
                notes.insert(0, several_actions_note(count, &tool));
            }
            if cut {
                notes.push(OWN_OBSERVATION_NOTE.to_string());
            }
            Reply::Action {
                thought,
                tool,
                input: input.shown,
                args: input.args,
                note: join_notes(notes),
            }
        }
        Outcome::Finish(answer) if !answer.is_empty() => Reply::Answer { thought, answer },
        Outcome::Finish(_) => Reply::Invalid {
            thought,
            problem: "The final answer is empty.".into(),
        },
        Outcome::NoTool => Reply::Invalid {
            thought,
            problem: "The tool call names no tool.".into(),
        },
        Outcome::Problem(problem) => Reply::Invalid { thought, problem },
    }
}

/// A JSON tool call: `{"action": "calculator", "action_input": "2+2"}`,
/// `{"name": "calculator", "arguments": {"expression": "2+2"}}`, OpenAI-style
/// `{"function": {"name": …, "arguments": "{…}"}}`, or a list of them; fenced or not.
pub(super) fn parse_blob(s: &str) -> Option<BlobCall> {
    blob_of_value(&leading_json(s)?)
}

pub(super) fn blob_of_value(value: &Value) -> Option<BlobCall> {
    match value {
        Value::Array(items) => {
            let calls: Vec<BlobCall> = items.iter().filter_map(blob_of_value).collect();
            let count = calls.len();
            calls.into_iter().next().map(|mut c| {
                c.count = count;
                c
            })
        }
        Value::Object(map) => {
            let (tool, args) = call_parts(map)?;
            Some(BlobCall {
                input: blob_input(args),
                tool,
                count: 1,
            })
        }
        _ => None,
    }
}

/// A JSON call's arguments: the value, which the tool's schema reads, and the text shown
/// (empty for no arguments: the call is refused as empty).
pub(super) fn blob_input(v: &Value) -> Written {
    // Some models encode the arguments twice: the object inside is what they mean.
    let decoded = v.as_str().and_then(object_in_string);
    let args = without_observations(decoded.as_ref().unwrap_or(v));
    let shown = shown_input(&args).trim().to_string();
    match args {
        Value::String(_) => Written::text(shown),
        args => Written { shown, args },
    }
}

/// A JSON tool call in a reply without labels: in `<tool_call>` tags, a code fence, or a line
/// of its own. Returns where it starts.
pub(super) fn find_json_call(content: &str) -> Option<(usize, BlobCall)> {
    if let Some((at, after, count)) = find_tool_call(content) {
        if let Some(mut call) = parse_blob(after) {
            call.count = call.count.max(count);
            return Some((at, call));
        }
    }
    line_starts(content).find_map(|at| Some((at, parse_blob(&content[at..])?)))
}
