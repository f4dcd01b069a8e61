#![cfg(not(target_arch = "wasm32"))]
//! A run file is anyone's to write (an import, a `#run=` link): the parser and every pure view
//! of a run (export, figures, history line, replay, Inspect's calls) are fed arbitrary and
//! structurally huge files. None may panic, a file over a limit is refused with a message that
//! names the limit, and whatever is accepted is drawn in bounded time.
//!
//! The `proptest!` block runs 300 cases per property (`CASES`).

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{json, Value};

use react_arena::agent::calls::model_calls;
use react_arena::agent::metrics::{best_of, run_metrics, step_line, timeline};
use react_arena::agent::record::{Answer, RunRecord, Step, ToolRun, Turn};
use react_arena::agent::replay::{Playback, Replay};
use react_arena::export::{file_stem, markdown};
use react_arena::history::RunSummary;
use react_arena::llm::ChatMessage;
use react_arena::run_file::RunFile;
use react_arena::run_limits::{
    MAX_CALLS_PER_STEP, MAX_MESSAGES_PER_STEP, MAX_NESTED_VALUES, MAX_RECORDS, MAX_STEPS,
    MAX_STEPS_PER_TURN, MAX_TEXT_CHARS, MAX_TURNS,
};
use react_arena::settings::Settings;
use react_arena::tools::failure::Failed;
use react_arena::tools::FailureKind;

const CASES: u32 = 300;

/// What a view of an accepted file may take, in a debug build on 2 cores.
const VIEWS_BUDGET: Duration = Duration::from_secs(10);
/// What refusing a file may take.
const REFUSAL_BUDGET: Duration = Duration::from_secs(3);

/// Every pure view the page draws of a run file, as the page would draw it; how long it took.
fn draw_every_view(file: &RunFile) -> Duration {
    let started = Instant::now();
    let md = markdown(file);
    assert!(!md.is_empty());
    let _ = file_stem(file.created, &file.title);
    let _ = RunSummary::of(file, file.created);
    let metrics: Vec<_> = file.records.iter().map(|r| run_metrics(r, None)).collect();
    let _ = best_of(&metrics);
    for record in &file.records {
        let _ = timeline(record, record.created);
        record.steps().iter().for_each(|s| {
            let _ = step_line(s);
        });
        let _ = record.messages();
        // Inspect lists every call and reads the messages of the one the user opens.
        let calls = model_calls(record);
        if let Some(last) = calls.last() {
            assert_eq!(last.sent(record).len(), last.sent_count);
        }
    }
    // The replay at 1×, a minute of recording at a time, then the rest at once.
    let replays: Vec<Replay> = file.records.iter().map(Replay::of).collect();
    let mut playback = Playback::new(replays.clone());
    for _ in 0..100 {
        if playback.is_done() {
            break;
        }
        playback.advance(60_000.0);
    }
    playback.finish();
    assert!(playback.is_done());
    for replay in &replays {
        let _ = replay.fold();
    }
    started.elapsed()
}

fn run_json(records: Value) -> String {
    json!({
        "format": "react-arena/run",
        "version": 1,
        "id": "x",
        "title": "t",
        "created": 1.7e12,
        "settings": {},
        "records": records,
    })
    .to_string()
}

fn refused(json: &str) -> String {
    let started = Instant::now();
    let err = RunFile::from_json(json).expect_err("a file over a limit is refused");
    assert!(
        started.elapsed() < REFUSAL_BUDGET,
        "refusing took {:?}",
        started.elapsed()
    );
    err
}

/// The reported address: 600,000 steps written as `{}` (1.8 MB of JSON, 3.9 KB deflated).
#[test]
fn six_hundred_thousand_empty_steps_are_refused_by_the_nested_values_limit() {
    let steps = vec!["{}"; 600_000].join(",");
    let text = format!(
        r#"{{"format":"react-arena/run","version":1,"id":"x","title":"t","created":0,"settings":{{}},"records":[{{"turns":[{{"steps":[{steps}]}}]}}]}}"#
    );
    let err = refused(&text);
    assert!(err.contains("objects and lists"), "{err}");
    assert!(err.contains("100,000"), "the limit is named: {err}");
}

/// The reported import: a 3 MB file with 1,000,000 steps.
#[test]
fn a_million_steps_in_a_file_are_refused() {
    let steps = vec!["{}"; 1_000_000].join(",");
    let err = refused(
        &run_json(json!([{ "turns": [{ "steps": [] }] }]))
            .replace(r#""steps":[]"#, &format!(r#""steps":[{steps}]"#)),
    );
    assert!(err.contains("100,000"), "{err}");
}

fn step() -> Step {
    Step {
        number: 1,
        t_start: 1.7e12,
        t_reply: Some(1.7e12 + 500.0),
        live: "Thought: x\nAction: calculator\nAction Input: 1+1".into(),
        tool_runs: vec![ToolRun {
            tool: "calculator".into(),
            input: "1+1".into(),
            output: Some("2".into()),
            is_error: false,
            failure: None,
            mcp: None,
            ..ToolRun::default()
        }],
        messages: vec![ChatMessage::assistant("Thought: x"), ChatMessage::user("2")],
        settled: true,
        ..Step::default()
    }
}

fn file_of(records: Vec<RunRecord>) -> RunFile {
    RunFile::new("x".into(), 1.7e12, Settings::default(), records)
}

fn record(turns: usize, steps: usize) -> RunRecord {
    let turns = (0..turns)
        .map(|i| Turn {
            question: format!("question {i}"),
            t_start: 1.7e12,
            steps: vec![step(); steps],
            answer: Some(Answer {
                text: "2".into(),
                forced: false,
                step: 1,
            }),
            ..Turn::default()
        })
        .collect();
    RunRecord {
        turns,
        ..RunRecord::default()
    }
}

/// Each limit: a file at it is read and drawn in bounded time, one past it is refused with a
/// message naming the limit.
#[test]
fn each_limit_holds_exactly_and_is_named_when_passed() {
    let at_and_over: Vec<(&str, RunFile, RunFile)> = vec![
        (
            "records",
            file_of(vec![record(1, 1); MAX_RECORDS]),
            file_of(vec![record(1, 1); MAX_RECORDS + 1]),
        ),
        (
            "questions",
            file_of(vec![record(MAX_TURNS, 1)]),
            file_of(vec![record(MAX_TURNS + 1, 1)]),
        ),
        (
            "steps for one question",
            file_of(vec![record(1, MAX_STEPS_PER_TURN)]),
            file_of(vec![record(1, MAX_STEPS_PER_TURN + 1)]),
        ),
        (
            "steps",
            file_of(vec![record(MAX_STEPS / 100, 100)]),
            file_of(vec![record(MAX_STEPS / 100, 100), record(1, 1)]),
        ),
        ("tool calls", file_of(vec![calls(MAX_CALLS_PER_STEP)]), {
            file_of(vec![calls(MAX_CALLS_PER_STEP + 1)])
        }),
        (
            "messages",
            file_of(vec![messages(MAX_MESSAGES_PER_STEP)]),
            file_of(vec![messages(MAX_MESSAGES_PER_STEP + 1)]),
        ),
        (
            "characters",
            file_of(vec![answer_of(MAX_TEXT_CHARS)]),
            file_of(vec![answer_of(MAX_TEXT_CHARS + 1)]),
        ),
        (
            "failure detail",
            file_of(vec![failure_detail_of(MAX_TEXT_CHARS)]),
            file_of(vec![failure_detail_of(MAX_TEXT_CHARS + 1)]),
        ),
    ];
    for (what, at, over) in at_and_over {
        let read = RunFile::from_json(&at.to_json())
            .unwrap_or_else(|e| panic!("{what}: a file at the limit is read: {e}"));
        let took = draw_every_view(&read);
        println!("{what}: every view of a file at the limit took {took:?}");
        assert!(took < VIEWS_BUDGET, "{what}: the views took {took:?}");
        let err = refused(&over.to_json());
        assert!(err.contains(what), "{what}: {err}");
        assert!(err.contains("at most"), "{what}: the limit is named: {err}");
    }
}

fn calls(n: usize) -> RunRecord {
    let mut r = record(1, 1);
    r.turns[0].steps[0].tool_runs = vec![ToolRun::default(); n];
    r
}

fn messages(n: usize) -> RunRecord {
    let mut r = record(1, 1);
    r.turns[0].steps[0].messages = vec![ChatMessage::user("m"); n];
    r
}

/// A failed call whose detail (shown to the user only) is `chars` long.
fn failure_detail_of(chars: usize) -> RunRecord {
    let mut r = record(1, 1);
    r.turns[0].steps[0].tool_runs[0].failure = Some(Failed {
        kind: FailureKind::Upstream,
        detail: Some("é".repeat(chars)),
    });
    r
}

fn answer_of(chars: usize) -> RunRecord {
    let mut r = record(1, 1);
    r.turns[0].answer.as_mut().unwrap().text = "é".repeat(chars);
    r
}

/// Numbers an attacker would write into a file.
fn hostile_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(1e300)),
        Just(json!(-1e300)),
        Just(json!(f64::MAX)),
        Just(json!(-f64::MAX)),
        Just(json!(u64::MAX)),
        Just(json!(u32::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(0.5)),
        any::<i32>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("JSON has finite numbers", |f| f.is_finite())
            .prop_map(|f| json!(f)),
    ]
}

/// A leaf or a small structure: what may stand anywhere a value goes.
fn hostile_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        hostile_number(),
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        "\\PC{0,12}".prop_map(Value::String),
        Just(json!("")),
        Just(json!({})),
        Just(json!([])),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,12}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Nodes under `v`, itself included.
fn nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(items) => items.iter().map(nodes).sum(),
        Value::Object(map) => map.values().map(nodes).sum(),
        _ => 0,
    }
}

/// Replaces the `n`th node under `v` (depth first, `v` itself is 0); false if there are fewer.
fn replace_nth(v: &mut Value, n: &mut usize, with: &Value) -> bool {
    if *n == 0 {
        *v = with.clone();
        return true;
    }
    *n -= 1;
    match v {
        Value::Array(items) => items.iter_mut().any(|i| replace_nth(i, n, with)),
        Value::Object(map) => map.values_mut().any(|i| replace_nth(i, n, with)),
        _ => false,
    }
}

/// A real run's JSON with some of its values (any field, number or subtree below the top
/// level) replaced by hostile ones.
fn mutated(mut file: Value, edits: &[(usize, Value)]) -> Value {
    for (at, value) in edits {
        let Value::Object(map) = &mut file else {
            unreachable!("a run file is an object")
        };
        let mut fields: Vec<&mut Value> = map.values_mut().collect();
        let total: usize = fields.iter().map(|f| nodes(f)).sum();
        let mut n = at % total;
        fields.iter_mut().any(|f| replace_nth(f, &mut n, value));
    }
    file
}

fn shipped() -> Value {
    let text = std::fs::read_to_string("public/recordings/multiply.json").unwrap();
    serde_json::from_str(&text).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// A shipped recording with any of its values replaced by a hostile one: it is read or
    /// refused with a reason, never a panic, and whatever is read is drawn in bounded time.
    #[test]
    fn a_recording_with_hostile_values_never_panics(
        edits in prop::collection::vec((any::<usize>(), hostile_value()), 1..12)
    ) {
        let text = mutated(shipped(), &edits).to_string();
        match RunFile::from_json(&text) {
            Ok(file) => {
                let took = draw_every_view(&file);
                prop_assert!(took < VIEWS_BUDGET, "{took:?}");
            }
            Err(why) => prop_assert!(!why.is_empty()),
        }
    }

    /// Arbitrary text, and arbitrary JSON in the place of a run's records.
    #[test]
    fn any_text_or_any_records_never_panic(
        text in "\\PC{0,200}",
        records in hostile_value(),
    ) {
        let _ = RunFile::from_json(&text);
        if let Ok(file) = RunFile::from_json(&run_json(json!([records]))) {
            let took = draw_every_view(&file);
            prop_assert!(took < VIEWS_BUDGET, "{took:?}");
        }
    }
}

#[test]
fn the_limits_leave_room_for_real_runs() {
    // The heaviest run the settings allow, three modes of twenty follow-ups of 21 steps,
    // stays under every limit.
    let heavy = file_of(vec![record(20, 21); 3]);
    let json = heavy.to_json();
    let read = RunFile::from_json(&json).expect("a heavy real run is read");
    let nested = json.matches(['{', '[']).count();
    assert!(nested * 2 < MAX_NESTED_VALUES, "{nested} objects and lists");
    let took = draw_every_view(&read);
    println!("every view of a heavy real run took {took:?}");
    assert!(took < VIEWS_BUDGET);
}
