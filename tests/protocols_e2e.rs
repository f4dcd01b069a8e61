//! Action protocols and recovery in the browser: native tool calls (two at once), an endpoint
//! that rejects `tools`, the step limit, a repeated-action loop, a format reminder.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use react_arena::agent::Mode;
use serde_json::{json, Value};
use support::browser::{browser_test, PanelView, Rig};
use support::fixtures::FixtureServer;
use support::mock::Reply;

const SETTLE: Duration = Duration::from_secs(30);

async fn open(rig: &Rig, fixtures: &FixtureServer, mut extra: Value) {
    extra["tool_endpoints"] = fixtures.endpoints();
    rig.open_app_overriding(extra).await;
}

async fn run(rig: &Rig, mode: &str) -> PanelView {
    rig.ask("A question for the protocols.", mode).await;
    rig.wait_until_settled(SETTLE).await.remove(0)
}

#[test]
fn native_tool_calls_run_two_tools_at_once() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        fixtures.set_delay(600);
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::tool_calls(&[
                    ("weather", r#"{"input": "Paris"}"#),
                    ("wikipedia", r#"{"input": "search: Things Fall Apart"}"#),
                ]),
                Reply::text("Answer: Overcast in Paris; the novel is from 1958."),
            ],
        );
        open(&rig, &fixtures, json!({ "protocol": "native" })).await;
        let p = run(&rig, "act").await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.actions.len(), 2, "{p:#?}");
        assert_eq!(p.observations.len(), 2, "{p:#?}");
        assert!(p.observations[0].contains("Paris, Île-de-France"), "{p:#?}");
        assert!(p.observations[1].contains("Things Fall Apart"), "{p:#?}");

        // Both tools were asked before either could answer (each answer takes 600 ms).
        let first_of = |prefix: &str| {
            fixtures
                .requests()
                .into_iter()
                .find(|r| r.uri.starts_with(prefix))
                .unwrap_or_else(|| panic!("no request to {prefix}"))
                .received
        };
        let (weather, wiki) = (first_of("/geocoding/"), first_of("/w/api.php"));
        let gap = if weather > wiki {
            weather - wiki
        } else {
            wiki - weather
        };
        assert!(
            gap < Duration::from_millis(400),
            "tool calls ran one after another: {gap:?}"
        );

        let calls = rig.mock.chat_requests();
        let first: Value = serde_json::from_str(&calls[0].body).unwrap();
        assert_eq!(first["tool_choice"], "auto");
        let names: Vec<&str> = first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["web_search", "wikipedia", "weather", "calculator", "python"]
        );
        let second: Value = serde_json::from_str(&calls[1].body).unwrap();
        let messages = second["messages"].as_array().unwrap();
        let assistant = &messages[messages.len() - 3];
        assert_eq!(assistant["tool_calls"][1]["id"], "call_mock_1");
        assert_eq!(messages[messages.len() - 2]["role"], "tool");
        assert_eq!(messages[messages.len() - 2]["tool_call_id"], "call_mock_0");
        assert_eq!(messages[messages.len() - 1]["tool_call_id"], "call_mock_1");
    });
}

#[test]
fn an_endpoint_that_rejects_tools_sends_the_run_back_to_text() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        // Only a request that carries native tools is refused.
        rig.mock.script(
            "\"tool_choice\":\"auto\"",
            [Reply::status(422, "tools are not supported for this model")],
        );
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("Action: calculator\nAction Input: 6*7"),
                Reply::text("Answer: 42"),
            ],
        );
        open(&rig, &fixtures, json!({ "protocol": "native" })).await;
        let p = run(&rig, "act").await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("42"), "{p:#?}");
        assert!(
            p.text
                .contains("does not accept native tool calls (HTTP 422)"),
            "the user is told: {p:#?}"
        );
        assert_eq!(
            p.text.matches("does not accept native tool calls").count(),
            1,
            "told once"
        );
        let calls = rig.mock.chat_requests();
        assert_eq!(calls.len(), 3);
        assert!(calls[0].body.contains("\"tools\""));
        assert!(!calls[1].body.contains("\"tools\"") && !calls[2].body.contains("\"tools\""));
        assert!(
            calls[1].body.contains("Action Input:"),
            "the text protocol prompt is used"
        );
    });
}

#[test]
fn the_step_limit_ends_with_a_forced_answer() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text("Thought: first.\nAction: calculator\nAction Input: 1+1"),
                Reply::text("Thought: second.\nAction: calculator\nAction Input: 2+2"),
                Reply::text("Answer: 4, as far as I got"),
            ],
        );
        open(
            &rig,
            &fixtures,
            json!({ "max_steps": 2, "protocol": "text" }),
        )
        .await;
        let p = run(&rig, "react").await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer_forced, "{p:#?}");
        assert!(
            p.answer
                .to_lowercase()
                .contains("forced after the step limit"),
            "{p:#?}"
        );
        assert!(p.answer.contains("4, as far as I got"), "{p:#?}");
        assert_eq!(p.counter, "Step 2 / 2 + final answer");
        let last = rig.mock.chat_requests().pop().unwrap();
        assert!(
            last.body.contains("You have used all your steps"),
            "{}",
            last.body
        );
    });
}

#[test]
fn a_repeated_action_is_refused_and_the_model_changes_course() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        let same = || Reply::text("Thought: again.\nAction: calculator\nAction Input: 2 + 2");
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                same(),
                same(),
                same(),
                Reply::text("Thought: I have it.\nAnswer: 4"),
            ],
        );
        open(&rig, &fixtures, json!({ "protocol": "text" })).await;
        let p = run(&rig, "react").await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.observations.len(), 3, "{p:#?}");
        assert_eq!(p.error_observations, 1, "{p:#?}");
        assert!(
            p.observations[2].contains("same input 3 times in a row"),
            "{p:#?}"
        );
        assert!(p.answer.contains('4') && !p.answer_forced, "{p:#?}");
        let calls = rig.mock.chat_requests();
        assert!(
            calls[3].body.contains("Change course"),
            "the warning reached the model"
        );
    });
}

#[test]
fn an_unreadable_reply_gets_one_format_reminder() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("I think I should probably compute something here."),
                Reply::text("Action: calculator\nAction Input: 3*3"),
                Reply::text("Answer: 9"),
            ],
        );
        open(&rig, &fixtures, json!({ "protocol": "text" })).await;
        let p = run(&rig, "act").await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.text.contains("format reminder"), "{p:#?}");
        assert_eq!(
            p.counter, "Step 2 / 5",
            "the reminder did not cost a step: {p:#?}"
        );
        assert_eq!(p.error_observations, 0);
        let calls = rig.mock.chat_requests();
        assert!(calls[1].body.contains("did not follow the format"));
    });
}

#[test]
fn json_actions_run_several_tools_in_one_step() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text(r#"[{"action": "calculator", "arguments": ["6*7"], "explanation": "Multiply first."}, {"action": "weather", "arguments": ["Paris"], "explanation": "And check Paris."}]"#),
                Reply::text(r#"[{"action": "answer", "arguments": ["42, and overcast in Paris"], "explanation": "Both known."}]"#),
            ],
        );
        open(&rig, &fixtures, json!({ "protocol": "json" })).await;
        let p = run(&rig, "react").await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.actions.len(), 2, "{p:#?}");
        assert!(p.observations[0].contains("42"), "{p:#?}");
        assert!(p.observations[1].contains("Paris"), "{p:#?}");
        assert!(p.answer.contains("42, and overcast in Paris"), "{p:#?}");
        assert!(p.thoughts[0].contains("Multiply first."), "{p:#?}");
        let calls = rig.mock.chat_requests();
        assert!(calls[1].body.contains("Observations:"), "{}", calls[1].body);
    });
}
