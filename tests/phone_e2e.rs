//! The arena on a phone (360 × 740, touch): below 600 px the panels are one view with a tab per
//! mode. Each tab says its mode's state as it changes, the shown panel changes only when the
//! user asks (a tap, a swipe, the arrow keys), a panel is as tall as its content, the
//! comparison is one tab away, and a blind run's tabs name no mode. The embed uses the same
//! view, and its height messages follow the shown tab.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::Locator;
use react_arena::agent::Mode;
use serde_json::{json, Value};
use support::browser::{browser_test, host_page_framing, keep_for_docs, Rig};
use support::cdp::cdp;
use support::layout::LayoutCheck;
use support::mock::{Ending, Reply};

const SETTLE: Duration = Duration::from_secs(60);
const PHONE: (u32, u32) = (360, 740);

/// A phone: its screen, a touch screen, and the page laid out for it.
async fn be_a_phone(rig: &Rig) {
    cdp(
        &rig.client,
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": PHONE.0, "height": PHONE.1, "deviceScaleFactor": 2, "mobile": true }),
    )
    .await;
    cdp(
        &rig.client,
        "Emulation.setTouchEmulationEnabled",
        json!({ "enabled": true, "maxTouchPoints": 5 }),
    )
    .await;
}

/// The tabs as the user sees them: name, state, selected, focused.
const READ_TABS: &str = "return Array.from(document.querySelectorAll('#mode-tabs [role=tab]')).map(t => ({\
    name: t.querySelector('.tab-name').innerText, state: t.querySelector('.tab-state')?.innerText ?? '',\
    selected: t.getAttribute('aria-selected') === 'true', focused: document.activeElement === t }));";

/// Notes every state each tab shows, and which tab is selected, each time either changes.
const WATCH_TABS: &str = "window.__tabs = []; const note = () => {\
    const tabs = Array.from(document.querySelectorAll('#mode-tabs [role=tab]'));\
    if (!tabs.length) return;\
    const now = tabs.map(t => (t.getAttribute('aria-selected') === 'true' ? '*' : '') + t.innerText.replace(/\\s+/g, ' ').trim()).join(' | ');\
    if (window.__tabs[window.__tabs.length - 1] !== now) window.__tabs.push(now); };\
    new MutationObserver(note).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});\
    return true;";

/// Notes each thing the tabs' live region says, and when.
const WATCH_NEWS: &str = "window.__news = []; new MutationObserver(() => {\
    const n = document.querySelector('#mode-tabs-news'); const t = n ? n.textContent : '';\
    const last = window.__news[window.__news.length - 1];\
    if (t && (!last || last[1] !== t)) window.__news.push([performance.now(), t]); })\
    .observe(document.body, {subtree: true, childList: true, characterData: true});\
    return true;";

/// The panels a user can see: laid out, with a size.
const VISIBLE_PANELS: &str = "return Array.from(document.querySelectorAll('section.panel'))\
    .filter(p => p.getBoundingClientRect().height > 0).map(p => p.id);";

/// Waits until the tab at `index` is the selected one.
async fn wait_for_tab(rig: &Rig, index: usize, what: &str) {
    rig.wait_for(
        what,
        SETTLE,
        &format!("return document.querySelector('#mode-tab-{index}').getAttribute('aria-selected') === 'true'"),
    )
    .await;
}

async fn tabs(rig: &Rig) -> Vec<Value> {
    rig.js(READ_TABS)
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

async fn selected(rig: &Rig) -> usize {
    tabs(rig)
        .await
        .iter()
        .position(|t| t["selected"] == json!(true))
        .expect("a selected tab")
}

/// A swipe across the shown panel's head, as a finger does it: `dx` < 0 is to the left.
async fn swipe(rig: &Rig, dx: f64) {
    let y = rig
        .js(
            "const h = document.querySelector('section.panel:not([hidden]) .panel-head'); \
             h.scrollIntoView({block: 'center'}); const r = h.getBoundingClientRect(); \
             return (r.top + r.bottom) / 2;",
        )
        .await
        .as_f64()
        .unwrap();
    swipe_from(rig, 180.0 - dx / 2.0, y, dx).await;
}

/// A swipe of `dx` that starts at (`x`, `y`) in the viewport.
async fn swipe_from(rig: &Rig, x: f64, y: f64, dx: f64) {
    let point = |x: f64| json!([{ "x": x, "y": y }]);
    cdp(
        &rig.client,
        "Input.dispatchTouchEvent",
        json!({ "type": "touchStart", "touchPoints": point(x) }),
    )
    .await;
    for step in 1..=5 {
        cdp(
            &rig.client,
            "Input.dispatchTouchEvent",
            json!({ "type": "touchMove", "touchPoints": point(x + dx * f64::from(step) / 5.0) }),
        )
        .await;
    }
    cdp(
        &rig.client,
        "Input.dispatchTouchEvent",
        json!({ "type": "touchEnd", "touchPoints": [] }),
    )
    .await;
}

async fn press(rig: &Rig, key: Key) {
    let focused = rig.client.active_element().await.unwrap();
    focused
        .send_keys(&char::from(key).to_string())
        .await
        .unwrap();
}

#[test]
fn on_a_phone_the_modes_are_tabs_that_say_their_state_and_move_only_when_asked() {
    browser_test(|rig: Rig| async move {
        // Scripted so the modes end in a known order: ReAct first, then Act-only fails, then
        // CodeAct, and Think-only ends last.
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [Reply::text("Thought: Six sevens.\nAnswer: 42").with_latency(600)],
        );
        // Act-only's stream fails after its first words.
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [Reply::text("Action: calculator")
                .with_latency(1_500)
                .ending(Ending::ErrorEvent("The model failed mid-answer.".into()))],
        );
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                Reply::text("Thought: Six sevens; no program needed.\nAnswer: 42")
                    .with_latency(2_200),
            ],
        );
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(
                "Six times seven: six sevens are forty-two, as seven sixes are.\nAnswer: 42\n\n```\nprint(6 * 7)  # a line of code as wide as the phone, or wider than it is\n```",
            )
            .with_latency(3_000)
            .with_chunk_delay(20)],
        );
        be_a_phone(&rig).await;
        rig.open_app_overriding(json!({ "protocol": "text", "max_steps": 3 }))
            .await;
        rig.js(WATCH_TABS).await;
        rig.js(WATCH_NEWS).await;
        rig.ask("What is 6 times 7?", "all").await;
        let panels = rig.wait_until_settled(SETTLE).await;
        assert_eq!(panels.len(), 4);
        let height = rig
            .js("return document.scrollingElement.scrollHeight")
            .await
            .as_f64()
            .unwrap();
        let shown_height = rig
            .js("return Math.max(...Array.from(document.querySelectorAll('section.panel')).map(p => p.getBoundingClientRect().height))")
            .await
            .as_f64()
            .unwrap();
        println!(
            "page height after the run at 360 x 740: {height} px (shown panel {shown_height} px)"
        );

        // The states each tab showed, in the order they came.
        let seen: Vec<String> =
            serde_json::from_value(rig.js("return window.__tabs").await).unwrap();
        println!("tabs as they changed:\n{}", seen.join("\n"));
        let first = |needle: &str| {
            seen.iter()
                .position(|s| s.contains(needle))
                .unwrap_or_else(|| panic!("no tab ever said {needle:?}: {seen:#?}"))
        };
        let react_done = first("ReAct Done");
        let act_error = first("Act-only Error");
        let codeact_done = first("CodeAct Done");
        let think_done = first("Think-only Done");
        assert!(
            react_done < act_error && act_error < codeact_done && codeact_done < think_done,
            "the tabs followed the modes as they ended: {seen:#?}"
        );
        assert!(
            first("Think-only Streaming") < think_done,
            "the hidden Think-only tab showed it streaming: {seen:#?}"
        );
        assert!(
            seen.iter().all(|s| s.starts_with("*Think-only")),
            "the shown tab changed by itself: {seen:#?}"
        );
        let now = tabs(&rig).await;
        assert_eq!(
            now.iter().map(|t| t["name"].clone()).collect::<Vec<_>>(),
            [
                json!("Think-only"),
                json!("Act-only"),
                json!("ReAct"),
                json!("CodeAct"),
                json!("Compare")
            ]
        );
        assert!(
            now[0]["state"].as_str().unwrap().starts_with("Done"),
            "{now:#?}"
        );
        assert!(
            now[1]["state"].as_str().unwrap().starts_with("Error"),
            "{now:#?}"
        );
        assert!(
            now[2]["state"].as_str().unwrap().starts_with("Done"),
            "{now:#?}"
        );
        assert!(
            now[3]["state"].as_str().unwrap().starts_with("Done"),
            "{now:#?}"
        );

        // One panel at a time, as tall as its content.
        assert_eq!(rig.js(VISIBLE_PANELS).await, json!(["mode-panel-0"]));
        assert!(
            height <= f64::from(2 * PHONE.1) + shown_height,
            "the page is {height} px tall at 360 x 740 (shown panel {shown_height} px)"
        );
        let body_gap = rig
            .js("const b = document.querySelector('#mode-panel-0 .panel-body'); return b.clientHeight - b.scrollHeight;")
            .await;
        assert!(
            body_gap.as_f64().unwrap() <= 0.0,
            "the shown panel has empty room under its content: {body_gap}"
        );
        let shot = rig.screenshot("phone-360-all.png").await;
        keep_for_docs(&shot, "phone-360.png");

        // The tab strip stays in view while the page scrolls down the panel.
        rig.js("window.scrollTo(0, document.querySelector('#mode-panel-0').getBoundingClientRect().bottom + scrollY - 200)")
            .await;
        let strip = rig
            .js("const r = document.querySelector('#mode-tabs').getBoundingClientRect(); return [r.top, r.bottom];")
            .await;
        assert!(
            strip[0].as_f64().unwrap() >= 0.0 && strip[1].as_f64().unwrap() <= f64::from(PHONE.1),
            "the tabs left the screen: {strip}"
        );

        // A swipe on code, which scrolls sideways itself, is the code's.
        rig.js("window.scrollTo(0, 0); document.querySelector('#mode-panel-0 .answer pre').scrollIntoView({block: 'center'})")
            .await;
        let code = rig
            .js("const r = document.querySelector('#mode-panel-0 .answer pre').getBoundingClientRect(); return [r.left + 20, (r.top + r.bottom) / 2];")
            .await;
        swipe_from(
            &rig,
            code[0].as_f64().unwrap() + 150.0,
            code[1].as_f64().unwrap(),
            -150.0,
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(selected(&rig).await, 0, "a swipe on code changed the mode");

        // A swipe to the left shows the next mode, to the right the one before.
        swipe(&rig, -200.0).await;
        wait_for_tab(&rig, 1, "the swipe to show Act-only").await;
        assert_eq!(rig.js(VISIBLE_PANELS).await, json!(["mode-panel-1"]));
        swipe(&rig, -200.0).await;
        wait_for_tab(&rig, 2, "the swipe to show ReAct").await;
        swipe(&rig, 200.0).await;
        // A swipe to the right is the page's: the browser does not take it to go back a page.
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            rig.js("return !!document.querySelector('#panels') && location.origin + '/'")
                .await,
            json!(rig.app_url),
            "the swipe left the page"
        );
        wait_for_tab(&rig, 1, "the swipe back to Act-only").await;
        // A vertical drag scrolls; it does not change the mode.
        cdp(
            &rig.client,
            "Input.synthesizeScrollGesture",
            json!({ "x": 180, "y": 500, "yDistance": -300, "xDistance": 20, "gestureSourceType": "touch" }),
        )
        .await;
        assert_eq!(selected(&rig).await, 1);

        // The arrow keys move between the tabs, and Home and End to either end.
        rig.client
            .find(Locator::Css("#mode-tab-1"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        press(&rig, Key::Right).await;
        let now = tabs(&rig).await;
        assert_eq!(selected(&rig).await, 2, "{now:#?}");
        assert_eq!(now[2]["focused"], json!(true), "{now:#?}");
        press(&rig, Key::Right).await;
        assert_eq!(selected(&rig).await, 3, "CodeAct's tab");
        press(&rig, Key::Right).await;
        assert_eq!(selected(&rig).await, 4, "the comparison's tab");
        assert_eq!(rig.js(VISIBLE_PANELS).await, json!([]));
        assert_eq!(
            rig.js("const c = document.querySelector('#comparison'); return !!c && c.getBoundingClientRect().top < innerHeight;")
                .await,
            json!(true),
            "the comparison shows under the tabs"
        );
        press(&rig, Key::Right).await;
        assert_eq!(
            selected(&rig).await,
            0,
            "Right from the last wraps to the first"
        );
        press(&rig, Key::End).await;
        assert_eq!(selected(&rig).await, 4);
        press(&rig, Key::Home).await;
        assert_eq!(selected(&rig).await, 0);
        press(&rig, Key::Left).await;
        assert_eq!(
            selected(&rig).await,
            4,
            "Left from the first wraps to the last"
        );

        // What ended out of sight was said politely, never the shown mode, and not more often
        // than once every 1.5 s.
        assert_eq!(
            rig.js("return document.querySelector('#mode-tabs-news').getAttribute('aria-live')")
                .await,
            json!("polite")
        );
        let news: Vec<(f64, String)> =
            serde_json::from_value(rig.js("return window.__news").await).unwrap();
        println!("said: {news:?}");
        let all_said: String = news.iter().map(|(_, t)| t.as_str()).collect();
        assert!(all_said.contains("ReAct: Done."), "{news:?}");
        assert!(all_said.contains("Act-only: Error."), "{news:?}");
        assert!(
            !all_said.contains("Think-only"),
            "the shown mode was said: {news:?}"
        );
        for pair in news.windows(2) {
            assert!(
                pair[1].0 - pair[0].0 >= 1_400.0,
                "said again too soon: {news:?}"
            );
        }
        let violations = support::axe::axe(&rig).await;
        assert!(violations.is_empty(), "{violations:#?}");
        let mut check = LayoutCheck::default();
        press(&rig, Key::Home).await;
        check.view(&rig, "phone-tabs").await;
        check.assert_clean();
    });
}

#[test]
fn a_blind_run_s_tabs_name_no_mode_or_model_before_the_vote() {
    browser_test(|rig: Rig| async move {
        for mode in Mode::ALL {
            rig.mock.script(
                mode.prompt_heading(),
                [Reply::text("Thought: Six sevens.\nAnswer: 42").with_latency(800)],
            );
        }
        be_a_phone(&rig).await;
        rig.open_app_overriding(json!({
            "protocol": "text",
            "mode_models": { "think": "lab/thinker-7b", "act": "lab/actor-8b", "react": "lab/reactor-9b", "codeact": "lab/coder-3b" },
        }))
        .await;
        rig.js(WATCH_TABS).await;
        rig.ask("What is 6 times 7?", "blind").await;
        rig.wait_until_settled(SETTLE).await;
        let seen: Vec<String> =
            serde_json::from_value(rig.js("return window.__tabs").await).unwrap();
        assert!(!seen.is_empty());
        let strip = rig
            .js("return document.querySelector('#mode-tabs').outerHTML + document.querySelector('#mode-tabs-news').outerHTML")
            .await;
        let strip = strip.as_str().unwrap();
        for name in [
            "Think", "Act-only", "ReAct", "CodeAct", "think", "react", "codeact", "lab/",
            "thinker", "actor", "reactor", "coder",
        ] {
            assert!(!strip.contains(name), "the tabs name {name}: {strip}");
            assert!(
                seen.iter().all(|s| !s.contains(name)),
                "a tab named {name} while it ran: {seen:#?}"
            );
        }
        let names: Vec<String> = tabs(&rig)
            .await
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            names,
            ["Answer A", "Answer B", "Answer C", "Answer D", "Compare"]
        );
        let violations = support::axe::axe(&rig).await;
        assert!(violations.is_empty(), "{violations:#?}");
    });
}

/// The embed's page height (read in its frame) and the height messages its host page got, once
/// the last message says that height: the message follows a change of layout a frame or more
/// later, later still on a busy machine. Called from the host page, and returns there.
async fn told_height(rig: &Rig) -> (i64, Vec<i64>) {
    rig.wait_until(
        "the host page to be told the embed's height",
        SETTLE,
        || async move {
            let frame = rig.client.find(Locator::Css("#frame")).await.unwrap();
            frame.enter_frame().await.unwrap();
            let page = rig
                .js("return document.documentElement.scrollHeight")
                .await
                .as_f64()
                .unwrap() as i64;
            rig.client.enter_parent_frame().await.unwrap();
            let heights: Vec<i64> =
                serde_json::from_value(rig.js("return window.heights").await).unwrap();
            (page, heights)
        },
        |(page, heights)| heights.last() == Some(page),
    )
    .await
}

#[test]
fn the_embed_on_a_phone_uses_the_tabs_and_its_height_follows_the_shown_tab() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(&format!(
                "{}\nAnswer: 42",
                "Six sevens are forty-two. ".repeat(60)
            ))],
        );
        rig.mock
            .script(Mode::Act.prompt_heading(), [Reply::text("Answer: 42")]);
        rig.mock
            .script(Mode::ReAct.prompt_heading(), [Reply::text("Answer: 42")]);
        rig.mock
            .script(Mode::CodeAct.prompt_heading(), [Reply::text("Answer: 42")]);
        rig.open_app_overriding(json!({ "protocol": "text", "max_steps": 3 }))
            .await;
        rig.ask("What is 6 times 7?", "all").await;
        rig.wait_until_settled(SETTLE).await;
        let url = rig.embed_address().await;
        assert!(url.contains("embed=1"), "{url}");
        let host = host_page_framing(&url).await;
        rig.client.goto(&format!("http://{host}/")).await.unwrap();
        let frame = rig.client.find(Locator::Css("#frame")).await.unwrap();
        frame.enter_frame().await.unwrap();
        rig.wait_for(
            "the tabs in the embed, the run played to its end",
            SETTLE,
            "return document.querySelectorAll('#mode-tabs [role=tab]').length === 5 \
               && document.querySelectorAll('section.panel[data-status=done]').length === 4",
        )
        .await;
        assert_eq!(rig.js(VISIBLE_PANELS).await, json!(["mode-panel-0"]));
        rig.client.enter_parent_frame().await.unwrap();
        let (before, heights_before) = told_height(&rig).await;
        assert_eq!(heights_before.last(), Some(&before), "{heights_before:?}");

        let frame = rig.client.find(Locator::Css("#frame")).await.unwrap();
        frame.enter_frame().await.unwrap();
        rig.click("#mode-tab-1").await;
        wait_for_tab(&rig, 1, "Act-only shown").await;
        assert_eq!(rig.js(VISIBLE_PANELS).await, json!(["mode-panel-1"]));
        rig.client.enter_parent_frame().await.unwrap();
        let (after, heights) = told_height(&rig).await;
        let shot = rig.screenshot("phone-360-embed.png").await;
        println!("{}", shot.display());
        println!("height messages: {heights:?}; one tab {before} px, then {after} px");
        // The frame is as tall as the shown tab, and another tab hardly moves it.
        assert_eq!(heights.last(), Some(&after), "{heights:?}");
        assert!(
            (after - before).abs() <= 48,
            "the frame jumped: {before} -> {after}"
        );
        assert!(
            heights.len() <= heights_before.len() + 1,
            "choosing a tab sent more than one height: {heights:?}"
        );
        let frame_height = rig
            .js("return document.getElementById('frame').getBoundingClientRect().height")
            .await;
        assert_eq!(frame_height.as_f64().unwrap() as i64, after);
    });
}
