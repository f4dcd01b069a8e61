//! The four reasoning modes and the prompts that set them up (text protocol).

use serde::{Deserialize, Serialize};

use super::protocols::action_protocol::Protocol;
use super::protocols::code_action::python_signatures;
use super::protocols::json_protocol::json_protocol_instructions;
use crate::tools::ToolSpec;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mode {
    Think,
    Act,
    ReAct,
    /// The model acts by writing Python that calls the tools; its programs run in the page's
    /// Python sandbox, and each call they make goes through the run's tools and consent.
    CodeAct,
}

impl Mode {
    pub const ALL: [Mode; 4] = [Mode::Think, Mode::Act, Mode::ReAct, Mode::CodeAct];

    pub fn label(self) -> &'static str {
        match self {
            Mode::Think => "Think-only",
            Mode::Act => "Act-only",
            Mode::ReAct => "ReAct",
            Mode::CodeAct => "CodeAct",
        }
    }

    /// Stable identifier for the DOM, storage and tests.
    pub fn id(self) -> &'static str {
        match self {
            Mode::Think => "think",
            Mode::Act => "act",
            Mode::ReAct => "react",
            Mode::CodeAct => "codeact",
        }
    }

    pub fn uses_tools(self) -> bool {
        self != Mode::Think
    }

    /// Whether a thought the model wrote is kept in the run's record (and so shown). Act-only
    /// has no thoughts by design: prose it writes anyway is not kept as one, except in a blind
    /// run, where every panel keeps a `Thought:` line alike so that dropping it does not name
    /// the mode before the vote.
    pub fn keeps_thoughts(self, blind: bool) -> bool {
        self != Mode::Act || blind
    }

    /// The first line of each mode's system prompt; distinct so that logs (and the test
    /// rig's scripted endpoint) can tell the modes apart.
    pub fn prompt_heading(self) -> &'static str {
        match self {
            Mode::Think => "You answer questions by thinking step by step, without tools.",
            Mode::Act => "You answer questions by calling tools, without writing thoughts.",
            Mode::ReAct => "You answer questions by interleaving thoughts with tool calls.",
            Mode::CodeAct => {
                "You answer questions by writing short Python programs that call tools."
            }
        }
    }

    /// The system prompt for this mode in `protocol` (Think-only and CodeAct ignore the
    /// protocol: CodeAct's actions are programs, and need no native tool calling).
    pub fn system_prompt(self, tools: &[ToolSpec], protocol: Protocol) -> String {
        let heading = self.prompt_heading();
        match (self, protocol) {
            (Mode::Think | Mode::CodeAct, _) | (_, Protocol::Text) => self.text_prompt(tools),
            (Mode::Act, Protocol::Native) => format!(
                "{heading}\n\
                 Call the provided tools to find what you need; do not write thoughts. \
                 You may call several tools at once when they do not depend on each other. \
                 When you know the answer, reply with only:\n\
                 Answer: <the final answer, short>"
            ),
            (Mode::ReAct, Protocol::Native) => format!(
                "{heading}\n\
                 Before each tool call, write one short Thought: what you know and what you will \
                 do next. Then call the provided tools; several at once when they do not depend \
                 on each other. When you know the answer, reply with:\n\
                 Thought: <why this is the answer>\n\
                 Answer: <the final answer, short>"
            ),
            (Mode::Act, Protocol::Json) => format!(
                "{heading}\n\
                 Available tools:\n{}\n\
                 {}\n\
                 Leave \"explanation\" empty: no thoughts.",
                tool_list(tools),
                json_protocol_instructions()
            ),
            (Mode::ReAct, Protocol::Json) => format!(
                "{heading}\n\
                 Available tools:\n{}\n\
                 {}\n\
                 Use \"explanation\" for your reasoning at each step.",
                tool_list(tools),
                json_protocol_instructions()
            ),
        }
    }

    fn text_prompt(self, tools: &[ToolSpec]) -> String {
        let heading = self.prompt_heading();
        match self {
            Mode::Think => format!(
                "{heading}\n\
                 Reason carefully, then give the final answer. Use exactly this format:\n\
                 Thought: <your step-by-step reasoning>\n\
                 Answer: <the final answer, short>"
            ),
            Mode::Act => format!(
                "{heading}\n\
                 Available tools:\n{}\n\
                 Each reply is exactly one of these two forms, and nothing else:\n\
                 Action: <tool name>\n\
                 Action Input: <input for the tool>\n\
                 or, once you know the answer:\n\
                 Answer: <the final answer, short>\n\
                 After each action you will receive an Observation with the tool's result. \
                 Never write the Observation yourself.",
                tool_list(tools)
            ),
            Mode::ReAct => format!(
                "{heading}\n\
                 Available tools:\n{}\n\
                 Each reply starts with a Thought and then is exactly one of these two forms:\n\
                 Thought: <what you know and what to do next>\n\
                 Action: <tool name>\n\
                 Action Input: <input for the tool>\n\
                 or, once you know the answer:\n\
                 Thought: <why this is the answer>\n\
                 Answer: <the final answer, short>\n\
                 After each action you will receive an Observation with the tool's result. \
                 Never write the Observation yourself.",
                tool_list(tools)
            ),
            Mode::CodeAct => format!(
                "{heading}\n\
                 The tools are Python functions, already defined:\n\n{}\n\
                 Each reply is a Thought and then one program:\n\
                 Thought: <what you know and what the program will do>\n\
                 ```python\n\
                 <a short program: call the tools, print() what you need to see>\n\
                 ```\n\
                 What the program prints (and the value of its last line) comes back to you as \
                 an Observation; its variables are kept for your next program. A failed call \
                 raises an exception you can catch or print. The tools and final_answer are \
                 already defined: call them, never define or import them. Standard Python \
                 works, with no internet and no files: a program may import {CODEACT_MODULES} \
                 and the rest of Python's standard library. When you know the answer, call \
                 final_answer(<the final answer, short>) in a program. Never write the \
                 Observation yourself.\n\n{CODEACT_EXAMPLES}",
                python_signatures(tools)
            ),
        }
    }
}

/// Modules CodeAct's prompt names as importable (the sandbox's Python has its whole standard
/// library; these are the ones a question's program most often wants).
const CODEACT_MODULES: &str =
    "math, statistics, datetime, json, re, collections, itertools, fractions and decimal";

/// Worked examples for CodeAct's prompt, written for this project: a loop of tool calls with
/// prints whose dict results are kept for the next program, an answer with no tool. The ReAct
/// paper and smolagents both prompt with worked trajectories; a small model follows the form it
/// is shown.
const CODEACT_EXAMPLES: &str =
    "Examples (their tools may not be yours: call only the tools above).\n\
Question: Which is warmer now, Oslo or Rome?\n\
Thought: weather returns a dict: keep each temperature and print it.\n\
```python\n\
temps = {}\nfor city in [\"Oslo\", \"Rome\"]:\n    temps[city] = weather(location=city)[\"temperature\"]\n    print(city, temps[city])\n\
```\n\
Observation: Printed:\nOslo 4.0\nRome 17.0\n\
Thought: temps is still there: answer with the warmer city.\n\
```python\n\
final_answer(max(temps, key=temps.get))\n\
```\n\n\
Question: How many seconds are there in a leap year?\n\
Thought: No tool is needed: compute it, keep it in a variable, and look at it.\n\
```python\n\
seconds = 366 * 24 * 60 * 60\nprint(seconds)\n\
```\n\
Observation: Printed:\n31622400\n\
Thought: The variable seconds is still there.\n\
```python\n\
final_answer(seconds)\n\
```";

/// What the mode selector offers: one mode, or all four at once. All is the four rather than
/// a pick of which to show: the arena's point is the same question in every way at once, and
/// one mode alone is one choice away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeChoice {
    One(Mode),
    All,
    /// All four in a random order under the letters A to D, their names hidden until the
    /// user votes for the best answer.
    Blind,
}

impl ModeChoice {
    pub const OPTIONS: [ModeChoice; 6] = [
        ModeChoice::All,
        ModeChoice::Blind,
        ModeChoice::One(Mode::Think),
        ModeChoice::One(Mode::Act),
        ModeChoice::One(Mode::ReAct),
        ModeChoice::One(Mode::CodeAct),
    ];

    pub fn id(self) -> &'static str {
        match self {
            ModeChoice::One(m) => m.id(),
            ModeChoice::All => "all",
            ModeChoice::Blind => "blind",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ModeChoice::One(m) => m.label(),
            ModeChoice::All => "All four, side by side",
            ModeChoice::Blind => "All four, blind vote",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::OPTIONS.into_iter().find(|c| c.id() == id)
    }

    pub fn modes(self) -> Vec<Mode> {
        match self {
            ModeChoice::One(m) => vec![m],
            ModeChoice::All | ModeChoice::Blind => Mode::ALL.to_vec(),
        }
    }
}

/// The four modes in a random order, for a blind run: Fisher-Yates over `random`, which
/// returns numbers in [0, 1).
pub fn blind_order(mut random: impl FnMut() -> f64) -> Vec<Mode> {
    let mut modes = Mode::ALL.to_vec();
    for i in (1..modes.len()).rev() {
        let j = ((random() * (i + 1) as f64) as usize).min(i);
        modes.swap(i, j);
    }
    modes
}

/// The letter a blind run's panel at `index` is shown under.
pub fn blind_label(index: usize) -> String {
    char::from(b'A' + (index % 26) as u8).to_string()
}

/// Sent once the step limit is reached: one last call, with no tools allowed.
pub const FORCE_ANSWER_PROMPT: &str = "You have used all your steps. Do not call any more tools. \
Using what you know so far, reply now with only:\nAnswer: <your best final answer>";

/// Sent once after a reply that fits no format, before the step counts as failed.
pub fn format_reminder(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::Json => {
            "Your reply was not a JSON list of actions. Reply again with only the JSON list, \
like [{\"action\": \"<tool>\", \"arguments\": [\"<input>\"], \"explanation\": \"…\"}], \
or [{\"action\": \"answer\", \"arguments\": [\"<final answer>\"]}]."
        }
        Protocol::Text | Protocol::Native => {
            "Your reply did not follow the format. Reply again with only:\n\
Action: <tool name>\nAction Input: <input>\nor, if you know the answer:\nAnswer: <final answer>"
        }
    }
}

/// Stops the model before it invents a tool result.
pub const STOP_SEQUENCES: [&str; 1] = ["\nObservation:"];

fn tool_list(tools: &[ToolSpec]) -> String {
    if tools.is_empty() {
        return "(none: answer directly)".to_string();
    }
    tools
        .iter()
        .map(|t| format!("- {}: {} Input: {}", t.name, t.description, t.input_hint))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_choices_round_trip_and_expand() {
        for c in ModeChoice::OPTIONS {
            assert_eq!(ModeChoice::from_id(c.id()), Some(c));
        }
        assert_eq!(
            ModeChoice::All.modes(),
            vec![Mode::Think, Mode::Act, Mode::ReAct, Mode::CodeAct]
        );
        assert_eq!(ModeChoice::One(Mode::Act).modes(), vec![Mode::Act]);
        assert_eq!(ModeChoice::from_id("nope"), None);
    }

    #[test]
    fn prompts_list_tools_only_where_tools_are_used() {
        let tools = [ToolSpec::new(
            "calculator",
            "Evaluates arithmetic.",
            "an expression",
        )];
        assert!(Mode::ReAct
            .system_prompt(&tools, Protocol::Text)
            .contains("- calculator: Evaluates arithmetic."));
        assert!(Mode::Act
            .system_prompt(&tools, Protocol::Text)
            .contains("calculator"));
        assert!(!Mode::Act
            .system_prompt(&tools, Protocol::Text)
            .contains("Thought:"));
        assert!(!Mode::Think
            .system_prompt(&tools, Protocol::Text)
            .contains("calculator"));
        for m in Mode::ALL {
            assert!(m
                .system_prompt(&tools, Protocol::Text)
                .starts_with(m.prompt_heading()));
        }
    }

    #[test]
    fn a_blind_order_is_any_of_the_24_and_each_panel_has_a_letter() {
        use std::collections::HashSet;
        let mut seen = HashSet::new();
        for a in 0..4 {
            for b in 0..3 {
                for c in 0..2 {
                    let mut draws = [
                        f64::from(a) / 4.0 + 0.01,
                        f64::from(b) / 3.0 + 0.01,
                        f64::from(c) / 2.0 + 0.01,
                    ]
                    .into_iter();
                    let order = blind_order(|| draws.next().unwrap());
                    let mut sorted = order.clone();
                    sorted.sort_by_key(|m| m.id());
                    sorted.dedup();
                    assert_eq!(sorted.len(), 4);
                    seen.insert(order);
                }
            }
        }
        assert_eq!(seen.len(), 24, "every order can come up: {seen:?}");
        // A generator that returns 1.0 (out of its range) still picks a mode.
        assert_eq!(blind_order(|| 1.0).len(), 4);
        assert_eq!(
            (0..4).map(blind_label).collect::<Vec<_>>(),
            ["A", "B", "C", "D"]
        );
        assert_eq!(ModeChoice::from_id("blind"), Some(ModeChoice::Blind));
        assert_eq!(ModeChoice::Blind.modes(), Mode::ALL);
    }

    #[test]
    fn only_act_only_drops_thoughts_and_not_in_a_blind_run() {
        let kept = |blind| Mode::ALL.map(|m| m.keeps_thoughts(blind));
        assert_eq!(kept(false), [true, false, true, true]);
        assert_eq!(kept(true), [true, true, true, true]);
    }

    /// Issue 59, row 6: CodeAct's prompt names what a program may import and shows worked
    /// examples that the reply parser reads as programs (each block is one it would run).
    #[test]
    fn codeact_s_prompt_lists_the_modules_and_carries_worked_examples() {
        use crate::agent::protocols::code_action::{parse_code_reply, CodeDecision};
        let prompt = Mode::CodeAct.system_prompt(&[], Protocol::Text);
        assert!(prompt.contains("may import math, statistics, datetime, json, re"));
        let examples = prompt.split("Question: ").skip(1).collect::<Vec<_>>();
        assert_eq!(examples.len(), 2, "{prompt}");
        for example in examples {
            let first_reply = example.split_once('\n').unwrap().1;
            assert!(
                matches!(parse_code_reply(first_reply), CodeDecision::Run { .. }),
                "{first_reply}"
            );
            assert!(example.contains("final_answer("), "{example}");
        }
    }
}
