//! The text protocol reader against what models really write.

use super::*;

#[test]
fn a_lone_carriage_return_ends_a_line() {
    match parse_reply("Action: calculator\r6*7\rAction Input: 6*7") {
        Reply::Action { tool, input, .. } => {
            assert_eq!(tool, "calculator");
            assert_eq!(input, "6*7");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(parse_reply("Thought: x\rAnswer: 4"), Reply::Answer { answer, .. } if answer == "4")
    );
}

fn action(tool: &str, input: &str) -> (String, String) {
    (tool.to_string(), input.to_string())
}

fn as_action(r: Reply) -> (String, String) {
    match r {
        Reply::Action { tool, input, .. } => (tool, input),
        other => panic!("expected an action, got {other:?}"),
    }
}

fn note_of(r: Reply) -> Option<String> {
    match r {
        Reply::Action { note, .. } => note,
        other => panic!("expected an action, got {other:?}"),
    }
}

fn answer_of(text: &str) -> String {
    match parse_reply(text) {
        Reply::Answer { answer, .. } => answer,
        other => panic!("{text:?} gave {other:?}"),
    }
}

fn problem(text: &str) -> String {
    match parse_reply(text) {
        Reply::Invalid { problem, .. } => problem,
        other => panic!("{text:?} gave {other:?}"),
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
            input: "6*7".into(),
            args: Value::String("6*7".into()),
            note: None,
        }
    );
}

#[test]
fn action_variants() {
    let cases = [
        (
            "action: calculator\naction input: 1+1",
            ("calculator", "1+1"),
        ),
        (
            "ACTION: Calculator\nACTION INPUT: 1+1",
            ("Calculator", "1+1"),
        ),
        (
            "**Action:** calculator\n**Action Input:** 1+1",
            ("calculator", "1+1"),
        ),
        (
            "**Action**: calculator\n**Action Input**: 1+1",
            ("calculator", "1+1"),
        ),
        (
            "Thought 1: hmm\nAction 1: calculator\nAction Input 1: 1+1",
            ("calculator", "1+1"),
        ),
        (
            "1. Thought: hmm\n2. Action: calculator\n3. Action Input: 1+1",
            ("calculator", "1+1"),
        ),
        (
            "### Action\ncalculator\n### Action Input\n1+1",
            ("calculator", "1+1"),
        ),
        ("Action: calculator[2+2]", ("calculator", "2+2")),
        ("Action: calculator(3*3)", ("calculator", "3*3")),
        (
            "Action: calculator(sqrt(2)*3) to get it",
            ("calculator", "sqrt(2)*3"),
        ),
        (
            "Act 1: Search[Apple Remote's maker]",
            ("Search", "Apple Remote's maker"),
        ),
        (
            "Action: web_search(query=\"Eiffel Tower\")",
            ("web_search", "Eiffel Tower"),
        ),
        (
            "Action: `calculator`\nAction Input: \"5-1\"",
            ("calculator", "5-1"),
        ),
        (
            "Action: calculator\nAction Input: `5-1`",
            ("calculator", "5-1"),
        ),
        (
            "Action: calculator\nAction Input: ```\n2^8\n```",
            ("calculator", "2^8"),
        ),
        (
            "Action: calculator\nAction Input: ```text\n2^8\n```",
            ("calculator", "2^8"),
        ),
        (
            "Action: calculator\nAction Input: ```2^8```",
            ("calculator", "2^8"),
        ),
        ("Action:calculator\nAction Input:7/2", ("calculator", "7/2")),
        (
            "  Action :  calculator  \n  Action Input :  7/2  ",
            ("calculator", "7/2"),
        ),
        ("Action: calculator\nAction_Input: 9", ("calculator", "9")),
        ("Action: calculator\nInput: 9", ("calculator", "9")),
        ("Action: calculator: 4*4", ("calculator", "4*4")),
        ("Action: calculator.\nAction Input: 1", ("calculator", "1")),
        ("Action: [calculator]\nAction Input: 1", ("calculator", "1")),
        (
            "Action: calculator (to multiply)\nAction Input: 6*7",
            ("calculator", "6*7"),
        ),
        (
            "Action: calculator Action Input: 6*7",
            ("calculator", "6*7"),
        ),
        (
            "Action: calculator, Action Input: 6*7",
            ("calculator", "6*7"),
        ),
        (
            "Thought: I will compute. Action: calculator\nAction Input: 6*7",
            ("calculator", "6*7"),
        ),
        (
            "Action Input: 6*7\nAction: calculator",
            ("calculator", "6*7"),
        ),
        (
            "Action: wikipedia\nAction Input: search: Paris",
            ("wikipedia", "search: Paris"),
        ),
        (
            "Action: calculator\nAction Input:\n6*7\n",
            ("calculator", "6*7"),
        ),
        (
            "Action: calculator\nAction Input: 6*7\nI will wait for the result.",
            ("calculator", "6*7"),
        ),
    ];
    for (text, (tool, input)) in cases {
        assert_eq!(
            as_action(parse_reply(text)),
            action(tool, input),
            "{text:?}"
        );
    }
}

#[test]
fn json_inputs() {
    let cases = [
        (
            "Action: web_search\nAction Input: {\"query\": \"Eiffel Tower\"}",
            "Eiffel Tower",
        ),
        (
            "Action: calculator\nAction Input: {\"expression\": \"2+2\"}",
            "2+2",
        ),
        (
            "Action: calculator\nAction Input: {\"input\": \"2+2\"}",
            "2+2",
        ),
        (
            "Action: calculator\nAction Input: {'expression': '2+2'}",
            "2+2",
        ),
        (
            "Action: calculator\nAction Input: ```json\n{\"expression\": \"2+2\"}\n```",
            "2+2",
        ),
        (
            "Action: calculator\nAction Input:\n```json\n{\n  \"expression\": \"2+2\"\n}\n```",
            "2+2",
        ),
        ("Action: calculator\nAction Input: \"2+2\" (the sum)", "2+2"),
        (
            "Action: weather\nAction Input: {\"city\": \"Paris\", \"units\": \"metric\"}",
            // Shown as every protocol shows arguments of several fields: compact JSON.
            "{\"city\":\"Paris\",\"units\":\"metric\"}",
        ),
    ];
    for (text, input) in cases {
        assert_eq!(as_action(parse_reply(text)).1, input, "{text:?}");
    }
}

#[test]
fn json_tool_calls_without_labels() {
    let cases = [
            "```json\n{\"action\": \"calculator\", \"action_input\": \"6*7\"}\n```",
            "Action:\n```json\n{\"action\": \"calculator\", \"action_input\": \"6*7\"}\n```",
            "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6*7\"}}\n</tool_call>",
            "{\"name\": \"calculator\", \"parameters\": {\"expression\": \"6*7\"}}",
            "<|python_tag|>{\"name\": \"calculator\", \"parameters\": {\"expression\": \"6*7\"}}<|eom_id|>",
            "{\"function\": {\"name\": \"calculator\", \"arguments\": \"{\\\"expression\\\": \\\"6*7\\\"}\"}}",
        ];
    for text in cases {
        assert_eq!(
            as_action(parse_reply(text)),
            action("calculator", "6*7"),
            "{text:?}"
        );
    }
    assert_eq!(
        answer_of("```json\n{\"action\": \"Final Answer\", \"action_input\": \"42\"}\n```"),
        "42"
    );
}

#[test]
fn code_inputs_keep_their_lines() {
    let r = parse_reply(
            "Action: python\nAction Input: ```python\nimport math\nprint(math.factorial(5))\n```\nThis prints 120.",
        );
    assert_eq!(as_action(r).1, "import math\nprint(math.factorial(5))");
    let r = parse_reply(
            "Action: python\nAction Input:\nfor i in range(3):\n    print(i)\n\nThis will print the numbers.",
        );
    assert_eq!(as_action(r).1, "for i in range(3):\n    print(i)");
    let r = parse_reply("Action: python\nAction Input: \"hello\".upper()");
    assert_eq!(as_action(r).1, "\"hello\".upper()");
    // A label-like line inside a fenced program is code, not a label.
    let r = parse_reply(
        "Action: python\nAction Input:\n```\nanswer = 6*7\nprint('Answer:', answer)\n```",
    );
    assert_eq!(as_action(r).1, "answer = 6*7\nprint('Answer:', answer)");
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
        ("Final Answer: **42**", "42"),
        ("**Final Answer: 42**", "42"),
        ("Answer: The answer is 42.", "The answer is 42."),
        ("Answer: $\\boxed{42}$", "42"),
        ("Thought: so.\nFinal Answer: \"Paris\"", "Paris"),
        ("Thought: 6*7 is 42. Final Answer: 42", "42"),
        ("Action: None\nAnswer: 42", "42"),
        ("Action: N/A\nAction Input: N/A\nFinal Answer: 42", "42"),
        ("Action: Finish[1,800 to 7,000 ft]", "1,800 to 7,000 ft"),
        ("Action: Final Answer\nAction Input: 42", "42"),
        ("Thought: hmm\n<answer>42</answer>", "42"),
        ("So the result is \\boxed{42}.", "42"),
        ("Answer: 42\nQuestion: what is 2+2?\nThought: ...", "42"),
    ] {
        assert_eq!(answer_of(text), want, "{text:?}");
    }
}

#[test]
fn own_observation_is_cut_and_never_trusted() {
    let r =
        parse_reply("Thought: t\nAction: calculator\nAction Input: 2+2\nObservation: 5\nAnswer: 5");
    let note = note_of(r.clone()).unwrap();
    assert!(note.contains("Observation you wrote yourself"), "{note}");
    assert_eq!(as_action(r), action("calculator", "2+2"));
    // An answer written after an invented observation is not taken either.
    assert!(problem("Thought: t\nObservation: it is 5\nAnswer: 5").contains("neither"));
    // Nor is one hidden in a fenced input, or in JSON.
    let r = parse_reply("Action: python\nAction Input: ```\nprint(1)\nObservation: 1\n```");
    assert_eq!(as_action(r).1, "print(1)");
    let r = parse_reply("Action: x\nAction Input: {\"q\": \"a\\nObservation: b\"}");
    assert_eq!(as_action(r).1, "a");
    for text in [
        "Action: calculator\nAction Input: 1\nAction Output: 2",
        "Action: c\nAction Input: 1\n**Observation 1:** 2",
        "Act 1: Search[x]\nObs 1: y",
    ] {
        assert!(note_of(parse_reply(text)).is_some(), "{text:?}");
    }
}

#[test]
fn first_of_several_actions_is_taken_and_the_model_told() {
    let r =
        parse_reply("Action: calculator\nAction Input: 1+1\nAction: calculator\nAction Input: 2+2");
    assert_eq!(
        note_of(r.clone()).as_deref(),
        Some("Your reply had 2 actions; only the first (calculator) was run.")
    );
    assert_eq!(as_action(r), action("calculator", "1+1"));
    assert_eq!(
        answer_of("Answer: 3\nAction: calculator\nAction Input: 1+2"),
        "3"
    );
    let r = parse_reply("Action: calculator\nAction Input: 1+1\nFinal Answer: 2");
    assert!(note_of(r).unwrap().contains("Answer you wrote"));
}

#[test]
fn trailing_commentary_after_input_is_not_part_of_it() {
    let r = parse_reply("Action: calculator\nAction Input: 2+2\nThought: then I will answer");
    assert_eq!(as_action(r), action("calculator", "2+2"));
    let r = parse_reply("Action: web_search\nAction Input: Eiffel Tower height\n\n(Waiting.)");
    assert_eq!(as_action(r), action("web_search", "Eiffel Tower height"));
}

#[test]
fn invalid_replies_say_what_is_wrong() {
    assert!(problem("I think the answer is 4.").contains("neither"));
    assert!(problem("Thought: I now know the final answer.").contains("neither"));
    assert!(problem("").contains("empty"));
    assert!(problem("Action: None").contains("names no tool"));
    assert!(problem("Thought: x\nAction: calculator").contains("no 'Action Input:'"));
    assert!(problem("Answer:   ").contains("empty"));
    assert!(problem("Action:\nAction Input: 2").contains("names no tool"));
    assert!(problem("Thought: x\nAction Input: 2").contains("no 'Action:'"));
    assert!(problem("Action: calculator\nAction Input:").contains("empty"));
    assert!(problem("<think>Let me see, Action: calculator").contains("only reasoning"));
}

#[test]
fn reasoning_blocks_are_ignored() {
    let r = parse_reply(
            "<think>\nAction: wrong\nAction Input: 0\n</think>\nThought: t\nAction: calculator\nAction Input: 6*7",
        );
    assert_eq!(as_action(r), action("calculator", "6*7"));
    let r = parse_reply("Okay, so Answer: no\n</think>\n\nAnswer: 42");
    assert!(matches!(r, Reply::Answer { answer, thought: None } if answer == "42"));
    assert_eq!(
            answer_of("<|channel|>analysis<|message|>Need 6*7.<|end|><|start|>assistant<|channel|>final<|message|>Answer: 42<|return|>"),
            "42"
        );
    assert_eq!(answer_of("analysisWe need 6*7 = 42.assistantfinal42"), "42");
    let r = parse_reply(
            "<|channel|>analysis<|message|>Use calculator.<|end|><|start|>assistant<|channel|>commentary to=functions.calculator <|constrain|>json<|message|>{\"expression\":\"6*7\"}<|call|>",
        );
    assert_eq!(as_action(r), action("calculator", "6*7"));
    assert_eq!(
        parse_think("<think>long</think>\nThought: short\nAnswer: 4"),
        (Some("short".into()), Some("4".into()))
    );
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
    assert_eq!(
        answer_of("Actionable advice: none\nAnswers vary: yes\nAnswer: ok"),
        "ok"
    );
    assert_eq!(answer_of("Actually: hmm\nInputs: a\nAnswer: ok"), "ok");
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
    assert_eq!(parse_think("<think>all of it"), (None, None));
}

#[test]
fn unicode_does_not_break_label_matching() {
    let r = parse_reply("Thought: é😀\nAction: calculator\nAction Input: π*2");
    assert_eq!(as_action(r), action("calculator", "π*2"));
    assert!(matches!(parse_reply("é"), Reply::Invalid { .. }));
    assert!(matches!(parse_reply("Acti€n: x"), Reply::Invalid { .. }));
    for text in [
        "Action: é[",
        "Action: é(é",
        "Action Input: \"é",
        "```é",
        "<think>é</think>é",
        "analysisé assistantfinalé",
        "<|channel|>é<|message|>",
    ] {
        let _ = parse_reply(text);
        let _ = parse_think(text);
    }
}

#[test]
fn reasoning_tags_are_stripped_as_before() {
    use super::prepare::strip_reasoning_tags;
    for (text, kept) in [
        ("a<think>b</think>c", "ac"),
        ("a<think>b</think>c</think>d", "d"),
        ("lead</think>after", "after"),
        ("x<think>open to the end", "x"),
        ("x<THINK>y<think>z</Think>w", "xw"),
        ("<thinking>t</thinking>A<reasoning>r</reasoning>B", "AB"),
        ("a < b <thin k> c", "a < b <thin k> c"),
    ] {
        assert_eq!(strip_reasoning_tags(text).0, kept, "{text:?}");
    }
    assert!(!strip_reasoning_tags("no tags < here").1);
}

/// A reply of thousands of tags (32 KB) is read whole; scripts/bench times it.
#[test]
fn a_reply_made_of_tags_keeps_only_what_follows_the_last_close() {
    use super::prepare::strip_reasoning_tags;
    let text = "</think>x".repeat(32 * 1024 / 9) + "Answer: 4";
    assert_eq!(
        strip_reasoning_tags(&text),
        ("xAnswer: 4".to_string(), true)
    );
    let mixed = "<think>a</think>b<THINKING>c".repeat(1200);
    assert_eq!(strip_reasoning_tags(&mixed).0, "b");
}

/// An observation the model wrote itself inside the JSON of its call is no part of the call's
/// arguments either.
#[test]
fn an_invented_observation_inside_json_arguments_is_cut() {
    for reply in [
        "Action: python\nAction Input: {\"code\": \"print(1)\\nObservation: 42\", \"n\": [\"a\\nObservation: x\"]}",
        "{\"name\": \"python\", \"arguments\": {\"code\": \"print(1)\\nObservation: 42\", \"n\": [\"a\\nObservation: x\"]}}",
    ] {
        match parse_reply(reply) {
            Reply::Action { args, .. } => {
                assert_eq!(
                    args,
                    serde_json::json!({"code": "print(1)", "n": ["a"]}),
                    "{reply}"
                )
            }
            other => panic!("{reply}: {other:?}"),
        }
    }
}
