//! Reading a model's reply in the text protocol:
//! `Thought:` / `Action:` / `Action Input:` / `Answer:` (or `Final Answer:`).
//!
//! Models vary the format freely (case, bold markers, step numbers, bracketed inputs, quotes,
//! code fences) and sometimes write their own `Observation:`; everything from such a line on
//! is dropped, never trusted.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Answer {
        thought: Option<String>,
        answer: String,
    },
    Action {
        thought: Option<String>,
        tool: String,
        input: String,
    },
    /// Neither a usable action nor an answer; `problem` is told to the model.
    Invalid {
        thought: Option<String>,
        problem: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    Thought,
    Action,
    ActionInput,
    Answer,
    Observation,
}

/// Labels in matching order: longer ones first so "Action Input" is not read as "Action".
const LABELS: [(&str, Label); 8] = [
    ("final answer", Label::Answer),
    ("action input", Label::ActionInput),
    ("action_input", Label::ActionInput),
    ("action", Label::Action),
    ("thought", Label::Thought),
    ("answer", Label::Answer),
    ("observation", Label::Observation),
    ("thinking", Label::Thought),
];

struct Section {
    label: Option<Label>,
    text: String,
}

/// Reads an Act-only or ReAct reply.
pub fn parse_reply(text: &str) -> Reply {
    let sections = split_sections(text);
    let thought = thought_of(&sections);
    let decisive = sections
        .iter()
        .position(|s| matches!(s.label, Some(Label::Action | Label::Answer)));
    let Some(at) = decisive else {
        let problem = if text.trim().is_empty() {
            "The reply was empty.".to_string()
        } else {
            "The reply has neither an 'Action:' line nor an 'Answer:' line.".to_string()
        };
        return Reply::Invalid { thought, problem };
    };
    let section = &sections[at];
    if section.label == Some(Label::Answer) {
        let answer = section.text.trim().to_string();
        if answer.is_empty() {
            return Reply::Invalid {
                thought,
                problem: "The 'Answer:' line is empty.".into(),
            };
        }
        return Reply::Answer { thought, answer };
    }

    let action = section.text.trim();
    // The input is the first `Action Input:` after this action and before any other decision.
    let input = sections[at + 1..]
        .iter()
        .take_while(|s| !matches!(s.label, Some(Label::Action | Label::Answer)))
        .find(|s| s.label == Some(Label::ActionInput))
        .map(|s| clean_input(&s.text));
    let first_line = action.lines().next().unwrap_or("").trim();
    if names_no_tool(&clean_tool_name(first_line)) {
        return Reply::Invalid {
            thought,
            problem: "The 'Action:' line names no tool.".into(),
        };
    }
    let (tool, input) = match input {
        Some(input) => (clean_tool_name(first_line), input),
        None => match split_call_form(first_line) {
            Some((tool, input)) => (clean_tool_name(tool), clean_input(input)),
            None => {
                let problem = "The 'Action:' line has no 'Action Input:' line after it.".into();
                return Reply::Invalid { thought, problem };
            }
        },
    };
    if names_no_tool(&tool) {
        return Reply::Invalid {
            thought,
            problem: "The 'Action:' line names no tool.".into(),
        };
    }
    Reply::Action {
        thought,
        tool,
        input,
    }
}

fn names_no_tool(tool: &str) -> bool {
    tool.is_empty() || matches!(tool.to_ascii_lowercase().as_str(), "none" | "n/a" | "null")
}

/// Reads a Think-only reply: the reasoning and, if present, the labelled answer.
pub fn parse_think(text: &str) -> (Option<String>, Option<String>) {
    let sections = split_sections(text);
    let thought = thought_of(&sections);
    let answer = sections
        .iter()
        .find(|s| s.label == Some(Label::Answer))
        .map(|s| s.text.trim().to_string())
        .filter(|a| !a.is_empty());
    (thought, answer)
}

/// Everything before the first action or answer that is a thought, or unlabelled prose.
fn thought_of(sections: &[Section]) -> Option<String> {
    let parts: Vec<&str> = sections
        .iter()
        .take_while(|s| matches!(s.label, None | Some(Label::Thought)))
        .map(|s| s.text.trim())
        .filter(|t| !t.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

fn split_sections(text: &str) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    for line in text.lines() {
        match label_of(line) {
            Some((Label::Observation, _)) => break, // the model wrote its own: not trusted
            Some((label, rest)) => sections.push(Section {
                label: Some(label),
                text: rest.to_string(),
            }),
            None => match sections.last_mut() {
                Some(s) => {
                    s.text.push('\n');
                    s.text.push_str(line);
                }
                None => sections.push(Section {
                    label: None,
                    text: line.to_string(),
                }),
            },
        }
    }
    sections
}

/// Recognises `Thought:`, `**Action 2:**`, `## Final Answer:`, `action input :`… at a line start.
fn label_of(line: &str) -> Option<(Label, &str)> {
    let s = line
        .trim_start()
        .trim_start_matches(['#', '*', '_', '>', ' ']);
    for (word, label) in LABELS {
        let Some(head) = s.get(..word.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(word) {
            continue;
        }
        let rest = s[word.len()..].trim_start_matches([' ', '*', '_']);
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit()); // "Thought 2:"
        let rest = rest.trim_start_matches([' ', '*', '_']);
        if let Some(after) = rest.strip_prefix(':') {
            return Some((label, after.trim_start_matches(['*', '_']).trim()));
        }
    }
    None
}

/// `calculator[2+2]`, `calculator(2+2)`, `calculator: 2+2`.
fn split_call_form(action: &str) -> Option<(&str, &str)> {
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(i) = action.find(open) {
            let inner = action[i + 1..].trim_end();
            let inner = inner.strip_suffix(close)?;
            return Some((&action[..i], inner));
        }
    }
    let (tool, input) = action.split_once(':')?;
    (!input.trim().is_empty()).then_some((tool, input))
}

fn clean_tool_name(name: &str) -> String {
    name.trim()
        .trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | '*' | '_' | '.'))
        .trim()
        .to_string()
}

fn clean_input(input: &str) -> String {
    let mut s = input.trim();
    if let Some(inner) = s.strip_prefix("```") {
        // ```json\n…\n``` or ```…```
        let inner = inner.strip_suffix("```").unwrap_or(inner);
        s = match inner.split_once('\n') {
            Some((lang, body)) if !lang.trim().contains(' ') => body,
            _ => inner,
        }
        .trim();
    }
    for q in ['"', '\'', '`'] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            s = &s[1..s.len() - 1];
            break;
        }
    }
    s.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(tool: &str, input: &str) -> (String, String) {
        (tool.to_string(), input.to_string())
    }

    fn as_action(r: Reply) -> (String, String) {
        match r {
            Reply::Action { tool, input, .. } => (tool, input),
            other => panic!("expected an action, got {other:?}"),
        }
    }

    #[test]
    fn canonical_react_action() {
        let r = parse_reply("Thought: I need to compute.\nAction: calculator\nAction Input: 6*7");
        assert_eq!(
            r,
            Reply::Action {
                thought: Some("I need to compute.".into()),
                tool: "calculator".into(),
                input: "6*7".into()
            }
        );
    }

    #[test]
    fn action_variants() {
        let cases = [
            (
                "action: calculator\naction input: 1+1",
                action("calculator", "1+1"),
            ),
            (
                "ACTION: Calculator\nACTION INPUT: 1+1",
                action("Calculator", "1+1"),
            ),
            (
                "**Action:** calculator\n**Action Input:** 1+1",
                action("calculator", "1+1"),
            ),
            (
                "Thought 1: hmm\nAction 1: calculator\nAction Input 1: 1+1",
                action("calculator", "1+1"),
            ),
            ("Action: calculator[2+2]", action("calculator", "2+2")),
            ("Action: calculator(3*3)", action("calculator", "3*3")),
            (
                "Action: `calculator`\nAction Input: \"5-1\"",
                action("calculator", "5-1"),
            ),
            (
                "Action: calculator\nAction Input: ```\n2^8\n```",
                action("calculator", "2^8"),
            ),
            (
                "Action: calculator\nAction Input: ```text\n2^8\n```",
                action("calculator", "2^8"),
            ),
            (
                "Action:calculator\nAction Input:7/2",
                action("calculator", "7/2"),
            ),
            (
                "  Action :  calculator  \n  Action Input :  7/2  ",
                action("calculator", "7/2"),
            ),
            (
                "Action: calculator\nAction_Input: 9",
                action("calculator", "9"),
            ),
            ("Action: calculator: 4*4", action("calculator", "4*4")),
            (
                "Action: calculator.\nAction Input: 1",
                action("calculator", "1"),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(as_action(parse_reply(text)), want, "{text:?}");
        }
    }

    #[test]
    fn answers() {
        for (text, want) in [
            ("Thought: done\nAnswer: 42", "42"),
            ("Final Answer: Paris", "Paris"),
            ("final answer: Paris", "Paris"),
            ("**Answer:** The capital is Paris.", "The capital is Paris."),
            ("Answer:\nline one\nline two", "line one\nline two"),
            ("## Final Answer: 12", "12"),
        ] {
            match parse_reply(text) {
                Reply::Answer { answer, .. } => assert_eq!(answer, want, "{text:?}"),
                other => panic!("{text:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn own_observation_is_cut_and_never_trusted() {
        let r = parse_reply(
            "Thought: t\nAction: calculator\nAction Input: 2+2\nObservation: 5\nAnswer: 5",
        );
        assert_eq!(as_action(r), action("calculator", "2+2"));
        // An answer written after an invented observation is not taken either.
        let r = parse_reply("Thought: t\nObservation: it is 5\nAnswer: 5");
        assert!(matches!(r, Reply::Invalid { .. }), "{r:?}");
    }

    #[test]
    fn first_of_several_actions_is_taken() {
        let r = parse_reply(
            "Action: calculator\nAction Input: 1+1\nAction: calculator\nAction Input: 2+2",
        );
        assert_eq!(as_action(r), action("calculator", "1+1"));
        let r = parse_reply("Answer: 3\nAction: calculator\nAction Input: 1+2");
        assert!(matches!(r, Reply::Answer { answer, .. } if answer == "3"));
    }

    #[test]
    fn trailing_commentary_after_input_is_part_of_it_only_until_next_label() {
        let r = parse_reply("Action: calculator\nAction Input: 2+2\nThought: then I will answer");
        assert_eq!(as_action(r), action("calculator", "2+2"));
    }

    #[test]
    fn invalid_replies_say_what_is_wrong() {
        let problem = |t: &str| match parse_reply(t) {
            Reply::Invalid { problem, .. } => problem,
            other => panic!("{t:?} gave {other:?}"),
        };
        assert!(problem("I think the answer is 4.").contains("neither"));
        assert!(problem("").contains("empty"));
        assert!(problem("Action: None").contains("names no tool"));
        assert!(problem("Thought: x\nAction: calculator").contains("no 'Action Input:'"));
        assert!(problem("Answer:   ").contains("empty"));
        assert!(problem("Action:\nAction Input: 2").contains("names no tool"));
    }

    #[test]
    fn unlabelled_prose_before_an_action_is_the_thought() {
        match parse_reply("Let me compute that.\nAction: calculator\nAction Input: 1") {
            Reply::Action { thought, .. } => {
                assert_eq!(thought.as_deref(), Some("Let me compute that."))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn words_that_merely_start_with_a_label_are_not_labels() {
        let r = parse_reply("Actionable advice: none\nAnswers vary: yes\nAnswer: ok");
        assert!(matches!(r, Reply::Answer { answer, .. } if answer == "ok"));
    }

    #[test]
    fn think_replies() {
        assert_eq!(
            parse_think("Thought: Paris is the capital.\nAnswer: Paris"),
            (Some("Paris is the capital.".into()), Some("Paris".into()))
        );
        assert_eq!(
            parse_think("Just prose."),
            (Some("Just prose.".into()), None)
        );
        assert_eq!(parse_think("Answer: 4"), (None, Some("4".into())));
    }

    #[test]
    fn unicode_does_not_break_label_matching() {
        let r = parse_reply("Thought: é😀\nAction: calculator\nAction Input: π*2");
        assert_eq!(as_action(r), action("calculator", "π*2"));
        assert!(matches!(parse_reply("é"), Reply::Invalid { .. }));
        assert!(matches!(parse_reply("Acti€n: x"), Reply::Invalid { .. }));
    }
}
