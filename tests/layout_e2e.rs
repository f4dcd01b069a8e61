//! Every view looks right at every width: the layout check (tests/support/layout.rs) on each
//! view and state a user reaches, at 360, 768, 1280 and 1920 px, light and dark. Also: a first
//! visit's Play brings the panels into view, and answers that are only a list or heading
//! marker are shown as their text.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use react_arena::agent::Mode;
use serde_json::{json, Value};
use support::browser::{browser_test, keep_for_docs, Rig};
use support::cdp::emulate_color_scheme;
use support::layout::{findings, resize, LayoutCheck};
use support::mock::Reply;

const SETTLE: Duration = Duration::from_secs(60);

/// An answer an attacker or a careless model writes: a long unbroken address, a long
/// identifier, a wide code line and a table.
const WIDE_ANSWER: &str = "Thought: Six groups of seven make forty-two.\nAnswer: It is **42**. \
See https://example.org/a/very/long/path/that/never/breaks/anywhere/0123456789012345678901234567890123456789 \
and `a_very_long_identifier_that_does_not_break_anywhere_in_the_text_at_all`.\n\n\
```\nlet answer = 6 * 7; // a line of code that runs well past the width of a phone's screen, and on\n```\n\n\
| factor | factor | product |\n|---|---|---|\n| 6 | 7 | 42 |";

#[test]
fn a_first_visit_and_a_replay_lay_out_at_every_width() {
    browser_test(|rig: Rig| async move {
        let mut check = LayoutCheck::default();
        rig.open_fresh(&rig.app_url).await;
        rig.wait_for_recordings().await;
        check.view(&rig, "first-visit").await;
        // What a phone in dark mode shows first, for the README.
        resize(&rig, 360, 740).await;
        emulate_color_scheme(&rig.client, "dark").await;
        let shot = rig.screenshot("layout/first-visit-360-dark-top.png").await;
        keep_for_docs(&shot, "first-visit-360-dark.png");
        resize(&rig, 1400, 900).await;
        emulate_color_scheme(&rig.client, "light").await;
        rig.choose_speed("instant").await;
        rig.play_recording("multiply.json").await;
        rig.wait_for_replay_end(SETTLE).await;
        check.view(&rig, "replay").await;
        check.assert_clean();
    });
}

/// Keeps every waiting line the panels show, as they change.
const WATCH_WAIT_LINES: &str = "window.__waitLines = []; new MutationObserver(() => document.querySelectorAll('section.panel .progress').forEach(p => { const t = p.textContent; if (t.startsWith('Waiting for') && !window.__waitLines.includes(t)) window.__waitLines.push(t); })).observe(document.body, { subtree: true, childList: true, characterData: true }); return true;";

/// Where each panel's head is, relative to the viewport.
const PANEL_HEADS: &str = "return Array.from(document.querySelectorAll('section.panel .panel-head')).map(h => { const r = h.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, height: innerHeight, left: r.left, right: r.right, width: innerWidth }; });";

#[test]
fn play_on_a_first_visit_brings_the_panels_into_view() {
    browser_test(|rig: Rig| async move {
        for (width, height) in [(1280, 900), (360, 740)] {
            rig.open_fresh(&rig.app_url).await;
            resize(&rig, width, height).await;
            rig.js(WATCH_WAIT_LINES).await;
            rig.play_recording("multiply.json").await;
            // The first panel's head comes into view once Play is pressed, and stays there.
            rig.wait_for(
                "the panels to be scrolled into view",
                Duration::from_secs(10),
                "const h = document.querySelector('section.panel .panel-head'); if (!h) return false; const r = h.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight;",
            )
            .await;
            tokio::time::sleep(Duration::from_millis(800)).await;
            let heads = rig.js(PANEL_HEADS).await;
            let heads = heads.as_array().unwrap();
            assert_eq!(heads.len(), 4, "four panels at {width}: {heads:?}");
            // A first visitor watches at the recordings' own pace: 4×, "as it ran" one choice
            // away in the same list.
            assert_eq!(
                rig.js("return document.querySelector('#replay-speed').value")
                    .await,
                json!("4"),
                "at {width}"
            );
            // Side by side, every head is in view; stacked on a phone, the first is.
            let in_view = |h: &Value| {
                h["top"].as_f64().unwrap() >= 0.0
                    && h["bottom"].as_f64().unwrap() <= h["height"].as_f64().unwrap()
            };
            if width >= 1280 {
                assert!(heads.iter().all(in_view), "at {width}: {heads:#?}");
            } else {
                assert!(in_view(&heads[0]), "at {width}: {heads:#?}");
            }
            let shot = rig
                .screenshot(&format!("layout/play-in-view-{width}.png"))
                .await;
            // The waiting lines count on the recording's clock: seconds, not the days since
            // it was recorded.
            let waits = rig
                .wait_for_value(
                    "a panel to wait for the model",
                    SETTLE,
                    "return window.__waitLines",
                    |w| w.as_array().is_some_and(|w| !w.is_empty()),
                )
                .await;
            let waits: Vec<String> = serde_json::from_value(waits).unwrap();
            eprintln!("waiting lines at {width}: {waits:?}");
            // The recordings ran on the model in the browser: a panel waits for it.
            assert!(!waits.is_empty(), "a panel waited for the model");
            for line in &waits {
                let secs: u64 = line
                    .rsplit('…')
                    .next()
                    .and_then(|s| s.trim().strip_suffix(" s"))
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| panic!("a count of seconds in {line:?}"));
                assert!(secs < 30, "{line:?} at {width}");
            }
            keep_for_docs(&shot, &format!("first-visit-play-{width}.png"));
        }
    });
}

#[test]
fn without_a_token_the_settings_show_the_token_and_keep_the_rest_one_click_away() {
    browser_test(|rig: Rig| async move {
        rig.open_fresh(&rig.app_url).await;
        let shown = rig
            .js("const s = document.querySelector('#settings'); return { open: s.open, token: !!document.querySelector('#token') && document.querySelector('#token').checkVisibility(), protocol: !!document.querySelector('#protocol') && document.querySelector('#protocol').checkVisibility() };")
            .await;
        assert_eq!(shown["token"], true, "the token field is in view: {shown}");
        assert_eq!(
            shown["protocol"], false,
            "the other settings wait for a click: {shown}"
        );
        rig.click("#settings-more > summary").await;
        rig.wait_for(
            "the other settings",
            Duration::from_secs(20),
            "return !!document.querySelector('#protocol') && document.querySelector('#protocol').checkVisibility()",
        )
        .await;
    });
}

#[test]
fn the_arena_lays_out_at_every_width_idle_running_done_and_in_its_dialogs() {
    browser_test(|rig: Rig| async move {
        let mut check = LayoutCheck::default();
        rig.open_app(3).await;
        check.view(&rig, "arena-idle").await;

        rig.mock.script_six_times_seven(WIDE_ANSWER, 250);
        rig.ask("What is 6 times 7?", "all").await;
        rig.wait_for(
            "the run to stream",
            Duration::from_secs(10),
            "return Array.from(document.querySelectorAll('section.panel')).some(p => p.dataset.status === 'streaming');",
        )
        .await;
        check.view(&rig, "arena-running").await;
        let panels = rig.wait_until_settled(SETTLE).await;
        assert!(panels.iter().all(|p| p.status == "done"), "{panels:#?}");
        rig.wait_for(
            "the comparison",
            Duration::from_secs(10),
            "return !!document.querySelector('#comparison')",
        )
        .await;
        check.view(&rig, "arena-done-with-comparison").await;

        rig.open_settings().await;
        rig.js("document.querySelectorAll('#settings details').forEach(d => d.open = true);")
            .await;
        check.view(&rig, "settings-open").await;
        rig.js("document.querySelector('#settings').open = false;")
            .await;

        rig.click("#embed-open").await;
        rig.wait_for(
            "the embed dialog",
            Duration::from_secs(10),
            "return !!document.querySelector('#embed-dialog')",
        )
        .await;
        check.view(&rig, "embed-dialog").await;
        rig.click("#embed-close").await;

        rig.wait_for_history_list().await;
        rig.click("#history > summary").await;
        rig.click("#leaderboard > summary").await;
        rig.wait_for(
            "the history and the leaderboard",
            Duration::from_secs(10),
            "return document.querySelectorAll('#history li.history-item').length >= 1 && !!document.querySelector('#leaderboard-note')",
        )
        .await;
        check.view(&rig, "history-and-leaderboard").await;

        // A new conversation: a question asked after a run follows it up in its modes.
        rig.click("#new-conversation").await;
        rig.mock.script_six_times_seven(WIDE_ANSWER, 0);
        rig.ask("What is 6 times 7?", "blind").await;
        rig.wait_for(
            "the blind vote",
            SETTLE,
            "return !!document.querySelector('#blind-vote .vote-best')",
        )
        .await;
        check.view(&rig, "blind-vote").await;
        // Before the vote the embed code says why it carries no run.
        rig.click("#embed-open").await;
        rig.wait_for(
            "the embed dialog of a blind run",
            Duration::from_secs(10),
            "return !!document.querySelector('#embed-blind')",
        )
        .await;
        check.view(&rig, "embed-dialog-blind").await;
        rig.click("#embed-close").await;
        check.assert_clean();
    });
}

#[test]
fn the_embed_lays_out_at_every_width() {
    browser_test(|rig: Rig| async move {
        let mut check = LayoutCheck::default();
        rig.open_app(3).await;
        rig.client
            .goto(&format!("{}?embed=1", rig.app_url))
            .await
            .unwrap();
        rig.wait_for(
            "the embed",
            Duration::from_secs(20),
            "return !!document.querySelector('#run')",
        )
        .await;
        rig.mock.script_six_times_seven(WIDE_ANSWER, 0);
        rig.ask("What is 6 times 7?", "all").await;
        let panels = rig.wait_until_settled(SETTLE).await;
        assert!(panels.iter().all(|p| p.status == "done"), "{panels:#?}");
        check.view(&rig, "embed-after-a-run").await;
        check.assert_clean();
    });
}

/// Three questions, each answered by every mode.
const EVAL_QUESTIONS: [(&str, &str, &str); 3] = [
    (
        "E1: Which city is the capital of France?",
        "Paris",
        "Paris, the capital and largest city of France, on the Seine",
    ),
    (
        "E2: In which year did the Berlin Wall fall?",
        "1989",
        "1989.",
    ),
    (
        "E3: Who wrote the novel Things Fall Apart, first published in 1958?",
        "Chinua Achebe",
        "https://en.wikipedia.org/wiki/Chinua_Achebe_and_a_long_address_that_never_breaks",
    ),
];

#[test]
fn evaluate_lays_out_at_every_width_in_setup_running_and_results() {
    browser_test(|rig: Rig| async move {
        let mut check = LayoutCheck::default();
        for (tag, _, answer) in EVAL_QUESTIONS {
            let tag = &tag[..3];
            for mode in Mode::ALL {
                rig.mock.script_always(
                    &[tag, mode.prompt_heading()],
                    Reply::text(&format!("Thought: I know it.\nAnswer: {answer}"))
                        .with_usage(100, 10)
                        .with_chunk_delay(120),
                );
            }
        }
        rig.open_app(3).await;
        rig.show_evaluate().await;
        check.view(&rig, "evaluate-setup").await;

        let questions: Vec<(&str, &str)> =
            EVAL_QUESTIONS.iter().map(|(q, a, _)| (*q, *a)).collect();
        rig.choose_own_questions("layout.json", &questions).await;
        rig.js("const c = document.querySelector('#eval-concurrency'); c.value = '1'; c.dispatchEvent(new Event('change'));")
            .await;
        rig.click("#eval-start").await;
        rig.wait_for(
            "the evaluation to run",
            Duration::from_secs(10),
            "return !document.querySelector('#eval-stop').hidden",
        )
        .await;
        check.view(&rig, "evaluate-running").await;
        rig.wait_for(
            "the evaluation to finish",
            SETTLE,
            "const t = document.querySelector('#eval-progress-text'); return !!t && t.innerText.startsWith('12 of 12 runs') && document.querySelector('#eval-stop').hidden;",
        )
        .await;
        rig.click("#eval-answers > summary").await;
        rig.wait_for(
            "every answer",
            Duration::from_secs(10),
            "return document.querySelectorAll('#eval-answers tbody tr').length === 3",
        )
        .await;
        check.view(&rig, "evaluate-results").await;
        check.assert_clean();
    });
}

#[test]
fn answers_that_are_only_a_marker_are_shown_as_text() {
    browser_test(|rig: Rig| async move {
        rig.open_app(3).await;
        for answer in ["2.", "1990.", "- ", "#"] {
            rig.mock.script(
                Mode::Think.prompt_heading(),
                [Reply::text(&format!("Thought: Short.\nAnswer: {answer}"))],
            );
            rig.ask("Answer in one mark.", "think").await;
            let panels = rig.wait_until_settled(SETTLE).await;
            assert_eq!(panels[0].status, "done", "{panels:#?}");
            rig.wait_for_answers_drawn().await;
            let shown = rig
                .js("const a = document.querySelector('section.panel .answer .md'); return { text: a.innerText.trim(), lists: a.querySelectorAll('ol, ul, li, h1, h2, h3, h4, h5, h6').length };")
                .await;
            assert_eq!(
                shown["text"],
                answer.trim(),
                "the answer {answer:?} is shown as its text: {shown}"
            );
            assert_eq!(shown["lists"], 0, "no empty list or heading: {shown}");
        }
    });
}

/// A page laid out wrong on purpose, as the issue found the Evaluate view: the check names
/// each fault, and leaves alone what is right (a link in a sentence, text kept for screen
/// readers, a wide table in its own scroller).
const BROKEN: &str = r#"
<style>body { margin: 0; font: 16px sans-serif; } fieldset { margin: 0; } button { min-height: 30px; }</style>
<main>
  <fieldset id="questions"><legend>Questions</legend><input id="q-file" aria-label="file" style="height: 30px"></fieldset>
  <fieldset id="models" style="margin-top: -30px"><legend>Modes and models</legend><input id="m-name" aria-label="model" style="height: 30px"></fieldset>
  <table style="table-layout: fixed; width: 300px; border-collapse: collapse"><tr>
    <td style="width: 60px; white-space: nowrap">EM 1 · F1 0.667</td><td><button id="open-run">Open</button></td>
  </tr></table>
  <div id="cut" style="width: 80px; overflow: hidden; white-space: nowrap">A label that is cut short</div>
  <button id="tiny" style="min-height: 0; padding: 0; font-size: 10px">x</button>
  <div id="too-wide" style="width: 2000px; height: 10px"></div>
  <div id="clipper" style="width: 120px; height: 30px; overflow: hidden"><button id="hidden-open" style="margin-top: 40px">Open</button></div>
  <div id="two-lines" style="width: 300px; height: 20px; line-height: 20px; overflow: hidden">First line of text<br>Second line, cut off entirely</div>
  <p>Read <a href="https://example.org/">the paper</a> for the scores.</p>
  <span style="position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%)">Screen readers only, a long text</span>
  <div tabindex="0" style="overflow-x: auto; width: 200px"><table><tr><td style="white-space: nowrap">A wide table that scrolls on its own</td></tr></table></div>
</main>
"#;

#[test]
fn the_layout_check_names_each_fault_of_a_page_laid_out_wrong() {
    browser_test(|rig: Rig| async move {
        // A blank page: the app's own CSP would refuse the inline styles.
        rig.client.goto("about:blank").await.unwrap();
        rig.client
            .execute(
                "document.body.innerHTML = arguments[0]; return true;",
                vec![json!(BROKEN)],
            )
            .await
            .unwrap();
        resize(&rig, 1280, 900).await;
        let found = findings(&rig).await;
        let report = found.join("\n");
        for (fault, needle) in [
            ("fieldsets overlap", "overlap: fieldset#questions"),
            ("inputs in them overlap", "input#q-file"),
            (
                "the scores run out of their cell",
                "text runs out of its box: \"EM 1 · F1 0.667\"",
            ),
            (
                "the scores run over the Open button",
                "over button#open-run",
            ),
            (
                "a label is cut",
                "text clipped: \"A label that is cut short\" by div#cut",
            ),
            ("a control is too small", "too small: button#tiny"),
            (
                "the page scrolls sideways",
                "the page scrolls sideways (2000 px wide): div#too-wide",
            ),
            (
                "a button is hidden by its box",
                "control cut off: button#hidden-open \"Open\" by div#clipper",
            ),
            (
                "a line is hidden by its box",
                "text clipped: \"Second line, cut off entirely\" by div#two-lines",
            ),
        ] {
            assert!(
                report.contains(needle),
                "{fault}: no {needle:?} in\n{report}"
            );
        }
        for fine in [
            "the paper",
            "Screen readers only",
            "A wide table that scrolls",
        ] {
            assert!(!report.contains(fine), "{fine:?} is not a fault:\n{report}");
        }
    });
}
