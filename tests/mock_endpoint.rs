//! The agent loops over real HTTP against the scripted mock endpoint: the same request body,
//! SSE decoding and error mapping the browser uses, with the mock's faults.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use react_arena::agent::record::{RunRecord, Status};
use react_arena::agent::run::RunOptions;
use react_arena::agent::{run_agent, Mode};
use react_arena::llm::ChatParams;
use react_arena::tools::registry::Registry;
use support::http_model::HttpChatModel;
use support::mock::{Ending, MockEndpoint, Reply};

fn model(mock: &MockEndpoint) -> HttpChatModel {
    HttpChatModel {
        base_url: mock.base_url(),
        token: "hf_test_marker_0000".into(),
        params: ChatParams {
            model: "mock/model".into(),
            temperature: 0.0,
            max_tokens: 256,
        },
    }
}

/// Runs one mode against the mock and folds its events into what the panel would show.
async fn run(mock: &MockEndpoint, mode: Mode, question: &str) -> RunRecord {
    let mut panel = RunRecord::default();
    run_agent(
        mode,
        question,
        &model(mock),
        &Registry::standard(),
        &RunOptions::text(4),
        &mut |e| panel.apply(0.0, &e),
    )
    .await;
    panel
}

#[tokio::test]
async fn react_calls_the_calculator_and_sends_the_observation_back() {
    let mock = MockEndpoint::start().await;
    mock.script(
        Mode::ReAct.prompt_heading(),
        [
            Reply::text("Thought: I should multiply.\nAction: calculator\nAction Input: 17 * 23"),
            Reply::text("Thought: The tool said 391.\nAnswer: 391"),
        ],
    );
    let panel = run(&mock, Mode::ReAct, "What is 17 times 23?").await;

    assert_eq!(panel.status, Status::Done);
    assert_eq!(panel.answer().map(|a| a.text.as_str()), Some("391"));
    let calls = mock.chat_requests();
    assert_eq!(calls.len(), 2);
    let first: serde_json::Value = serde_json::from_str(&calls[0].body).unwrap();
    assert_eq!(first["stream"], true);
    assert_eq!(first["stream_options"]["include_usage"], true);
    assert_eq!(first["stop"][0], "\nObservation:");
    assert!(
        calls[1].body.contains("Observation: 391"),
        "{}",
        calls[1].body
    );
    // usage of both calls is summed: 10 prompt tokens each
    assert_eq!(panel.usage().prompt_tokens, 20);
}

#[tokio::test]
async fn think_mode_keeps_reasoning_apart_from_the_answer() {
    let mock = MockEndpoint::start().await;
    mock.script(
        Mode::Think.prompt_heading(),
        [Reply::text("Answer: Paris").with_reasoning("France's capital is Paris.")],
    );
    let panel = run(&mock, Mode::Think, "Capital of France?").await;

    assert_eq!(panel.status, Status::Done);
    assert_eq!(panel.steps()[0].reasoning, "France's capital is Paris.");
    assert_eq!(panel.answer().unwrap().text, "Paris");
}

#[tokio::test]
async fn http_errors_reach_the_panel_with_advice() {
    for (code, expected) in [(401, "401"), (402, "402"), (429, "429"), (503, "503")] {
        let mock = MockEndpoint::start().await;
        // 429 and 5xx are retried four times before the error stands; 401/402 are not.
        mock.script(
            Mode::Act.prompt_heading(),
            (0..5).map(|_| Reply::status(code, "scripted failure")),
        );
        let panel = run(&mock, Mode::Act, "anything").await;
        assert_eq!(panel.status, Status::Error, "HTTP {code}");
        let error = panel.error().unwrap();
        assert!(error.contains(expected), "HTTP {code}: {error}");
        let calls = mock.chat_requests().len();
        assert_eq!(
            calls,
            if matches!(code, 429 | 503) { 5 } else { 1 },
            "HTTP {code}"
        );
    }
}

#[tokio::test]
async fn an_error_mid_stream_keeps_what_streamed_before_it() {
    let mock = MockEndpoint::start().await;
    mock.script(
        Mode::Think.prompt_heading(),
        [Reply::text("Thought: halfway through")
            .ending(Ending::ErrorEvent("the provider overloaded".into()))],
    );
    let panel = run(&mock, Mode::Think, "q").await;

    assert_eq!(panel.status, Status::Error);
    assert!(panel.error().unwrap().contains("the provider overloaded"));
    assert!(panel.steps()[0].live.contains("halfway through"));
}

#[tokio::test]
async fn a_dropped_connection_is_a_network_error_that_keeps_the_text() {
    let mock = MockEndpoint::start().await;
    mock.script(
        Mode::Think.prompt_heading(),
        [Reply::text("Thought: cut off here").ending(Ending::Dropped)],
    );
    let panel = run(&mock, Mode::Think, "q").await;

    assert_eq!(panel.status, Status::Error);
    assert!(panel.steps()[0].live.contains("cut off here"));
}

#[tokio::test]
async fn the_mock_streams_with_the_scripted_delays() {
    let mock = MockEndpoint::start().await;
    mock.script(
        Mode::Think.prompt_heading(),
        [Reply::text("Answer: one two three four").with_chunk_delay(100)],
    );
    let started = std::time::Instant::now();
    let panel = run(&mock, Mode::Think, "q").await;
    // 1 role chunk + 5 tokens + usage + [DONE], 100 ms apart
    assert!(
        started.elapsed() >= Duration::from_millis(700),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(panel.answer().unwrap().text, "one two three four");
}

#[tokio::test]
async fn an_unscripted_request_gets_a_clear_500() {
    let mock = MockEndpoint::start().await;
    let panel = run(&mock, Mode::Think, "q").await;
    assert_eq!(panel.status, Status::Error);
    assert!(panel.error().unwrap().contains("no scripted reply"));
}
