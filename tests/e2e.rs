//! End-to-end tests: the Trunk-built app in headless Chromium against the scripted mock
//! endpoint. Each test checks what a user sees on the page.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::Locator;
use react_arena::agent::Mode;
use serde_json::json;
use support::browser::{browser_test, Rig, MARKER_TOKEN};
use support::mock::{Ending, MockEndpoint, Reply, THINK_42};

const SETTLE: Duration = Duration::from_secs(30);

/// The marker token reached the mock only as a bearer token, never in a URL or a body.
fn assert_token_only_in_authorization(mock: &MockEndpoint) {
    let requests = mock.requests();
    assert!(!requests.is_empty());
    for r in requests {
        assert!(!r.uri.contains(MARKER_TOKEN), "token in URL {}", r.uri);
        assert!(!r.body.contains(MARKER_TOKEN), "token in a request body");
        for (name, value) in &r.headers {
            if value.contains(MARKER_TOKEN) {
                assert_eq!(name, "authorization");
                assert_eq!(value, &format!("Bearer {MARKER_TOKEN}"));
            }
        }
        if r.is_chat() {
            assert_eq!(
                r.header("authorization"),
                Some(format!("Bearer {MARKER_TOKEN}").as_str())
            );
        }
    }
}

#[test]
fn all_mode_streams_four_panels_at_the_same_time() {
    browser_test(|rig: Rig| async move {
        rig.mock.script_six_times_seven(THINK_42, 120);
        rig.open_app(3).await;
        rig.ask("What is 6 times 7?", "all").await;

        // Poll what the user sees until every panel settles; remember whether all four were
        // streaming at one instant before any of them had finished.
        let started = Instant::now();
        let mut all_streaming_at_once = false;
        let mut first_done: Option<Duration> = None;
        loop {
            let panels = rig.panels().await;
            assert_eq!(panels.len(), 4);
            let streaming = panels.iter().filter(|p| p.status == "streaming").count();
            if streaming == 4 && first_done.is_none() {
                all_streaming_at_once = true;
            }
            if first_done.is_none() && panels.iter().any(|p| p.status == "done") {
                first_done = Some(started.elapsed());
            }
            if panels
                .iter()
                .all(|p| p.status == "done" || p.status == "error")
            {
                break;
            }
            assert!(
                started.elapsed() < SETTLE,
                "runs did not finish: {panels:#?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            all_streaming_at_once,
            "the four panels never streamed at the same time"
        );

        // The mock saw the four first calls arrive before any of them had finished.
        let first_calls: Vec<_> = Mode::ALL
            .iter()
            .map(|m| rig.mock.chat_requests_containing(m.prompt_heading())[0].clone())
            .collect();
        let last_arrival = first_calls.iter().map(|r| r.received).max().unwrap();
        let first_finish = first_calls.iter().filter_map(|r| r.finished).min().unwrap();
        assert!(last_arrival < first_finish, "calls ran one after another");

        let panels: HashMap<_, _> = rig
            .panels()
            .await
            .into_iter()
            .map(|p| (p.mode.clone(), p))
            .collect();
        for mode in ["think", "act", "react", "codeact"] {
            let p = &panels[mode];
            assert_eq!(p.status, "done", "{p:#?}");
            assert!(p.answer.contains("42"), "{mode}: {}", p.answer);
            assert!(
                p.usage.contains("prompt") && p.usage.contains("completion tokens"),
                "{p:#?}"
            );
        }
        assert_eq!(panels["think"].thoughts.len(), 1);
        assert!(
            panels["act"].thoughts.is_empty(),
            "Act-only shows no thoughts"
        );
        assert_eq!(panels["react"].counter, "Step 2 / 3");
        // Markdown in the thought is rendered, not shown as asterisks (once the parser's chunk
        // has drawn it, after the run may have settled).
        let strong = rig
            .wait_for_value(
                "the thought drawn as Markdown",
                SETTLE,
                "return document.querySelector('section.panel[data-mode=think] .thought strong')?.innerText || ''",
                |s| s == "product",
            )
            .await;
        assert_eq!(strong, "product");

        rig.screenshot("all-mode.png").await;
        assert_token_only_in_authorization(&rig.mock);
    });
}

#[test]
fn react_panel_calls_the_calculator_and_shows_observation_and_answer() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text(
                    "Thought: I need 17% of 2,340.\nAction: calculator\nAction Input: 17% * 2,340",
                ),
                Reply::text("Thought: That is 397.8, so about 398.\nAnswer: **398**"),
            ],
        );
        rig.open_app(5).await;
        rig.ask("What is 17% of 2,340, rounded?", "react").await;
        let panels = rig.wait_until_settled(SETTLE).await;

        assert_eq!(panels.len(), 1, "a single mode uses one wide panel");
        let p = &panels[0];
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.actions.len(), 1);
        assert!(
            p.actions[0].contains("calculator") && p.actions[0].contains("17% * 2,340"),
            "{p:#?}"
        );
        assert_eq!(p.observations.len(), 1);
        assert!(p.observations[0].contains("397.8"), "{p:#?}");
        assert_eq!(p.error_observations, 0);
        assert!(p.answer.contains("398"), "{p:#?}");
        assert!(!p.answer_forced);
        assert_eq!(p.thoughts.len(), 2);
        // The observation went back to the model as the next message.
        let calls = rig.mock.chat_requests();
        assert_eq!(calls.len(), 2);
        assert!(
            calls[1].body.contains("Observation: 397.8"),
            "{}",
            calls[1].body
        );
        assert_token_only_in_authorization(&rig.mock);
    });
}

#[test]
fn react_panel_shows_a_calculator_error_as_an_observation_and_goes_on() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text("Thought: divide.\nAction: calculator\nAction Input: 1 / 0"),
                Reply::text("Thought: undefined.\nAnswer: Division by zero is undefined."),
            ],
        );
        rig.open_app(5).await;
        rig.ask("What is 1 divided by 0?", "react").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.error_observations, 1);
        assert!(
            p.observations[0]
                .to_lowercase()
                .contains("division by zero"),
            "{p:#?}"
        );
        assert!(p.answer.contains("undefined"));
    });
}

#[test]
fn think_panel_shows_reasoning_first_then_the_answer() {
    browser_test(|rig: Rig| async move {
        let reasoning = "The question asks for the capital of France. That is Paris, on the Seine.";
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Answer: Paris")
                .with_reasoning(reasoning)
                .with_chunk_delay(60)],
        );
        rig.open_app(5).await;
        rig.ask("What is the capital of France?", "think").await;

        let started = Instant::now();
        let (mut reasoning_at, mut answer_at) = (None, None);
        let mut reasoning_lengths = Vec::new();
        loop {
            let p = rig.panel("think").await;
            if !p.reasoning.is_empty() {
                reasoning_at.get_or_insert(started.elapsed());
                if reasoning_lengths.last() != Some(&p.reasoning.len()) {
                    reasoning_lengths.push(p.reasoning.len());
                }
            }
            if !p.answer.is_empty() {
                answer_at.get_or_insert(started.elapsed());
            }
            if p.status == "done" || p.status == "error" {
                assert_eq!(p.status, "done", "{p:#?}");
                assert!(p.reasoning.contains("on the Seine"), "{p:#?}");
                assert!(p.answer.contains("Paris"));
                assert!(
                    !p.answer.contains("Seine"),
                    "reasoning leaked into the answer"
                );
                break;
            }
            assert!(started.elapsed() < SETTLE);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(reasoning_at.unwrap() < answer_at.unwrap());
        assert!(
            reasoning_lengths.len() >= 3,
            "reasoning did not stream: {reasoning_lengths:?}"
        );
    });
}

#[test]
fn rate_limit_in_one_panel_shows_there_while_the_others_finish() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Act.prompt_heading(),
            // Still limited after every retry (Retry-After: 1 s keeps the test short).
            (0..5).map(|_| Reply::status(429, "Rate limit reached, slow down").retry_after(1)),
        );
        rig.mock.script_six_times_seven(THINK_42, 30);
        rig.open_app(3).await;
        rig.ask("What is 6 times 7?", "all").await;
        let panels = rig.wait_until_settled(SETTLE).await;
        let by_mode: HashMap<_, _> = panels.iter().map(|p| (p.mode.as_str(), p)).collect();

        let act = by_mode["act"];
        assert_eq!(act.status, "error", "{act:#?}");
        assert!(
            act.text.contains("retrying in 1 s (4/4)"),
            "retries were shown: {act:#?}"
        );
        assert_eq!(
            rig.mock
                .chat_requests_containing(Mode::Act.prompt_heading())
                .len(),
            5
        );
        assert!(act.error.contains("429"), "{act:#?}");
        assert!(
            act.error.contains("Rate limit reached, slow down"),
            "{act:#?}"
        );
        assert!(act.answer.is_empty());
        for mode in ["think", "react", "codeact"] {
            assert_eq!(by_mode[mode].status, "done", "{:#?}", by_mode[mode]);
            assert!(by_mode[mode].answer.contains("42"));
            assert!(by_mode[mode].error.is_empty());
        }
    });
}

#[test]
fn a_stream_cut_midway_keeps_what_arrived_and_says_so() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [
                Reply::text("Thought: The first half of a careful argument")
                    .ending(Ending::Dropped),
            ],
        );
        rig.open_app(5).await;
        rig.ask("Explain something.", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);

        assert_eq!(p.status, "error", "{p:#?}");
        assert!(!p.error.is_empty());
        assert!(
            p.text.contains("The first half of a careful argument"),
            "{p:#?}"
        );
        assert!(p.text.contains("the step is cut there"), "{p:#?}");
        // The question is still there to run again.
        let question = rig
            .js("return document.querySelector('#question').value")
            .await;
        assert_eq!(question, "Explain something.");
    });
}

#[test]
fn run_button_says_what_is_missing() {
    browser_test(|rig: Rig| async move {
        // A first visit: defaults point at the Hugging Face router and there is no token.
        rig.client.goto(&rig.app_url).await.unwrap();
        rig.wait_for("the app", SETTLE, "return !!document.querySelector('#run')")
            .await;
        let run = rig.client.find(Locator::Css("#run")).await.unwrap();
        assert_eq!(
            run.text().await.unwrap(),
            "Add your Hugging Face token in Settings"
        );
        assert!(!run.is_enabled().await.unwrap());

        let token = rig.client.find(Locator::Css("#token")).await.unwrap();
        rig.open_settings().await;
        token.send_keys("hf_test_marker_0000").await.unwrap();
        let label = "return document.querySelector('#run').innerText";
        rig.wait_for_value("Run to ask for a question", SETTLE, label, |l| {
            l == "Type a question"
        })
        .await;
        assert_eq!(run.text().await.unwrap(), "Type a question");
        rig.click(".example").await;
        rig.wait_for_value("Run to be ready", SETTLE, label, |l| l == "Run")
            .await;
        assert_eq!(run.text().await.unwrap(), "Run");
        assert!(run.is_enabled().await.unwrap());
        let question = rig
            .js("return document.querySelector('#question').value")
            .await;
        assert!(question.as_str().unwrap().contains("weather"), "{question}");
    });
}

/// Keys a user presses to replace a field's text and leave it (Ctrl+A, text, Tab).
fn select_all_and_type(text: &str) -> String {
    format!("{}a{}{text}{}", Key::Control, Key::Null, Key::Tab)
}

#[test]
fn settings_survive_a_reload_and_the_token_stays_in_the_session() {
    browser_test(|rig: Rig| async move {
        rig.open_app(5).await;
        rig.open_settings().await;
        let model = rig.client.find(Locator::Css("#model")).await.unwrap();
        model
            .send_keys(&select_all_and_type("my-org/my-model"))
            .await
            .unwrap();
        let steps = rig.client.find(Locator::Css("#max-steps")).await.unwrap();
        steps.send_keys(&select_all_and_type("7")).await.unwrap();

        rig.client.refresh().await.unwrap();
        rig.wait_for("the app", SETTLE, "return !!document.querySelector('#run')")
            .await;
        // Settings' model section is drawn when Settings are opened.
        rig.open_settings().await;
        let value = |sel: &'static str| {
            let rig = &rig;
            async move {
                rig.js(&format!("return document.querySelector('{sel}').value"))
                    .await
            }
        };
        assert_eq!(value("#model").await, "my-org/my-model");
        assert_eq!(value("#max-steps").await, "7");
        assert_eq!(value("#token").await, MARKER_TOKEN);
        let stored = rig.stored_token().await;
        assert_eq!(
            stored,
            json!([MARKER_TOKEN, null]),
            "token belongs in sessionStorage only"
        );

        // "Remember on this device" moves it to localStorage; "Forget" removes it everywhere.
        rig.open_settings().await;
        rig.click("#remember-token").await;
        let stored_token = || rig.stored_token();
        let stored = rig
            .wait_until("the token to move", SETTLE, stored_token, |s| {
                *s == json!([null, MARKER_TOKEN])
            })
            .await;
        assert_eq!(stored, json!([null, MARKER_TOKEN]));
        rig.click("#forget-token").await;
        let stored = rig
            .wait_until("the token to go", SETTLE, stored_token, |s| {
                *s == json!([null, null])
            })
            .await;
        assert_eq!(stored, json!([null, null]));
        assert_eq!(value("#token").await, "");

        // A bad number is refused with a message, and the old value is kept.
        let steps = rig.client.find(Locator::Css("#max-steps")).await.unwrap();
        steps.send_keys(&select_all_and_type("many")).await.unwrap();
        let error = rig
            .wait_for_value(
                "the field's error",
                SETTLE,
                "return document.querySelector('.field-error')?.innerText || ''",
                |e| e.as_str().is_some_and(|e| e.contains("Max steps")),
            )
            .await;
        assert!(error.as_str().unwrap().contains("Max steps"), "{error}");
        assert_eq!(value("#max-steps").await, "7");
    });
}

#[test]
fn raw_html_from_the_model_is_shown_as_text() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(
                "Answer: <img src=x onerror=\"document.title='pwned'\"> and <script>document.title='pwned'</script> [click](javascript:alert(1))",
            )],
        );
        rig.open_app(5).await;
        rig.ask("Say something nasty.", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);

        assert_eq!(p.status, "done", "{p:#?}");
        assert!(
            p.answer.contains("<img src=x"),
            "raw HTML is shown as text: {p:#?}"
        );
        rig.wait_for_answers_drawn().await;
        let live = rig
            .js("const a = document.querySelector('.answer');\
                 return [a.querySelectorAll('img,script').length, a.querySelectorAll('a[href^=javascript]').length, document.title]")
            .await;
        assert_eq!(live[0], 0);
        assert_eq!(live[1], 0);
        assert_ne!(live[2], "pwned");
    });
}

#[test]
fn ctrl_enter_runs_and_stop_keeps_what_streamed() {
    browser_test(|rig: Rig| async move {
        let long = "Thought: Let me consider this slowly, one word after another, so that there is time to stop me. ".repeat(4);
        let long: &'static str = Box::leak(long.into_boxed_str());
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(long).with_chunk_delay(100)],
        );
        rig.open_app(5).await;
        rig.click("#mode option[value='think']").await;
        let field = rig.client.find(Locator::Css("#question")).await.unwrap();
        field
            .send_keys(&format!(
                "Think slowly.{}{}{}",
                Key::Control,
                Key::Enter,
                Key::Null
            ))
            .await
            .unwrap();
        rig.wait_for(
            "some text to stream",
            SETTLE,
            "return (document.querySelector('.panel .live')?.innerText || '').includes('one word')",
        )
        .await;
        rig.click("#stop").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);

        assert_eq!(p.status, "stopped", "{p:#?}");
        assert!(p.error.is_empty(), "Stop is not an error: {p:#?}");
        assert!(p.text.contains("Let me consider this slowly"), "{p:#?}");
        assert!(p.answer.is_empty());
        rig.wait_for(
            "Run back and Stop off",
            SETTLE,
            "return document.querySelector('#run').innerText === 'Run' && document.querySelector('#stop').disabled",
        )
        .await;
        let run = rig.client.find(Locator::Css("#run")).await.unwrap();
        assert_eq!(run.text().await.unwrap(), "Run");
        let stop = rig.client.find(Locator::Css("#stop")).await.unwrap();
        assert!(!stop.is_enabled().await.unwrap());
        // The stream was cut: the mock never got to send its last event.
        assert!(rig.mock.chat_requests()[0].finished.is_none());
    });
}
