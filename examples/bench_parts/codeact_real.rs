//! `BENCH_ONLY=codeact`: CodeAct against a server we did not write. llama.cpp's own server
//! (PyPI `xllamacpp`) with Qwen2.5-Coder-0.5B-Instruct Q4_K_M, the model the recordings use,
//! answers two questions in CodeAct in the built page (the calculator and Wikipedia offered;
//! Wikipedia answered by the tests' fixture server), and then Evaluate runs the hidden-style
//! question set (tests/support/hidden_style.rs) in all four modes. Prints what each CodeAct run
//! did (its programs, the calls they made, the answer) and the evaluation's table. It judges
//! nothing: a small model's answers are what they are.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support;
use crate::support::browser::{Rig, MARKER_TOKEN};
use crate::support::fixtures::FixtureServer;
use crate::support::hidden_style::QUESTIONS;
use crate::support::model_files::qwen_path;

/// The two questions the issue names: arithmetic, and one Wikipedia answers.
const QUESTIONS_ASKED: [&str; 2] = [
    "What is 4821 times 37, minus 999?",
    "How many years before 2026 was the novel Things Fall Apart first published?",
];

/// The longest any one run may take on two cores.
const RUN_LIMIT: Duration = Duration::from_secs(900);

pub async fn codeact_real(rig: &Rig) -> Value {
    let gguf = qwen_path().expect("QWEN_GGUF names no file (scripts/bench joins it)");
    // Two threads (the page's JavaScript is idle while the server writes), and 4,096 tokens of
    // context for each of the server's three slots.
    let (mut server, base_url) = support::llama::start_llama_server_with(&[
        gguf.display().to_string(),
        "2".into(),
        "12288".into(),
    ])
    .await;
    let fixtures = FixtureServer::start().await;
    let off = json!(["web_search", "weather", "python"]);
    let settings = json!({
        "model": "qwen2.5-coder-0.5b-instruct-q4_k_m",
        "base_url": base_url,
        "temperature": 0.0,
        "max_tokens": 384,
        "max_steps": 4,
        "remember_token": false,
        "protocol": "text",
        "tool_endpoints": fixtures.endpoints(),
        "tools_off": { "act": off, "react": off, "codeact": off },
    });
    rig.open_app_with(settings, MARKER_TOKEN, false).await;
    let mut runs = Vec::new();
    for question in QUESTIONS_ASKED {
        if rig
            .js("return !!document.querySelector('#new-conversation')")
            .await
            == Value::Bool(true)
        {
            rig.click("#new-conversation").await;
        }
        let started = Instant::now();
        rig.ask(question, "codeact").await;
        let panel = rig.wait_until_settled(RUN_LIMIT).await.remove(0);
        runs.push(json!({
            "question": question,
            "seconds": started.elapsed().as_secs_f64(),
            "status": panel.status,
            "counter": panel.counter,
            "thoughts": panel.thoughts,
            "programs_and_calls": panel.actions,
            "observations": panel.observations,
            "answer": panel.answer_text(),
        }));
    }
    let evaluation = evaluate(rig).await;
    let _ = server.kill().await;
    json!({ "runs": runs, "evaluation": evaluation })
}

/// Evaluate on the hidden-style set, the four modes on the one model, 4 steps, one run at a
/// time (the server's slots would otherwise share the two cores): the table as shown.
async fn evaluate(rig: &Rig) -> Value {
    rig.show_evaluate().await;
    rig.choose_own_questions("hidden-style.json", &QUESTIONS)
        .await;
    rig.js(
        "const set = (id, v) => { const e = document.querySelector(id); e.value = v; e.dispatchEvent(new Event('change')); };\
         set('#eval-max-steps', '4'); set('#eval-concurrency', '1');\
         document.querySelector('#eval-sample').value = 'all';\
         document.querySelector('#eval-sample').dispatchEvent(new Event('change'));",
    )
    .await;
    rig.click("#eval-start").await;
    let started = Instant::now();
    rig.wait_for(
        "the evaluation",
        RUN_LIMIT * 4,
        "const t = document.querySelector('#eval-progress-text'); return !!t && t.innerText.startsWith('40 of 40 runs') && document.querySelector('#eval-stop').hidden;",
    )
    .await;
    let table = rig
        .js("return Array.from(document.querySelectorAll('#eval-table tr')).map(r => Array.from(r.children).map(c => c.innerText.trim()));")
        .await;
    json!({ "seconds": started.elapsed().as_secs_f64(), "table": table })
}

/// The runs and the table, for a person.
pub fn print(figures: &Value) {
    for run in figures["runs"].as_array().into_iter().flatten() {
        println!(
            "\nCodeAct: {} ({}, {}, {:.0} s)\n  answer: {}",
            run["question"].as_str().unwrap_or_default(),
            run["status"].as_str().unwrap_or_default(),
            run["counter"].as_str().unwrap_or_default(),
            run["seconds"].as_f64().unwrap_or_default(),
            run["answer"].as_str().unwrap_or_default()
        );
        for shown in run["programs_and_calls"].as_array().into_iter().flatten() {
            let shown = shown.as_str().unwrap_or_default();
            let short: String = shown.chars().take(400).collect();
            println!("  | {}", short.replace('\n', "\n  | "));
        }
        for observation in run["observations"].as_array().into_iter().flatten() {
            let short: String = observation
                .as_str()
                .unwrap_or_default()
                .chars()
                .take(300)
                .collect();
            println!("  > {}", short.replace('\n', "\n  > "));
        }
    }
    let evaluation = &figures["evaluation"];
    println!(
        "\nEvaluate, hidden-style set (10 questions), four modes, {:.0} s:",
        evaluation["seconds"].as_f64().unwrap_or_default()
    );
    for row in evaluation["table"].as_array().into_iter().flatten() {
        let cells: Vec<&str> = row
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        println!("| {} |", cells.join(" | "));
    }
}
