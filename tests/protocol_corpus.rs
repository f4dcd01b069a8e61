#![cfg(not(target_arch = "wasm32"))]
//! The text-protocol parser against a corpus of real-shaped model outputs, and property tests
//! that it never panics and never lets an invented observation into a tool input.
//!
//! Each file in tests/fixtures/protocol/ holds header lines, a line `---`, then the raw model
//! output. Headers:
//!   # source: <where this shape comes from>
//!   # expect: action <tool> | <input>      (`\n` for a newline, `\\` for a backslash)
//!   # expect: answer | <answer>
//!   # expect: invalid
//!   # expect-note: <substring of the action's note>   (without it, the note must be None)
//!   # expect-problem: <substring of the invalid reply's problem>

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use react_arena::agent::protocol::{parse_reply, parse_think, Reply};

const MIN_CORPUS: usize = 70;

#[derive(Debug)]
enum Expect {
    Action { tool: String, input: String },
    Answer(String),
    Invalid,
}

struct Case {
    source: Option<String>,
    expect: Expect,
    note: Option<String>,
    problem: Option<String>,
    output: String,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/protocol")
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn read_case(text: &str) -> Result<Case, String> {
    let (header, output) = if let Some(h) = text.strip_prefix("---\n") {
        ("", h)
    } else {
        text.split_once("\n---\n")
            .ok_or("no `---` line between header and output")?
    };
    let mut source = None;
    let mut expect = None;
    let mut note = None;
    let mut problem = None;
    for line in header.lines().filter(|l| !l.trim().is_empty()) {
        let line = line
            .strip_prefix("# ")
            .ok_or_else(|| format!("header line without `# `: {line:?}"))?;
        let (key, value) = line
            .split_once(':')
            .ok_or_else(|| format!("header line without `:`: {line:?}"))?;
        let value = value.trim();
        match key.trim() {
            "source" => source = Some(value.to_string()),
            "expect-note" => note = Some(unescape(value)),
            "expect-problem" => problem = Some(unescape(value)),
            "expect" => {
                expect = Some(if value == "invalid" {
                    Expect::Invalid
                } else if let Some(rest) = value.strip_prefix("answer |") {
                    Expect::Answer(unescape(rest.trim()))
                } else if let Some(rest) = value.strip_prefix("action ") {
                    let (tool, input) = rest
                        .split_once(" | ")
                        .ok_or_else(|| format!("action without ` | `: {value:?}"))?;
                    Expect::Action {
                        tool: tool.trim().to_string(),
                        input: unescape(input.trim()),
                    }
                } else {
                    return Err(format!("unknown expectation {value:?}"));
                })
            }
            other => return Err(format!("unknown header {other:?}")),
        }
    }
    Ok(Case {
        source,
        expect: expect.ok_or("no `# expect:` line")?,
        note,
        problem,
        output: output.to_string(),
    })
}

/// What is wrong with `got` for `case`, if anything.
fn mismatch(case: &Case, got: &Reply) -> Option<String> {
    match (&case.expect, got) {
        (
            Expect::Action { tool, input },
            Reply::Action {
                tool: t,
                input: i,
                note,
                ..
            },
        ) => {
            if t != tool || i != input {
                return Some(format!(
                    "expected action {tool:?} | {input:?}, got {t:?} | {i:?}"
                ));
            }
            match (&case.note, note) {
                (None, None) => None,
                (Some(want), Some(n)) if n.contains(want.as_str()) => None,
                (want, n) => Some(format!("expected note containing {want:?}, got {n:?}")),
            }
        }
        (Expect::Answer(want), Reply::Answer { answer, .. }) => {
            (answer != want).then(|| format!("expected answer {want:?}, got {answer:?}"))
        }
        (Expect::Invalid, Reply::Invalid { problem, .. }) => match &case.problem {
            Some(want) if !problem.contains(want.as_str()) => Some(format!(
                "expected a problem containing {want:?}, got {problem:?}"
            )),
            _ => None,
        },
        (want, got) => Some(format!("expected {want:?}, got {got:?}")),
    }
}

#[test]
fn corpus_of_model_outputs_parses_as_a_careful_reader_would() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/fixtures/protocol exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();

    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).expect("utf-8 fixture");
        let case = match read_case(&text) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{name}: bad fixture: {e}"));
                continue;
            }
        };
        if case.source.is_none() {
            failures.push(format!("{name}: no `# source:` line"));
        }
        let got = parse_reply(&case.output);
        if let Some(why) = mismatch(&case, &got) {
            failures.push(format!("{name}: {why}"));
        }
        // Every fixture is also a Think-only reply that must not panic.
        let _ = parse_think(&case.output);
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    assert!(
        files.len() >= MIN_CORPUS,
        "the corpus has {} fixtures; at least {MIN_CORPUS} expected",
        files.len()
    );
}

/// What must hold for any reply: no panic (checked by getting here), a non-empty one-line
/// tool name, and no invented observation inside an input.
fn check_invariants(text: &str) -> Result<(), TestCaseError> {
    let _ = parse_think(text);
    if let Reply::Action { tool, input, .. } = parse_reply(text) {
        prop_assert!(!tool.trim().is_empty(), "empty tool name for {text:?}");
        prop_assert!(!tool.contains('\n'), "multi-line tool name {tool:?}");
        for line in input.lines() {
            prop_assert!(
                !line.trim_start().starts_with("Observation:"),
                "input {input:?} holds an observation line (reply {text:?})"
            );
        }
    }
    Ok(())
}

const FRAGMENTS: [&str; 24] = [
    "Action:",
    "Action Input:",
    "Answer:",
    "Final Answer:",
    "Observation:",
    "Thought:",
    "```",
    "```json",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "\"",
    "\n",
    " ",
    "é",
    "😀",
    "<think>",
    "</think>",
    "calculator",
    "<|channel|>final<|message|>",
    "\\boxed{",
];

fn fragment_soup() -> impl Strategy<Value = String> {
    soup_of(&FRAGMENTS)
}

fn soup_of(fragments: &'static [&'static str]) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => proptest::sample::select(fragments).prop_map(str::to_string),
        1 => "[a-z0-9 +*=:'\"{}()\\[\\]\n]{0,6}",
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    // 2,000 cases of arbitrary Unicode strings.
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_arbitrary_text(text in any::<String>()) {
        check_invariants(&text)?;
    }
}

proptest! {
    // 2,000 cases of strings built from label-ish fragments, where the parser's branches are.
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_label_soup(text in fragment_soup()) {
        check_invariants(&text)?;
    }
}

proptest! {
    // 2,000 cases: a valid action followed by arbitrary fragments (an invented observation
    // among them; no reasoning tags, which would turn the action into reasoning) still yields
    // an action whose input holds no observation line.
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn invented_observations_never_reach_an_input(
        input in "[a-z0-9+*]{1,8}",
        tail in soup_of(&FRAGMENTS[..19]),
    ) {
        let text = format!("Action: calculator\nAction Input: {input}\n{tail}");
        check_invariants(&text)?;
        let got = parse_reply(&text);
        prop_assert!(matches!(got, Reply::Action { .. }), "{text:?} gave {got:?}");
    }
}
