//! `scripts/record-examples`: records the example runs a first visitor can watch without a token
//! (`public/recordings/`). Each is a real All run of the built app in headless Chromium on the
//! model in this browser (wllama, the page cross-origin isolated as a user's is after one
//! reload) with Qwen2.5-Coder-0.5B-Instruct Q4_K_M, the page's default in-browser model,
//! exported with the app's own "Export JSON" button. The calculator and Wikipedia are offered;
//! Wikipedia answers from the tests' fixture server (`tests/fixtures/wikipedia`), which stands
//! in for `https://en.wikipedia.org`, so nothing needs the internet. Writes the files and
//! `index.json`, and prints each mode's answer. Not a test: it judges nothing.
//!
//! The page fetched the model from a local copy of the pinned file (the same SHA-256), and
//! Wikipedia and Pyodide (CodeAct's sandbox) from the fixture server: the recordings name the
//! addresses a visitor's page uses (the offered model's and each tool's default) in their
//! place, nothing else is changed.

#[cfg(not(target_arch = "wasm32"))]
#[path = "../tests/support/mod.rs"]
mod support;

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    host::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    use std::path::PathBuf;
    use std::time::Duration;

    use react_arena::browser_model::DEFAULT_MODEL_URL;
    use react_arena::run_file::RunFile;
    use react_arena::tools::endpoints::ToolEndpoints;
    use serde_json::{json, Value};

    use crate::support::browser::{browser_test, Rig, CAPTURE_DOWNLOADS};
    use crate::support::fixtures::FixtureServer;
    use crate::support::model_files::{qwen_path, start_model_files, QWEN_FILE};

    /// (file, title, what it shows, question): three questions where the four modes differ.
    const EXAMPLES: [(&str, &str, &str, &str); 3] = [
        (
            "multiply.json",
            "A tool gets right what a guess gets wrong",
            "Big-number arithmetic: Think-only works it out in its head; Act-only and ReAct hand it to the calculator, and CodeAct writes a program that calls it. Compare the answers with the right one, 177378.",
            "What is 4821 times 37, minus 999?",
        ),
        (
            "lookup.json",
            "Look it up, then work it out",
            "Two steps: find the year Things Fall Apart was first published (Wikipedia says 1958), then subtract. Think-only can only remember; see whether the tool modes look it up before they compute, and whether CodeAct's program does both. (Right answer: 68.)",
            "How many years before 2026 was the novel Things Fall Apart first published?",
        ),
        (
            "no-tool.json",
            "A question that needs no tool",
            "Common knowledge: Think-only answers at once; see whether Act-only, ReAct and CodeAct reach for a tool anyway, and what that costs in steps and time.",
            "Which is longer, a kilometre or a mile?",
        ),
    ];

    pub fn main() {
        let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("public/recordings");
        std::fs::create_dir_all(&out_dir).unwrap();
        assert!(
            qwen_path().is_some(),
            "QWEN_GGUF names no file (scripts/record-examples joins it)"
        );
        browser_test(|rig| async move {
            let (files, _) = start_model_files().await;
            let fixtures = FixtureServer::start().await;
            let model_url = format!("{files}/{QWEN_FILE}");
            let settings = json!({
                "backend": "browser",
                "browser_model_url": model_url,
                "temperature": 0.0,
                "max_tokens": 256,
                "max_steps": 4,
                "remember_token": false,
                "protocol": "text",
                "tool_endpoints": fixtures.endpoints(),
                "tools_off": {
                    "act": ["web_search", "weather", "python"],
                    "react": ["web_search", "weather", "python"],
                    "codeact": ["web_search", "weather", "python"]
                },
            });
            rig.open_app_with(settings, "", false).await;
            rig.isolate().await;
            rig.open_settings().await;
            rig.wait_for(
                "the model section",
                Duration::from_secs(30),
                "const b = document.querySelector('#browser-model-download'); return !!b && !b.disabled",
            )
            .await;
            rig.click("#browser-model-download").await;
            rig.wait_for(
                "the download",
                Duration::from_secs(300),
                "return document.querySelector('#browser-model-status').innerText.startsWith('Downloaded')",
            )
            .await;
            let mut index = Vec::new();
            for (file, title, about, question) in EXAMPLES {
                let mut text = record(&rig, question)
                    .await
                    .replace(&model_url, DEFAULT_MODEL_URL);
                // Each tool's address as a visitor's page has it (Pyodide's included: CodeAct
                // ran in the fixture server's copy), then what is left of the fixture server's
                // (the Wikipedia pages' own links) as Wikipedia's.
                let defaults = serde_json::to_value(ToolEndpoints::default()).unwrap();
                for (key, local) in fixtures.endpoints().as_object().unwrap() {
                    text = text.replace(local.as_str().unwrap(), defaults[key].as_str().unwrap());
                }
                let text = text.replace(&fixtures.base, "https://en.wikipedia.org");
                let run = RunFile::from_json(&text).expect("the export reads back");
                let recorded = react_arena::dates::date(run.created);
                std::fs::write(out_dir.join(file), &text).unwrap();
                println!(
                    "{file}: {} bytes, {:.0} s; {question}",
                    text.len(),
                    span_seconds(&run)
                );
                for r in &run.records {
                    let answer = r
                        .last_turn()
                        .and_then(|t| t.answer.as_ref())
                        .map_or("(none)", |a| a.text.as_str());
                    println!("  {:?}: {} steps: {answer}", r.config.mode, r.steps().len());
                }
                index.push(json!({
                    "file": file,
                    "title": title,
                    "about": about,
                    "question": question,
                    // As the run's record names it (the index must agree with the file).
                    "model": run.records[0].config.model,
                    "recorded": recorded,
                }));
            }
            let index = serde_json::to_string_pretty(&Value::Array(index)).unwrap();
            std::fs::write(out_dir.join("index.json"), index + "\n").unwrap();
        });
    }

    /// One All run of `question` in a new conversation, exported as JSON.
    async fn record(rig: &Rig, question: &str) -> String {
        if rig
            .js("return !!document.querySelector('#new-conversation')")
            .await
            == Value::Bool(true)
        {
            rig.click("#new-conversation").await;
        }
        rig.ask(question, "all").await;
        rig.wait_until_settled(Duration::from_secs(1800)).await;
        rig.js(CAPTURE_DOWNLOADS).await;
        rig.click("#export-json").await;
        let downloads = rig.downloads().await;
        downloads.last().expect("the export").text.clone()
    }

    /// From the first question to the last event of any mode.
    fn span_seconds(run: &RunFile) -> f64 {
        let start = run
            .records
            .iter()
            .filter_map(|r| r.turns.first().map(|t| t.t_start))
            .fold(f64::INFINITY, f64::min);
        let end = run
            .records
            .iter()
            .flat_map(|r| r.turns.iter().flat_map(|t| t.steps.iter()))
            .map(|s| s.t_tools_done.or(s.t_reply).unwrap_or(s.t_start))
            .fold(0.0, f64::max);
        (end - start) / 1000.0
    }
}
