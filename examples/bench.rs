//! `scripts/bench`: what the app costs, measured in headless Chromium against the scripted
//! endpoint (a benchmark, not a test: it prints figures and writes bench/results.json).
//!
//! Figures: first-screen bytes; a first run's bytes and time to its first request (cold 4G
//! load, question in the address, Run pressed at once); time to interactive (median of 5); streaming throughput with
//! three panels, the longest main-thread task and the render time after the last token;
//! All-mode wall time over the slowest single mode's; JS heap after long runs; and this app
//! beside a reference page (a Gradio app with three Markdown panels, started by scripts/bench
//! at `BENCH_REFERENCE_URL`): bytes on the wire, requests, time until Run is usable,
//! unthrottled and on a simulated 4G link, 5 alternating loads each; the schema checker's
//! hostile cases in this release build and in the page (`BENCH_ONLY=hostile_schemas`); CodeAct
//! and Evaluate's four modes on llama.cpp's server with Qwen (`BENCH_ONLY=codeact`).

#[cfg(not(target_arch = "wasm32"))]
#[path = "../tests/support/mod.rs"]
mod support;

#[cfg(not(target_arch = "wasm32"))]
#[path = "bench_parts/browser_model.rs"]
mod browser_model;
#[cfg(not(target_arch = "wasm32"))]
#[path = "bench_parts/codeact_real.rs"]
mod codeact_real;
#[cfg(not(target_arch = "wasm32"))]
#[path = "bench_parts/gpu_check.rs"]
mod gpu_check;
#[cfg(not(target_arch = "wasm32"))]
#[path = "bench_parts/kernels.rs"]
mod kernels;

#[cfg(not(target_arch = "wasm32"))]
#[path = "bench_parts/hostile_schemas.rs"]
mod hostile_schemas;

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    host::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    use std::path::Path;
    use std::process::Command;
    use std::time::{Duration, Instant};

    use react_arena::agent::Mode;
    use serde_json::{json, Value};

    use crate::support;
    use crate::support::browser::{browser_test, dist_dir, serve_static, Rig, MARKER_TOKEN};
    use crate::support::cdp::cdp;
    use crate::support::mock::Reply;

    fn first_load() -> Value {
        support::first_load::first_load(&dist_dir())
    }

    /// Where the gzipped copy of the page lives while the bench runs.
    fn gzipped_copy() -> std::path::PathBuf {
        std::env::temp_dir().join(format!("react-arena-bench-{}", std::process::id()))
    }

    /// A copy of the built page with a gzip twin of every file, served as GitHub Pages serves
    /// it: compressed when the browser accepts it.
    async fn serve_gzipped() -> String {
        let copy = gzipped_copy();
        let _ = std::fs::remove_dir_all(&copy);
        let status = Command::new("cp")
            .arg("-r")
            .arg(dist_dir())
            .arg(&copy)
            .status()
            .expect("cp");
        assert!(status.success());
        let status = Command::new("gzip")
            .args(["-9", "-k", "-r"])
            .arg(&copy)
            .status()
            .expect("gzip");
        assert!(status.success());
        let addr =
            serve_static(tower_http::services::ServeDir::new(copy).precompressed_gzip()).await;
        format!("http://{addr}/")
    }

    /// Records when a `#run` button is first laid out (both pages' Run button has that id).
    const RUN_USABLE_PROBE: &str = "(() => { const tick = () => { const b = \
        document.getElementById('run'); if (b && b.getClientRects().length > 0) { \
        window.__runUsable = performance.now(); } else { requestAnimationFrame(tick); } }; \
        requestAnimationFrame(tick); })();";

    /// The 4G link of the issue: 9 Mbit/s each way, 60 ms latency.
    fn network(throttled: bool) -> Value {
        if throttled {
            json!({ "offline": false, "latency": 60,
                    "downloadThroughput": 9_000_000.0 / 8.0, "uploadThroughput": 9_000_000.0 / 8.0 })
        } else {
            json!({ "offline": false, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1 })
        }
    }

    /// (ms until Run is usable, bytes on the wire, requests, ms until the engine is running
    /// after the question box is first used: this app only)
    type Load = (f64, f64, f64, f64);

    /// Readies a cold load: a blank page, no cache, the network `throttled` or not, and
    /// `script` run in every new document. Gives the script's handle (to remove it after).
    async fn cold_start(client: &fantoccini::Client, throttled: bool, script: &str) -> Value {
        client.goto("about:blank").await.unwrap();
        cdp(client, "Network.enable", json!({})).await;
        cdp(
            client,
            "Network.setCacheDisabled",
            json!({ "cacheDisabled": true }),
        )
        .await;
        cdp(
            client,
            "Network.emulateNetworkConditions",
            network(throttled),
        )
        .await;
        cdp(
            client,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": script }),
        )
        .await
    }

    /// One cold load of `url`: time until Run is usable, and what crossed the network by
    /// then and in the second after (late requests count too).
    async fn cold_load(rig: &Rig, url: &str, throttled: bool, with_engine: bool) -> Load {
        let client = &rig.client;
        let probe = cold_start(client, throttled, RUN_USABLE_PROBE).await;
        client.goto(url).await.unwrap();
        rig.wait_for(
            "the Run button",
            Duration::from_secs(60),
            "return window.__runUsable !== undefined",
        )
        .await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let seen = rig
            .js(
                "const nav = performance.getEntriesByType('navigation')[0]; \
                 const res = performance.getEntriesByType('resource'); \
                 return [window.__runUsable, \
                   nav.transferSize + res.reduce((sum, e) => sum + e.transferSize, 0), \
                   1 + res.length]",
            )
            .await;
        cdp(
            client,
            "Page.removeScriptToEvaluateOnNewDocument",
            json!({ "identifier": probe["identifier"] }),
        )
        .await;
        let n = |i: usize| seen[i].as_f64().unwrap();
        let engine = if with_engine {
            engine_ready_after_first_use(rig).await
        } else {
            f64::NAN
        };
        cdp(client, "Network.emulateNetworkConditions", network(false)).await;
        (n(0), n(1), n(2), engine)
    }

    /// On this app's page, after its first load: ms from the first use of the question box
    /// (what also starts loading the engine when Run is pressed at once) until the engine's
    /// chunk is in (the page marks `engine-ready`), on the same network.
    async fn engine_ready_after_first_use(rig: &Rig) -> f64 {
        let ms = rig
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1]; const t0 = performance.now(); \
                 const q = document.querySelector('#question'); q.value = 'x'; \
                 q.dispatchEvent(new Event('input', { bubbles: true })); \
                 const poll = () => performance.getEntriesByName('engine-ready').length \
                   ? done(performance.now() - t0) : setTimeout(poll, 5); poll();",
                vec![],
            )
            .await
            .expect("the engine to load");
        ms.as_f64().unwrap()
    }

    /// Presses Run as soon as it is laid out, once.
    const PRESS_RUN_AT_ONCE: &str = "(() => { const tick = () => { const b = \
        document.getElementById('run'); if (b && b.getClientRects().length > 0 && !b.disabled) { \
        window.__runPressed = performance.now(); b.click(); } else { requestAnimationFrame(tick); } }; \
        requestAnimationFrame(tick); })();";

    /// How a first run's visitor comes with their token.
    #[derive(Clone, Copy)]
    enum Visit {
        /// No token kept: the visitor opens the link, takes a moment (the page settles, as
        /// it would while they read it and paste), pastes the token, and presses Run.
        Pasted,
        /// The token is remembered on this device: Run is pressed as soon as it can be.
        Remembered,
    }

    /// A first run, cold, on the 4G link: the page (served gzipped) opened with a question in
    /// its address (`mode`). Until the first request to the model leaves: ms since the
    /// navigation started, bytes the page received, and every file of the page it requested,
    /// finished or not (their gzip sizes in dist/). Median of 5 by time.
    async fn first_run(rig: &Rig, visit: Visit, mode: &str) -> Value {
        let ours = serve_gzipped().await;
        let client = &rig.client;
        rig.mock
            .script(Mode::ReAct.prompt_heading(), [Reply::text("Answer: 42")]);
        let remembered = matches!(visit, Visit::Remembered);
        let settings = json!({ "model": "mock/model", "base_url": rig.mock.base_url(),
            "max_steps": 5, "protocol": "text", "remember_token": remembered });
        let trusted = react_arena::origin::Origin::of(&rig.mock.base_url())
            .map(|o| o.to_string())
            .unwrap();
        client.goto(&ours).await.unwrap();
        let keep_token = if remembered {
            format!("localStorage.setItem('react-arena.token', {MARKER_TOKEN:?});")
        } else {
            String::new()
        };
        rig.js(&format!(
            "localStorage.clear(); sessionStorage.clear();\
             localStorage.setItem('react-arena.settings', {settings});\
             localStorage.setItem('react-arena.token-hosts', {hosts});{keep_token}",
            settings = serde_json::to_string(&settings.to_string()).unwrap(),
            hosts = serde_json::to_string(&json!([trusted]).to_string()).unwrap(),
        ))
        .await;
        let mut samples = Vec::new();
        for _ in 0..5 {
            // A pasted token stays in the tab's session storage: the next sample's visitor has
            // not pasted it yet (the page is still the last sample's, on the same origin).
            rig.js("sessionStorage.clear();").await;
            let before = rig.mock.chat_requests().len();
            let probe = cold_start(
                client,
                true,
                if remembered {
                    PRESS_RUN_AT_ONCE
                } else {
                    RUN_USABLE_PROBE
                },
            )
            .await;
            // A first run: nothing kept by an earlier one (the page keeps runs in IndexedDB).
            cdp(
                client,
                "Storage.clearDataForOrigin",
                json!({ "origin": ours.trim_end_matches('/'), "storageTypes": "indexeddb" }),
            )
            .await;
            client
                .goto(&format!("{ours}?q=What+is+6%C3%977%3F&mode={mode}"))
                .await
                .unwrap();
            if !remembered {
                rig.wait_for(
                    "the Run button",
                    Duration::from_secs(60),
                    "return window.__runUsable !== undefined",
                )
                .await;
                // The visitor reads the page and pastes: whatever the page fetches meanwhile
                // is fetched before the run.
                tokio::time::sleep(Duration::from_secs(3)).await;
                rig.js(&format!(
                    "const t = document.getElementById('token'); t.value = {MARKER_TOKEN:?}; \
                     t.dispatchEvent(new Event('input', {{ bubbles: true }})); \
                     window.__runPressed = performance.now(); document.getElementById('run').click();"
                ))
                .await;
            }
            let started = Instant::now();
            while rig.mock.chat_requests().len() == before {
                assert!(
                    started.elapsed() < Duration::from_secs(60),
                    "no request within 60 s"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            // A resource is listed once it has finished: what was requested before the model
            // request but is still arriving is listed when it is in.
            let mut listed = 0;
            loop {
                tokio::time::sleep(Duration::from_millis(1500)).await;
                let now = rig
                    .js("return performance.getEntriesByType('resource').length")
                    .await
                    .as_u64()
                    .unwrap();
                if now == listed {
                    break;
                }
                listed = now;
            }
            let seen = rig
                .js(
                    "const nav = performance.getEntriesByType('navigation')[0]; \
                     const res = performance.getEntriesByType('resource'); \
                     const chat = res.find(e => e.name.includes('/chat/completions')); \
                     const by = chat ? chat.startTime : performance.now(); \
                     const page = location.origin; \
                     const before = res.filter(e => e !== chat && e.startTime <= by \
                       && new URL(e.name).origin === page); \
                     return [by, window.__runPressed, \
                       nav.transferSize + before.reduce((sum, e) => sum + e.transferSize, 0), \
                       before.map(e => new URL(e.name).pathname.replace(/^\\//, ''))];",
                )
                .await;
            cdp(
                client,
                "Page.removeScriptToEvaluateOnNewDocument",
                json!({ "identifier": probe["identifier"] }),
            )
            .await;
            cdp(client, "Network.emulateNetworkConditions", network(false)).await;
            samples.push(seen);
        }
        let _ = std::fs::remove_dir_all(gzipped_copy());
        samples.sort_by(|a, b| a[0].as_f64().partial_cmp(&b[0].as_f64()).unwrap());
        let median = samples[samples.len() / 2].clone();
        let files: Vec<String> = serde_json::from_value(median[3].clone()).unwrap();
        let dist = dist_dir();
        let mut fetched = Vec::new();
        let mut gzip_total = support::first_load::gzip_size(&dist.join("index.html"));
        for file in files.iter().filter(|f| dist.join(f).is_file()) {
            let gz = support::first_load::gzip_size(&dist.join(file));
            gzip_total += gz;
            fetched.push(json!({ "file": file, "gzip_bytes": gz }));
        }
        json!({
            "first_request_4g_ms": median[0],
            "first_request_4g_ms_samples": samples.iter().map(|s| s[0].clone()).collect::<Vec<_>>(),
            "run_pressed_4g_ms": median[1],
            "wire_bytes": median[2],
            "gzip_bytes": gzip_total,
            "files": fetched,
        })
    }

    /// The first run of each visit: a pasted token (ReAct), a remembered one (ReAct, and All).
    async fn first_runs(rig: &Rig) -> Value {
        json!({
            "pasted": first_run(rig, Visit::Pasted, "react").await,
            "remembered": first_run(rig, Visit::Remembered, "react").await,
            "remembered_all": first_run(rig, Visit::Remembered, "all").await,
        })
    }

    /// This app (served gzipped) and the reference page, loaded alternately five times each,
    /// unthrottled and on 4G; medians.
    async fn beside_reference(rig: &Rig, reference: &str) -> Value {
        let ours = serve_gzipped().await;
        let mut figures = json!({});
        for (name, url) in [("ours", ours.as_str()), ("reference", reference)] {
            figures[name] = json!({ "url": url });
        }
        figures["reference"]["name"] = json!(
            std::env::var("BENCH_REFERENCE_NAME").unwrap_or_else(|_| "reference page".into())
        );
        let mut samples: std::collections::BTreeMap<(&str, bool), Vec<Load>> = Default::default();
        for _ in 0..5 {
            for throttled in [false, true] {
                for (name, url) in [("ours", ours.as_str()), ("reference", reference)] {
                    let load = cold_load(rig, url, throttled, name == "ours").await;
                    samples.entry((name, throttled)).or_default().push(load);
                }
            }
        }
        for ((name, throttled), loads) in samples {
            let usable = median(loads.iter().map(|l| l.0).collect());
            let key = if throttled {
                "run_usable_4g_ms"
            } else {
                "run_usable_ms"
            };
            figures[name][key] = json!(usable);
            figures[name][format!("{key}_samples")] =
                json!(loads.iter().map(|l| l.0).collect::<Vec<_>>());
            if name == "ours" {
                let engine_key = if throttled {
                    "engine_ready_4g_ms"
                } else {
                    "engine_ready_ms"
                };
                figures[name][engine_key] = json!(median(loads.iter().map(|l| l.3).collect()));
            }
            if !throttled {
                figures[name]["bytes_on_wire"] = json!(median(loads.iter().map(|l| l.1).collect()));
                figures[name]["requests"] = json!(median(loads.iter().map(|l| l.2).collect()));
            }
        }
        for key in [
            "bytes_on_wire",
            "requests",
            "run_usable_ms",
            "run_usable_4g_ms",
        ] {
            let ratio = figures["ours"][key].as_f64().unwrap()
                / figures["reference"][key].as_f64().unwrap();
            figures["ratio_ours_over_reference"][key] = json!(ratio);
        }
        let _ = std::fs::remove_dir_all(gzipped_copy());
        figures
    }

    fn settings(rig: &Rig, max_steps: u32) -> Value {
        json!({
            "model": "mock/model",
            "base_url": rig.mock.base_url(),
            "temperature": 0.0,
            "max_tokens": 32768,
            "max_steps": max_steps,
            "protocol": "text",
        })
    }

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    }

    async fn time_to_interactive(rig: &Rig) -> Value {
        let mut samples = Vec::new();
        for _ in 0..5 {
            rig.client.goto("about:blank").await.unwrap();
            rig.client.goto(&rig.app_url).await.unwrap();
            rig.wait_for(
                "the app",
                Duration::from_secs(20),
                "return performance.getEntriesByName('app-interactive').length > 0",
            )
            .await;
            let ms = rig
                .js("return performance.getEntriesByName('app-interactive')[0].startTime")
                .await;
            samples.push(ms.as_f64().unwrap());
        }
        json!({ "median_ms": median(samples.clone()), "samples_ms": samples })
    }

    /// Markdown with code and lists, as a model writes it, `n` tokens long.
    fn long_markdown(n: usize) -> String {
        let words = [
            "The ",
            "answer ",
            "uses ",
            "**bold** ",
            "and ",
            "`code` ",
            "with ",
            "a ",
            "list:\n",
            "- item ",
            "one\n",
            "- item ",
            "two\n",
            "```rust\n",
            "let ",
            "x ",
            "= ",
            "42;\n",
            "```\n",
            "Then ",
            "more ",
            "text ",
            "follows. ",
        ];
        (0..n).map(|i| words[i % words.len()]).collect()
    }

    async fn streaming(rig: &Rig, tokens_per_panel: usize) -> Value {
        let body = format!("Answer: {}", long_markdown(tokens_per_panel));
        let body: &'static str = Box::leak(body.into_boxed_str());
        for mode in Mode::ALL {
            rig.mock.script(
                mode.prompt_heading(),
                [Reply::text(body).with_chunk_delay(0).with_latency(0)],
            );
        }
        rig.open_app_with(settings(rig, 3), MARKER_TOKEN, false)
            .await;
        rig.js(
            "window.__long = []; new PerformanceObserver(l => { for (const e of l.getEntries()) \
             window.__long.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: false }); return 0",
        )
        .await;
        let started = Instant::now();
        let asked_at = rig.js("return performance.now()").await;
        rig.ask("Stream as fast as you can.", "all").await;
        let run_at = rig.js("return performance.now()").await;
        let mut done_at = None;
        while done_at.is_none() {
            let done = rig
                .js("return Array.from(document.querySelectorAll('section.panel')).every(p => p.dataset.status === 'done')")
                .await;
            if done == true {
                done_at = Some(Instant::now());
            } else {
                assert!(
                    started.elapsed() < Duration::from_secs(300),
                    "streaming did not finish"
                );
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        let done_at = done_at.unwrap();
        // The answers' Markdown is drawn a few blocks a frame: the time its text last grew.
        let drawn_len = "return Array.from(document.querySelectorAll('.answer .md')).reduce((n, e) => n + e.textContent.length, 0)";
        let (mut drawn_at, mut last_len) = (Instant::now(), rig.js(drawn_len).await);
        while drawn_at.elapsed() < Duration::from_millis(300) {
            tokio::time::sleep(Duration::from_millis(5)).await;
            let len = rig.js(drawn_len).await;
            if len != last_len {
                (drawn_at, last_len) = (Instant::now(), len);
            }
        }
        let last_sent = rig
            .mock
            .chat_requests()
            .iter()
            .filter_map(|r| r.finished)
            .max()
            .unwrap();
        let total_tokens = 3 * tokens_per_panel;
        let seconds = (done_at - started).as_secs_f64();
        // Tasks that end after the panels say done (the last Markdown passes) count too.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let long = rig.js("return window.__long").await;
        let long = long.as_array().unwrap();
        let longest = long
            .iter()
            .filter_map(|t| t[1].as_f64())
            .fold(0.0, f64::max);
        json!({
            "tokens": total_tokens,
            "seconds": seconds,
            "tokens_per_second": total_tokens as f64 / seconds,
            "long_tasks": long.len(),
            // [start, duration] of each, in the page's clock, beside when the question was
            // typed and when the press of Run had been taken.
            "long_tasks_ms": long,
            "question_typed_at_ms": asked_at,
            "run_taken_by_ms": run_at,
            "longest_task_ms": longest,
            "render_after_last_token_ms": done_at.saturating_duration_since(last_sent).as_secs_f64() * 1000.0,
            "answers_drawn_after_last_token_ms": drawn_at.saturating_duration_since(last_sent).as_secs_f64() * 1000.0,
        })
    }

    /// Wall time of one run of `mode` ("think", "act", "react" or "all").
    async fn wall_time(rig: &Rig, mode: &str) -> f64 {
        // CodeAct answers without a program: the figure is the page's concurrency, not Python.
        for (m, latency, calls) in [
            (Mode::Think, 1000, 1),
            (Mode::Act, 2000, 3),
            (Mode::ReAct, 3000, 3),
            (Mode::CodeAct, 2500, 1),
        ] {
            let replies = (0..calls).map(move |i| {
                let text = if i + 1 == calls {
                    "Thought: done.\nAnswer: 42".to_string()
                } else {
                    format!("Thought: step {i}.\nAction: calculator\nAction Input: {i} + 1")
                };
                Reply::text(Box::leak(text.into_boxed_str())).with_latency(latency)
            });
            rig.mock.script(m.prompt_heading(), replies);
        }
        rig.open_app_with(settings(rig, 5), MARKER_TOKEN, false)
            .await;
        let started = Instant::now();
        rig.ask("How long does this take?", mode).await;
        rig.wait_until_settled(Duration::from_secs(120)).await;
        started.elapsed().as_secs_f64()
    }

    /// JS heap and wasm linear memory (MB) after a run of `steps` steps in each panel.
    async fn heap_after(rig: &Rig, steps: u32) -> (f64, f64) {
        for m in [Mode::Act, Mode::ReAct] {
            let replies = (0..steps).map(|i| {
                let text = format!(
                    "Thought: step {i} of a long run.\nAction: calculator\nAction Input: {i} * 3"
                );
                Reply::text(Box::leak(text.into_boxed_str()))
                    .with_chunk_delay(0)
                    .with_latency(0)
            });
            rig.mock.script(
                m.prompt_heading(),
                replies.chain([Reply::text("Answer: done")]),
            );
        }
        for m in [Mode::Think, Mode::CodeAct] {
            rig.mock.script(
                m.prompt_heading(),
                [Reply::text("Answer: done").with_chunk_delay(0)],
            );
        }
        rig.open_app_with(settings(rig, steps), MARKER_TOKEN, false)
            .await;
        rig.ask("A long run.", "all").await;
        rig.wait_until_settled(Duration::from_secs(300)).await;
        // Let the garbage collector settle before reading the heap.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let bytes = rig
            .js(
                "return [performance.memory ? performance.memory.usedJSHeapSize : -1, \
                 window.reactArenaWasmMemory ? window.reactArenaWasmMemory.buffer.byteLength : 0]",
            )
            .await;
        let mb = |i: usize| bytes[i].as_f64().unwrap() / 1_048_576.0;
        (mb(0), mb(1))
    }

    pub fn main() {
        // `BENCH_ONLY=hostile_schemas`: the schema checker's hostile cases alone, no browser.
        if std::env::var("BENCH_ONLY").as_deref() == Ok("hostile_schemas") {
            crate::hostile_schemas::run();
            browser_test(|rig| async move {
                crate::hostile_schemas::page_figures(&rig).await;
            });
            return;
        }
        // `BENCH_ONLY=threads`: the page's per-thread scaling beside the native server's.
        if std::env::var("BENCH_ONLY").as_deref() == Ok("threads") {
            browser_test(|rig| async move {
                let figures = crate::browser_model::scaling_only(&rig).await;
                println!("{}", serde_json::to_string_pretty(&figures).unwrap());
                crate::browser_model::print_scaling(&figures);
            });
            return;
        }
        // `BENCH_ONLY=codeact`: CodeAct and Evaluate's four modes on llama.cpp's server.
        if std::env::var("BENCH_ONLY").as_deref() == Ok("codeact") {
            browser_test(|rig| async move {
                let figures = crate::codeact_real::codeact_real(&rig).await;
                println!("{}", serde_json::to_string_pretty(&figures).unwrap());
                crate::codeact_real::print(&figures);
            });
            return;
        }
        // `BENCH_ONLY=gpu`: the GPU check (scripts/gpu-check).
        if std::env::var("BENCH_ONLY").as_deref() == Ok("gpu") {
            crate::gpu_check::main();
            return;
        }
        let tokens: usize = std::env::var("BENCH_TOKENS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000);
        let load = first_load();
        let results = std::sync::Arc::new(std::sync::Mutex::new(json!({ "first_load": load })));
        // `BENCH_ONLY=kernels`: each replaced kernel beside the shipped one, in the page's wasm.
        if std::env::var("BENCH_ONLY").as_deref() == Ok("kernels") {
            browser_test(|rig| async move {
                let figures = crate::kernels::kernels(&rig).await;
                println!("{}", serde_json::to_string_pretty(&figures).unwrap());
                crate::kernels::print(&figures);
            });
            return;
        }
        // `BENCH_ONLY=browser_model`: the model in this browser beside the native server.
        if std::env::var("BENCH_ONLY").as_deref() == Ok("browser_model") {
            let r = results.clone();
            browser_test(|rig| async move {
                r.lock().unwrap()["kernels"] = crate::kernels::kernels(&rig).await;
                let figures = crate::browser_model::browser_model(&rig).await;
                r.lock().unwrap()["browser_model"] = figures;
            });
            let results = results.lock().unwrap().clone();
            println!(
                "{}",
                serde_json::to_string_pretty(&results["browser_model"]).unwrap()
            );
            crate::kernels::print(&results["kernels"]);
            crate::browser_model::print(&results["browser_model"]);
            return;
        }
        // `BENCH_ONLY=browser_model_all_run`: the isolated page's All run alone, as JSON.
        if std::env::var("BENCH_ONLY").as_deref() == Ok("browser_model_all_run") {
            browser_test(|rig| async move {
                let figures = crate::browser_model::all_run_only(&rig).await;
                println!("{}", serde_json::to_string_pretty(&figures).unwrap());
            });
            return;
        }
        // `BENCH_ONLY=first_run`: that figure alone, printed as JSON.
        if std::env::var("BENCH_ONLY").as_deref() == Ok("first_run") {
            let r = results.clone();
            browser_test(|rig| async move {
                let figures = first_runs(&rig).await;
                r.lock().unwrap()["first_run"] = figures;
            });
            let results = results.lock().unwrap().clone();
            println!("{}", serde_json::to_string_pretty(&results).unwrap());
            print_first_runs(&results);
            return;
        }

        let r = results.clone();
        browser_test(|rig| async move {
            let tti = time_to_interactive(&rig).await;
            r.lock().unwrap()["interactive"] = tti;
        });
        results.lock().unwrap()["hostile_schemas"] = crate::hostile_schemas::run();
        let r = results.clone();
        browser_test(|rig| async move {
            let page = crate::hostile_schemas::page_figures(&rig).await;
            r.lock().unwrap()["hostile_schemas_page"] = page;
        });
        // Three runs (the mock, the bench and Chromium share the machine's cores, so one run's
        // longest task scatters): the figures of the run with the median longest task, and
        // every run's longest task.
        let runs = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        for _ in 0..3 {
            let r = runs.clone();
            browser_test(|rig| async move {
                let s = streaming(&rig, tokens).await;
                r.lock().unwrap().push(s);
            });
        }
        let mut runs = runs.lock().unwrap().clone();
        runs.sort_by(|a, b| {
            a["longest_task_ms"]
                .as_f64()
                .partial_cmp(&b["longest_task_ms"].as_f64())
                .unwrap()
        });
        let longest: Vec<Value> = runs.iter().map(|r| r["longest_task_ms"].clone()).collect();
        let mut median_run = runs[1].clone();
        median_run["longest_task_ms_of_each_run"] = json!(longest);
        results.lock().unwrap()["streaming"] = median_run;
        let mut walls = serde_json::Map::new();
        for mode in ["react", "all"] {
            let r = std::sync::Arc::new(std::sync::Mutex::new(0.0));
            let out = r.clone();
            browser_test(|rig| async move {
                *out.lock().unwrap() = wall_time(&rig, mode).await;
            });
            walls.insert(mode.into(), json!(*r.lock().unwrap()));
        }
        let ratio = walls["all"].as_f64().unwrap() / walls["react"].as_f64().unwrap();
        results.lock().unwrap()["concurrency"] = json!({
            "slowest_single_mode_s": walls["react"], "all_mode_s": walls["all"], "all_over_slowest": ratio,
        });
        let mut heap = serde_json::Map::new();
        for steps in [25, 50] {
            let r = std::sync::Arc::new(std::sync::Mutex::new((0.0, 0.0)));
            let out = r.clone();
            browser_test(|rig| async move {
                *out.lock().unwrap() = heap_after(&rig, steps).await;
            });
            let (js, wasm) = *r.lock().unwrap();
            heap.insert(format!("{steps}_steps_js_mb"), json!(js));
            heap.insert(format!("{steps}_steps_wasm_mb"), json!(wasm));
        }
        results.lock().unwrap()["memory"] = Value::Object(heap);
        let reference = std::env::var("BENCH_REFERENCE_URL")
            .expect("BENCH_REFERENCE_URL: run the bench with scripts/bench, which starts the reference page");
        let r = results.clone();
        browser_test(|rig| async move {
            let figures = beside_reference(&rig, &reference).await;
            r.lock().unwrap()["beside_reference"] = figures;
        });
        let r = results.clone();
        browser_test(|rig| async move {
            let figures = first_runs(&rig).await;
            r.lock().unwrap()["first_run"] = figures;
        });
        results.lock().unwrap()["think_tag_strip"] = think_tag_strip();
        let r = results.clone();
        browser_test(|rig| async move {
            r.lock().unwrap()["kernels"] = crate::kernels::kernels(&rig).await;
            let figures = crate::browser_model::browser_model(&rig).await;
            r.lock().unwrap()["browser_model"] = figures;
        });

        let results = results.lock().unwrap().clone();
        print_table(&results);
        crate::kernels::print(&results["kernels"]);
        print_first_runs(&results);
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("results.json"),
            serde_json::to_string_pretty(&results).unwrap(),
        )
        .unwrap();
        println!("\nwritten to bench/results.json");
    }

    /// Each first-run visit: what it requested before its first model request, and when.
    fn print_first_runs(r: &Value) {
        let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
        println!("\nfirst run, cold, 4G, question in the address (median of 5 by time):");
        for (key, visit) in [
            ("pasted", "token pasted, ReAct"),
            ("remembered", "token remembered, ReAct"),
            ("remembered_all", "token remembered, All"),
        ] {
            let v = &r["first_run"][key];
            let gz = f(&v["gzip_bytes"]) / 1000.0;
            println!(
                "  {visit:<26} requested before the 1st model request: {gz:.1} KB gzip (<= 450 KB: {}), \
                 received {:.1} KB; 1st request at {:.0} ms, Run pressed at {:.0} ms",
                if gz <= 450.0 { "met" } else { "NOT met" },
                f(&v["wire_bytes"]) / 1000.0,
                f(&v["first_request_4g_ms"]),
                f(&v["run_pressed_4g_ms"]),
            );
            for file in v["files"].as_array().into_iter().flatten() {
                println!(
                    "      {:>9.1} KB  {}",
                    f(&file["gzip_bytes"]) / 1000.0,
                    file["file"].as_str().unwrap_or("?")
                );
            }
        }
    }

    fn print_table(r: &Value) {
        let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
        let kb = |v: &Value| f(v) / 1000.0;
        let target = |ok: bool| if ok { "met" } else { "NOT met" };
        let load_gz = kb(&r["first_load"]["gzip_bytes"]);
        let tti = f(&r["interactive"]["median_ms"]);
        let tps = f(&r["streaming"]["tokens_per_second"]);
        let longest = f(&r["streaming"]["longest_task_ms"]);
        let ratio = f(&r["concurrency"]["all_over_slowest"]);
        println!("{:<48} {:>14}  target", "figure", "value");
        let rows = [
            (
                "first screen, gzip (HTML+JS+wasm+CSS)",
                format!("{load_gz:.1} KB"),
                "<= 210 KB",
                target(load_gz <= 210.0),
            ),
            (
                "first load, raw",
                format!("{:.1} KB", kb(&r["first_load"]["raw_bytes"])),
                "",
                "",
            ),
            (
                ".wasm alone, gzip / raw",
                format!(
                    "{:.1} / {:.1} KB",
                    kb(&r["first_load"]["wasm"]["gzip_bytes"]),
                    kb(&r["first_load"]["wasm"]["raw_bytes"])
                ),
                "",
                "",
            ),
            (
                "time to interactive (median of 5)",
                format!("{tti:.0} ms"),
                "<= 500 ms",
                target(tti <= 500.0),
            ),
            (
                "streaming, 3 panels",
                format!("{tps:.0} tok/s"),
                ">= 5,000 tok/s",
                target(tps >= 5000.0),
            ),
            (
                "longest task while streaming (median of 3 runs)",
                // The browser reports only tasks over 50 ms.
                if longest > 0.0 {
                    format!("{longest:.0} ms")
                } else {
                    "none > 50 ms".to_string()
                },
                "<= 50 ms",
                target(longest <= 50.0),
            ),
            (
                "  longest task of each run (0: none > 50 ms)",
                r["streaming"]["longest_task_ms_of_each_run"]
                    .as_array()
                    .map(|runs| {
                        runs.iter()
                            .map(|v| format!("{:.0}", f(v)))
                            .collect::<Vec<_>>()
                            .join(" / ")
                    })
                    .unwrap_or_default()
                    + " ms",
                "",
                "",
            ),
            (
                "panels done after the last token",
                format!("{:.0} ms", f(&r["streaming"]["render_after_last_token_ms"])),
                "",
                "",
            ),
            (
                "answers' Markdown drawn after the last token",
                format!(
                    "{:.0} ms",
                    f(&r["streaming"]["answers_drawn_after_last_token_ms"])
                ),
                "",
                "",
            ),
            (
                "All-mode wall / slowest single mode",
                format!("{ratio:.3}"),
                "<= 1.1",
                target(ratio <= 1.1),
            ),
            (
                "JS heap / wasm memory, 25 steps a panel",
                format!(
                    "{:.1} / {:.1} MB",
                    f(&r["memory"]["25_steps_js_mb"]),
                    f(&r["memory"]["25_steps_wasm_mb"])
                ),
                "",
                "",
            ),
            (
                "JS heap / wasm memory, 50 steps a panel",
                format!(
                    "{:.1} / {:.1} MB",
                    f(&r["memory"]["50_steps_js_mb"]),
                    f(&r["memory"]["50_steps_wasm_mb"])
                ),
                "linear",
                "",
            ),
        ];
        for (name, value, goal, verdict) in rows {
            println!("{name:<48} {value:>14}  {goal:<18} {verdict}");
        }
        let b = &r["beside_reference"];
        let ratio = |k: &str| f(&b["ratio_ours_over_reference"][k]);
        println!(
            "\nbeside the reference page ({}: question box, Run, three Markdown panels), median of 5 cold loads each",
            b["reference"]["name"].as_str().unwrap_or("?")
        );
        println!(
            "{:<32} {:>12} {:>12} {:>8}  target",
            "figure", "this app", "reference", "ratio"
        );
        for (name, key, unit, goal) in [
            ("bytes on the wire", "bytes_on_wire", "KB", ""),
            ("requests", "requests", "", ""),
            ("Run usable, unthrottled", "run_usable_ms", "ms", ""),
            (
                "Run usable, 4G (9 Mbit/s, 60 ms)",
                "run_usable_4g_ms",
                "ms",
                "ratio <= 0.5",
            ),
        ] {
            let scale = if unit == "KB" { 1000.0 } else { 1.0 };
            let (ours, theirs) = (f(&b["ours"][key]) / scale, f(&b["reference"][key]) / scale);
            let verdict = if goal.is_empty() {
                ""
            } else {
                target(ratio(key) <= 0.5)
            };
            println!(
                "{name:<32} {:>12} {:>12} {:>8.2}  {goal} {verdict}",
                format!("{ours:.0} {unit}"),
                format!("{theirs:.0} {unit}"),
                ratio(key)
            );
        }
        println!(
            "{:<32} {:>12}  (the agent engine, fetched on first use: a Run pressed at once waits this)",
            "engine's chunk in, 4G, after 1st use",
            format!("{:.0} ms", f(&b["ours"]["engine_ready_4g_ms"]))
        );
        println!(
            "\nthink-tag strip of a 32 KB reply of tags: {:.2} ms (host, release build)",
            f(&r["think_tag_strip"]["ms"])
        );
        crate::browser_model::print(&r["browser_model"]);
    }

    /// The reasoning-tag strip on a reply made of 32 KB of tags (the protocol parser's worst
    /// case), timed on the host: median of 9.
    fn think_tag_strip() -> Value {
        let text = "</think>x".repeat(32 * 1024 / 9) + "Answer: 4";
        let times = (0..9)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(react_arena::agent::protocol::parse_reply(&text));
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        json!({ "bytes": text.len(), "ms": median(times) })
    }
}
