//! CodeAct's interpreter outlives a stopped program (issue 59, rows 1 and 2 of its table): a
//! call past the step's call limit raises in the program, which runs on, and a program past
//! Settings' Python time limit is interrupted where the page is cross-origin isolated; either
//! way what it printed is in its Observation and its variables are there for the next
//! program. Where the page is not isolated, the program is ended with its sandbox and the
//! Observation names the variables lost. The scripted endpoint writes the programs; Pyodide is
//! real, self-hosted by the fixture server.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use react_arena::agent::Mode;
use react_arena::run_file::RunFile;
use react_arena::tools::program::ProgramStop;
use serde_json::{json, Value};
use support::browser::{browser_test, Rig, CAPTURE_DOWNLOADS};
use support::fixtures::FixtureServer;
use support::mock::Reply;

/// The first program fetches and loads Pyodide (several MB) into a fresh sandbox.
const PYTHON_SETTLE: Duration = Duration::from_secs(180);

fn program(thought: &str, code: &str) -> Reply {
    Reply::text(&format!("Thought: {thought}\n```python\n{code}\n```"))
}

async fn open(rig: &Rig, fixtures: &FixtureServer, overrides: Value) {
    let mut settings = json!({ "tool_endpoints": fixtures.endpoints(), "max_steps": 4 });
    settings
        .as_object_mut()
        .unwrap()
        .extend(overrides.as_object().unwrap().clone());
    rig.open_app_overriding(settings).await;
}

/// The Observation the panel shows that says `part` (the program's whole Observation).
fn observation<'a>(p: &'a support::browser::PanelView, part: &str) -> &'a str {
    let found = p
        .observations
        .iter()
        .find(|o| o.contains(part))
        .unwrap_or_else(|| panic!("no observation says {part:?}: {p:#?}"));
    eprintln!("{found}");
    found
}

#[test]
fn a_variable_survives_the_call_limit_and_what_the_program_printed_is_kept() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program("keep a base", "base = 100\nprint('base set')"),
                program(
                    "add one to each number, with the calculator",
                    "for i in range(12):\n    print(i, calculator(input=f'{i}+1'))",
                ),
                program("use the base I kept", "final_answer(base + 1)"),
            ],
        );
        open(&rig, &fixtures, json!({})).await;
        rig.ask(
            "Count with the calculator, then add one to the base.",
            "codeact",
        )
        .await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        // The third program still had the first one's variable.
        assert_eq!(p.answer_text(), "101", "{p:#?}");
        assert!(!p.text.contains("NameError"), "{p:#?}");
        // The loop's Observation keeps what it printed before the limit, the exception the
        // eleventh call raised in the program, and says the limit was reached.
        let looped = observation(&p, "more than 10 tool calls");
        assert!(
            looped.contains("0 1") && looped.contains("9 10"),
            "{looped}"
        );
        assert!(!looped.contains("10 11"), "{looped}");
        assert!(
            looped.contains("\nCallLimitError: this program already made the 10 tool calls"),
            "{looped}"
        );
        // Only the ten calls within the limit ran.
        let calls = rig
            .js("return document.querySelectorAll('section.panel .program-call').length")
            .await;
        assert_eq!(calls, json!(10));
    });
}

#[test]
fn on_an_isolated_page_a_program_past_its_time_is_interrupted_and_its_variables_stay() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        // Isolated as a user of the model in this browser makes it (one reload); then back on
        // the endpoint.
        rig.open_app_overriding(json!({ "backend": "browser" }))
            .await;
        rig.isolate().await;
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program("keep a number", "keep = 7"),
                program("loop", "print('looping')\nn = 0\nwhile True:\n    n += 1"),
                program("answer with what I kept", "final_answer(keep)"),
            ],
        );
        open(&rig, &fixtures, json!({ "python_timeout_secs": 3 })).await;
        assert_eq!(rig.js("return window.crossOriginIsolated").await, true);
        rig.ask("Loop, then give the number you kept.", "codeact")
            .await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.answer_text(), "7", "{p:#?}");
        let looped = observation(&p, "ran past the 3 s");
        assert!(looped.contains("looping"), "{looped}");
        // Interrupted, not restarted: nothing was lost.
        assert!(!looped.contains("restarted"), "{looped}");
        assert!(!p.text.contains("NameError"), "{p:#?}");
    });
}

#[test]
fn settings_time_limit_of_5_s_stops_a_program_and_the_record_keeps_the_limit_and_the_stop() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program("keep a number", "keep = 7\nbase = 100"),
                program("loop", "while True:\n    pass"),
                program("answer", "final_answer('stopped at the limit')"),
            ],
        );
        open(&rig, &fixtures, json!({ "python_timeout_secs": 5 })).await;
        // A page that is not isolated cannot interrupt the program: its sandbox is ended.
        assert_eq!(rig.js("return window.crossOriginIsolated").await, false);
        rig.ask("Loop forever.", "codeact").await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.answer_text(), "stopped at the limit", "{p:#?}");
        let looped = observation(&p, "ran past the 5 s");
        // The Observation says the sandbox was restarted, and which variables were lost.
        assert!(
            looped.contains("cannot interrupt a running program")
                && looped.contains("these variables were lost: keep, base"),
            "{looped}"
        );

        // The run's record keeps the limit it ran under and the program's stop.
        rig.js(CAPTURE_DOWNLOADS).await;
        rig.click("#export-json").await;
        let downloads = rig.wait_for_downloads(1, Duration::from_secs(20)).await;
        let file = RunFile::from_json(&downloads[0].text).expect("the JSON export reads back");
        let record = &file.records[0];
        assert_eq!(record.config.program_secs, Some(5));
        let stops: Vec<Option<ProgramStop>> = record.turns[0]
            .steps
            .iter()
            .flat_map(|s| s.tool_runs.iter().filter(|r| r.program).map(|r| r.stop))
            .collect();
        assert_eq!(
            stops,
            [None, Some(ProgramStop::TimeLimit { secs: 5 }), None],
            "{record:#?}"
        );
    });
}
