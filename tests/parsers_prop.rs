#![cfg(not(target_arch = "wasm32"))]
//! Property tests of the reply parsers (proptest is a host-only dev-dependency), and an
//! exhaustive test of `ToolCallAssembler` over every split of a fixed two-call stream.
//!
//! Every `proptest!` block below runs 2,000 cases per property (`CASES`).

use proptest::prelude::*;
use proptest::sample::Index;

use react_arena::agent::json_protocol::parse_json_reaction;
use react_arena::agent::native::{bare_json_answer, bare_json_call, call_input};
use react_arena::agent::think_split::{merge, Piece, ThinkSplitter};
use react_arena::llm::chunk::read_payload;
use react_arena::llm::tool_calls::{ToolCall, ToolCallAssembler, ToolCallDelta};

/// Cases per property: 2,000 each.
const CASES: u32 = 2_000;

const TAGS: [&str; 6] = [
    "<think>",
    "</think>",
    "<thinking>",
    "</thinking>",
    "<reasoning>",
    "</reasoning>",
];

/// `text` with every complete tag (any case) removed, scanning left to right.
fn without_tags(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    'outer: while let Some(c) = rest.chars().next() {
        if c == '<' {
            for tag in TAGS {
                if rest.len() >= tag.len()
                    && rest.as_bytes()[..tag.len()].eq_ignore_ascii_case(tag.as_bytes())
                {
                    rest = &rest[tag.len()..];
                    continue 'outer;
                }
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Pieces of text that exercise the splitter: tags in several cases, partial tags, lone `<`
/// and `>`, and random text (including multi-byte characters).
fn think_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just("<think>".to_string()),
        3 => Just("</think>".to_string()),
        2 => Just("<THINK>".to_string()),
        2 => Just("</Think>".to_string()),
        2 => Just("<thinking>".to_string()),
        2 => Just("</THINKING>".to_string()),
        2 => Just("<reasoning>".to_string()),
        2 => Just("</Reasoning>".to_string()),
        1 => Just("<reas".to_string()),
        2 => Just("<".to_string()),
        1 => Just(">".to_string()),
        2 => Just("</".to_string()),
        2 => Just("<thi".to_string()),
        2 => Just("</thin".to_string()),
        1 => Just("<thinker>".to_string()),
        1 => Just("<b>".to_string()),
        6 => "[a-z <>/\n]{0,12}",
        4 => "\\PC{0,8}",
        1 => Just("é😀π".to_string()),
    ]
}

fn think_text() -> impl Strategy<Value = String> {
    prop::collection::vec(think_fragment(), 0..24).prop_map(|v| v.concat())
}

/// `text` cut at the given points (moved back to char boundaries).
fn chunks(text: &str, cuts: &[Index]) -> Vec<String> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|i| {
            let mut p = i.index(text.len() + 1);
            while !text.is_char_boundary(p) {
                p -= 1;
            }
            p
        })
        .collect();
    points.push(0);
    points.push(text.len());
    points.sort_unstable();
    points.dedup();
    points
        .windows(2)
        .map(|w| text[w[0]..w[1]].to_string())
        .collect()
}

fn split_in_chunks(parts: &[String], lead_limit: Option<usize>) -> Vec<Piece> {
    let mut s = match lead_limit {
        Some(n) => ThinkSplitter::with_lead_limit(n),
        None => ThinkSplitter::new(),
    };
    let mut all = Vec::new();
    for part in parts {
        let got = s.push(part);
        check_well_formed(&got);
        all.extend(got);
    }
    let tail = s.finish();
    check_well_formed(&tail);
    all.extend(tail);
    all
}

fn check_well_formed(pieces: &[Piece]) {
    for p in pieces {
        assert!(!p.text().is_empty(), "empty piece in {pieces:?}");
    }
    for w in pieces.windows(2) {
        assert_ne!(
            w[0].is_reasoning(),
            w[1].is_reasoning(),
            "unmerged neighbours in {pieces:?}"
        );
    }
}

fn joined(pieces: &[Piece]) -> String {
    pieces.iter().map(Piece::text).collect()
}

/// JSON-looking noise: fragments of the shapes the parsers look for, glued at random.
fn json_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(":".to_string()),
        Just(",".to_string()),
        Just("\"".to_string()),
        Just("\"action\"".to_string()),
        Just("\"arguments\"".to_string()),
        Just("\"explanation\"".to_string()),
        Just("\"answer\"".to_string()),
        Just("\"name\"".to_string()),
        Just("\"input\"".to_string()),
        Just("\"tool\"".to_string()),
        Just("\"tool_input\"".to_string()),
        Just("\"action_input\"".to_string()),
        Just("\"function\"".to_string()),
        Just("\"actions\"".to_string()),
        Just("\"choices\"".to_string()),
        Just("\"delta\"".to_string()),
        Just("\"content\"".to_string()),
        Just("\"reasoning\"".to_string()),
        Just("\"tool_calls\"".to_string()),
        Just("\"index\"".to_string()),
        Just("\"error\"".to_string()),
        Just("\"usage\"".to_string()),
        Just("\"Final Answer\"".to_string()),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("-1.5e3".to_string()),
        Just("18446744073709551616".to_string()),
        Just("```json\n".to_string()),
        Just("\n```".to_string()),
        Just("<tool_call>".to_string()),
        Just("[DONE]".to_string()),
        Just("\\u00e9".to_string()),
        Just("\\ud800".to_string()),
        "[a-z0-9 ]{0,6}",
        "\\PC{0,4}",
    ]
}

fn json_noise() -> impl Strategy<Value = String> {
    prop::collection::vec(json_fragment(), 0..40).prop_map(|v| v.concat())
}

/// Random well-formed JSON values, serialised.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,10}".prop_map(Value::String),
        prop::sample::select(vec![
            "action",
            "answer",
            "calculator",
            "final_answer",
            "Final Answer",
            "{\"input\":\"1\"}",
        ])
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let key = prop::sample::select(vec![
            "action",
            "arguments",
            "explanation",
            "name",
            "input",
            "tool",
            "tool_input",
            "action_input",
            "function",
            "actions",
            "parameters",
            "choices",
            "delta",
            "content",
            "tool_calls",
            "error",
            "x",
        ]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..5).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

/// Arbitrary text, JSON-looking noise, or real JSON (bare, fenced, or in prose).
fn parser_input() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        json_noise(),
        json_value().prop_map(|v| v.to_string()),
        json_value().prop_map(|v| format!("```json\n{v:#}\n```")),
        (json_value(), "\\PC{0,12}", json_value())
            .prop_map(|(a, prose, b)| format!("{prose} {a} and {b}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// No panic on random pushes of random strings including tag fragments.
    #[test]
    fn think_splitter_never_panics(
        parts in prop::collection::vec(prop_oneof![any::<String>(), think_fragment()], 0..16),
        limit in prop_oneof![Just(None), (0usize..20).prop_map(Some)],
    ) {
        let _ = split_in_chunks(&parts, limit);
    }

    /// Content and reasoning, in order, are the input minus the tags; how the input is
    /// chunked changes nothing.
    #[test]
    fn think_splitter_output_is_input_minus_tags(
        text in think_text(),
        cuts in prop::collection::vec(any::<Index>(), 0..10),
        limit in prop_oneof![Just(None), (0usize..30).prop_map(Some)],
    ) {
        let parts = chunks(&text, &cuts);
        prop_assert_eq!(parts.concat(), text.clone());
        let chunked = split_in_chunks(&parts, limit);
        prop_assert_eq!(joined(&chunked), without_tags(&text));
        let whole = split_in_chunks(std::slice::from_ref(&text), limit);
        prop_assert_eq!(merge(chunked), merge(whole));
    }

    /// One char per push gives what one push gives.
    #[test]
    fn think_splitter_char_by_char(text in think_text()) {
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let one = merge(split_in_chunks(std::slice::from_ref(&text), None));
        prop_assert_eq!(merge(split_in_chunks(&chars, None)), one);
    }

    /// No panic on arbitrary content.
    #[test]
    fn bare_json_call_never_panics(content in parser_input()) {
        if let Some((name, _, _)) = bare_json_call(&content) {
            prop_assert!(!name.is_empty());
        }
        let _ = bare_json_answer(&content);
    }

    /// No panic on arbitrary arguments; raw non-JSON text is accepted as the input.
    #[test]
    fn call_input_never_panics(arguments in parser_input(), name in "\\PC{0,8}") {
        let call = ToolCall { id: "call_0".into(), name, arguments: arguments.clone() };
        let got = call_input(&call);
        let t = arguments.trim();
        if !t.is_empty()
            && !t.starts_with(['{', '['])
            && serde_json::from_str::<serde_json::Value>(t).is_err()
        {
            prop_assert_eq!(got, Ok(t.to_string()));
        }
    }

    /// No panic on arbitrary replies; actions always name a tool.
    #[test]
    fn parse_json_reaction_never_panics(text in parser_input()) {
        use react_arena::agent::json_protocol::JsonReaction;
        match parse_json_reaction(&text) {
            JsonReaction::Actions(actions) => {
                prop_assert!(!actions.is_empty());
                prop_assert!(actions.iter().all(|a| !a.tool.is_empty()));
            }
            JsonReaction::Answer { text, .. } => prop_assert!(!text.trim().is_empty()),
            JsonReaction::Invalid { problem } => prop_assert!(!problem.is_empty()),
        }
    }

    /// No panic on arbitrary SSE payloads.
    #[test]
    fn read_payload_never_panics(data in parser_input()) {
        let _ = read_payload(&data);
    }
}

// ---- ToolCallAssembler: every split of a fixed two-call stream (exhaustive) ----

fn expected_calls() -> Vec<ToolCall> {
    vec![
        ToolCall {
            id: "call_a".into(),
            name: "calculator".into(),
            arguments: r#"{"input":"6*7"}"#.into(),
        },
        ToolCall {
            id: "call_b".into(),
            name: "wikipedia".into(),
            arguments: r#"{"input":"search: Zürich é😀"}"#.into(),
        },
    ]
}

fn delta(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> ToolCallDelta {
    ToolCallDelta {
        index,
        id: id.map(str::to_string),
        name: name.map(str::to_string),
        arguments: args.to_string(),
    }
}

fn boundaries(s: &str) -> Vec<usize> {
    (0..=s.len()).filter(|&i| s.is_char_boundary(i)).collect()
}

fn assemble(deltas: &[ToolCallDelta]) -> Vec<ToolCall> {
    let mut a = ToolCallAssembler::default();
    for d in deltas {
        a.push(d);
    }
    a.finish()
}

/// One call's fragments: the arguments cut at `cuts`; the id and name on the first fragment
/// (and the name on every fragment when `repeat_name`, as some servers do).
fn fragments(
    index: usize,
    call: &ToolCall,
    cuts: &[usize],
    repeat_name: bool,
) -> Vec<ToolCallDelta> {
    let mut points = vec![0];
    points.extend_from_slice(cuts);
    points.push(call.arguments.len());
    points
        .windows(2)
        .enumerate()
        .map(|(n, w)| {
            let first = n == 0;
            delta(
                index,
                first.then_some(call.id.as_str()),
                (first || repeat_name).then_some(call.name.as_str()),
                &call.arguments[w[0]..w[1]],
            )
        })
        .collect()
}

/// Both calls in order, one after the other, interleaved, or the second call first.
fn orders(a: Vec<ToolCallDelta>, b: Vec<ToolCallDelta>) -> Vec<Vec<ToolCallDelta>> {
    let sequential: Vec<_> = a.iter().chain(&b).cloned().collect();
    let mut interleaved = Vec::new();
    let mut interleaved_b_first = Vec::new();
    for k in 0..a.len().max(b.len()) {
        interleaved.extend(a.get(k).cloned());
        interleaved.extend(b.get(k).cloned());
        interleaved_b_first.extend(b.get(k).cloned());
        interleaved_b_first.extend(a.get(k).cloned());
    }
    vec![sequential, interleaved, interleaved_b_first]
}

#[test]
fn assembler_every_pair_of_argument_split_points() {
    let calls = expected_calls();
    let mut checked = 0;
    for &i in &boundaries(&calls[0].arguments) {
        for &j in &boundaries(&calls[1].arguments) {
            for repeat_name in [false, true] {
                let a = fragments(0, &calls[0], &[i], repeat_name);
                let b = fragments(1, &calls[1], &[j], repeat_name);
                for stream in orders(a, b) {
                    assert_eq!(assemble(&stream), calls, "split at {i}/{j}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1_000, "{checked}");
}

#[test]
fn assembler_every_split_point_of_the_whole_stream() {
    // The two calls' arguments as one stream, cut once anywhere (including inside a call).
    let calls = expected_calls();
    let la = calls[0].arguments.len();
    let whole = format!("{}{}", calls[0].arguments, calls[1].arguments);
    for cut in boundaries(&whole) {
        let a_cuts: Vec<usize> = (cut > 0 && cut < la).then_some(cut).into_iter().collect();
        let b_cuts: Vec<usize> = (cut > la && cut < whole.len())
            .then(|| cut - la)
            .into_iter()
            .collect();
        let stream: Vec<_> = fragments(0, &calls[0], &a_cuts, false)
            .into_iter()
            .chain(fragments(1, &calls[1], &b_cuts, false))
            .collect();
        assert_eq!(assemble(&stream), calls, "cut at {cut}");
    }
}

#[test]
fn assembler_every_two_split_points_within_one_call() {
    let calls = expected_calls();
    for which in 0..2 {
        let bounds = boundaries(&calls[which].arguments);
        for (n, &i) in bounds.iter().enumerate() {
            for &j in &bounds[n..] {
                let split = fragments(which, &calls[which], &[i, j], false);
                let whole = fragments(1 - which, &calls[1 - which], &[], false);
                let stream: Vec<_> = if which == 0 {
                    split.into_iter().chain(whole).collect()
                } else {
                    whole.into_iter().chain(split).collect()
                };
                assert_eq!(assemble(&stream), calls, "call {which} split at {i},{j}");
            }
        }
    }
}

#[test]
fn assembler_one_char_per_fragment() {
    let calls = expected_calls();
    let per_char = |index: usize, call: &ToolCall| {
        let cuts: Vec<usize> = boundaries(&call.arguments)
            .into_iter()
            .filter(|&c| c > 0 && c < call.arguments.len())
            .collect();
        fragments(index, call, &cuts, false)
    };
    for stream in orders(per_char(0, &calls[0]), per_char(1, &calls[1])) {
        assert_eq!(assemble(&stream), calls);
    }
}

#[test]
fn assembler_every_split_of_the_names() {
    // The name itself split in two fragments (id on the first), for every pair of split points
    // of the two names; the arguments come on the second fragment.
    let calls = expected_calls();
    let name_split = |index: usize, call: &ToolCall, k: usize| {
        vec![
            delta(index, Some(&call.id), Some(&call.name[..k]), ""),
            delta(index, None, Some(&call.name[k..]), &call.arguments),
        ]
    };
    for k0 in 1..calls[0].name.len() {
        for k1 in 1..calls[1].name.len() {
            let a = name_split(0, &calls[0], k0);
            let b = name_split(1, &calls[1], k1);
            for stream in orders(a, b) {
                assert_eq!(assemble(&stream), calls, "names split at {k0}/{k1}");
            }
        }
    }
}

#[test]
fn assembler_calls_without_ids_get_stable_ones() {
    let calls = expected_calls();
    for i in boundaries(&calls[0].arguments) {
        let args = &calls[0].arguments;
        let stream = [
            delta(5, None, Some("calculator"), &args[..i]),
            delta(2, None, Some("weather"), r#"{"input":"Oslo"}"#),
            delta(5, None, None, &args[i..]),
        ];
        let got = assemble(&stream);
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].id.as_str(), got[0].name.as_str()),
            ("call_2", "weather")
        );
        assert_eq!(
            (got[1].id.as_str(), got[1].name.as_str()),
            ("call_5", "calculator")
        );
        assert_eq!(&got[1].arguments, args);
    }
}
