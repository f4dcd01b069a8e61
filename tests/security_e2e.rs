//! Attacks on the token, in the browser: links into the app's search frame, pages that try to
//! drive the frame from outside, search answers that pull in more script, a base URL that
//! points the token at a new host, a poisoned token, storage that refuses writes.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use fantoccini::Locator;
use react_arena::agent::Mode;
use react_arena::origin::{Origin, LOCAL_HOSTS};
use serde_json::{json, Value};
use support::attacker::AttackerServer;
use support::browser::{browser_test, Rig, MARKER_TOKEN};
use support::fixtures::FixtureServer;
use support::https_endpoint::HttpsEndpoint;
use support::layout::LayoutCheck;
use support::mock::{Ending, MockEndpoint, Reply};

const SETTLE: Duration = Duration::from_secs(30);
/// Time given to anything the attack might have started (a script load, a fetch).
const GRACE: Duration = Duration::from_millis(1500);

/// The app as a returning user has it: the token remembered on this device.
async fn open_remembering(rig: &Rig, extra: Value) {
    let mut settings = json!({
        "model": "mock/model",
        "base_url": rig.mock.base_url(),
        "max_steps": 3,
        "protocol": "text",
        "remember_token": true,
    });
    for (k, v) in extra.as_object().unwrap() {
        settings[k] = v.clone();
    }
    rig.open_app_with(settings, MARKER_TOKEN, true).await;
}

async fn type_into(rig: &Rig, css: &str, text: &str) {
    let field = rig.client.find(Locator::Css(css)).await.unwrap();
    field.clear().await.unwrap();
    field.send_keys(text).await.unwrap();
}

async fn text_of(rig: &Rig, css: &str) -> String {
    let script = format!("const e = document.querySelector({css:?}); return e ? e.innerText : ''");
    rig.js(&script)
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_link_to_the_search_frame_with_a_script_in_its_fragment_runs_nothing() {
    browser_test(|rig: Rig| async move {
        let attacker = AttackerServer::start().await;
        open_remembering(&rig, json!({})).await;
        let evil = format!("{}/evil.js", attacker.base);
        // The reported exploit, opened top-level in the app's origin, plain and encoded.
        for fragment in [evil.clone(), evil.replace(':', "%3A").replace('/', "%2F")] {
            let url = format!("{}search-frame.html#{fragment}", rig.app_url);
            rig.client.goto(&url).await.unwrap();
            tokio::time::sleep(GRACE).await;
            let page = rig
                .js("return [document.title, document.scripts.length, localStorage.getItem('react-arena.token')]")
                .await;
            assert_ne!(page[0], "pwned");
            assert_eq!(page[1], 1, "only the frame's own inline script: {page}");
            assert_eq!(page[2], MARKER_TOKEN, "the token is still there, untouched");
        }
        assert_eq!(
            attacker.requests_for_scripts(),
            Vec::<String>::new(),
            "the attacker's server was asked for something"
        );
    });
}

#[test]
fn a_page_elsewhere_or_an_unsandboxed_frame_cannot_drive_the_search_frame() {
    browser_test(|rig: Rig| async move {
        let attacker = AttackerServer::start().await;
        open_remembering(&rig, json!({})).await;
        // The app's own origin framing it without the sandbox: not opaque, so it refuses.
        let script = format!(
            "const f = document.createElement('iframe'); f.src = 'search-frame.html'; \
             f.onload = () => f.contentWindow.postMessage({{url: '{}/evil.js'}}, '*'); \
             document.body.appendChild(f);",
            attacker.base
        );
        rig.js(&script).await;
        tokio::time::sleep(GRACE).await;
        // Another origin framing it with the sandbox, as the app does, and asking it to load
        // a script: the frame answers only the app's origin.
        let host = format!("{}/host.html?app={}", attacker.base, rig.app_url);
        rig.client.goto(&host).await.unwrap();
        tokio::time::sleep(GRACE).await;
        assert_eq!(
            attacker.requests_for_scripts(),
            Vec::<String>::new(),
            "the frame loaded a script it was not asked for by the app"
        );
    });
}

#[test]
fn a_model_link_into_the_app_is_not_clickable() {
    browser_test(|rig: Rig| async move {
        let attacker = AttackerServer::start().await;
        let app_origin = rig.app_url.trim_end_matches('/').to_string();
        let answer = format!(
            "Answer: see [relative](search-frame.html#{evil}), [absolute]({app}/search-frame.html#{evil}), \
             [protocol-relative](//{evil_host}/evil.js) and [wiki](https://en.wikipedia.org/wiki/Achebe).",
            evil = format!("{}/evil.js", attacker.base),
            app = app_origin,
            evil_host = attacker.base.trim_start_matches("http://"),
        );
        rig.mock
            .script(Mode::Think.prompt_heading(), [Reply::text(&answer)]);
        open_remembering(&rig, json!({})).await;
        rig.ask("Where is the source?", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        for label in ["relative", "absolute", "protocol-relative"] {
            assert!(p.answer.contains(label), "{p:#?}");
        }
        rig.wait_for_answers_drawn().await;
        let links = rig
            .js("return Array.from(document.querySelectorAll('.answer a')).map(a => a.href)")
            .await;
        assert_eq!(
            links,
            json!(["https://en.wikipedia.org/wiki/Achebe"]),
            "only the link out of the app stays a link"
        );
        // Clicking the words does nothing either.
        for word in ["relative", "absolute"] {
            let xpath = format!("//div[contains(@class,'answer')]//*[contains(text(),'{word}')]");
            if let Ok(element) = rig.client.find(Locator::XPath(&xpath)).await {
                let _ = element.click().await;
            }
        }
        tokio::time::sleep(GRACE).await;
        let windows = rig.client.windows().await.unwrap();
        assert_eq!(windows.len(), 1, "a click opened a window");
        assert_eq!(attacker.requests_for_scripts(), Vec::<String>::new());
    });
}

#[test]
fn a_search_answer_cannot_pull_in_script_from_another_origin() {
    browser_test(|rig: Rig| async move {
        let attacker = AttackerServer::start().await;
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text(&format!(
                    "Thought: search.\nAction: web_search\nAction Input: second script from {}",
                    attacker.base
                )),
                Reply::text("Thought: done.\nAnswer: searched"),
            ],
        );
        open_remembering(&rig, json!({ "tool_endpoints": fixtures.endpoints() })).await;
        rig.ask("Search it.", "react").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(
            p.observations[0].contains("This answer tried to load a second script."),
            "the search still answers: {p:#?}"
        );
        tokio::time::sleep(GRACE).await;
        assert_eq!(
            attacker.requests_for_scripts(),
            Vec::<String>::new(),
            "the answer loaded a script from another origin"
        );
        assert!(
            fixtures
                .paths_requested()
                .iter()
                .any(|u| u.starts_with("/ddg/")),
            "the search endpoint itself was asked"
        );
    });
}

#[test]
fn a_new_https_host_gets_no_request_until_the_user_confirms_it() {
    browser_test(|rig: Rig| async move {
        let https = HttpsEndpoint::start();
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Answer: old host")],
        );
        open_remembering(&rig, json!({})).await;
        rig.open_settings().await;
        type_into(&rig, "#base-url", &format!("{}\t", https.base_url)).await;
        type_into(&rig, "#question", "Which host?").await;
        rig.click("#mode option[value='think']").await;
        rig.click("#run").await;

        let host = Origin::of(&https.base_url).unwrap().to_string();
        let asks = format!("Send your Hugging Face token to {host}?");
        let dialog = rig
            .wait_until(
                "the question",
                SETTLE,
                || text_of(&rig, "#host-confirm"),
                |d| d.contains(&asks),
            )
            .await;
        assert!(
            dialog.contains(&format!("Send your Hugging Face token to {host}?")),
            "{dialog}"
        );
        let focused = rig
            .wait_for_value(
                "Cancel to take the focus",
                SETTLE,
                "return document.activeElement.id",
                |id| id == "cancel-host",
            )
            .await;
        assert_eq!(focused, "cancel-host", "Cancel has the focus");
        rig.click("#cancel-host").await;
        let dialog = rig
            .wait_until(
                "the question to go",
                SETTLE,
                || text_of(&rig, "#host-confirm"),
                |d| d.is_empty(),
            )
            .await;
        assert_eq!(dialog, "");
        tokio::time::sleep(GRACE).await;
        assert!(https.requests().is_empty(), "{:?}", https.requests());
        let panels = rig.panels().await;
        assert!(panels.iter().all(|p| p.status == "idle"), "{panels:#?}");

        // Confirmed: the run goes there, with the token, and the choice is remembered.
        rig.click("#run").await;
        assert!(https.requests().is_empty());
        rig.click("#confirm-host").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("from the https host"), "{p:#?}");
        let chat: Vec<_> = https
            .requests()
            .into_iter()
            .filter(|r| r.method == "POST")
            .collect();
        assert_eq!(chat.len(), 1, "{chat:?}");
        assert_eq!(chat[0].authorization, format!("Bearer {MARKER_TOKEN}"));
        assert!(!chat[0].body.contains(MARKER_TOKEN));
        assert!(
            rig.mock.chat_requests().is_empty(),
            "the old host got nothing"
        );

        rig.client.refresh().await.unwrap();
        rig.wait_for("the app", SETTLE, "return !!document.querySelector('#run')")
            .await;
        type_into(&rig, "#question", "Again?").await;
        rig.click("#mode option[value='think']").await;
        rig.click("#run").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "asked once, not again: {p:#?}");
        assert_eq!(text_of(&rig, "#host-confirm").await, "");
    });
}

#[test]
fn continue_checks_like_run_and_uses_the_runs_own_base_url() {
    browser_test(|rig: Rig| async move {
        let elsewhere = MockEndpoint::start().await;
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [
                Reply::text("Thought: half of it").ending(Ending::Dropped),
                Reply::text("Answer: finished where it started"),
            ],
        );
        open_remembering(&rig, json!({})).await;
        rig.ask("Go.", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "error", "{p:#?}");

        // Settings changed since the run: another base URL (never confirmed), then a token
        // with a zero-width space in it.
        rig.open_settings().await;
        type_into(&rig, "#base-url", &format!("{}\t", elsewhere.base_url())).await;
        type_into(&rig, "#token", &format!("{MARKER_TOKEN}\u{200B}")).await;
        rig.click(".panel button.continue").await;
        let alert = rig.alert_saying("Cannot continue", SETTLE).await;
        assert!(
            alert.contains("Cannot continue: The token contains an invisible character (U+200B)"),
            "{alert}"
        );
        assert_eq!(rig.mock.chat_requests().len(), 1, "nothing was sent");

        // With the token mended, Continue goes to the run's own endpoint, which the user
        // confirmed, and not to today's setting.
        type_into(&rig, "#token", MARKER_TOKEN).await;
        rig.click(".panel button.continue").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("finished where it started"), "{p:#?}");
        assert_eq!(rig.mock.chat_requests().len(), 2);
        assert!(
            elsewhere.requests().is_empty(),
            "{:?}",
            elsewhere.requests()
        );
    });
}

#[test]
fn a_token_with_an_invisible_character_is_named_and_nothing_is_sent() {
    browser_test(|rig: Rig| async move {
        let settings = json!({ "model": "mock/model", "base_url": rig.mock.base_url() });
        rig.open_app_with(settings, "hf_test\u{200B}marker", false)
            .await;
        type_into(&rig, "#question", "Anything?").await;
        let run = rig.client.find(Locator::Css("#run")).await.unwrap();
        let label = run.text().await.unwrap();
        assert_eq!(
            label,
            "The token contains an invisible character (U+200B) at position 8: paste it again in Settings"
        );
        assert!(!run.is_enabled().await.unwrap());
        rig.open_settings().await;
        let said = rig
            .wait_until(
                "the token's error",
                SETTLE,
                || text_of(&rig, "#token-error"),
                |e| *e == label,
            )
            .await;
        assert_eq!(said, label);
        rig.js("document.querySelector('#question').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', ctrlKey: true, bubbles: true}))")
            .await;
        tokio::time::sleep(GRACE).await;
        assert!(rig.mock.requests().is_empty(), "{:?}", rig.mock.requests());
    });
}

#[test]
fn refused_storage_writes_are_reported_and_never_lose_the_token() {
    browser_test(|rig: Rig| async move {
        rig.open_app_overriding(json!({})).await;
        assert_eq!(rig.stored_token().await, json!([MARKER_TOKEN, null]));
        // Local storage is full from now on.
        rig.js("const setItem = Storage.prototype.setItem;\
                Storage.prototype.setItem = function (k, v) {\
                  if (this === localStorage) throw new DOMException('full', 'QuotaExceededError');\
                  return setItem.call(this, k, v);\
                };")
            .await;
        rig.open_settings().await;
        rig.click("#remember-token").await;
        let alert = rig.alert_saying("The token was not saved", SETTLE).await;
        assert!(
            alert.contains("The token was not saved: this browser's local storage refused it (QuotaExceededError)"),
            "{alert}"
        );
        assert_eq!(
            rig.stored_token().await,
            json!([MARKER_TOKEN, null]),
            "the only copy is still there"
        );
        let ticked = rig
            .js("return document.querySelector('#remember-token').checked")
            .await;
        assert_eq!(ticked, false, "the box shows where the token really is");

        rig.click("#app-alert .dismiss").await;
        type_into(&rig, "#model", "another/model\t").await;
        let alert = rig.alert_saying("Settings were not saved", SETTLE).await;
        assert!(
            alert.contains("Settings were not saved: this browser's local storage refused it (QuotaExceededError)"),
            "{alert}"
        );
        assert_eq!(
            rig.js("return document.querySelector('#model').value")
                .await,
            "another/model",
            "the setting still applies in this tab"
        );
    });
}

#[test]
fn the_page_policy_and_the_app_agree_on_what_is_local() {
    browser_test(|rig: Rig| async move {
        open_remembering(&rig, json!({})).await;
        let policy = rig
            .js("return document.querySelector('meta[http-equiv=Content-Security-Policy]').content")
            .await;
        let connect = policy
            .as_str()
            .unwrap()
            .split(';')
            .find(|d| d.trim().starts_with("connect-src"))
            .unwrap()
            .to_string();
        let plain_http: Vec<_> = connect
            .split_whitespace()
            .filter(|s| s.starts_with("http://"))
            .map(|s| {
                s.trim_start_matches("http://")
                    .trim_end_matches(":*")
                    .to_string()
            })
            .collect();
        assert_eq!(plain_http, LOCAL_HOSTS, "{connect}");

        // A *.localhost endpoint works end to end (the policy lets it through).
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Answer: via app.localhost")],
        );
        let sub = format!("http://app.localhost:{}/v1", rig.mock.addr.port());
        open_remembering(&rig, json!({ "base_url": sub })).await;
        rig.ask("Local?", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("via app.localhost"), "{p:#?}");

        // [::1], which the policy cannot name, is refused with the way out.
        let v6 = format!("http://[::1]:{}/v1", rig.mock.addr.port());
        open_remembering(&rig, json!({ "base_url": v6 })).await;
        type_into(&rig, "#question", "Local?").await;
        let label = text_of(&rig, "#run").await;
        assert!(
            label.starts_with(&format!(
                "Use http://localhost:{} instead of [::1]",
                rig.mock.addr.port()
            )),
            "{label}"
        );
    });
}

/// Issue 36, item 8: on a GitHub Pages project site every other site of the owner shares the
/// page's origin, and can read what Remember keeps. The browser resolves `owner.github.io` to
/// this machine (`support::browser`), where the app is served under `/arena/` as Pages serves
/// a project site; the page says so next to Remember there, and not on this machine's own
/// origin.
#[test]
fn a_project_site_says_other_pages_of_its_site_can_read_what_is_remembered() {
    browser_test(|rig: Rig| async move {
        let note =
            "return (document.querySelector('#shared-origin-note') || {}).textContent || null";
        rig.open_fresh(&rig.app_url).await;
        rig.open_settings().await;
        assert_eq!(rig.js(note).await, Value::Null, "on {}", rig.app_url);

        let app = axum::Router::new().nest_service(
            "/arena",
            tower_http::services::ServeDir::new(support::browser::dist_dir()),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let project_site = format!("http://owner.github.io:{port}/arena/");
        rig.open_fresh(&project_site).await;
        rig.open_settings().await;
        let said = rig
            .wait_for_value("the shared-origin note", SETTLE, note, |n| !n.is_null())
            .await;
        let said = said
            .as_str()
            .unwrap_or_else(|| panic!("no note on {project_site}"));
        assert!(
            said.contains("Other pages of this site")
                && said.contains(&format!("owner.github.io:{port}")),
            "{said}"
        );
        // Next to Remember: right under its row, in view with it.
        let placed = rig
            .js("const r = document.querySelector('#remember-token').closest('.token-row').getBoundingClientRect(); \
                 const n = document.querySelector('#shared-origin-note').getBoundingClientRect(); \
                 return n.top >= r.bottom - 1 && n.top - r.bottom < 40 && n.height > 0")
            .await;
        assert_eq!(placed, Value::Bool(true));
        // And laid out like the rest of Settings, at every width.
        let mut check = LayoutCheck::default();
        check.view(&rig, "settings-on-a-project-site").await;
        check.assert_clean();
    });
}
