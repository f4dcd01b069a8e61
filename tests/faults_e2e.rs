//! Hostile output and flaky networks, in the browser: fault injection with the scripted
//! endpoint, and model and tool output that tries to run script or leak data.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use react_arena::agent::Mode;
use serde_json::json;
use support::browser::{browser_test, PanelView, Rig, MARKER_TOKEN};
use support::cdp::cdp;
use support::fixtures::FixtureServer;
use support::mock::{Ending, Reply};

const SETTLE: Duration = Duration::from_secs(40);

async fn open(rig: &Rig, mut extra: serde_json::Value) {
    for (key, value) in [
        ("max_steps", json!(3)),
        ("protocol", json!("text")),
        ("stream_idle_timeout_secs", json!(2)),
    ] {
        extra.as_object_mut().unwrap().entry(key).or_insert(value);
    }
    rig.open_app_overriding(extra).await;
}

/// Blocks the page's requests whose URL matches one of `urls` (`*` wildcards), as a dropped
/// connection would; none with an empty list.
async fn block(rig: &Rig, urls: &[&str]) {
    cdp(&rig.client, "Network.enable", json!({})).await;
    cdp(
        &rig.client,
        "Network.setBlockedURLs",
        json!({ "urls": urls }),
    )
    .await;
}

async fn think(rig: &Rig) -> PanelView {
    rig.ask("A question.", "think").await;
    rig.wait_until_settled(SETTLE).await.remove(0)
}

#[test]
fn rate_limit_with_retry_after_waits_as_told_then_succeeds() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [
                Reply::status(429, "slow down").retry_after(2),
                Reply::text("Answer: fine"),
            ],
        );
        open(&rig, json!({})).await;
        let p = think(&rig).await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert!(
            p.text
                .contains("Rate-limited (HTTP 429); retrying in 2 s (1/4)."),
            "{p:#?}"
        );
        let calls = rig.mock.chat_requests();
        let waited = calls[1].received - calls[0].received;
        assert!(waited >= Duration::from_millis(1900), "waited {waited:?}");
    });
}

#[test]
fn rate_limit_without_retry_after_backs_off_then_succeeds() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::status(429, "slow down"), Reply::text("Answer: fine")],
        );
        open(&rig, json!({})).await;
        let p = think(&rig).await;

        assert_eq!(p.status, "done", "{p:#?}");
        // 1 s ± 25 % jitter, shown rounded up
        assert!(
            p.text.contains("Rate-limited (HTTP 429); retrying in") && p.text.contains("(1/4)"),
            "{p:#?}"
        );
        let calls = rig.mock.chat_requests();
        let waited = calls[1].received - calls[0].received;
        // 1 s ± 25 % jitter
        assert!(waited >= Duration::from_millis(700), "waited {waited:?}");
    });
}

#[test]
fn three_server_errors_then_success() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [
                Reply::status(503, "overloaded"),
                Reply::status(503, "overloaded"),
                Reply::status(503, "overloaded"),
                Reply::text("Answer: made it"),
            ],
        );
        open(&rig, json!({})).await;
        let p = think(&rig).await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("made it"));
        assert_eq!(
            p.text
                .matches("Server error (HTTP 503); retrying in")
                .count(),
            3,
            "{p:#?}"
        );
        for n in 1..=3 {
            assert!(p.text.contains(&format!("({n}/4)")), "{p:#?}");
        }
        assert_eq!(rig.mock.chat_requests().len(), 4);
    });
}

#[test]
fn a_bad_token_is_not_retried_and_says_what_to_do() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::status(
                401,
                "Invalid credentials in Authorization header",
            )],
        );
        open(&rig, json!({})).await;
        let p = think(&rig).await;

        assert_eq!(p.status, "error", "{p:#?}");
        assert!(p.error.contains("token"), "{p:#?}");
        assert!(!p.error.contains(MARKER_TOKEN));
        assert_eq!(rig.mock.chat_requests().len(), 1, "401 is not retried");
    });
}

#[test]
fn an_error_object_mid_stream_keeps_what_arrived() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Thought: the first part of my reasoning")
                .ending(Ending::ErrorEvent("Model too busy".into()))],
        );
        open(&rig, json!({})).await;
        let p = think(&rig).await;

        assert_eq!(p.status, "error", "{p:#?}");
        assert!(p.error.contains("Model too busy"), "{p:#?}");
        assert!(p.text.contains("the first part of my reasoning"), "{p:#?}");
        assert!(p.text.contains("the step is cut there"), "{p:#?}");
        assert_eq!(
            rig.mock.chat_requests().len(),
            1,
            "not retried after tokens arrived"
        );
    });
}

#[test]
fn a_stream_that_goes_silent_is_cut_by_the_idle_timeout() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Thought: and then nothing more").ending(Ending::Stalls)],
        );
        open(&rig, json!({})).await;
        let p = think(&rig).await;

        assert_eq!(p.status, "error", "{p:#?}");
        assert!(
            p.error.contains("stalled") && p.error.contains("2 s"),
            "{p:#?}"
        );
        assert!(p.text.contains("and then nothing more"), "{p:#?}");
        // The page is still alive: a new run works.
        rig.mock
            .script(Mode::Think.prompt_heading(), [Reply::text("Answer: back")]);
        let p = think(&rig).await;
        assert_eq!(p.status, "done", "{p:#?}");
    });
}

#[test]
fn lines_that_are_not_json_are_skipped_and_counted() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Answer: still fine").with_garbage_lines(3)],
        );
        open(&rig, json!({})).await;
        let p = think(&rig).await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("still fine"));
        assert!(p.text.contains("Skipped 3 stream line(s)"), "{p:#?}");
    });
}

#[test]
fn hostile_markdown_from_model_and_tools_runs_nothing_and_leaks_nothing() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        let leak = format!(
            "{}/leak?d=conversation-secret",
            rig.mock.base_url().trim_end_matches("/v1")
        );
        let hostile = format!(
            "<img src=x onerror=\"document.title='pwned'\"> <script>document.title='pwned'</script> \
             [click me](javascript:document.title='pwned') ![chart]({leak})"
        );
        let hostile: &'static str = Box::leak(hostile.into_boxed_str());
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                // The tool result is hostile too: the probe fixture answers with markup.
                Reply::text(&format!(
                    "Thought: {hostile}\nAction: web_search\nAction Input: hostile markup"
                )),
                Reply::text(&format!("Thought: done.\nAnswer: {hostile}")),
            ],
        );
        open(&rig, json!({ "tool_endpoints": fixtures.endpoints() })).await;
        rig.ask("Be hostile.", "react").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);

        assert_eq!(p.status, "done", "{p:#?}");
        let page = rig
            .js("return [document.title, document.querySelectorAll('.panel img, .panel script, .panel iframe').length, \
                 document.querySelectorAll('.panel a[href^=javascript]').length, \
                 Array.from(document.querySelectorAll('.panel a')).every(a => a.rel === 'noopener noreferrer' && a.target === '_blank'), \
                 !!document.querySelector('meta[http-equiv=Content-Security-Policy]')]")
            .await;
        assert_ne!(page[0], "pwned", "a script ran");
        assert_eq!(page[1], 0, "live img/script/iframe elements");
        assert_eq!(page[2], 0, "javascript: links");
        assert_eq!(page[3], true, "links open apart");
        assert_eq!(page[4], true, "the CSP meta tag is there");
        assert!(
            p.text.contains("<script>"),
            "raw HTML is shown as text: {p:#?}"
        );
        assert!(p.answer.contains("[image from 127.0.0.1"), "{p:#?}");
        // Give a lazy image every chance to load, then check nobody asked for the leak URL.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let leaked: Vec<_> = rig
            .mock
            .requests()
            .into_iter()
            .chain(fixtures.requests())
            .filter(|r| r.uri.contains("leak"))
            .collect();
        assert!(leaked.is_empty(), "the image URL was fetched: {leaked:?}");
    });
}

#[test]
fn plain_http_to_a_remote_host_is_refused_with_a_clear_reason() {
    browser_test(|rig: Rig| async move {
        // The page's policy lets plain http reach only this machine: Run says so up front
        // instead of failing with a blocked request.
        open(&rig, json!({ "base_url": "http://10.255.255.1:9/v1" })).await;
        let field = rig
            .client
            .find(fantoccini::Locator::Css("#question"))
            .await
            .unwrap();
        field.send_keys("Anything?").await.unwrap();
        let run = rig
            .client
            .find(fantoccini::Locator::Css("#run"))
            .await
            .unwrap();
        assert_eq!(
            run.text().await.unwrap(),
            "Use https for the API base URL: plain http is allowed only to this machine"
        );
        assert!(!run.is_enabled().await.unwrap());
        let statuses = rig.js("return Array.from(document.querySelectorAll('section.panel')).map(p => p.dataset.status)").await;
        assert!(
            statuses.as_array().unwrap().iter().all(|s| s == "idle"),
            "{statuses}"
        );
    });
}

#[test]
fn a_cut_run_continues_from_the_step_it_was_in() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text("Thought: multiply first.\nAction: calculator\nAction Input: 6*7"),
                Reply::text("Thought: now I know the product is").ending(Ending::Dropped),
                Reply::text("Thought: the product is 42.\nAnswer: 42"),
            ],
        );
        open(&rig, json!({})).await;
        rig.ask("What is 6 times 7?", "react").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "error", "{p:#?}");
        assert!(p.text.contains("now I know the product is"), "{p:#?}");

        rig.click(".panel button.continue").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("42"), "{p:#?}");
        assert!(p.error.is_empty(), "{p:#?}");
        assert_eq!(p.observations.len(), 1, "step 1 was not run again: {p:#?}");
        let calls = rig.mock.chat_requests();
        assert_eq!(calls.len(), 3);
        assert!(
            calls[2].body.contains("Observation: 42"),
            "the continued call knows step 1"
        );
        assert!(
            !calls[2].body.contains("now I know the product is"),
            "the broken reply is not sent back"
        );
        let button = rig
            .js("return document.querySelectorAll('button.continue').length")
            .await;
        assert_eq!(button, 0);
    });
}

/// The agent engine is a chunk of the page's module, fetched when a question is written or a
/// run starts. A page that cannot fetch it (a dropped connection) says so in the panels,
/// sends nothing, keeps the question, and fetches it on the next press of Run once it can.
#[test]
fn an_engine_that_cannot_load_says_so_and_the_next_run_loads_it() {
    browser_test(|rig: Rig| async move {
        rig.mock
            .script(Mode::Think.prompt_heading(), [Reply::text("Answer: fine")]);
        block(&rig, &["*split_engine-*"]).await;
        open(&rig, json!({})).await;
        let engine_requests = "return performance.getEntriesByType('resource')\
             .filter(e => /\\/split_engine-[0-9a-f]+/.test(e.name)).length;";
        assert_eq!(
            rig.js(engine_requests).await,
            json!(0),
            "the page fetched the engine before it was needed"
        );
        let p = think(&rig).await;
        assert_eq!(p.status, "error", "{p:#?}");
        assert!(
            p.error.contains("The agent engine could not start"),
            "{p:#?}"
        );
        assert!(p.error.contains("press Run again"), "{p:#?}");
        assert!(
            rig.mock.chat_requests().is_empty(),
            "no run reached the model"
        );
        assert_eq!(
            rig.js("return document.querySelector('#question').value;")
                .await,
            json!("A question."),
            "the question was lost"
        );

        block(&rig, &[]).await;
        let p = think(&rig).await;
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.ends_with("\nfine"), "{p:#?}");
        assert!(p.error.is_empty(), "{p:#?}");
        assert_eq!(
            rig.mock.chat_requests().len(),
            1,
            "the run reached the model once"
        );
    });
}

/// What a panel shows of a run is a chunk of its own, fetched once the run's first request has
/// left. When it cannot be fetched the run still runs; its panel says why its body is missing,
/// and never "Done" before the body is there; the run is kept, and a reload shows it.
#[test]
fn a_run_whose_view_cannot_load_says_so_and_a_reload_shows_it() {
    const MISSING: &str =
        "This part of the page could not be loaded. Check the connection and reload the page.";
    browser_test(|rig: Rig| async move {
        rig.mock
            .script(Mode::Think.prompt_heading(), [Reply::text("Answer: fine")]);
        block(&rig, &["*split_run_view-*"]).await;
        open(&rig, json!({})).await;
        // Every status the panel shows, as it shows it: a status set over an empty body would
        // be seen here.
        rig.js(
            "window.__shown = []; new MutationObserver(() => { \
               const p = document.querySelector('section.panel'); \
               window.__shown.push([p.dataset.status, !!p.querySelector('.panel-error')]); \
             }).observe(document.querySelector('#panels'), \
               {subtree: true, childList: true, attributes: true, attributeFilter: ['data-status']});",
        )
        .await;
        let p = think(&rig).await;
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.error, MISSING, "{p:#?}");
        assert_eq!(
            rig.mock.chat_requests().len(),
            1,
            "the run reached the model"
        );
        let shown: Vec<(String, bool)> =
            serde_json::from_value(rig.js("return window.__shown;").await).unwrap();
        assert!(
            shown
                .iter()
                .all(|(status, body)| status == "waiting" || *body),
            "the panel said it was settled before it said what it shows: {shown:?}"
        );

        // The run is kept once History counts it: a reload before that (the keeping is a task
        // of its own, slower on a busy machine) would find nothing to show.
        rig.wait_for(
            "the run to be kept",
            SETTLE,
            "return (document.querySelector('#history > summary')?.textContent ?? '') === 'History (1)'",
        )
        .await;
        block(&rig, &[]).await;
        rig.client.refresh().await.unwrap();
        rig.wait_for(
            "the kept run after the reload",
            SETTLE,
            "return !!document.querySelector('section.panel .answer')",
        )
        .await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert!(p.answer.ends_with("fine"), "{p:#?}");
        assert!(p.error.is_empty(), "{p:#?}");
        assert_eq!(
            rig.mock.chat_requests().len(),
            1,
            "the reload asked nothing"
        );
    });
}

/// The page's parts chunk (export and import, the embed code, history, the comparison, the
/// recordings' cards) does not arrive, as on a dropped connection: the first screen still
/// works, a run still runs and shows its answer (it needs only the engine's chunk), each
/// missing part says so where it would be, and nothing the user typed is lost.
#[test]
fn a_part_of_the_page_that_cannot_load_says_so_and_loses_nothing() {
    const MISSING: &str =
        "This part of the page could not be loaded. Check the connection and reload the page.";
    browser_test(|rig: Rig| async move {
        rig.mock
            .script(Mode::Think.prompt_heading(), [Reply::text("Answer: fine")]);
        block(&rig, &["*split_parts-*"]).await;
        open(&rig, json!({})).await;
        let p = think(&rig).await;
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.ends_with("fine"), "{p:#?}");
        assert!(p.error.is_empty(), "{p:#?}");
        assert_eq!(
            rig.mock.chat_requests().len(),
            1,
            "the run reached the model once"
        );
        // The parts drawn with the first screen (export, embed code, history) each say why, once
        // the failed fetch is known.
        let said = rig
            .wait_for_value(
                "the missing parts to say so",
                SETTLE,
                "return Array.from(document.querySelectorAll('.part-missing')).map(e => e.textContent);",
                |said| {
                    said.as_array()
                        .is_some_and(|s| !s.is_empty() && s.iter().all(|s| s == MISSING))
                },
            )
            .await;
        let said: Vec<String> = serde_json::from_value(said).unwrap();
        assert!(!said.is_empty(), "no missing part says so");
        assert!(said.iter().all(|s| s == MISSING), "{said:?}");
        assert_eq!(
            rig.js("return document.querySelector('#question').value;")
                .await,
            json!("A question."),
            "the question was lost"
        );

        block(&rig, &["*split_parts-*"]).await;
        // A run or a recording the address asks for is read and played by the chunk: without
        // it, the page says so instead of showing nothing.
        for ask in ["?recording=multiply.json", "#run=QUJD"] {
            rig.client.goto("about:blank").await.unwrap();
            rig.client
                .goto(&format!("{}{ask}", rig.app_url))
                .await
                .unwrap();
            assert_eq!(
                rig.alert_text(Duration::from_secs(15)).await,
                MISSING,
                "{ask}"
            );
            assert_eq!(
                rig.js("return !!document.querySelector('#run')").await,
                json!(true),
                "{ask}: the page still works"
            );
        }
    });
}

/// The built-in tools are a chunk of their own: a run lists them to the model from their
/// specs and sends its first request without them; they are fetched once that request has
/// left. A call whose tools cannot be fetched fails as unreachable, the model is told, and the
/// run goes on; once the connection is back, the next call fetches them and works.
#[test]
fn the_tools_arrive_after_the_first_request_and_a_call_without_them_says_so() {
    const TOOLS_CHUNK: &str = "*split_tools-*";
    let call = || Reply::text("Action: calculator\nAction Input: 6 * 7");
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                call(),
                Reply::text("Answer: 42"),
                call(),
                Reply::text("Answer: no tool"),
                call(),
                Reply::text("Answer: 42"),
            ],
        );
        open(&rig, json!({})).await;
        let requested = "const res = performance.getEntriesByType('resource'); \
             const chat = res.find(e => e.name.includes('/chat/completions')); \
             const tools = res.filter(e => /\\/split_tools-[0-9a-f]+\\.wasm/.test(e.name)); \
             return [chat ? chat.startTime : null, tools.map(e => e.startTime)];";
        assert_eq!(
            rig.js(requested).await,
            json!([null, []]),
            "the page fetched the tools before a run"
        );
        rig.ask("What is 6 times 7?", "act").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.observations, ["Observation\n42"], "{p:#?}");
        let seen = rig.js(requested).await;
        let chat = seen[0].as_f64().expect("a model request");
        let tools = seen[1].as_array().unwrap();
        assert_eq!(tools.len(), 1, "the tools were fetched once: {seen}");
        assert!(
            tools[0].as_f64().unwrap() >= chat,
            "the tools were asked for before the first model request: {seen}"
        );

        // A fresh page whose tools chunk cannot be fetched.
        block(&rig, &[TOOLS_CHUNK]).await;
        open(&rig, json!({})).await;
        rig.ask("What is 6 times 7?", "act").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("no tool"), "{p:#?}");
        assert_eq!(p.observations.len(), 1, "{p:#?}");
        assert!(
            p.observations[0].contains("The tools' part of the page could not be fetched"),
            "{p:#?}"
        );
        assert_eq!(p.error_observations, 1, "{p:#?}");
        assert!(
            p.text.contains("network"),
            "the failure's kind is shown: {p:#?}"
        );
        let calls = rig.mock.chat_requests();
        assert!(
            calls
                .last()
                .unwrap()
                .body
                .contains("could not be fetched; the call was not made"),
            "the model was told"
        );

        block(&rig, &[]).await;
        rig.ask("What is 6 times 7?", "act").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.observations, ["Observation\n42"], "{p:#?}");
    });
}

/// The MCP servers' part of the page is a chunk of its own. A run whose settings hold no server
/// never fetches it; a run with servers fetches it before its first request, which offers
/// their tools. If it cannot be fetched, the run says so and sends nothing, the question stays,
/// and the next Run, with the connection back, offers the servers' tools.
#[test]
fn the_mcp_part_comes_only_with_servers_and_a_run_without_it_says_so() {
    let mcp_requested = "return performance.getEntriesByType('resource')\
         .filter(e => /\\/split_mcp-[0-9a-f]+\\.wasm/.test(e.name)).length;";
    let servers = json!([{ "name": "Notes", "url": "http://127.0.0.1:9/mcp",
                           "ask": "unless_read_only",
                           "tools": [{ "name": "read_notes", "offered": "read_notes" }] }])
    .to_string();
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [Reply::text("Answer: 42"), Reply::text("Answer: 42")],
        );
        open(&rig, json!({})).await;
        rig.ask("What is 6 times 7?", "act").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(
            rig.js(mcp_requested).await,
            json!(0),
            "a run without servers fetched the MCP chunk"
        );

        // A fresh page, with a server added, whose MCP chunk cannot be fetched.
        block(&rig, &["*split_mcp-*"]).await;
        open(&rig, json!({ "mcp_servers": servers })).await;
        // The page shows the first run again: this question starts a conversation of its own.
        rig.click("#new-conversation").await;
        let sent = rig.mock.chat_requests().len();
        rig.ask("What is 6 times 7?", "act").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "error", "{p:#?}");
        assert!(
            p.error
                .contains("The MCP servers' part of the page could not be fetched"),
            "{p:#?}"
        );
        assert!(p.error.contains("press Run again"), "{p:#?}");
        assert_eq!(rig.mock.chat_requests().len(), sent, "the run sent nothing");
        assert_eq!(
            rig.js("return document.querySelector('#question').value;")
                .await,
            json!("What is 6 times 7?"),
            "the question was lost"
        );

        // The browser lists each refused try too.
        let tried = rig.js(mcp_requested).await.as_u64().unwrap();
        block(&rig, &[]).await;
        rig.ask("What is 6 times 7?", "act").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(
            rig.js(mcp_requested).await,
            json!(tried + 1),
            "fetched once, once it could be"
        );
        let offered = rig.mock.chat_requests().last().unwrap().body.clone();
        assert!(
            offered.contains("read_notes"),
            "the server's tool was not offered: {offered}"
        );
    });
}

/// A first visit (no token, nothing kept) is drawn without the parts chunk: the recordings'
/// cards, the token box and what this browser keeps are on the first screen, and export,
/// import and Embed are buttons there. The chunk is fetched when a part is about to be shown:
/// here, the embed dialog opened; the same goes for Settings' inner sections.
#[test]
fn a_first_visit_fetches_no_part_until_one_is_shown() {
    let parts_requested = "return performance.getEntriesByType('resource')\
         .filter(e => /\\/split_parts-[0-9a-f]+\\.wasm/.test(e.name)).length;";
    browser_test(|rig: Rig| async move {
        rig.client.goto(&rig.app_url).await.unwrap();
        rig.js("localStorage.clear(); sessionStorage.clear();")
            .await;
        rig.client.goto("about:blank").await.unwrap();
        cdp(
            &rig.client,
            "Storage.clearDataForOrigin",
            json!({ "origin": rig.app_url.trim_end_matches('/'), "storageTypes": "indexeddb" }),
        )
        .await;
        rig.client.goto(&rig.app_url).await.unwrap();
        rig.wait_for_recordings().await;
        rig.wait_for(
            "what this browser keeps",
            Duration::from_secs(10),
            "return (document.querySelector('#kept-secrets') || {}).textContent !== undefined",
        )
        .await;
        // Time for anything the first screen would fetch on its own.
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(
            rig.js(parts_requested).await,
            json!(0),
            "a first visit fetched the parts chunk"
        );
        for id in [
            "#export-json",
            "#export-markdown",
            "#import-file",
            "#embed-open",
            "#history",
            "#leaderboard-note",
        ] {
            assert_eq!(
                rig.js(&format!("return !!document.querySelector('{id}')"))
                    .await,
                json!(true),
                "{id} is not on the first screen"
            );
        }
        assert_eq!(
            rig.js("return document.querySelector('#export-json').disabled")
                .await,
            json!(true),
            "nothing to export yet"
        );

        rig.click("#embed-open").await;
        rig.wait_for(
            "the embed dialog",
            Duration::from_secs(15),
            "return !!document.querySelector('#embed-snippet') \
               && document.querySelector('#embed-snippet').value.includes('<iframe')",
        )
        .await;
        assert_eq!(rig.js(parts_requested).await, json!(1));

        // Settings' inner sections are drawn when opened.
        assert_eq!(
            rig.js("return !!document.querySelector('#model')").await,
            json!(false),
            "Settings' model section was drawn while closed"
        );
        rig.click("#settings-more > summary").await;
        rig.wait_for(
            "Settings' model section",
            Duration::from_secs(15),
            "return !!document.querySelector('#model')",
        )
        .await;
    });
}

/// A run started from a link with a remembered token asks the model before the page fetches
/// anything it does not need for that request: the parts, the built-in tools and the
/// Markdown parser come after (`scripts/bench` measures the bytes).
#[test]
fn a_run_from_a_link_asks_the_model_before_fetching_what_the_request_does_not_need() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text("Thought: multiply.\nAction: calculator\nAction Input: 6 * 7"),
                Reply::text("Thought: done.\nAnswer: **42**"),
            ],
        );
        let settings = json!({ "model": "mock/model", "base_url": rig.mock.base_url(),
            "max_steps": 3, "protocol": "text", "remember_token": true });
        rig.open_app_with(settings, MARKER_TOKEN, true).await;
        rig.client
            .goto(&format!("{}?q=What+is+6%C3%977%3F&mode=react", rig.app_url))
            .await
            .unwrap();
        rig.wait_for(
            "Run to be usable",
            Duration::from_secs(20),
            "const b = document.querySelector('#run'); return !!b && !b.disabled",
        )
        .await;
        rig.click("#run").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.observations, ["Observation\n42"], "{p:#?}");
        // The chunks fetched after the request may still be on their way when the run settles:
        // a fetch is listed once it has ended.
        let seen = rig
            .wait_for_value(
                "every chunk to be fetched",
                SETTLE,
                "const res = performance.getEntriesByType('resource'); \
                 const chat = res.find(e => e.name.includes('/chat/completions')); \
                 const chunk = (name) => res.filter(e => new RegExp('/split_' + name + '-[0-9a-f]+\\\\.wasm').test(e.name)) \
                   .map(e => e.startTime); \
                 return { chat: chat.startTime, parts: chunk('parts'), tools: chunk('tools'), \
                   markdown: chunk('markdown'), engine: chunk('engine') };",
                |seen| {
                    ["engine", "parts", "tools", "markdown"]
                        .iter()
                        .all(|c| seen[c].as_array().is_some_and(|s| !s.is_empty()))
                },
            )
            .await;
        let chat = seen["chat"].as_f64().unwrap();
        for (chunk, needed) in [
            ("engine", true),
            ("parts", false),
            ("tools", false),
            ("markdown", false),
        ] {
            let starts = seen[chunk].as_array().unwrap();
            assert_eq!(starts.len(), 1, "{chunk} was fetched once: {seen}");
            let before = starts[0].as_f64().unwrap() < chat;
            assert_eq!(before, needed, "{chunk} before the model request: {seen}");
        }
    });
}
