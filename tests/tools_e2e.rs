//! The tool belt in the browser: each tool called by a scripted model, against local stand-ins
//! for the public APIs (`support::fixtures`) and a self-hosted Pyodide.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use react_arena::agent::Mode;
use serde_json::{json, Value};
use support::browser::{browser_test, PanelView, Rig, MARKER_TOKEN};
use support::fixtures::FixtureServer;
use support::mock::Reply;

const SETTLE: Duration = Duration::from_secs(30);
/// The first python call loads Pyodide (several MB) into a fresh worker.
const PYTHON_SETTLE: Duration = Duration::from_secs(120);

async fn open_with_tools(rig: &Rig, fixtures: &FixtureServer, mut extra: Value) {
    extra["tool_endpoints"] = fixtures.endpoints();
    rig.open_app_overriding(extra).await;
}

fn action(tool: &str, input: &str) -> Reply {
    Reply::text(&format!(
        "Thought: I will use {tool}.\nAction: {tool}\nAction Input: {input}"
    ))
}

async fn run_react(rig: &Rig, question: &str, timeout: Duration) -> PanelView {
    rig.ask(question, "react").await;
    rig.wait_until_settled(timeout).await.remove(0)
}

fn assert_no_token_outside_the_model_endpoint(fixtures: &FixtureServer) {
    for r in fixtures.requests() {
        assert!(!r.uri.contains(MARKER_TOKEN), "token in {}", r.uri);
        for (name, value) in &r.headers {
            assert!(
                !value.contains(MARKER_TOKEN),
                "token in header {name} to {}",
                r.uri
            );
        }
    }
}

#[test]
fn react_answers_a_weather_question_through_geocoding_and_forecast() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                action("weather", "Paris"),
                action("weather", "  Paris "),
                Reply::text("Thought: I have it.\nAnswer: It is overcast in Paris."),
            ],
        );
        open_with_tools(&rig, &fixtures, json!({})).await;
        let p = run_react(&rig, "What is the weather in Paris right now?", SETTLE).await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.observations.len(), 2, "{p:#?}");
        let first = &p.observations[0];
        assert!(first.contains("Paris, Île-de-France, France"), "{first}");
        assert!(
            first.contains("°C") && first.contains("Open-Meteo"),
            "{first}"
        );
        assert!(
            p.observations[1].contains("cached"),
            "repeated call is marked: {p:#?}"
        );
        let paths = fixtures.paths_requested();
        let geocoding = paths
            .iter()
            .filter(|u| u.starts_with("/geocoding/"))
            .count();
        let forecast = paths.iter().filter(|u| u.starts_with("/forecast/")).count();
        assert_eq!(
            (geocoding, forecast),
            (1, 1),
            "the cache answered the repeat: {paths:?}"
        );
        assert!(
            !paths.iter().any(|u| u.starts_with("/pyodide/")),
            "Pyodide is not loaded until python is called"
        );
        assert_no_token_outside_the_model_endpoint(&fixtures);
    });
}

#[test]
fn web_search_goes_through_the_sandboxed_jsonp_frame() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("Action: web_search\nAction Input: Eiffel Tower"),
                Reply::text("Answer: A wrought-iron lattice tower in Paris."),
            ],
        );
        open_with_tools(&rig, &fixtures, json!({})).await;
        rig.ask("What is the Eiffel Tower?", "act").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);

        assert_eq!(p.status, "done", "{p:#?}");
        let obs = &p.observations[0];
        assert!(obs.contains("DuckDuckGo: Eiffel Tower:"), "{obs}");
        assert!(
            obs.contains("https://en.wikipedia.org/wiki/Eiffel_Tower"),
            "{obs}"
        );
        let ddg = fixtures
            .requests()
            .into_iter()
            .find(|r| r.uri.starts_with("/ddg/"))
            .unwrap();
        assert!(ddg.uri.contains("callback="), "{}", ddg.uri);
        let frames = rig
            .wait_for_value(
                "the search frame to be removed",
                SETTLE,
                "return document.querySelectorAll('iframe').length",
                |n| *n == 0,
            )
            .await;
        assert_eq!(frames, 0, "the search frame is removed after the call");
    });
}

#[test]
fn web_search_falls_back_to_wikipedia_when_duckduckgo_has_nothing() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("Action: web_search\nAction Input: Chinua Achebe novel 1958"),
                Reply::text("Answer: Things Fall Apart."),
            ],
        );
        open_with_tools(&rig, &fixtures, json!({})).await;
        rig.ask("Which novel did Achebe publish in 1958?", "act")
            .await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);

        assert_eq!(p.status, "done", "{p:#?}");
        let obs = &p.observations[0];
        assert!(
            obs.contains("no instant answer") && obs.contains("searched Wikipedia instead"),
            "{obs}"
        );
        assert!(obs.contains("Wikipedia search results"), "{obs}");
        let paths = fixtures.paths_requested();
        assert!(paths.iter().any(|u| u.contains("list=search")), "{paths:?}");
    });
}

#[test]
fn wikipedia_search_then_lookup_in_the_page() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                action("wikipedia", "search: Things Fall Apart"),
                action("wikipedia", "lookup: 1958"),
                Reply::text("Thought: Found it.\nAnswer: 1958"),
            ],
        );
        open_with_tools(&rig, &fixtures, json!({})).await;
        let p = run_react(&rig, "When was Things Fall Apart published?", SETTLE).await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.error_observations, 0, "{p:#?}");
        assert!(p.observations[0].contains("Things Fall Apart"), "{p:#?}");
        assert!(
            p.observations[0].contains("CC BY-SA"),
            "attribution is visible: {p:#?}"
        );
        assert!(p.observations[1].contains("(result 1 /"), "{p:#?}");
        assert!(p.observations[1].contains("1958"), "{p:#?}");
        let api_calls: Vec<_> = fixtures
            .requests()
            .into_iter()
            .filter(|r| r.uri.starts_with("/w/api.php"))
            .collect();
        assert!(api_calls.iter().all(|r| r.uri.contains("origin=*")));
        assert!(api_calls
            .iter()
            .any(|r| r.header("api-user-agent").is_some()));
    });
}

#[test]
fn python_runs_is_stopped_at_its_limit_and_comes_back_fresh() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                action("python", "marker = 1\nprint(sum(range(10)))\n6 * 7"),
                action("python", "while True: pass"),
                action("python", "import js\nprint('after', 'marker' in globals(), hasattr(js, 'sessionStorage'), hasattr(js, 'localStorage'), hasattr(js, 'document'))"),
                Reply::text("Thought: done.\nAnswer: 45"),
            ],
        );
        open_with_tools(&rig, &fixtures, json!({ "python_timeout_secs": 3 })).await;
        assert!(
            !fixtures
                .paths_requested()
                .iter()
                .any(|u| u.starts_with("/pyodide/")),
            "the page does not download Pyodide on load"
        );
        let p = run_react(&rig, "Add up 0..9 in Python.", PYTHON_SETTLE).await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.observations.len(), 3, "{p:#?}");
        assert!(
            p.observations[0].contains("45") && p.observations[0].contains("Value: 42"),
            "{p:#?}"
        );
        assert!(p.observations[1].contains("longer than 3 s"), "{p:#?}");
        // A fresh interpreter ran the next program (the first one's variable is gone), in a
        // worker with no storage and no DOM to read a token from.
        assert!(
            p.observations[2].contains("after False False False False"),
            "{p:#?}"
        );
        assert_no_token_outside_the_model_endpoint(&fixtures);
    });
}

#[test]
fn the_search_frame_cannot_read_the_token() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("Action: web_search\nAction Input: frame probe"),
                Reply::text("Answer: probed."),
            ],
        );
        open_with_tools(&rig, &fixtures, json!({})).await;
        rig.ask("Probe the frame.", "act").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);

        let obs = &p.observations[0];
        assert!(obs.contains("Frame probe:"), "{p:#?}");
        assert!(
            !obs.contains(MARKER_TOKEN),
            "the frame read the token: {obs}"
        );
        assert!(obs.contains("sessionStorage blocked"), "{obs}");
        assert!(obs.contains("parent.document blocked"), "{obs}");
        assert!(obs.contains("origin=null"), "{obs}");
    });
}

#[test]
fn disabled_tools_are_not_offered_to_the_model() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                action("python", "print(1)"),
                Reply::text("Thought: no python.\nAnswer: none"),
            ],
        );
        open_with_tools(&rig, &fixtures, json!({})).await;
        rig.open_settings().await;
        rig.click("#tool-react-python").await;
        // CodeAct's own column: its choice is its own, and its python box cannot be ticked
        // (a program is Python already).
        rig.click("#tool-codeact-calculator").await;
        assert_eq!(
            rig.js("const b = document.querySelector('#tool-codeact-python'); return [b.disabled, b.checked, document.querySelector('#tool-react-calculator').checked]")
                .await,
            json!([true, false, true])
        );
        let p = run_react(&rig, "Use python.", SETTLE).await;

        let first = &rig.mock.chat_requests()[0].body;
        assert!(
            !first.contains("- python:"),
            "python is not listed: {first}"
        );
        assert!(first.contains("- calculator:"), "{first}");
        assert_eq!(p.error_observations, 1, "{p:#?}");
        assert!(p.observations[0].contains("no tool named"), "{p:#?}");
        // The choice is a setting: it survives a reload.
        let stored = rig
            .js("return localStorage.getItem('react-arena.settings')")
            .await;
        assert!(
            stored.as_str().unwrap().contains(
                "\"tools_off\":{\"act\":[],\"react\":[\"python\"],\"codeact\":[\"calculator\"]}"
            ),
            "{stored}"
        );
    });
}

#[test]
fn act_only_and_react_use_every_tool_in_one_run_each() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        let act_calls = support::fixtures::EVERY_TOOL_CALL;
        rig.mock.script(
            Mode::Act.prompt_heading(),
            act_calls
                .iter()
                .map(|(tool, input)| Reply::text(&format!("Action: {tool}\nAction Input: {input}")))
                .chain([Reply::text("Answer: done")]),
        );
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            act_calls
                .iter()
                .rev()
                .map(|(tool, input)| action(tool, input))
                .chain([Reply::text("Thought: all seen.\nAnswer: done")]),
        );
        open_with_tools(&rig, &fixtures, json!({ "max_steps": 6 })).await;
        rig.ask("Use every tool.", "all").await;
        let panels = rig.wait_until_settled(PYTHON_SETTLE).await;

        for mode in ["act", "react"] {
            let p = panels.iter().find(|p| p.mode == mode).unwrap();
            assert_eq!(p.status, "done", "{p:#?}");
            assert_eq!(p.observations.len(), 5, "{p:#?}");
            assert_eq!(p.error_observations, 0, "{p:#?}");
            let all = p.observations.join("\n");
            for expected in support::fixtures::EVERY_TOOL_OBSERVES {
                assert!(all.contains(expected), "{mode}: no {expected:?} in {all}");
            }
            if std::env::var_os("REACT_ARENA_PRINT_OBSERVATIONS").is_some() {
                println!("--- {mode} observations ---\n{all}");
            }
        }
        assert_no_token_outside_the_model_endpoint(&fixtures);
    });
}

/// Issue 38: a failed call has a kind. Wikipedia at a wrong address answers 404: the panel
/// says "not found", the address asked is the user's detail (in the panel and Inspect) and
/// never reaches the model, and the page does not ask again (only a network failure is
/// retried by itself).
#[test]
fn a_failed_call_shows_its_kind_and_keeps_its_detail_from_the_model() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        let question = "What does Wikipedia say about Lyon?";
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                action("wikipedia", "search: Lyon"),
                Reply::text("Thought: Wikipedia failed.\nAnswer: I could not look it up."),
            ],
        );
        let mut endpoints = fixtures.endpoints();
        endpoints["wikipedia_api"] = json!(format!("{}/w/missing.php", fixtures.base));
        rig.open_app_overriding(json!({ "tool_endpoints": endpoints }))
            .await;
        let p = run_react(&rig, question, SETTLE).await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.error_observations, 1, "{p:#?}");
        let seen = &p.observations[0];
        assert!(seen.contains("Wikipedia answered HTTP 404."), "{p:#?}");
        assert!(seen.contains("not found"), "{p:#?}");
        let react = "section.panel[data-mode=react]";
        let detail = rig
            .js(&format!(
                "return document.querySelector('{react} .observation .failure-detail pre').textContent;"
            ))
            .await;
        let detail = detail.as_str().unwrap_or_default().to_string();
        assert!(
            detail.starts_with(&format!("GET {}/w/missing.php?", fixtures.base)),
            "{detail}"
        );
        // Asked once: a 404 would come again.
        let asked = fixtures
            .paths_requested()
            .into_iter()
            .filter(|p| p.starts_with("/w/missing.php"))
            .count();
        assert_eq!(asked, 1);
        // The model read the message, never the address.
        let told = rig
            .mock
            .chat_requests_containing("Wikipedia answered HTTP 404")
            .pop()
            .expect("the model was told");
        assert!(!told.body.contains("missing.php"), "{}", told.body);
        // Inspect names the failure with its kind and detail.
        rig.click(&format!("{react} .inspect > summary")).await;
        rig.wait_for(
            "the calls in Inspect",
            Duration::from_secs(10),
            &format!("return !!document.querySelector('{react} .model-call')"),
        )
        .await;
        rig.js(&format!(
            "document.querySelectorAll('{react} .inspect details').forEach(d => d.open = true)"
        ))
        .await;
        rig.wait_for(
            "the failure in Inspect",
            Duration::from_secs(10),
            &format!("return !!document.querySelector('{react} .inspect .tool-failure')"),
        )
        .await;
        let line = rig
            .js(&format!(
                "return document.querySelector('{react} .inspect .tool-failure').textContent;"
            ))
            .await;
        let line = line.as_str().unwrap_or_default();
        assert!(
            line.starts_with("wikipedia failed (not found); not sent to the model: GET ")
                && line.contains("/w/missing.php?"),
            "{line}"
        );
    });
}
