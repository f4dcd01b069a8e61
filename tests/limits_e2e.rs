//! Limits on every response, in the browser: an endpoint that never sends its headers, an
//! error body without end, a stream kept alive with comments only, a redirect, a 200 that is
//! not an event stream, a stream that never stops, and a tool response that is too large.
//! Each fault ends with a clear error in its panel within its time limit, and the other
//! panels of the run finish as usual.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::{Duration, Instant};

use react_arena::agent::Mode;
use react_arena::settings::Settings;
use serde_json::{json, Value};
use support::browser::{browser_test, PanelView, Rig};
use support::fixtures::FixtureServer;
use support::mock::{MockEndpoint, Reply};

const SETTLE: Duration = Duration::from_secs(60);

/// The panels that do not misbehave answer 6 × 7 with the calculator, as in the other tests.
fn script_healthy(mock: &MockEndpoint, faulty: Mode) {
    if faulty != Mode::Think {
        mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Thought: six sevens.\nAnswer: 42")],
        );
    }
    if faulty != Mode::Act {
        mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("Action: calculator\nAction Input: 6 * 7"),
                Reply::text("Answer: 42"),
            ],
        );
    }
    if faulty != Mode::ReAct {
        mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text("Thought: compute it.\nAction: calculator\nAction Input: 6 * 7"),
                Reply::text("Thought: it is 42.\nAnswer: 42"),
            ],
        );
    }
    if faulty != Mode::CodeAct {
        mock.script(
            Mode::CodeAct.prompt_heading(),
            [Reply::text(
                "Thought: six sevens; no program needed.\nAnswer: 42",
            )],
        );
    }
}

async fn open(rig: &Rig, mut extra: Value) {
    for (key, value) in [
        ("max_steps", json!(3)),
        ("protocol", json!("text")),
        ("stream_idle_timeout_secs", json!(2)),
    ] {
        extra.as_object_mut().unwrap().entry(key).or_insert(value);
    }
    rig.open_app_overriding(extra).await;
}

/// Waits until the panel of `mode` shows `status`; returns when the test saw it.
async fn wait_for_status(rig: &Rig, mode: Mode, status: &str) -> Instant {
    rig.wait_for(
        &format!("the {} panel to be {status}", mode.id()),
        SETTLE,
        &format!(
            "const p = document.querySelector('section.panel[data-mode={}]'); return !!p && p.dataset.status === '{status}';",
            mode.id()
        ),
    )
    .await;
    Instant::now()
}

/// Runs the question in all four modes; returns the faulty panel once it shows its error,
/// how long after Run that was, and the other panels once they settled.
async fn run_all_with_fault(rig: &Rig, faulty: Mode) -> (PanelView, Duration, Vec<PanelView>) {
    rig.ask("What is 6 times 7?", "all").await;
    let started = Instant::now();
    let errored = wait_for_status(rig, faulty, "error").await;
    let panels = rig.wait_until_settled(SETTLE).await;
    let (failed, others): (Vec<_>, Vec<_>) =
        panels.into_iter().partition(|p| p.mode == faulty.id());
    (failed[0].clone(), errored - started, others)
}

fn assert_others_done(others: &[PanelView]) {
    assert_eq!(others.len(), 3, "{others:#?}");
    for p in others {
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("42"), "{p:#?}");
        assert!(p.error.is_empty(), "{p:#?}");
    }
}

fn assert_within(elapsed: Duration, min: Duration, max: Duration, what: &str) {
    println!("{what}: {elapsed:?} (expected {min:?}..{max:?})");
    assert!(
        (min..=max).contains(&elapsed),
        "{what} took {elapsed:?}, expected {min:?}..{max:?}"
    );
}

#[test]
fn headers_that_never_come_are_aborted_retried_and_then_reported() {
    browser_test(|rig: Rig| async move {
        rig.mock
            .script(Mode::Think.prompt_heading(), vec![Reply::HeadersNever; 5]);
        script_healthy(&rig.mock, Mode::Think);
        open(&rig, json!({ "stream_idle_timeout_secs": 1 })).await;
        let (p, elapsed, others) = run_all_with_fault(&rig, Mode::Think).await;

        assert!(
            p.error.starts_with("No response headers within 1 s"),
            "{p:#?}"
        );
        assert!(
            p.text
                .contains("No response headers within 1 s; retrying in"),
            "{p:#?}"
        );
        assert!(p.text.contains("(4/4)"), "{p:#?}");
        assert_others_done(&others);
        let calls = rig
            .mock
            .chat_requests_containing(Mode::Think.prompt_heading());
        assert_eq!(calls.len(), 5, "the first try and four retries");
        for pair in calls.windows(2) {
            // Each try is cut at 1 s, then waits 1, 2, 4, 8 s ± 25 %.
            let gap = pair[1].received - pair[0].received;
            assert!(gap >= Duration::from_millis(1_700), "gap {gap:?}");
        }
        // Five limits of 1 s and the four waits between them.
        assert_within(
            elapsed,
            Duration::from_millis(5_000 + 11_250),
            Duration::from_millis(5_000 + 18_750 + 2_500),
            "headers never come: Run to panel error",
        );
    });
}

#[test]
fn headers_later_than_the_limit_are_not_waited_for() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [
                Reply::text("Answer: too late").with_latency(10_000),
                Reply::text("Answer: in time"),
            ],
        );
        open(&rig, json!({ "stream_idle_timeout_secs": 1 })).await;
        rig.ask("A question.", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);

        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("in time"), "{p:#?}");
        assert!(!p.text.contains("too late"), "{p:#?}");
        assert!(
            p.text
                .contains("No response headers within 1 s; retrying in"),
            "{p:#?}"
        );
        let calls = rig.mock.chat_requests();
        assert_eq!(calls.len(), 2);
        let gap = calls[1].received - calls[0].received;
        // 1 s limit, then 1 s ± 25 %: not the 10 s the late headers would have taken.
        assert_within(
            gap,
            Duration::from_millis(1_700),
            Duration::from_millis(3_500),
            "late headers: first try to retry",
        );
    });
}

#[test]
fn an_endless_error_body_is_cut_at_its_cap_and_reported() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            vec![Reply::EndlessErrorBody { code: 500 }; 5],
        );
        script_healthy(&rig.mock, Mode::Think);
        open(&rig, json!({})).await;
        let (p, elapsed, others) = run_all_with_fault(&rig, Mode::Think).await;

        assert!(
            p.error.contains("server error") && p.error.contains("(500)"),
            "{p:#?}"
        );
        // The message shown is the clipped start of the body, not megabytes of it.
        assert!(p.error.chars().count() < 600, "{}", p.error.len());
        assert_others_done(&others);
        // 500 is retried: four waits of 1, 2, 4, 8 s ± 25 %, and reading each body is quick.
        assert_within(
            elapsed,
            Duration::from_millis(11_250),
            Duration::from_millis(18_750 + 3_000),
            "endless error body: Run to panel error",
        );
        let requests = rig.mock.requests();
        let think: Vec<_> = (0..requests.len())
            .filter(|&i| {
                requests[i].is_chat() && requests[i].body.contains(Mode::Think.prompt_heading())
            })
            .collect();
        assert_eq!(think.len(), 5);
        for i in think {
            // The page stopped reading: the connection was closed soon after the request (the
            // mock sees the hang-up at its next write, a moment after the page let go).
            let closed = rig
                .wait_until(
                    &format!("reply {i} to be let go"),
                    Duration::from_secs(10),
                    || std::future::ready(rig.mock.closed_at(i)),
                    Option::is_some,
                )
                .await
                .unwrap_or_else(|| panic!("reply {i} is still being read"));
            let open_for = closed - requests[i].received;
            println!(
                "endless body {i}: closed after {open_for:?}, {} bytes sent",
                rig.mock.bytes_sent(i)
            );
            assert!(open_for < Duration::from_secs(2), "open for {open_for:?}");
        }
    });
}

#[test]
fn a_stream_of_keep_alives_only_is_cut_after_the_idle_timeout() {
    browser_test(|rig: Rig| async move {
        rig.mock
            .script(Mode::Think.prompt_heading(), [Reply::keep_alive_only()]);
        script_healthy(&rig.mock, Mode::Think);
        open(&rig, json!({ "stream_idle_timeout_secs": 2 })).await;
        let (p, elapsed, others) = run_all_with_fault(&rig, Mode::Think).await;

        assert!(
            p.error.contains("only keep-alive messages") && p.error.contains("2 s"),
            "{p:#?}"
        );
        assert_others_done(&others);
        assert_within(
            elapsed,
            Duration::from_millis(2_000),
            Duration::from_millis(3_500),
            "keep-alive only: Run to panel error",
        );
        let calls = rig
            .mock
            .chat_requests_containing(Mode::Think.prompt_heading());
        assert_eq!(calls.len(), 1, "a stream kept alive is not sent again");
        let index = rig
            .mock
            .requests()
            .iter()
            .position(|r| r.body.contains(Mode::Think.prompt_heading()))
            .unwrap();
        let closed = rig
            .wait_until(
                "the page to hang up",
                Duration::from_secs(10),
                || std::future::ready(rig.mock.closed_at(index)),
                Option::is_some,
            )
            .await
            .expect("the page hung up");
        let open_for = closed - calls[0].received;
        println!(
            "keep-alive stream: closed after {open_for:?}, {} bytes sent",
            rig.mock.bytes_sent(index)
        );
        assert!(open_for < Duration::from_millis(3_000), "{open_for:?}");
    });
}

#[test]
fn a_redirect_is_not_followed_and_its_target_gets_nothing() {
    browser_test(|rig: Rig| async move {
        let elsewhere = MockEndpoint::start().await;
        elsewhere.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Answer: taken over")],
        );
        let target = format!("{}/chat/completions", elsewhere.base_url());
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::redirect(307, &target)],
        );
        script_healthy(&rig.mock, Mode::Think);
        open(&rig, json!({})).await;
        let (p, elapsed, others) = run_all_with_fault(&rig, Mode::Think).await;

        assert!(
            p.error.contains("redirect") && p.error.contains("not followed"),
            "{p:#?}"
        );
        assert!(!p.text.contains("taken over"), "{p:#?}");
        assert_others_done(&others);
        assert_within(
            elapsed,
            Duration::ZERO,
            Duration::from_millis(3_000),
            "redirect: Run to panel error",
        );
        assert_eq!(
            rig.mock
                .chat_requests_containing(Mode::Think.prompt_heading())
                .len(),
            1,
            "a redirect is not retried"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
        let reached: Vec<_> = elsewhere.requests().into_iter().map(|r| r.uri).collect();
        println!("redirect target logged: {reached:?}");
        assert!(reached.is_empty(), "the redirect was followed: {reached:?}");
    });
}

#[test]
fn a_200_that_is_not_an_event_stream_is_named_with_its_start() {
    browser_test(|rig: Rig| async move {
        let login = "<!doctype html><html><head><title>Sign in - Corporate Proxy</title>\
            <script>document.title = 'pwned'</script></head>\
            <body><h1>Please sign in</h1><form><input name=user></form></body></html>";
        let completion = json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "mock/model",
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": "Answer: 42" }, "finish_reason": "stop" }]
        });
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [
                Reply::html(login),
                Reply::Body {
                    code: 200,
                    content_type: "application/json".into(),
                    body: completion.to_string(),
                },
            ],
        );
        script_healthy(&rig.mock, Mode::Think);
        open(&rig, json!({})).await;
        let (p, elapsed, others) = run_all_with_fault(&rig, Mode::Think).await;

        assert!(
            p.error
                .contains("content type \"text/html; charset=utf-8\"")
                && p.error.contains("text/event-stream"),
            "{p:#?}"
        );
        assert!(
            p.error
                .contains("It began: \"Sign in - Corporate Proxy Please sign in\""),
            "{p:#?}"
        );
        assert!(
            !p.error.contains("<") && !p.error.contains("pwned"),
            "{p:#?}"
        );
        assert!(!p.text.to_lowercase().contains("max tokens"), "{p:#?}");
        assert!(p.answer.is_empty(), "{p:#?}");
        assert_others_done(&others);
        assert_within(
            elapsed,
            Duration::ZERO,
            Duration::from_millis(3_000),
            "HTML 200: Run to panel error",
        );
        let title = rig.js("return document.title").await;
        assert_ne!(title, "pwned");

        // A server that ignores `stream: true` and answers plain JSON is named the same way.
        rig.ask("A question.", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "error", "{p:#?}");
        assert!(
            p.error.contains("content type \"application/json\"")
                // The mock writes its keys in the order it builds them (serde_json's
                // preserve_order): the body begins with its id.
                && p.error.contains("It began: \"{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\""),
            "{p:#?}"
        );
        assert_eq!(
            rig.mock
                .chat_requests_containing(Mode::Think.prompt_heading())
                .len(),
            2,
            "neither answer was asked for again"
        );
    });
}

#[test]
fn a_stream_that_outlasts_its_total_time_is_cut() {
    browser_test(|rig: Rig| async move {
        let endless = "Thought: counting sheep, ".to_string() + &"one more sheep, ".repeat(200);
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(&endless).with_chunk_delay(100)],
        );
        script_healthy(&rig.mock, Mode::Think);
        open(
            &rig,
            json!({ "stream_max_secs": 3, "stream_idle_timeout_secs": 2 }),
        )
        .await;
        let (p, elapsed, others) = run_all_with_fault(&rig, Mode::Think).await;

        assert!(p.error.contains("still streaming after 3 s"), "{p:#?}");
        assert!(p.text.contains("counting sheep"), "what arrived is kept");
        assert!(p.text.contains("the step is cut there"), "{p:#?}");
        assert_others_done(&others);
        assert_within(
            elapsed,
            Duration::from_millis(3_000),
            Duration::from_millis(4_500),
            "endless stream: Run to panel error",
        );
        assert_eq!(
            rig.mock
                .chat_requests_containing(Mode::Think.prompt_heading())
                .len(),
            1
        );
    });
}

#[test]
fn a_tool_response_larger_than_the_cap_is_reported_to_the_model() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text(
                    "Thought: look it up.\nAction: wikipedia\nAction Input: search: Things Fall Apart",
                ),
                Reply::text("Thought: the page was too large.\nAnswer: I could not read it."),
            ],
        );
        let mut endpoints = fixtures.endpoints();
        endpoints["wikipedia_api"] = json!(format!("{}/endless", fixtures.base));
        open(&rig, json!({ "tool_endpoints": endpoints })).await;
        let started = Instant::now();
        rig.ask("Who wrote Things Fall Apart?", "react").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        let elapsed = started.elapsed();

        assert_eq!(p.status, "done", "{p:#?}");
        let said = "the response was larger than 2097152 bytes";
        assert!(p.observations.iter().any(|o| o.contains(said)), "{p:#?}");
        assert!(!p.text.contains("not JSON"), "not a parse error: {p:#?}");
        let calls = rig.mock.chat_requests();
        assert!(calls[1].body.contains(said), "the model is told");
        // The cap, not the 15 s time limit of a tool call, ended the download.
        assert_within(
            elapsed,
            Duration::ZERO,
            Duration::from_secs(10),
            "huge tool response: Run to answer",
        );
    });
}

#[test]
fn the_total_stream_time_is_a_setting_with_a_sane_range() {
    assert_eq!(Settings::default().stream_max_secs, 600);
    assert_eq!(
        Settings::from_json(r#"{"stream_max_secs":0}"#).stream_max_secs,
        1
    );
    assert_eq!(
        Settings::from_json(r#"{"stream_max_secs":999999}"#).stream_max_secs,
        3_600
    );
}
