//! Export, import, replay and inspect in the browser: an All run against the scripted mock is
//! exported as JSON and Markdown (neither holds the token), then imported on a fresh page
//! that has no token and no usable model endpoint, and played back instantly, at 4× and
//! stopped; the panels show what the run showed, and nothing goes out meanwhile.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::{Duration, Instant};

use react_arena::agent::replay::Replay;
use react_arena::agent::Mode;
use react_arena::run_file::RunFile;
use serde_json::{json, Value};
use support::browser::{browser_test, PanelView, Rig, CAPTURE_DOWNLOADS, MARKER_TOKEN};
use support::mock::Reply;

const SETTLE: Duration = Duration::from_secs(30);
const QUESTION: &str = "What is 6 times 7?";

/// Counts the page's fetches from now on, but for its own code (the page's chunks, such as
/// the Markdown parser's, are fetched when first needed).
const COUNT_FETCHES: &str = r#"
window.__fetches = 0;
const fetch = window.fetch;
window.fetch = function (...args) {
  const url = new URL(args[0] instanceof Request ? args[0].url : String(args[0]), location.href);
  const ownCode = url.origin === location.origin &&
    /\/(?:[\w-]+_bg|split_[a-z_]+-[0-9a-f]+|chunk_[0-9]+-[0-9a-f]+)\.wasm$/.test(url.pathname);
  if (!ownCode) window.__fetches += 1;
  return fetch.apply(this, args);
};
"#;

/// Deletes the page's IndexedDB databases (kept runs), so the next page starts empty.
const FORGET_KEPT_RUNS: &str = r#"
const done = arguments[arguments.length - 1];
indexedDB.databases().then((dbs) => {
  for (const db of dbs) indexedDB.deleteDatabase(db.name);
  done(dbs.length);
}, () => done(0));
"#;

/// What a replay must reproduce of a panel: everything the user reads in it but the label
/// that says it is a recording.
fn seen(p: &PanelView) -> Value {
    json!({
        "mode": p.mode, "status": p.status, "counter": p.counter, "live": p.live,
        "reasoning": p.reasoning, "thoughts": p.thoughts, "actions": p.actions,
        "observations": p.observations, "error_observations": p.error_observations,
        "answer": p.answer, "answer_forced": p.answer_forced, "error": p.error,
        "usage": p.usage,
    })
}

fn script_all_modes(rig: &Rig) {
    // Slow enough that a replay at 4× is visibly a replay, not a jump to the end.
    let slow = |r: Reply| r.with_latency(150).with_chunk_delay(40);
    rig.mock.script(
        Mode::Think.prompt_heading(),
        [slow(
            Reply::text("Thought: six sevens are forty-two.\nAnswer: 42")
                .with_reasoning("Six times seven, that is a product I know."),
        )],
    );
    rig.mock.script(
        Mode::Act.prompt_heading(),
        [
            slow(Reply::text("Action: calculator\nAction Input: 6 * 7")),
            slow(Reply::text("Answer: 42")),
        ],
    );
    rig.mock.script(
        Mode::ReAct.prompt_heading(),
        [
            slow(Reply::text(
                "Thought: I should use the calculator.\nAction: calculator\nAction Input: 6 * 7",
            )),
            slow(Reply::text("Thought: The calculator says 42.\nAnswer: 42")),
        ],
    );
    rig.mock.script(
        Mode::CodeAct.prompt_heading(),
        [slow(Reply::text(
            "Thought: Six sevens are 42; no program is needed.\nAnswer: 42",
        ))],
    );
}

async fn panel_count_with(rig: &Rig, css: &str) -> u64 {
    rig.js(&format!(
        "return document.querySelectorAll({}).length",
        serde_json::to_string(css).unwrap()
    ))
    .await
    .as_u64()
    .unwrap()
}

/// Waits until the recording has played to its end and every panel shows its run (drawn by
/// the engine's chunk, which may arrive after an instant replay has ended).
async fn wait_for_replay_end(rig: &Rig) {
    rig.wait_for(
        "the replay to end",
        SETTLE,
        "const b = document.querySelector('#recording-banner');\
         return !!b && b.dataset.playing === 'false' && document.querySelectorAll('section.panel').length === 4 && Array.from(document.querySelectorAll('section.panel')).every(p => p.querySelector('ol.steps, .part-missing'));",
    )
    .await;
}

/// The storage an import must leave alone: settings, token (both places), confirmed hosts.
async fn stored_state(rig: &Rig) -> Value {
    rig.js(
        "return ['react-arena.settings', 'react-arena.token-hosts', 'react-arena.token']\
           .map(k => [localStorage.getItem(k), sessionStorage.getItem(k)])",
    )
    .await
}

/// A port on 127.0.0.1 where nothing listens.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// How long the recording runs, from the first mode's start to the last event.
fn recorded_span_ms(file: &RunFile) -> f64 {
    let replays: Vec<Replay> = file.records.iter().map(Replay::of).collect();
    let earliest = replays
        .iter()
        .map(|r| r.origin)
        .fold(f64::INFINITY, f64::min);
    replays
        .iter()
        .map(|r| r.origin - earliest + r.span())
        .fold(0.0, f64::max)
}

#[test]
fn an_exported_run_replays_from_its_file_without_token_or_network() {
    browser_test(|rig: Rig| async move {
        script_all_modes(&rig);
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        assert_eq!(
            rig.js("return [document.querySelector('#export-json').disabled, document.querySelector('#export-markdown').disabled]").await,
            json!([true, true]),
            "nothing to export before a run"
        );
        rig.ask(QUESTION, "all").await;
        let original = rig.wait_until_settled(SETTLE).await;
        assert!(original.iter().all(|p| p.status == "done"), "{original:#?}");

        // Export both ways.
        rig.js(CAPTURE_DOWNLOADS).await;
        rig.click("#export-json").await;
        rig.click("#export-markdown").await;
        let downloads = rig.wait_for_downloads(2, SETTLE).await;
        assert_eq!(downloads.len(), 2, "{downloads:#?}");
        let (json_file, md_file) = (&downloads[0], &downloads[1]);
        let stem = json_file.name.trim_end_matches(".json");
        assert!(
            stem.starts_with("react-arena-20") && stem.ends_with("-what-is-6-times-7"),
            "{}",
            json_file.name
        );
        assert_eq!(md_file.name, format!("{stem}.md"));
        assert_eq!(json_file.mime, "application/json");
        assert!(
            md_file.mime.starts_with("text/markdown"),
            "{}",
            md_file.mime
        );
        for d in &downloads {
            assert!(!d.text.contains(MARKER_TOKEN), "the token is in {}", d.name);
        }
        eprintln!(
            "export sizes: JSON {} bytes, Markdown {} bytes",
            json_file.text.len(),
            md_file.text.len()
        );
        let file = RunFile::from_json(&json_file.text).expect("the JSON export reads back");
        let modes: Vec<Mode> = file.records.iter().map(|r| r.config.mode).collect();
        assert_eq!(modes, Mode::ALL);
        assert_eq!(file.title, QUESTION);
        assert_eq!(file.settings.base_url, rig.mock.base_url());
        let md = &md_file.text;
        for expected in [
            "# ReAct Arena run: What is 6 times 7?",
            "## Comparison",
            "## Think-only",
            "## Act-only",
            "## ReAct",
            "> What is 6 times 7?",
            "> I should use the calculator.",
            "**Action:** `calculator`",
            "**Observation**\n\n```text\n42\n```",
            "**Answer (step 2)**\n\n> 42",
            "*Figures:* 2 steps · 1 tool call · first token",
        ] {
            assert!(md.contains(expected), "missing {expected:?} in\n{md}");
        }
        let span = recorded_span_ms(&file);
        assert!(span > 800.0, "the scripted run takes a while: {span} ms");

        // A fresh page: no kept run, no token, and a model endpoint where nothing listens.
        let kept = rig
            .client
            .execute_async(FORGET_KEPT_RUNS, vec![])
            .await
            .unwrap();
        assert!(
            kept.as_u64().unwrap() >= 1,
            "the run was kept before: {kept}"
        );
        let nowhere = format!("http://127.0.0.1:{}/v1", closed_port());
        rig.open_app_with(
            json!({ "model": "other/model", "base_url": nowhere, "protocol": "text" }),
            "",
            false,
        )
        .await;
        assert!(
            rig.panels().await.iter().all(|p| p.status == "idle"),
            "the page starts with nothing shown"
        );
        let before_import = stored_state(&rig).await;
        let requests_before = rig.mock.requests().len();
        rig.js(COUNT_FETCHES).await;

        // Import, played instantly.
        rig.choose_speed("instant").await;
        let name = format!("{stem}-{}.json", std::process::id());
        let path = rig
            .choose_file("#import-file", &name, &json_file.text)
            .await;
        wait_for_replay_end(&rig).await;
        let replayed = rig.wait_until_settled(SETTLE).await;
        assert_eq!(
            replayed.iter().map(seen).collect::<Vec<_>>(),
            original.iter().map(seen).collect::<Vec<_>>(),
            "the instant replay shows what the run showed"
        );
        assert_eq!(
            panel_count_with(&rig, "section.panel .recording-badge").await,
            4
        );
        let banner = rig
            .js("return document.querySelector('#recording-banner').innerText")
            .await;
        assert!(
            banner.as_str().unwrap().contains(QUESTION),
            "the banner names the recording: {banner}"
        );
        // The comparison is a part of the page, drawn once its chunk is in.
        let rows = rig
            .wait_until(
                "the comparison of the replayed records",
                SETTLE,
                || panel_count_with(&rig, "#comparison tbody tr"),
                |rows| *rows == 4,
            )
            .await;
        assert_eq!(rows, 4, "the comparison is read off the replayed records");
        assert_eq!(
            rig.js("return !!document.querySelector('#follow-up-hint')")
                .await,
            false,
            "a recording is played back, not continued"
        );

        // At 4×: it plays over a quarter of the recorded time.
        rig.choose_speed("4").await;
        let started = Instant::now();
        rig.click("#replay-again").await;
        let going = rig
            .wait_for_value(
                "the replay to play",
                SETTLE,
                "return Array.from(document.querySelectorAll('section.panel')).filter(p => ['waiting', 'streaming', 'running-tool'].includes(p.dataset.status)).length",
                |going| going.as_u64().is_some_and(|n| n >= 1),
            )
            .await;
        assert!(
            going.as_u64().unwrap() >= 1,
            "the replay plays out: {going}"
        );
        wait_for_replay_end(&rig).await;
        let took = started.elapsed().as_secs_f64() * 1000.0;
        eprintln!("recorded {span:.0} ms; replayed at 4× in {took:.0} ms");
        assert!(
            took >= span / 4.0 * 0.9 && took < span * 0.9,
            "a 4× replay of {span:.0} ms took {took:.0} ms"
        );
        let replayed_fast = rig.wait_until_settled(SETTLE).await;
        assert_eq!(
            replayed_fast.iter().map(seen).collect::<Vec<_>>(),
            original.iter().map(seen).collect::<Vec<_>>(),
            "the 4× replay shows what the run showed"
        );

        // Stop ends a replay where it is.
        rig.choose_speed("1").await;
        rig.click("#replay-again").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        rig.click("#stop").await;
        let stopped = rig.wait_until_settled(Duration::from_secs(5)).await;
        assert!(
            stopped.iter().any(|p| p.status == "stopped"),
            "a mode still playing stops: {stopped:#?}"
        );
        tokio::time::sleep(Duration::from_millis(600)).await;
        let later = rig.panels().await;
        assert_eq!(
            later.iter().map(seen).collect::<Vec<_>>(),
            stopped.iter().map(seen).collect::<Vec<_>>(),
            "nothing plays after Stop"
        );

        // Nothing went out, and nothing the user set changed.
        assert_eq!(
            rig.mock.requests().len(),
            requests_before,
            "the model endpoint of the file got nothing"
        );
        assert_eq!(
            rig.js("return window.__fetches").await,
            0,
            "the page fetched nothing but its own code"
        );
        assert_eq!(stored_state(&rig).await, before_import);
        assert_eq!(rig.stored_token().await, json!([null, null]));
        let _ = std::fs::remove_file(&path);
    });
}

#[test]
fn inspect_shows_each_call_as_the_endpoint_received_it_even_in_a_recording() {
    browser_test(|rig: Rig| async move {
        script_all_modes(&rig);
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        rig.ask(QUESTION, "all").await;
        let react = "section.panel[data-mode=react]";
        // Opened while the run streams: the calls join the list as they are made.
        rig.wait_for(
            "the ReAct panel to stream",
            SETTLE,
            &format!("return document.querySelector('{react}').dataset.status === 'streaming'"),
        )
        .await;
        rig.click(&format!("{react} .inspect > summary")).await;
        rig.wait_for(
            "the first call",
            SETTLE,
            &format!("return document.querySelectorAll('{react} .model-call').length === 1"),
        )
        .await;
        rig.wait_until_settled(SETTLE).await;
        rig.wait_for(
            "the calls",
            SETTLE,
            &format!("return document.querySelectorAll('{react} .model-call').length === 2"),
        )
        .await;
        assert_eq!(
            panel_count_with(&rig, "section.panel[data-mode=act] .model-call").await,
            0,
            "nothing is built while Inspect is closed"
        );
        // What the endpoint received, call by call, against what Inspect lists.
        let received: Vec<Vec<(String, String)>> = rig
            .mock
            .chat_requests_containing(Mode::ReAct.prompt_heading())
            .iter()
            .map(|r| {
                let body: Value = serde_json::from_str(&r.body).unwrap();
                body["messages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| {
                        (
                            m["role"].as_str().unwrap().to_string(),
                            m["content"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect()
            })
            .collect();
        open_every_call(&rig, react).await;
        let listed: Vec<Vec<(String, String)>> = serde_json::from_value(
            rig.js(&format!(
                "return Array.from(document.querySelectorAll('{react} .model-call')).map(c =>\
                   Array.from(c.querySelectorAll('.sent .message')).map(m =>\
                     [m.dataset.role, m.querySelector('.content').textContent]))"
            ))
            .await,
        )
        .unwrap();
        assert_eq!(listed, received);
        assert!(listed[0][0].1.starts_with(Mode::ReAct.prompt_heading()));
        assert_eq!(listed[0][1], ("user".to_string(), QUESTION.to_string()));
        let first_reply = rig
            .js(&format!(
                "return document.querySelector('{react} .model-call .received .content').textContent"
            ))
            .await;
        assert!(
            first_reply.as_str().unwrap().contains("Action: calculator"),
            "{first_reply}"
        );

        // The same calls in the recording of the run, with the network gone.
        rig.js(CAPTURE_DOWNLOADS).await;
        rig.click("#export-json").await;
        let downloads = rig.wait_for_downloads(1, SETTLE).await;
        let nowhere = format!("http://127.0.0.1:{}/v1", closed_port());
        rig.open_app_with(json!({ "base_url": nowhere }), "", false)
            .await;
        rig.choose_speed("instant").await;
        let name = format!("inspect-{}.json", std::process::id());
        let path = rig
            .choose_file("#import-file", &name, &downloads[0].text)
            .await;
        rig.wait_for(
            "the recording",
            SETTLE,
            "const b = document.querySelector('#recording-banner'); return !!b && b.dataset.playing === 'false'",
        )
        .await;
        rig.click(&format!("{react} .inspect > summary")).await;
        rig.wait_for(
            "the recording's calls",
            SETTLE,
            &format!("return document.querySelectorAll('{react} .model-call').length === 2"),
        )
        .await;
        open_every_call(&rig, react).await;
        let listed_again: Vec<Vec<(String, String)>> = serde_json::from_value(
            rig.js(&format!(
                "return Array.from(document.querySelectorAll('{react} .model-call')).map(c =>\
                   Array.from(c.querySelectorAll('.sent .message')).map(m =>\
                     [m.dataset.role, m.querySelector('.content').textContent]))"
            ))
            .await,
        )
        .unwrap();
        assert_eq!(listed_again, received);
        let _ = std::fs::remove_file(&path);
    });
}

/// Opens every call's entry in Inspect (its messages are drawn when it is opened) and waits
/// until each shows what it sent.
async fn open_every_call(rig: &Rig, panel: &str) {
    rig.js(&format!(
        "document.querySelectorAll('{panel} .model-call details').forEach(d => d.open = true)"
    ))
    .await;
    rig.wait_for(
        "the opened calls' messages",
        SETTLE,
        &format!(
            "const calls = document.querySelectorAll('{panel} .model-call'); \
             return calls.length > 0 && Array.from(calls).every(c => c.querySelector('.sent .message'))"
        ),
    )
    .await;
}

#[test]
fn a_file_that_is_not_a_run_is_refused_with_the_reason_and_changes_nothing() {
    browser_test(|rig: Rig| async move {
        rig.open_app(5).await;
        let before = stored_state(&rig).await;
        let name = format!("not-a-run-{}.json", std::process::id());
        let path = rig
            .choose_file(
                "#import-file",
                &name,
                r#"{"format": "something/else", "version": 1}"#,
            )
            .await;
        let alert = rig.alert_text(SETTLE).await;
        assert!(
            alert.contains("not-a-run-") && alert.contains("not a ReAct Arena run"),
            "{alert}"
        );
        assert_eq!(panel_count_with(&rig, ".recording-badge").await, 0);
        assert!(rig.panels().await.iter().all(|p| p.status == "idle"));
        assert_eq!(stored_state(&rig).await, before);
        assert_eq!(rig.stored_token().await, json!([MARKER_TOKEN, null]));
        let _ = std::fs::remove_file(&path);
    });
}
