//! Reading a model's reply in the text protocol:
//! `Thought:` / `Action:` / `Action Input:` / `Answer:` (or `Final Answer:`).
//!
//! Models vary the format freely, and this reader accepts what they really write:
//! - labels in any case and spacing, bold (`**Action:**`), as headings (`### Action`), numbered
//!   (`1. Thought:`, `Thought 2:`), or run together on one line (`Action: x Action Input: y`);
//! - `Action: tool[input]`, `tool(input)`, `tool(query="…")`, `tool: input`;
//! - inputs as plain text, quoted, in backticks, in code fences, as JSON with one field
//!   (`{"query": "…"}` → the string; several fields stay JSON text), on the lines after
//!   `Action Input:`, and multi-line code for code tools;
//! - `Action: None` followed by an answer; `Finish[answer]` and `Action: Final Answer`;
//! - JSON tool calls with no label (LangChain's `{"action": …, "action_input": …}`, Hermes
//!   `<tool_call>`, Llama's `{"name": …, "parameters": …}`) when the reply has no labels at all;
//! - reasoning in `<think>…</think>` and gpt-oss harmony channels, which is ignored.
//!
//! A model sometimes writes its own `Observation:`; everything from such a line on is dropped,
//! never trusted. When a reply holds several actions, the first is taken and the model is told.

use serde_json::Value;

use super::json_finder::{find_tool_call, first_json, leading_json, line_starts, unfence};
use super::tool_json::{
    call_parts, clean_tool_name, is_finish_name, names_no_tool, object_in_string, shown_input,
};

mod actions;
mod answers;
mod ascii;
mod json_calls;
mod prepare;
mod sections;
#[cfg(test)]
mod tests;

use actions::*;
use answers::*;
use ascii::*;
use json_calls::*;
use prepare::*;
use sections::*;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Answer {
        thought: Option<String>,
        answer: String,
    },
    Action {
        thought: Option<String>,
        tool: String,
        /// The input as shown.
        input: String,
        /// What the tool's schema reads: the JSON the input was written as, or the text.
        args: Value,
        /// Something to tell the model with the observation, e.g. that only the first of
        /// several actions was run, or that the observation it wrote itself was ignored.
        note: Option<String>,
    },
    /// Neither a usable action nor an answer; `problem` is told to the model.
    Invalid {
        thought: Option<String>,
        problem: String,
    },
}

/// Reads an Act-only or ReAct reply.
pub fn parse_reply(text: &str) -> Reply {
    let prepared = prepare(text);
    let content = prepared.content.as_str();
    let (sections, cut) = split_sections(content, true);
    let thought = thought_of(&sections);

    if let Some(call) = prepared.harmony_call {
        return blob_reply(thought, call, cut, Vec::new());
    }

    let mut no_tool = false;
    let mut empty_answer = false;
    for (i, section) in sections.iter().enumerate() {
        match section.label {
            Some(Label::Answer) => {
                let answer = clean_answer(&section.text);
                if !answer.is_empty() {
                    return Reply::Answer { thought, answer };
                }
                empty_answer = true;
            }
            Some(Label::Action) => match resolve_action(&sections, i) {
                Outcome::NoTool => no_tool = true,
                Outcome::Finish(answer) if !answer.is_empty() => {
                    return Reply::Answer { thought, answer }
                }
                Outcome::Finish(_) => empty_answer = true,
                Outcome::Problem(problem) => return Reply::Invalid { thought, problem },
                Outcome::Call { tool, input } => {
                    let mut notes = Vec::new();
                    let count = count_actions(content);
                    if count > 1 {
                        notes.push(several_actions_note(count, &tool));
                    }
                    if cut {
                        notes.push(OWN_OBSERVATION_NOTE.to_string());
                    }
                    let answered = sections[i + 1..].iter().any(|s| {
                        s.label == Some(Label::Answer) && !clean_answer(&s.text).is_empty()
                    });
                    if answered {
                        notes.push(EARLY_ANSWER_NOTE.to_string());
                    }
                    return Reply::Action {
                        thought,
                        tool,
                        input: input.shown,
                        args: input.args,
                        note: join_notes(notes),
                    };
                }
            },
            _ => {}
        }
    }

    // No usable label: a JSON tool call, an answer in tags, or a harmony final message.
    if let Some((at, call)) = find_json_call(content) {
        let (before, _) = split_sections(&content[..at], true);
        return blob_reply(thought_of(&before), call, cut, Vec::new());
    }
    if let Some((at, tool, input)) = bare_call(content) {
        let (before, _) = split_sections(&content[..at], true);
        let call = BlobCall {
            tool,
            input,
            count: 1,
        };
        return blob_reply(thought_of(&before), call, cut, Vec::new());
    }
    if let Some(answer) = tagged_answer(content) {
        let thought = match find_ci(content, "<answer>") {
            Some(at) => thought_of(&split_sections(&content[..at], true).0),
            None => thought,
        };
        return Reply::Answer { thought, answer };
    }
    // A harmony `final` message with no labels is the model's answer to the user.
    if prepared.final_channel && !no_tool && !empty_answer && !cut {
        let answer = thought.as_deref().map(clean_answer).unwrap_or_default();
        if !answer.is_empty() {
            return Reply::Answer {
                thought: None,
                answer,
            };
        }
    }

    let problem = if empty_answer {
        "The 'Answer:' line is empty.".to_string()
    } else if no_tool {
        "The 'Action:' line names no tool.".to_string()
    } else if sections.iter().any(|s| s.label == Some(Label::ActionInput)) {
        "The reply has an 'Action Input:' line but no 'Action:' line naming the tool.".to_string()
    } else if text.trim().is_empty() {
        "The reply was empty.".to_string()
    } else if content.trim().is_empty() && prepared.had_reasoning {
        "The reply has only reasoning, with neither an 'Action:' line nor an 'Answer:' line after it."
            .to_string()
    } else if cut {
        "The reply has neither an 'Action:' line nor an 'Answer:' line before the 'Observation:' \
         it wrote itself (observations come only from the tools)."
            .to_string()
    } else {
        "The reply has neither an 'Action:' line nor an 'Answer:' line.".to_string()
    };
    Reply::Invalid { thought, problem }
}

/// Reads a Think-only reply: the reasoning and, if present, the labelled answer.
pub fn parse_think(text: &str) -> (Option<String>, Option<String>) {
    let prepared = prepare(text);
    let (sections, _) = split_sections(&prepared.content, true);
    let thought = thought_of(&sections);
    let answer = sections
        .iter()
        .filter(|s| s.label == Some(Label::Answer))
        .map(|s| clean_answer(&s.text))
        .find(|a| !a.is_empty())
        .or_else(|| tagged_answer(&prepared.content));
    (thought, answer)
}

const OWN_OBSERVATION_NOTE: &str =
    "The Observation you wrote yourself was ignored: observations come only from the tools.";
const EARLY_ANSWER_NOTE: &str = "The Answer you wrote before seeing the tool's result was ignored.";

fn several_actions_note(count: usize, tool: &str) -> String {
    format!("Your reply had {count} actions; only the first ({tool}) was run.")
}

fn join_notes(notes: Vec<String>) -> Option<String> {
    (!notes.is_empty()).then(|| notes.join(" "))
}
