//! Shipping the app (issue 12), in headless Chromium: the bundle served under a sub-path by
//! the script users run; a first visit with no token plays a shipped recording; the embedded
//! layout at 360 and 1280 px; the height message to a host page; a run carried whole in the
//! address; and the addresses an attacker would write.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::{Duration, Instant};

use react_arena::agent::Mode;
use serde_json::{json, Value};
use support::browser::{browser_test, dist_dir, shipped, Rig};
use support::fixtures::FixtureServer;
use support::mock::{Reply, THINK_42};

const SETTLE: Duration = Duration::from_secs(40);

#[test]
fn a_first_visit_without_a_token_plays_a_recording_in_four_panels_with_no_request() {
    browser_test(|rig| async move {
        rig.open_fresh(&rig.app_url).await;
        rig.wait_for_recordings().await;
        let guide = rig
            .js("return document.querySelector('.token-guide').innerText")
            .await;
        assert!(
            guide.as_str().unwrap().contains("Hugging Face token"),
            "{guide}"
        );
        rig.choose_speed("instant").await;
        rig.click(".recording-card[data-file='multiply.json'] .play-recording")
            .await;
        let panels = rig.wait_for_replay_end(Duration::from_secs(20)).await;
        let banner = rig
            .js("return document.querySelector('#recording-banner').innerText")
            .await;
        assert!(
            banner.as_str().unwrap().contains("Recording")
                && banner
                    .as_str()
                    .unwrap()
                    .to_lowercase()
                    .contains("qwen2.5-coder-0.5b-instruct"),
            "labelled as a recording with its model: {banner}"
        );
        let file = shipped("multiply.json");
        assert_eq!(panels.len(), 4);
        for (panel, record) in panels.iter().zip(&file.records) {
            assert_eq!(panel.mode, record.config.mode.id());
            let answer = record.turns[0].answer.as_ref().unwrap().text.clone();
            let shown: String = panel.answer.split_whitespace().collect();
            let recorded: String = answer.split_whitespace().collect();
            assert!(
                shown.contains(&recorded[..recorded.len().min(30)]),
                "{}: {panel:#?}",
                panel.mode
            );
        }
        assert!(rig.mock.requests().is_empty(), "a recording asks no model");
    });
}

#[test]
fn a_bad_recording_is_refused_with_the_reason_and_a_token_hides_the_welcome() {
    browser_test(|rig| async move {
        rig.open_fresh(&rig.app_url).await;
        rig.wait_for_recordings().await;
        // The server answers the recording with something that is not a run.
        rig.js(
            "const f = window.fetch; window.fetch = function (r, ...rest) { \
               const url = r instanceof Request ? r.url : String(r); \
               if (url.endsWith('lookup.json')) return Promise.resolve(new Response('{\"format\": \"not a run\"')); \
               return f.call(this, r, ...rest); };",
        )
        .await;
        rig.click(".recording-card[data-file='lookup.json'] .play-recording")
            .await;
        rig.wait_for(
            "the error",
            Duration::from_secs(10),
            "return !!document.querySelector('#welcome-error')",
        )
        .await;
        let error = rig
            .js("return document.querySelector('#welcome-error').innerText")
            .await;
        assert!(
            error
                .as_str()
                .unwrap()
                .starts_with("Cannot play \"Look it up, then work it out\""),
            "{error}"
        );
        assert!(
            rig.js("return !document.querySelector('#recording-banner')")
                .await
                == Value::Bool(true)
        );

        // With a token stored, the welcome gives way to a button.
        rig.open_app(3).await;
        let state = rig
            .js("return [!!document.querySelector('#welcome'), !!document.querySelector('#show-recordings')]")
            .await;
        assert_eq!(state, json!([false, true]));
        rig.click("#show-recordings").await;
        rig.wait_for_recordings().await;
    });
}

/// The server process, ended with the test even when it fails (it would hold the test's
/// inherited file descriptors otherwise).
struct ServePy(std::process::Child);

impl Drop for ServePy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `scripts/lib/serve.py` on a free port, serving `dir` under `base`.
fn start_serve_py(dir: &std::path::Path, base: &str) -> (ServePy, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = std::process::Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/lib/serve.py"))
        .arg(dir)
        .arg(port.to_string())
        .arg(base)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 scripts/lib/serve.py");
    let server = ServePy(server);
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "serve.py did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, port)
}

#[test]
fn under_a_sub_path_the_app_runs_keeps_runs_loads_python_and_plays_recordings() {
    browser_test(|rig| async move {
        let (_server, port) = start_serve_py(&dist_dir(), "/react-arena/");
        let sub = Rig {
            mock: rig.mock.clone(),
            app_url: format!("http://127.0.0.1:{port}/react-arena/"),
            client: rig.client.clone(),
        };
        // The address without its slash is sent to the sub-path.
        sub.client
            .goto(&format!("http://127.0.0.1:{port}/react-arena"))
            .await
            .unwrap();
        assert_eq!(
            sub.client.current_url().await.unwrap().path(),
            "/react-arena/"
        );
        let fixtures = FixtureServer::start().await;
        sub.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text("Thought: Python.\nAction: python\nAction Input: print(6 * 7)"),
                Reply::text("Thought: It printed 42.\nAnswer: 42"),
            ],
        );
        sub.open_app_overriding(json!({
            "tool_endpoints": fixtures.endpoints(),
            "protocol": "text",
            "python_timeout_secs": 60,
        }))
        .await;
        sub.ask("What is 6 times 7, in Python?", "react").await;
        let panel = sub
            .wait_until_settled(Duration::from_secs(120))
            .await
            .remove(0);
        assert!(panel.answer.ends_with("42"), "{panel:#?}");
        assert!(
            panel
                .observations
                .iter()
                .any(|o| o.ends_with("Printed:\n42")),
            "the Python worker ran under the sub-path: {panel:#?}"
        );
        // Kept in IndexedDB: the reload shows it again.
        sub.client.refresh().await.unwrap();
        sub.wait_for(
            "the kept run",
            Duration::from_secs(15),
            "return [...document.querySelectorAll('section.panel .answer')].some(a => a.innerText.trim().endsWith('42'))",
        )
        .await;
        // A recording, by the address.
        sub.client
            .goto(&format!("{}?recording=no-tool.json", sub.app_url))
            .await
            .unwrap();
        // Recorded on the model in the browser, it lasts minutes as it happened.
        sub.wait_for(
            "the replay's speed",
            Duration::from_secs(30),
            "return !!document.querySelector('#replay-speed')",
        )
        .await;
        sub.choose_speed("instant").await;
        let panels = sub.wait_for_replay_end(Duration::from_secs(90)).await;
        assert_eq!(panels.len(), 4, "{panels:#?}");
        assert!(
            panels.iter().all(|p| !p.answer.trim().is_empty()),
            "{panels:#?}"
        );
    });
}

#[test]
fn the_embed_tells_its_host_page_its_height_without_a_loop() {
    browser_test(|rig| async move {
        rig.open_app(3).await;
        let host = support::browser::host_page(&rig.app_url).await;
        rig.client.goto(&format!("http://{host}/")).await.unwrap();
        rig.wait_for(
            "a height message",
            Duration::from_secs(20),
            "return window.heights.length > 0",
        )
        .await;
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let settled: Vec<i64> =
            serde_json::from_value(rig.js("return window.heights").await).unwrap();
        tokio::time::sleep(Duration::from_millis(2000)).await;
        let later: Vec<i64> =
            serde_json::from_value(rig.js("return window.heights").await).unwrap();
        println!("height messages: {later:?}");
        assert_eq!(settled, later, "no message while idle: no resize loop");
        assert!(later.len() <= 5, "{later:?}");
        let frame_height = rig
            .js("return document.getElementById('frame').getBoundingClientRect().height")
            .await;
        assert_eq!(
            frame_height.as_f64().unwrap() as i64,
            *later.last().unwrap(),
            "the frame follows the page's height"
        );
        assert!(*later.last().unwrap() > 300);
    });
}

#[test]
fn embed_fits_360_and_1280_pixels() {
    browser_test(|rig| async move {
        rig.mock.script_six_times_seven(THINK_42, 0);
        rig.open_app(3).await;
        rig.ask("What is 6 times 7?", "all").await;
        rig.wait_until_settled(SETTLE).await;
        // The run, carried in the address, shown embedded at both widths.
        let url = rig.embed_address().await;
        for (width, name) in [(360u32, "embed-360.png"), (1280, "embed-1280.png")] {
            rig.client.set_window_size(width, 900).await.unwrap();
            rig.client.goto(&url).await.unwrap();
            rig.wait_for_replay_end(Duration::from_secs(30)).await;
            let (inner, scroll) = serde_json::from_value::<(f64, f64)>(
                rig.js("return [innerWidth, document.documentElement.scrollWidth]")
                    .await,
            )
            .unwrap();
            let wide = rig
                .js("return Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right > innerWidth + 1).slice(0, 8).map(e => e.tagName + '#' + e.id + '.' + e.className)")
                .await;
            assert!(
                scroll <= inner,
                "{width}: no sideways scroll ({scroll} > {inner}); too wide: {wide}"
            );
            let hidden = rig
                .js("const s = document.querySelector('.settings'); return !s || getComputedStyle(s).display === 'none'")
                .await;
            assert_eq!(hidden, Value::Bool(true), "settings hidden in the embed");
            let shot = rig.screenshot(name).await;
            support::browser::keep_for_docs(&shot, name);
        }
    });
}

/// The panels once every answer is drawn as Markdown: until the parser's chunk is in, an
/// answer shows as plain text, which reads differently (a loaded machine saw "42" in the run
/// and "\n42" in its replay).
async fn answers_drawn_as_markdown(rig: &Rig) -> Vec<support::browser::PanelView> {
    rig.wait_for(
        "the answers drawn as Markdown",
        Duration::from_secs(30),
        "return Array.from(document.querySelectorAll('section.panel .answer .md')).every(m => !!m.querySelector('p'))",
    )
    .await;
    rig.panels().await
}

#[test]
fn a_run_in_the_address_replays_with_no_token_and_no_request() {
    browser_test(|rig| async move {
        rig.mock.script_six_times_seven(THINK_42, 0);
        rig.open_app(3).await;
        rig.ask("What is 6 times 7?", "all").await;
        rig.wait_until_settled(SETTLE).await;
        let ran = answers_drawn_as_markdown(&rig).await;
        let url = rig.embed_address().await;
        let snippet = rig
            .js("return document.querySelector('#embed-snippet').value")
            .await;
        assert!(
            snippet.as_str().unwrap().contains("<iframe src=\""),
            "{snippet}"
        );
        println!("a run in the address: {} characters", url.len());
        let asked = rig.mock.requests().len();

        rig.open_fresh(&url).await;
        rig.wait_for_replay_end(Duration::from_secs(30)).await;
        let shown = answers_drawn_as_markdown(&rig).await;
        for (a, b) in ran.iter().zip(&shown) {
            assert_eq!(
                (&a.mode, &a.answer, &a.actions),
                (&b.mode, &b.answer, &b.actions)
            );
        }
        assert_eq!(rig.mock.requests().len(), asked, "no request to the model");
        let token = rig.js("return sessionStorage.getItem('react-arena.token') || localStorage.getItem('react-arena.token')").await;
        assert_eq!(token, Value::Null, "no token on this page");
    });
}

#[test]
fn hostile_addresses_get_a_clear_error_and_run_nothing() {
    browser_test(|rig| async move {
        rig.open_app(3).await;
        let base = rig.app_url.clone();
        let bomb = rig.deflated(&" ".repeat(3 * 1024 * 1024)).await;
        let not_a_run = rig.deflated("{\"hello\": 1}").await;
        let mut file = shipped("multiply.json");
        // Think-only alone: its record is the shortest to play at 1×.
        file.records.truncate(1);
        let trap = "<img src=x onerror=\"window.__pwned = 1\"><script>window.__pwned = 2</script>";
        for r in &mut file.records {
            r.turns[0].question = trap.to_string();
            if let Some(a) = r.turns[0].answer.as_mut() {
                a.text = trap.to_string();
            }
        }
        let trapped = rig.deflated(&file.to_json()).await;
        let cases = [
            (format!("{base}#run=%%%"), "damaged"),
            (
                format!("{base}#run=QUJD"),
                "Cannot show the run in the address",
            ),
            (format!("{base}#run={bomb}"), "inflates to more than 2 MB"),
            (
                format!("{base}#run={not_a_run}"),
                "Cannot show the run in the address",
            ),
            (
                format!("{base}?recording=..%2F..%2Fx.json"),
                "only a file name",
            ),
            (
                format!("{base}?recording=https%3A%2F%2Fevil.example%2Fx.json"),
                "only a file name",
            ),
            (
                format!("{base}?recording=nothere.json"),
                "no recording named",
            ),
            (format!("{base}?mode=everything"), "the modes are"),
        ];
        for (url, expected) in &cases {
            // A fresh load each time (a change of fragment alone does not reload).
            rig.client.goto("about:blank").await.unwrap();
            rig.client.goto(url).await.unwrap();
            let said = rig.alert_text(Duration::from_secs(10)).await;
            assert!(said.contains(expected), "{url}: {said}");
            // The app still works: its question box and Run are there.
            assert_eq!(
                rig.js("return !!document.querySelector('#run')").await,
                Value::Bool(true)
            );
        }
        println!(
            "a deflate bomb of 3 MB travels in {} characters",
            bomb.len()
        );

        rig.client
            .goto(&format!("{base}#run={trapped}"))
            .await
            .unwrap();
        rig.wait_for_replay_end(Duration::from_secs(90)).await;
        let text = rig
            .js("return document.querySelector('section.panel').innerText")
            .await;
        assert!(
            text.as_str().unwrap().contains("onerror"),
            "shown as text: {text}"
        );
        assert_eq!(
            rig.js("return window.__pwned === undefined").await,
            Value::Bool(true)
        );

        // A question in the address is filled in, never asked.
        let before = rig.mock.requests().len();
        rig.client
            .goto(&format!("{base}?q=What+is+6%C3%977%3F&mode=react"))
            .await
            .unwrap();
        rig.wait_for(
            "the question",
            Duration::from_secs(10),
            "return document.querySelector('#question').value === 'What is 6×7?'",
        )
        .await;
        tokio::time::sleep(Duration::from_millis(800)).await;
        assert_eq!(rig.mock.requests().len(), before);
    });
}
