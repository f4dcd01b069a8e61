//! CodeAct in the browser: the model's programs run in the page's Python sandbox (Pyodide in
//! a sandboxed frame, self-hosted by the fixture server), each tool call a program makes is
//! run by the page, through the run's gate, and answered to the program; a program's
//! variables stay for the run's next program; `final_answer` ends the run; a program that
//! never ends is stopped at the step's time limit. The scripted endpoint writes the programs.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use react_arena::agent::Mode;
use serde_json::json;
use support::browser::{browser_test, Rig};
use support::fixtures::FixtureServer;
use support::layout::resize;
use support::mock::Reply;

/// The first program fetches and loads Pyodide (several MB) into a fresh sandbox.
const PYTHON_SETTLE: Duration = Duration::from_secs(180);

fn program(thought: &str, code: &str) -> Reply {
    Reply::text(&format!("Thought: {thought}\n```python\n{code}\n```"))
}

async fn open(rig: &Rig, fixtures: &FixtureServer) {
    rig.open_app_overriding(json!({ "tool_endpoints": fixtures.endpoints(), "max_steps": 4 }))
        .await;
}

#[test]
fn codeact_programs_call_tools_through_the_page_keep_variables_and_end_with_final_answer() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program(
                    "compute both in a loop",
                    "results = {}\nfor e in ['4821*37', '178377-999']:\n    results[e] = calculator(input=e)\n    print(e, '=', results[e])",
                ),
                program(
                    "use what I kept; a failed call is an exception",
                    "print(sorted(results))\ntry:\n    calculator('1/')\nexcept ToolError as e:\n    print('failed:', str(e)[:40])\nfinal_answer(results['178377-999'])",
                ),
            ],
        );
        open(&rig, &fixtures).await;
        rig.ask("What is 4821 times 37, minus 999?", "codeact")
            .await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.answer_text(), "177378", "{p:#?}");
        // The first program's output came back as its Observation: the tool results it
        // printed, computed by the page's calculator.
        assert!(
            p.text.contains("4821*37 = 178377") && p.text.contains("178377-999 = 177378"),
            "{p:#?}"
        );
        // The second program saw the first one's variables, and the refused call reached it
        // as an exception it printed.
        assert!(p.text.contains("['178377-999', '4821*37']"), "{p:#?}");
        assert!(p.text.contains("failed: "), "{p:#?}");
        // The panel shows each program, and each call it made under it with its result.
        let shown = rig
            .js("return Array.from(document.querySelectorAll('section.panel .program-call')).map(c => c.innerText)")
            .await;
        let calls: Vec<&str> = shown
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c.as_str())
            .collect();
        assert_eq!(calls.len(), 3, "{calls:?}");
        assert!(
            calls[0].contains("calculator")
                && calls[0].contains("4821*37")
                && calls[0].contains("→ 178377"),
            "{calls:?}"
        );
        assert!(calls[1].contains("→ 177378"), "{calls:?}");
        let programs = rig
            .js("return document.querySelectorAll('section.panel .program-code').length")
            .await;
        assert_eq!(programs, json!(2));
        // The system prompt listed the tools as Python functions (the python tool is not
        // among them: the program is Python already).
        let sent = rig
            .mock
            .chat_requests_containing(Mode::CodeAct.prompt_heading());
        let first = &sent[0].body;
        assert!(
            first.contains("def calculator(input: str) -> str:"),
            "{first}"
        );
        assert!(!first.contains("def python("), "{first}");
        // No native tools offered: CodeAct's actions are programs.
        assert!(!first.contains("\"tools\""), "{first}");
    });
}

#[test]
fn codeact_a_program_that_never_ends_is_stopped_at_the_time_limit() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program("loop", "x = 1\nwhile True:\n    x += 1"),
                program("answer", "final_answer('stopped and answered')"),
            ],
        );
        open(&rig, &fixtures).await;
        rig.ask("Loop forever.", "codeact").await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        // Settings' Python time limit (its default, 10 s) holds for programs too.
        assert!(p.text.contains("ran past the 10 s"), "{p:#?}");
        assert_eq!(p.answer_text(), "stopped and answered", "{p:#?}");
    });
}

/// A program is no way out: `js.fetch` and `pyodide.http` fail inside the sandbox and nothing
/// reaches the fixture server (which hosts Pyodide and would log any request) or the tools.
#[test]
fn codeact_a_program_reaches_no_network_and_stop_ends_a_running_program() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        let target = format!(
            "{}/codeact-leak",
            fixtures.endpoints()["wttr"]
                .as_str()
                .unwrap()
                .trim_end_matches("/wttr")
        );
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program(
                    "try the network",
                    &format!(
                        "import js\ntry:\n    await js.fetch('{target}')\n    print('fetched')\nexcept Exception as e:\n    print('fetch refused:', type(e).__name__)\ntry:\n    from pyodide.http import pyfetch\n    await pyfetch('{target}')\n    print('pyfetched')\nexcept Exception as e:\n    print('pyfetch refused:', type(e).__name__)\nfinal_answer('closed')"
                    ),
                ),
                program("wait", "import time\nwhile True:\n    time.sleep(0.1)"),
            ],
        );
        open(&rig, &fixtures).await;
        rig.ask("Reach the network.", "codeact").await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.answer_text(), "closed", "{p:#?}");
        assert!(
            p.text.contains("fetch refused:") && p.text.contains("pyfetch refused:"),
            "{p:#?}"
        );
        assert!(!p.text.contains("fetched\n"), "{p:#?}");
        assert!(
            !fixtures
                .paths_requested()
                .iter()
                .any(|u| u.contains("codeact-leak")),
            "a program reached the network"
        );

        // Stop while a program runs: the run stops at once and says so; the next run works.
        rig.ask("Wait forever.", "codeact").await;
        rig.wait_for(
            "the program to be running",
            PYTHON_SETTLE,
            "const p = document.querySelector('section.panel'); return !!p && p.dataset.status === 'running-tool';",
        )
        .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        rig.click("#stop").await;
        let p = rig
            .wait_until_settled(Duration::from_secs(10))
            .await
            .remove(0);
        assert_eq!(p.status, "stopped", "{p:#?}");
    });
}

/// All is the four modes side by side: CodeAct's panel is the fourth, at 1280 px on one row
/// with the others. Its program calls two tools in a loop (Wikipedia for each title, the
/// calculator on what it read) and ends with `final_answer`; the comparison row lists it.
#[test]
fn an_all_run_shows_codeact_fourth_and_its_program_calls_two_tools_in_a_loop() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script_all_of(
            &[Mode::CodeAct.prompt_heading(), "Things Fall Apart"],
            [program(
                "read the page for each title, then let the calculator count the years",
                "years = {}\nfor title in ['Things Fall Apart', 'Things Fall Apart']:\n    page = wikipedia(title)\n    year = 1958 if '1958' in page else None\n    years[title] = calculator(f'2026 - {year}')\n    print(title, year, years[title])\nfinal_answer(years['Things Fall Apart'])",
            )],
        );
        let about = |mode: Mode| [mode.prompt_heading(), "Things Fall Apart"];
        rig.mock.script_all_of(
            &about(Mode::Think),
            [Reply::text("Thought: Things Fall Apart, by Chinua Achebe, came out in **1958**; 2026 - 1958 = 68.\nAnswer: 68")],
        );
        rig.mock.script_all_of(
            &about(Mode::Act),
            [
                Reply::text("Action: wikipedia\nAction Input: Things Fall Apart"),
                Reply::text("Answer: 68"),
            ],
        );
        rig.mock.script_all_of(
            &about(Mode::ReAct),
            [
                Reply::text("Thought: I need the year it was first published.\nAction: wikipedia\nAction Input: Things Fall Apart"),
                Reply::text("Thought: Wikipedia says 1958, and 2026 - 1958 = 68.\nAnswer: 68"),
            ],
        );
        open(&rig, &fixtures).await;
        resize(&rig, 1280, 900).await;
        rig.ask(
            "How many years before 2026 was Things Fall Apart first published?",
            "all",
        )
        .await;
        let panels = rig.wait_until_settled(PYTHON_SETTLE).await;
        let modes: Vec<&str> = panels.iter().map(|p| p.mode.as_str()).collect();
        assert_eq!(modes, ["think", "act", "react", "codeact"], "{panels:#?}");
        for p in &panels {
            assert_eq!(p.status, "done", "{p:#?}");
            assert_eq!(p.answer_text(), "68", "{p:#?}");
        }
        let codeact = &panels[3];
        assert!(
            codeact.text.contains("Things Fall Apart 1958 68"),
            "{codeact:#?}"
        );
        // Four calls, two per pass of the loop, each shown under the program with its result.
        let calls = rig
            .js("return Array.from(document.querySelectorAll('section.panel[data-mode=codeact] .program-call')).map(c => c.innerText)")
            .await;
        let calls: Vec<String> = serde_json::from_value(calls).unwrap();
        assert_eq!(calls.len(), 4, "{calls:?}");
        for pass in calls.chunks(2) {
            assert!(pass[0].contains("wikipedia"), "{calls:?}");
            assert!(
                pass[1].contains("calculator") && pass[1].contains("→ 68"),
                "{calls:?}"
            );
        }
        // The page asked the (fixture) Wikipedia once: the second call is the run's cache.
        let wiki = fixtures
            .paths_requested()
            .iter()
            .filter(|u| u.contains("api.php"))
            .count();
        assert!(wiki >= 1, "no Wikipedia request");
        // Side by side at this width: the four panels' tops are level.
        let tops = rig
            .js("return Array.from(document.querySelectorAll('section.panel')).map(p => Math.round(p.getBoundingClientRect().top))")
            .await;
        let tops: Vec<i64> = serde_json::from_value(tops).unwrap();
        assert_eq!(tops.len(), 4);
        assert!(tops.iter().all(|t| *t == tops[0]), "{tops:?}");
        // The comparison row names the fourth mode with its answer.
        // The comparison is a part of the page, drawn once its chunk is in.
        let comparison = rig
            .wait_for_value(
                "the comparison row",
                PYTHON_SETTLE,
                "return document.querySelector('.comparison') ? document.querySelector('.comparison').innerText : ''",
                |c| c.as_str().is_some_and(|c| c.contains("CodeAct")),
            )
            .await;
        let comparison = comparison.as_str().unwrap_or_default();
        assert!(comparison.contains("CodeAct"), "{comparison}");
        let shot = rig.screenshot("codeact-all-1280.png").await;
        support::browser::keep_for_docs(&shot, "screenshot-all-mode.png");
    });
}

/// A program that posts a "final" of its own and then spins (attack review 6, row 8: the page
/// took it for the program's end, the step's time limit never applied and the worker burned a
/// core after the run). The page takes no message without the key it gave the program: the
/// program is stopped at once with a sentence that says why, its sandbox ended, and the run
/// goes on with the model's next program in a fresh one.
#[test]
fn codeact_a_forged_final_stops_the_program_at_once_and_is_not_the_answer() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program(
                    "forge the end, then spin",
                    "import js\nm = js.Object.new()\nm.kind = 'final'\nm.id = 1\nm.value = 'FORGED'\njs.postMessage(m)\nwhile True:\n    pass",
                ),
                program("answer", "final_answer(calculator(input='6*7'))"),
            ],
        );
        open(&rig, &fixtures).await;
        rig.ask("Forge an answer.", "codeact").await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.answer_text(), "42", "{p:#?}");
        let said = p.observations.join("\n");
        assert!(!said.contains("FORGED"), "{p:#?}");
        // Stopped for the forgery, not at the step's limit.
        assert!(
            said.contains(
                "its sandbox sent a \"final\" message without the program's key, which only the sandbox's runner has"
            ),
            "{p:#?}"
        );
        assert!(!said.contains("ran past the"), "{p:#?}");
    });
}

/// A program that replaces the runner's state, through `final_answer.__globals__` (attack
/// review 6, row 8: later programs got fake tool results), or through the builtins: the next
/// program gets real results. Each program's runner is made afresh, and one that finds what it
/// relies on changed says so; that program runs in a fresh sandbox, and the model is told.
#[test]
fn codeact_a_program_cannot_replace_the_runner_for_the_next_one() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program(
                    "replace the runner's tool maker",
                    "g = final_answer.__globals__\ng['_tool'] = lambda function, params, call: (lambda *a, **k: 'FAKE')\ng['run_sync'] = lambda promise: '1FAKE'\nprint('replaced')",
                ),
                program("use a tool", "print('calculated', calculator(input='6*7'))"),
                program(
                    "replace a builtin",
                    "import builtins\nbuiltins.sum = lambda *a, **k: 'FAKE'\nprint('replaced')",
                ),
                program(
                    "use both",
                    "final_answer(f'{sum([40, 2])} and {calculator(input=\"6*7\")}')",
                ),
            ],
        );
        open(&rig, &fixtures).await;
        rig.ask("Fake the results.", "codeact").await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        let said = p.observations.join("\n");
        assert!(said.contains("calculated 42"), "{p:#?}");
        assert!(!said.contains("FAKE"), "{p:#?}");
        assert_eq!(p.answer_text(), "42 and 42", "{p:#?}");
        assert!(
            said.contains(
                "An earlier program changed the sandbox's own code (builtins.sum), so this program ran in a fresh sandbox, without earlier variables."
            ),
            "{p:#?}"
        );
    });
}
