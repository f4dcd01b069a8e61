//! What users expect of the page, in headless Chromium: keyboard shortcuts, copy buttons, a
//! panel that follows the stream, settings folded away once there is a token, the system's
//! dark theme, progress on long waits, and no layout shift while the panels stream.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use fantoccini::Locator;
use react_arena::agent::Mode;
use serde_json::{json, Value};
use support::browser::{browser_test, Rig};
use support::cdp::{emulate_color_scheme, grant_clipboard};
use support::fixtures::FixtureServer;
use support::mock::{Ending, Reply};

const SETTLE: Duration = Duration::from_secs(30);

/// Presses keys as a user does, on whatever has the focus: each key goes down in order and
/// comes up in reverse (so `[Control, Enter]` is the chord Ctrl+Enter).
async fn press(rig: &Rig, keys: &[char]) {
    let mut actions = KeyActions::new("keyboard".into());
    for &k in keys {
        actions = actions.then(KeyAction::Down { value: k });
    }
    for &k in keys.iter().rev() {
        actions = actions.then(KeyAction::Up { value: k });
    }
    rig.client.perform_actions(actions).await.unwrap();
}

fn ctrl() -> char {
    Key::Control.into()
}

fn enter() -> char {
    Key::Enter.into()
}

fn escape() -> char {
    Key::Escape.into()
}

async fn runs_started(rig: &Rig) -> Value {
    rig.js("return document.querySelector('#panels').dataset.runs;")
        .await
}

async fn type_question(rig: &Rig, question: &str, mode: &str) {
    let field = rig.client.find(Locator::Css("#question")).await.unwrap();
    field.clear().await.unwrap();
    field.send_keys(question).await.unwrap();
    rig.click(&format!("#mode option[value='{mode}']")).await;
}

/// A Think-only reply long enough to stream for a few seconds.
fn slow_think(lines: usize, delay_ms: u64) -> Reply {
    let body: String = (1..=lines)
        .map(|i| format!("Line {i} of the reasoning goes on.\n"))
        .collect();
    Reply::text(&format!("Thought: {body}Answer: 42")).with_chunk_delay(delay_ms)
}

#[test]
fn keyboard_runs_stops_and_focuses_the_question() {
    browser_test(|rig: Rig| async move {
        rig.mock
            .script(Mode::Think.prompt_heading(), [slow_think(60, 60)]);
        rig.open_app(3).await;
        type_question(&rig, "What is 6 times 7?", "think").await;

        // The hints are on the controls and in the legend.
        let hints = rig
            .js(
                "return [document.querySelector('#run').getAttribute('aria-keyshortcuts'),\
                 document.querySelector('#stop').getAttribute('aria-keyshortcuts'),\
                 document.querySelector('#question').getAttribute('aria-keyshortcuts'),\
                 document.querySelector('#shortcuts').innerText];",
            )
            .await;
        assert_eq!(hints[0], "Control+Enter Meta+Enter", "{hints}");
        assert_eq!(hints[1], "Escape", "{hints}");
        assert_eq!(hints[2], "/", "{hints}");
        assert!(hints[3].as_str().unwrap().contains("Esc"), "{hints}");

        // Ctrl+Enter in the question box runs, once.
        rig.client
            .find(Locator::Css("#question"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let before = runs_started(&rig).await;
        press(&rig, &[ctrl(), enter()]).await;
        rig.wait_for(
            "Ctrl+Enter to start a run",
            Duration::from_secs(10),
            "return document.querySelector('section.panel').dataset.status === 'streaming';",
        )
        .await;
        assert_ne!(runs_started(&rig).await, before);
        let question = rig
            .js("return document.querySelector('#question').value;")
            .await;
        assert_eq!(
            question, "What is 6 times 7?",
            "Ctrl+Enter must not type a newline"
        );

        // Escape stops the run, wherever the focus is.
        press(&rig, &[escape()]).await;
        rig.wait_for(
            "Escape to stop the run",
            Duration::from_secs(10),
            "return document.querySelector('section.panel').dataset.status === 'stopped';",
        )
        .await;
        assert_eq!(rig.mock.chat_requests().len(), 1, "one press, one run");

        // "/" outside a field focuses the question and types nothing.
        rig.js("document.activeElement.blur();").await;
        press(&rig, &['/']).await;
        let focus = rig
            .js("return [document.activeElement.id, document.querySelector('#question').value];")
            .await;
        assert_eq!(focus, json!(["question", "What is 6 times 7?"]));
        // In a field, "/" is just a character.
        press(&rig, &['/']).await;
        let typed = rig
            .js("return document.querySelector('#question').value;")
            .await;
        assert!(typed.as_str().unwrap().ends_with('/'), "{typed}");

        // Ctrl+Enter from outside any field runs too.
        rig.js("document.querySelector('#question').value = ''; document.activeElement.blur();")
            .await;
        type_question(&rig, "Again?", "think").await;
        rig.js("document.activeElement.blur();").await;
        let before = runs_started(&rig).await;
        press(&rig, &[ctrl(), enter()]).await;
        rig.wait_for(
            "Ctrl+Enter on the page to start a run",
            Duration::from_secs(10),
            &format!(
                "return document.querySelector('#panels').dataset.runs !== {};",
                before
            ),
        )
        .await;
    });
}

#[test]
fn copy_buttons_put_the_answer_and_the_code_on_the_clipboard() {
    browser_test(|rig: Rig| async move {
        let answer = "Run this:\n\n```\nprint(6 * 7)\n```\n\nIt prints 42.";
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(&format!(
                "Thought: Python can check it.\nAnswer: {answer}"
            ))],
        );
        rig.open_app(3).await;
        let origin = rig.app_url.trim_end_matches('/').to_string();
        grant_clipboard(&rig.client, &origin).await;
        rig.ask("How do I check 6 times 7?", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");

        let read_clipboard = "const done = arguments[arguments.length - 1];\
             navigator.clipboard.readText().then(done, e => done('ERROR ' + e));";
        rig.js("return navigator.clipboard.writeText('nothing yet');")
            .await;

        rig.click(".answer button.copy").await;
        rig.wait_for(
            "the answer's button to say Copied",
            Duration::from_secs(5),
            "return document.querySelector('.answer button.copy').innerText.trim() === 'Copied';",
        )
        .await;
        let copied = rig
            .client
            .execute_async(read_clipboard, vec![])
            .await
            .unwrap();
        assert_eq!(
            copied,
            json!(answer),
            "the answer's text is on the clipboard"
        );

        rig.click(".answer button.copy-code").await;
        rig.wait_for(
            "the code's button to say Copied",
            Duration::from_secs(5),
            "return document.querySelector('.answer button.copy-code').innerText.trim() === 'Copied';",
        )
        .await;
        let copied = rig
            .client
            .execute_async(read_clipboard, vec![])
            .await
            .unwrap();
        assert_eq!(copied, json!("print(6 * 7)\n"));
        // The feedback goes away again.
        rig.wait_for(
            "the button to read Copy again",
            Duration::from_secs(5),
            "return document.querySelector('.answer button.copy').innerText.trim() === 'Copy';",
        )
        .await;
    });
}

const BODY_SCROLL: &str = "const b = document.querySelector('section.panel .panel-body');\
     const jump = document.querySelector('section.panel .jump-latest');\
     return { top: b.scrollTop, max: b.scrollHeight - b.clientHeight,\
              following: b.dataset.following, jump: !jump.hidden,\
              status: document.querySelector('section.panel').dataset.status };";

#[test]
fn a_panel_follows_the_stream_until_the_user_scrolls_up() {
    browser_test(|rig: Rig| async move {
        rig.mock
            .script(Mode::Think.prompt_heading(), [slow_think(200, 25)]);
        rig.open_app(3).await;
        rig.ask("Think at length.", "think").await;

        // Following: while the text overflows and grows, the view stays at the bottom.
        rig.wait_for(
            "the streamed text to overflow the panel",
            SETTLE,
            "const b = document.querySelector('section.panel .panel-body');\
             return !!b && b.scrollHeight - b.clientHeight > 300;",
        )
        .await;
        let mut checks = 0;
        for _ in 0..10 {
            tokio::time::sleep(Duration::from_millis(150)).await;
            let s = rig.js(BODY_SCROLL).await;
            let gap = s["max"].as_f64().unwrap() - s["top"].as_f64().unwrap();
            if s["status"] == "streaming" {
                // A frame may have added text since the last scroll: a line or two at most.
                assert!(gap <= 60.0, "not following the stream: {s}");
                assert_eq!(s["jump"], false, "{s}");
                checks += 1;
            }
        }
        assert!(checks >= 5, "the stream ended before it could be watched");

        // The user scrolls up to read: the view stays where they put it.
        rig.js("document.querySelector('section.panel .panel-body').scrollTop = 0;")
            .await;
        rig.wait_for(
            "the Jump to latest button",
            Duration::from_secs(5),
            "return !document.querySelector('section.panel .jump-latest').hidden;",
        )
        .await;
        let grew_from = rig.js(BODY_SCROLL).await["max"].as_f64().unwrap();
        tokio::time::sleep(Duration::from_millis(800)).await;
        let s = rig.js(BODY_SCROLL).await;
        assert_eq!(
            s["status"], "streaming",
            "the stream must still be going: {s}"
        );
        assert!(
            s["max"].as_f64().unwrap() > grew_from,
            "text kept coming: {s}"
        );
        assert_eq!(s["top"], json!(0), "the view moved under the reader: {s}");
        assert_eq!(s["following"], "false", "{s}");

        // "Jump to latest" goes back to the bottom and follows again.
        rig.click("section.panel .jump-latest").await;
        // Scrolled on the next frames, which a busy machine draws late.
        let s = rig
            .wait_for_value("the view back at the bottom", SETTLE, BODY_SCROLL, |s| {
                s["max"].as_f64().unwrap_or(f64::MAX) - s["top"].as_f64().unwrap_or(0.0) <= 60.0
                    && s["following"] == "true"
                    && s["jump"] == false
            })
            .await;
        let gap = s["max"].as_f64().unwrap() - s["top"].as_f64().unwrap();
        assert!(gap <= 60.0, "{s}");
        assert_eq!(s["following"], "true", "{s}");
        assert_eq!(s["jump"], false, "{s}");
        rig.wait_until_settled(SETTLE).await;
    });
}

#[test]
fn settings_are_folded_once_a_token_is_set() {
    browser_test(|rig: Rig| async move {
        // A first visit with no token: the settings are open, to paste one.
        rig.client.goto(&rig.app_url).await.unwrap();
        rig.js("localStorage.clear(); sessionStorage.clear();")
            .await;
        rig.client.goto(&rig.app_url).await.unwrap();
        rig.wait_for(
            "the app",
            SETTLE,
            "return !!document.querySelector('#settings');",
        )
        .await;
        assert_eq!(
            rig.js("return document.querySelector('#settings').open;")
                .await,
            true
        );

        // With a token set, they are folded, one press away.
        rig.open_app(3).await;
        let state = rig
            .js("const s = document.querySelector('#settings');\
                 return [s.open, s.querySelector('#token').checkVisibility()];")
            .await;
        assert_eq!(
            state,
            json!([false, false]),
            "folded: the token field is hidden"
        );
        rig.open_settings().await;
        let state = rig
            .js("const s = document.querySelector('#settings');\
                 return [s.open, s.querySelector('#token').checkVisibility()];")
            .await;
        assert_eq!(state, json!([true, true]));

        // Opened to change something, they fold away again once a run starts.
        rig.mock
            .script(Mode::Think.prompt_heading(), [Reply::text("Answer: 42")]);
        rig.ask("What is 6 times 7?", "think").await;
        rig.wait_for(
            "the settings to fold as the run starts",
            Duration::from_secs(5),
            "return document.querySelector('#settings').open === false;",
        )
        .await;
        rig.wait_until_settled(SETTLE).await;
    });
}

/// The computed colours of the page, a panel and a panel's text.
const COLOURS: &str = "const p = document.querySelector('section.panel');\
     return [getComputedStyle(document.documentElement).backgroundColor,\
             getComputedStyle(p).backgroundColor, getComputedStyle(p).color];";

#[test]
fn the_theme_follows_the_system_colour_scheme() {
    browser_test(|rig: Rig| async move {
        rig.open_app(3).await;
        emulate_color_scheme(&rig.client, "light").await;
        let light = rig.js(COLOURS).await;
        assert_eq!(
            light,
            json!([
                "rgb(246, 247, 249)",
                "rgb(255, 255, 255)",
                "rgb(29, 35, 48)"
            ])
        );
        emulate_color_scheme(&rig.client, "dark").await;
        let dark = rig.js(COLOURS).await;
        assert_eq!(
            dark,
            json!(["rgb(18, 21, 28)", "rgb(27, 32, 41)", "rgb(230, 233, 239)"])
        );
        // Form fields follow too (color-scheme), not only our own colours.
        let field = rig
            .js("return getComputedStyle(document.querySelector('#question')).backgroundColor;")
            .await;
        assert_eq!(field, "rgb(20, 24, 32)");
        rig.screenshot("ux-dark.png").await;
    });
}

/// The panel's progress line; None until the panel shows its run (its body comes with a
/// chunk fetched after the run's first request).
async fn progress_text(rig: &Rig) -> Option<String> {
    rig.js("return document.querySelector('section.panel .progress')?.innerText ?? null;")
        .await
        .as_str()
        .map(str::to_string)
}

/// Polls the panel's progress line until it matches `wanted`; returns what it said.
async fn wait_for_progress(rig: &Rig, what: &str, wanted: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + SETTLE;
    let mut seen = Vec::new();
    loop {
        let text = progress_text(rig).await.unwrap_or_default();
        if wanted(&text) {
            return text;
        }
        if seen.last() != Some(&text) {
            seen.push(text);
        }
        assert!(
            Instant::now() < deadline,
            "no progress line for {what}; it said: {seen:#?}"
        );
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

#[test]
fn long_waits_show_elapsed_time_and_the_running_tool() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        fixtures.set_delay(2_600);
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text(
                    "Thought: I will look it up.\nAction: wikipedia\nAction Input: search: Things Fall Apart",
                )
                .with_latency(2_600),
                Reply::text("Thought: Found it.\nAnswer: Chinua Achebe, 1958."),
            ],
        );
        rig.open_app_overriding(json!({ "tool_endpoints": fixtures.endpoints() }))
            .await;
        rig.ask("Who wrote Things Fall Apart?", "react").await;

        let waiting = wait_for_progress(&rig, "the model's silence", |t| {
            t.starts_with("Waiting for the model") && t.ends_with("2 s")
        })
        .await;
        assert!(waiting.contains("first token"), "{waiting}");
        let tool = wait_for_progress(&rig, "the running tool", |t| {
            t.starts_with("Running wikipedia…") && t.ends_with("2 s")
        })
        .await;
        assert_eq!(tool, "Running wikipedia… 2 s");
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        let progress = rig
            .wait_until(
                "the progress line to clear",
                SETTLE,
                || progress_text(&rig),
                |t| t.as_deref() == Some(""),
            )
            .await;
        assert_eq!(progress.as_deref(), Some(""), "nothing is awaited any more");
    });
}

#[test]
fn the_pyodide_download_shows_the_bytes_loaded() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        // Each of Pyodide's files waits a little, so the download can be watched.
        fixtures.set_delay(400);
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text(
                    "Thought: I will run Python.\nAction: python\nAction Input: print(6 * 7)",
                ),
                Reply::text("Thought: It printed 42.\nAnswer: 42"),
            ],
        );
        rig.open_app_overriding(json!({ "tool_endpoints": fixtures.endpoints() }))
            .await;
        rig.ask("What is 6 times 7, in Python?", "react").await;
        let mut sizes = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let text = progress_text(&rig).await.unwrap_or_default();
            if let Some(size) = text.split("loading Python: ").nth(1) {
                if sizes.last() != Some(&size.to_string()) {
                    sizes.push(size.to_string());
                }
            }
            let status = rig
                .js("return document.querySelector('section.panel').dataset.status;")
                .await;
            if ["done", "error", "stopped"].contains(&status.as_str().unwrap_or_default()) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "python never finished: {sizes:?}"
            );
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        let p = rig.panel("react").await;
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(
            sizes.len() >= 2,
            "the download's progress was shown as it grew: {sizes:?}"
        );
        let megabytes: Vec<f64> = sizes
            .iter()
            .filter_map(|s| s.strip_suffix(" MB").and_then(|n| n.parse().ok()))
            .collect();
        assert!(
            megabytes.iter().any(|&mb| mb > 1.0),
            "Pyodide is megabytes: {sizes:?}"
        );
        assert!(
            megabytes.windows(2).all(|w| w[0] <= w[1]),
            "the count only grows: {sizes:?}"
        );
    });
}

/// Sums the layout shifts after the page loaded that no input caused.
const WATCH_SHIFTS: &str = "window.__shifts = []; const t0 = performance.now();\
     new PerformanceObserver(list => { for (const e of list.getEntries()) {\
       if (e.startTime >= t0 && !e.hadRecentInput) window.__shifts.push({ value: e.value,\
         at: e.startTime, nodes: e.sources.map(s => s.node ? (s.node.className || s.node.nodeName) : '?') }); } })\
     .observe({ type: 'layout-shift', buffered: true });";

#[test]
fn streaming_does_not_shift_the_layout() {
    browser_test(|rig: Rig| async move {
        let delay = 30;
        rig.mock
            .script(Mode::Think.prompt_heading(), [slow_think(40, delay)]);
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("Action: calculator\nAction Input: 6 * 7").with_chunk_delay(delay),
                Reply::text("Answer: 42").with_chunk_delay(delay),
            ],
        );
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text(
                    "Thought: I should compute this.\nAction: calculator\nAction Input: 6 * 7",
                )
                .with_chunk_delay(delay)
                .with_latency(1_200),
                Reply::text("Thought: The calculator says 42.\nAnswer: 42").with_chunk_delay(delay),
            ],
        );
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                Reply::text("Thought: Six sevens are 42; no program is needed.\nAnswer: 42")
                    .with_chunk_delay(delay)
                    .with_latency(600),
            ],
        );
        rig.open_app(3).await;
        let bar_height = "return document.querySelector('.question-bar').offsetHeight;";
        let bar_before = rig.js(bar_height).await;
        rig.js(WATCH_SHIFTS).await;
        rig.ask("What is 6 times 7?", "all").await;
        let panels = rig.wait_until_settled(SETTLE).await;
        assert!(panels.iter().all(|p| p.status == "done"), "{panels:#?}");
        tokio::time::sleep(Duration::from_millis(500)).await;
        let shifts = rig.js("return window.__shifts;").await;
        let cls: f64 = shifts
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["value"].as_f64().unwrap())
            .sum();
        println!("cumulative layout shift during an All run: {cls:.4} ({shifts})");
        // The follow-up row appears in a slot of reserved height: the question bar keeps its.
        assert_eq!(
            rig.js(bar_height).await,
            bar_before,
            "the question bar grew"
        );
        assert!(cls < 0.05, "layout shifted by {cls:.4}: {shifts:#}");
    });
}

/// A long answer (over 16 KB, drawn in parts a frame at a time, so no task blocks the page
/// for long) must still end up whole, in order, with a Copy button on every code block and
/// markup inert.
#[test]
fn a_long_answer_is_drawn_whole_with_a_copy_button_on_every_code_block() {
    browser_test(|rig: Rig| async move {
        let blocks = 1500;
        let answer: String = (0..blocks)
            .map(|i| match i % 3 {
                0 => format!("Paragraph {i} with **bold** text.\n\n"),
                1 => format!("```\nlet line_{i} = {i};\n```\n"),
                _ if i == 200 => "Late markup <img src=x onerror=alert(1)> stays text.\n\n".into(),
                _ => format!("- item {i}\n- item {i}b\n\n"),
            })
            .collect::<String>()
            + "The end.";
        assert!(answer.len() > 16 * 1024, "long enough to be drawn in parts");
        let reply: &'static str =
            Box::leak(format!("Thought: a long one.\nAnswer: {answer}").into_boxed_str());
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(reply).with_chunk_delay(0)],
        );
        rig.open_app(3).await;
        rig.ask("Write a long answer.", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        rig.wait_for(
            "the answer drawn to its end",
            SETTLE,
            "const ps = document.querySelectorAll('.answer .md p'); \
             return ps.length > 0 && ps[ps.length - 1].textContent === 'The end.';",
        )
        .await;
        let drawn = rig
            .js("const md = document.querySelector('.answer .md'); return { \
                   paragraphs: Array.from(md.querySelectorAll('p')).map(p => p.textContent), \
                   code: Array.from(md.querySelectorAll('.code-block')).map(c => \
                     [c.querySelectorAll('button.copy-code').length, c.querySelector('pre').textContent]), \
                   items: md.querySelectorAll('li').length, \
                   lists: md.querySelectorAll('ul').length, \
                   images: md.querySelectorAll('img').length, \
                   bold: md.querySelectorAll('strong').length };")
            .await;
        let code = drawn["code"].as_array().unwrap();
        assert_eq!(code.len(), blocks / 3, "every code block, once");
        for (k, c) in code.iter().enumerate() {
            let i = 3 * k + 1;
            assert_eq!(
                c,
                &json!([1, format!("let line_{i} = {i};\n")]),
                "code block {k}"
            );
        }
        let paragraphs = drawn["paragraphs"].as_array().unwrap();
        assert_eq!(paragraphs.len(), blocks / 3 + 2, "{paragraphs:?}");
        assert_eq!(paragraphs[0], json!("Paragraph 0 with bold text."));
        assert_eq!(
            paragraphs[paragraphs.len() - 2],
            json!(format!("Paragraph {} with bold text.", blocks - 3))
        );
        assert!(paragraphs.contains(&json!(
            "Late markup <img src=x onerror=alert(1)> stays text."
        )));
        assert_eq!(drawn["images"], json!(0), "markup stays text");
        assert_eq!(drawn["bold"], json!(blocks / 3));
        assert_eq!(drawn["lists"], json!(blocks / 3 - 1));
        assert_eq!(drawn["items"], json!(2 * (blocks / 3 - 1)));
    });
}

/// A long reply arriving at once is shown while it streams (drawn in small blocks, laid out
/// only where in view): every line, once, in order.
#[test]
fn a_long_reply_arriving_at_once_is_shown_whole_while_it_streams() {
    browser_test(|rig: Rig| async move {
        let text = (0..2000)
            .map(|i| format!("Thought line {i}: a few words to fill the line."))
            .collect::<Vec<_>>()
            .join("\n");
        let text: &'static str = Box::leak(text.into_boxed_str());
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(text).with_chunk_delay(0).ending(Ending::Stalls)],
        );
        rig.open_app(3).await;
        rig.ask("Think at length.", "think").await;
        // Each block's text, a line break between blocks (innerText would leave out the
        // blocks the browser has not laid out, out of view).
        let live_text = "const live = document.querySelector('.panel .live'); \
             return live ? Array.from(live.children).map(b => b.textContent).join('\\n') : ''";
        rig.wait_for(
            "the last line",
            SETTLE,
            &format!("return (() => {{ {live_text} }})().includes('Thought line 1999:')"),
        )
        .await;
        let shown = rig.js(live_text).await;
        let shown: Vec<&str> = shown.as_str().unwrap().lines().collect();
        let sent: Vec<&str> = text.lines().collect();
        assert_eq!(shown.len(), sent.len(), "every line once");
        assert!(shown == sent, "in order");
        rig.click("#stop").await;
    });
}
