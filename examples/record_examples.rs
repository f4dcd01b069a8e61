//! `scripts/record-examples`: records the example runs a first visitor can watch without a token
//! (`public/recordings/`). Each is a real run of the built app in headless Chromium against
//! llama.cpp's own server with SmolLM2-135M-Instruct, exported with the app's own "Export JSON"
//! button; only the calculator is offered, so nothing needs the internet. Writes the files and
//! `index.json`, and prints what it recorded. Not a test: it judges nothing.

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

    use react_arena::run_file::RunFile;
    use serde_json::{json, Value};

    use crate::support::browser::{browser_test, MARKER_TOKEN};
    use crate::support::llama::{start_llama_server, LLAMA_MODEL};

    /// (file, title, what it shows, question). SmolLM2-135M rarely follows a tool format; the
    /// recordings show that honestly (and how the app recovers), so the texts promise no tool use.
    const EXAMPLES: [(&str, &str, &str, &str); 3] = [
        (
            "multiply.json",
            "Multiply two numbers",
            "Think-only works it out in prose; in Act-only and ReAct, see how the tiny model copes with the tool format: reminders, error observations, the step limit. (Right answer: 1591.)",
            "What is 37 times 43?",
        ),
        (
            "percent.json",
            "A percentage, then a sum",
            "A two-part question: compare the three final answers with the right one, 51, and the steps each mode took to get there.",
            "What is 15% of 260, plus 12?",
        ),
        (
            "square-root.json",
            "A square root",
            "How each mode ends when the model does not follow the tool format: reminders, then the final answer the step limit asks for. (Right answer: 42.)",
            "What is the square root of 1764?",
        ),
    ];

    /// Keeps the blob of every download the page starts instead of saving it.
    const CAPTURE_DOWNLOADS: &str = r#"
window.__blobs = {};
window.__downloads = [];
const createObjectURL = URL.createObjectURL;
URL.createObjectURL = (blob) => { const url = createObjectURL.call(URL, blob); window.__blobs[url] = blob; return url; };
HTMLAnchorElement.prototype.click = function () { window.__downloads.push(this.href); };
"#;

    const READ_LAST_DOWNLOAD: &str = r#"
const done = arguments[arguments.length - 1];
const href = window.__downloads[window.__downloads.length - 1];
window.__blobs[href].text().then(done, (e) => done("read failed: " + e));
"#;

    pub fn main() {
        let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("public/recordings");
        std::fs::create_dir_all(&out_dir).unwrap();
        browser_test(|rig| async move {
            let (mut server, base_url) = start_llama_server().await;
            let settings = json!({
                "model": LLAMA_MODEL,
                "base_url": base_url,
                "temperature": 0.0,
                "max_tokens": 160,
                "max_steps": 3,
                "remember_token": false,
                "protocol": std::env::var("RECORD_PROTOCOL").unwrap_or_else(|_| "text".into()),
                "disabled_tools": ["web_search", "wikipedia", "weather", "python"],
            });
            rig.open_app_with(settings, MARKER_TOKEN, false).await;
            let mut index = Vec::new();
            for (file, title, about, question) in EXAMPLES {
                rig.ask(question, "all").await;
                rig.wait_until_settled(Duration::from_secs(600)).await;
                rig.js(CAPTURE_DOWNLOADS).await;
                rig.click("#export-json").await;
                let text = rig
                    .client
                    .execute_async(READ_LAST_DOWNLOAD, vec![])
                    .await
                    .expect("the export");
                let text = text.as_str().expect("the export's text").to_string();
                let run = RunFile::from_json(&text).expect("the export reads back");
                let recorded = react_arena::dates::date(run.created);
                std::fs::write(out_dir.join(file), &text).unwrap();
                println!(
                    "{file}: {} bytes, {} records, {:.1} s",
                    text.len(),
                    run.records.len(),
                    span_seconds(&run)
                );
                index.push(json!({
                    "file": file,
                    "title": title,
                    "about": about,
                    "question": question,
                    "model": LLAMA_MODEL,
                    "recorded": recorded,
                }));
                // The next question starts a new conversation, not a follow-up.
                rig.click("#new-conversation").await;
            }
            let _ = server.kill().await;
            let index = serde_json::to_string_pretty(&Value::Array(index)).unwrap();
            std::fs::write(out_dir.join("index.json"), index + "\n").unwrap();
        });
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
