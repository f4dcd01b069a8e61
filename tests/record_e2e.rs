//! The run record in the browser: the figures and comparison read off it, follow-up turns on
//! it. Against the scripted mock endpoint.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use react_arena::agent::Mode;
use serde_json::{json, Value};
use support::browser::{browser_test, Rig};
use support::mock::Reply;

const SETTLE: Duration = Duration::from_secs(30);

/// The comparison table as the user reads it: per mode, its cells' text and which are marked
/// best, and how many model and tool bars its timeline has.
const READ_COMPARISON: &str = r#"
return Array.from(document.querySelectorAll('#comparison tbody tr')).map(tr => ({
  mode: tr.dataset.mode,
  cells: Array.from(tr.querySelectorAll('td')).slice(0, 6).map(td => td.innerText.trim()),
  best: Array.from(tr.querySelectorAll('td.best')).length,
  model_bars: tr.querySelectorAll('rect.seg-model').length,
  tool_bars: tr.querySelectorAll('rect.seg-tool').length,
}));
"#;

#[test]
fn after_an_all_run_a_table_compares_the_modes_with_the_scripted_numbers() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Thought: six sevens.\nAnswer: 42").with_usage(100, 20)],
        );
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("Action: calculator\nAction Input: 6 * 7").with_usage(50, 10),
                Reply::text("Answer: 42").with_usage(70, 5),
            ],
        );
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text(
                    "Thought: use the calculator.\nAction: calculator\nAction Input: 6 * 7",
                )
                .with_usage(60, 15),
                Reply::text("Thought: it says 42.\nAnswer: 42").with_usage(90, 10),
            ],
        );
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [Reply::text("Thought: no program needed.\nAnswer: 42").with_usage(200, 30)],
        );
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        assert_eq!(
            rig.js("return !!document.querySelector('#comparison')")
                .await,
            false,
            "no table before a run"
        );
        rig.ask("What is 6 times 7?", "all").await;
        rig.wait_until_settled(SETTLE).await;
        rig.wait_for(
            "the comparison table",
            SETTLE,
            "return document.querySelectorAll('#comparison tbody tr').length === 4",
        )
        .await;
        let rows: Vec<Value> = rig.js(READ_COMPARISON).await.as_array().unwrap().clone();
        let row = |mode: &str| rows.iter().find(|r| r["mode"] == mode).unwrap().clone();
        let (think, act, react) = (row("think"), row("act"), row("react"));
        // answer, steps, tool calls, time, tokens, cost
        assert_eq!(think["cells"][0], "42");
        assert_eq!(think["cells"][1], "1 ★");
        assert_eq!(think["cells"][2], "0 ★");
        assert_eq!(think["cells"][4], "100 in + 20 out ★");
        assert_eq!(act["cells"][1], "2");
        assert_eq!(act["cells"][2], "1");
        assert_eq!(act["cells"][4], "120 in + 15 out");
        assert_eq!(react["cells"][4], "150 in + 25 out");
        assert_eq!(row("codeact")["cells"][4], "200 in + 30 out");
        assert_eq!(react["cells"][5], "–", "no price known for the mock model");
        let time = act["cells"][3].as_str().unwrap();
        assert!(time.ends_with(" ms") || time.ends_with(" s"), "{time}");
        assert_eq!(think["model_bars"], 1);
        assert_eq!(think["tool_bars"], 0);
        assert_eq!(act["model_bars"], 2);
        assert_eq!(act["tool_bars"], 1);
        assert_eq!(react["tool_bars"], 1);
        rig.js("document.querySelector('#comparison').scrollIntoView()")
            .await;
        // Each step has its own figures too.
        let act = rig.panel("act").await;
        assert!(act.text.contains("50 in + 10 out tokens"), "{act:#?}");
        assert!(act.text.contains("70 in + 5 out tokens"), "{act:#?}");
        let shot = rig.screenshot("comparison-table.png").await;
        assert!(shot.is_file());
        support::browser::keep_for_docs(&shot, "comparison-table.png");
    });
}

#[test]
fn a_follow_up_carries_each_modes_conversation_and_new_conversation_starts_afresh() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [
                Reply::text("Thought: the forecast says so.\nAnswer: 12 °C in Paris"),
                Reply::text("Thought: 12 × 9/5 + 32.\nAnswer: 53.6 °F"),
                Reply::text("Answer: a fresh start"),
            ],
        );
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        rig.ask("What is the weather in Paris?", "think").await;
        rig.wait_until_settled(SETTLE).await;
        let hint = rig
            .wait_for_value(
                "the follow-up hint",
                SETTLE,
                "return document.querySelector('#follow-up-hint')?.innerText || ''",
                |h| h.as_str().is_some_and(|h| h.contains("1 turn so far")),
            )
            .await;
        assert!(hint.as_str().unwrap().contains("1 turn so far"), "{hint}");

        rig.ask("And in Fahrenheit?", "think").await;
        // The follow-up has started when its question is on the panel.
        rig.wait_for(
            "the follow-up to start",
            SETTLE,
            "return document.querySelector('section.panel').innerText.includes('And in Fahrenheit?')",
        )
        .await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("53.6 °F"), "{p:#?}");
        assert!(
            p.text.contains("What is the weather in Paris?")
                && p.text.contains("And in Fahrenheit?"),
            "both turns are on the panel: {p:#?}"
        );
        let calls = rig.mock.chat_requests();
        assert_eq!(calls.len(), 2);
        let body: Value = serde_json::from_str(&calls[1].body).unwrap();
        let sent: Vec<(String, String)> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["role"].as_str().unwrap().to_string(),
                    m["content"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(sent.len(), 4, "{sent:?}");
        assert_eq!(
            sent[1],
            ("user".into(), "What is the weather in Paris?".into())
        );
        assert_eq!(sent[2].0, "assistant");
        assert!(sent[2].1.contains("12 °C in Paris"), "{sent:?}");
        assert_eq!(sent[3], ("user".into(), "And in Fahrenheit?".into()));

        rig.click("#new-conversation").await;
        rig.ask("Something else?", "think").await;
        rig.wait_until_settled(SETTLE).await;
        let calls = rig.mock.chat_requests();
        assert_eq!(calls.len(), 3);
        assert!(
            !calls[2].body.contains("Paris"),
            "a new conversation carries nothing"
        );
    });
}

#[test]
fn a_context_overflow_is_summarised_in_the_panel_and_the_run_answers() {
    browser_test(|rig: Rig| async move {
        // What llama.cpp's server answers when the request is longer than its context.
        let overflow = Reply::status(
            400,
            "request (1566 tokens) exceeds the available context size (1024 tokens), try increasing it",
        );
        rig.mock.script(
            react_arena::agent::compaction::SUMMARY_PROMPT,
            [Reply::text(
                "The user asked for 6 times 7; the calculator gave 42.",
            )],
        );
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text("Thought: multiply.\nAction: calculator\nAction Input: 6 * 7"),
                overflow,
                Reply::text("Thought: the summary has it.\nAnswer: 42"),
            ],
        );
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        rig.ask("What is 6 times 7?", "react").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("42"), "{p:#?}");
        assert!(
            p.text.contains("The conversation was summarised to fit the model's context: The user asked for 6 times 7"),
            "the summary is shown: {p:#?}"
        );
        let calls = rig.mock.chat_requests();
        assert_eq!(calls.len(), 4, "step, refused step, summary, step again");
        let last: Value = serde_json::from_str(&calls[3].body).unwrap();
        let sent = last["messages"].as_array().unwrap();
        assert_eq!(sent.len(), 3, "{sent:?}");
        assert!(sent[1]["content"]
            .as_str()
            .unwrap()
            .contains("the calculator gave 42"));
    });
}

#[test]
fn each_mode_can_run_its_own_model_and_the_table_prices_it() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Answer: 42").with_usage(100_000, 20_000)],
        );
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("Action: calculator\nAction Input: 6 * 7").with_usage(100_000, 0),
                Reply::text("Answer: 42").with_usage(100_000, 20_000),
            ],
        );
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [Reply::text("Thought: easy.\nAnswer: 42").with_usage(10, 10)],
        );
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [Reply::text("Thought: easy.\nAnswer: 42").with_usage(10, 10)],
        );
        rig.open_app_overriding(json!({
            "protocol": "text",
            "mode_models": { "think": "mock/think", "act": "mock/act" }
        }))
        .await;
        rig.ask("What is 6 times 7?", "all").await;
        rig.wait_until_settled(SETTLE).await;

        let model_of = |heading: &str| -> String {
            let call = rig.mock.chat_requests_containing(heading).remove(0);
            let body: Value = serde_json::from_str(&call.body).unwrap();
            body["model"].as_str().unwrap().to_string()
        };
        assert_eq!(model_of(Mode::Think.prompt_heading()), "mock/think");
        assert_eq!(model_of(Mode::Act.prompt_heading()), "mock/act");
        assert_eq!(model_of(Mode::ReAct.prompt_heading()), "mock/model");
        assert_eq!(model_of(Mode::CodeAct.prompt_heading()), "mock/model");
        let lists = rig
            .mock
            .requests()
            .into_iter()
            .filter(|r| r.uri.ends_with("/models"))
            .count();
        assert_eq!(lists, 1, "the model list is read once for the four modes");

        rig.wait_for(
            "the comparison table",
            SETTLE,
            "return document.querySelectorAll('#comparison tbody tr').length === 4",
        )
        .await;
        let rows: Vec<Value> = rig.js(READ_COMPARISON).await.as_array().unwrap().clone();
        let cost = |mode: &str| {
            rows.iter().find(|r| r["mode"] == mode).unwrap()["cells"][5]
                .as_str()
                .unwrap()
                .to_string()
        };
        // think: 100k in × $1/M + 20k out × $2/M; act: 200k in × $0.50/M + 20k out × $1/M
        assert_eq!(cost("think"), "$0.1400");
        assert_eq!(cost("act"), "$0.1200 ★");
        assert_eq!(
            cost("react"),
            "–",
            "the common model has no price in the list"
        );
    });
}

#[test]
fn stop_ends_a_running_tool_call_too() {
    browser_test(|rig: Rig| async move {
        let fixtures = support::fixtures::FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [Reply::text(
                "Thought: spin.\nAction: python\nAction Input: while True: pass",
            )],
        );
        rig.open_app_overriding(json!({
            "protocol": "text",
            "python_timeout_secs": 60,
            "tool_endpoints": fixtures.endpoints(),
        }))
        .await;
        rig.ask("Spin.", "react").await;
        rig.wait_for(
            "the python call to start",
            SETTLE,
            "return document.querySelector('section.panel').dataset.status === 'running-tool'",
        )
        .await;
        // Time for Pyodide to load and the endless program to be running.
        tokio::time::sleep(Duration::from_secs(8)).await;
        let pressed = std::time::Instant::now();
        rig.click("#stop").await;
        let p = rig
            .wait_until_settled(Duration::from_secs(5))
            .await
            .remove(0);
        assert!(
            pressed.elapsed() < Duration::from_secs(3),
            "Stop waited for the tool: {:?}",
            pressed.elapsed()
        );
        assert_eq!(p.status, "stopped", "{p:#?}");
        assert!(
            p.observations
                .iter()
                .any(|o| o.contains("Stopped by the user.")),
            "{p:#?}"
        );
        assert_eq!(
            rig.mock.chat_requests().len(),
            1,
            "the model was not asked again"
        );
    });
}
