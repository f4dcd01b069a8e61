//! `scripts/gpu-check` (`BENCH_ONLY=gpu`): where the model in this browser runs on this
//! machine's GPU, and how fast. Chromium (`CHROMIUM`, driven by `CHROMEDRIVER`) starts with the
//! flags in `BENCH_CHROMIUM_FLAGS` (default `--enable-unsafe-webgpu`). The check prints the
//! WebGPU adapter the page and a dedicated worker are offered, with its features; then, for
//! each model and each backend (the CPU, and the GPU asked for whatever the adapter offers),
//! where the runtime's own load log put the layers and llama.cpp's tokens per second (median
//! of 3) on the same file.

use std::sync::{Arc, Mutex};

use react_arena::browser_model::OFFERED;
use react_arena::llm::RunsOn;
use serde_json::{json, Value};

use crate::browser_model::{
    add_glue, in_page, keep_in_browser, long_script, qwen, run_async, smollm2, speeds, Model,
};
use crate::support::browser::{browser_test_with_flags, Rig};
use crate::support::model_files::start_model_files;

/// The adapter as the page and a dedicated worker see it.
const ADAPTER: &str = r#"
    const describe = async () => {
      if (!navigator.gpu) return "no navigator.gpu";
      const a = await navigator.gpu.requestAdapter();
      if (!a) return null;
      return { vendor: a.info.vendor, architecture: a.info.architecture, device: a.info.device,
               description: a.info.description, fallback: Boolean(a.info.isFallbackAdapter),
               features: [...a.features].sort(),
               max_buffer_mb: Math.round(a.limits.maxBufferSize / 1048576) };
    };
    const source = "(" + describe.toString() + ")().then(postMessage, e => postMessage(String(e)))";
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
    const inWorker = await new Promise((resolve) => { worker.onmessage = (e) => resolve(e.data); });
    worker.terminate();
    return { page: await describe(), worker: inWorker, isolated: crossOriginIsolated,
             cores: navigator.hardwareConcurrency };
"#;

/// The two ways a model is loaded: the CPU alone, and the GPU asked for on any adapter (the
/// page itself asks only where the adapter has 16-bit floats).
const BACKENDS: [(&str, &str); 2] = [
    ("CPU", "api.cpuOnly = true; api.gpuWithoutF16 = false;"),
    ("GPU", "api.cpuOnly = false; api.gpuWithoutF16 = true;"),
];

pub fn main() {
    let flags =
        std::env::var("BENCH_CHROMIUM_FLAGS").unwrap_or_else(|_| "--enable-unsafe-webgpu".into());
    let flags: Vec<&str> = flags.split_whitespace().collect();
    let out = Arc::new(Mutex::new(Value::Null));
    let figures = out.clone();
    browser_test_with_flags(&flags, |rig| async move {
        *figures.lock().unwrap() = check(&rig).await;
    });
    let figures = out.lock().unwrap().clone();
    println!("{}", serde_json::to_string_pretty(&figures).unwrap());
    print(&figures, &flags);
}

fn models(files: &str) -> Vec<Model> {
    let offered = |prefix: &str| OFFERED.iter().find(|o| o.name.starts_with(prefix)).unwrap();
    let mut models = vec![smollm2(files, Some(offered("SmolLM2").pin))];
    models.extend(qwen(files, Some(offered("Qwen2.5").pin)));
    models
}

async fn check(rig: &Rig) -> Value {
    let (files, _) = start_model_files().await;
    let models = models(&files);
    let settings = json!({ "backend": "browser", "browser_model_url": models[0].url });
    rig.open_app_with(settings.clone(), "", false).await;
    // Every core: the page isolated by its service worker, as a visitor's after one reload.
    rig.isolate().await;
    long_script(rig).await;
    add_glue(rig).await;
    let adapter = run_async(rig, ADAPTER).await;
    for m in &models {
        keep_in_browser(rig, m).await;
    }
    let mut rows = Vec::new();
    for m in &models {
        for (backend, switches) in BACKENDS {
            eprintln!("gpu-check: {} on the {backend}", m.name);
            rig.js(&format!("const api = reactArenaBrowserModel; {switches}"))
                .await;
            let page = in_page(rig, m, 4096).await;
            let state = rig.js("return reactArenaBrowserModel.state()").await;
            rows.push(
                json!({ "model": m.name, "backend": backend, "runs_on": state["runsOn"],
                              "attempts": state["attempts"], "speeds": speeds(&page) }),
            );
        }
    }
    json!({ "adapter": adapter, "rows": rows })
}

fn print(figures: &Value, flags: &[&str]) {
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    println!("\nGPU check, Chromium flags: {}", flags.join(" "));
    let adapter = &figures["adapter"];
    for place in ["page", "worker"] {
        let a = &adapter[place];
        if a.is_object() {
            println!(
                "  adapter ({place}): {} {} {} {}{}, max buffer {} MB",
                a["vendor"].as_str().unwrap_or(""),
                a["architecture"].as_str().unwrap_or(""),
                a["device"].as_str().unwrap_or(""),
                a["description"].as_str().unwrap_or(""),
                if a["fallback"] == json!(true) {
                    " (a fallback adapter)"
                } else {
                    ""
                },
                a["max_buffer_mb"]
            );
        } else {
            println!("  adapter ({place}): {a}");
        }
    }
    if let Some(features) = adapter["page"]["features"].as_array() {
        let names: Vec<&str> = features.iter().filter_map(Value::as_str).collect();
        println!("  features: {}", names.join(", "));
        println!(
            "  shader-f16 (the runtime's WebGPU backend needs it): {}",
            if names.contains(&"shader-f16") {
                "yes"
            } else {
                "NO"
            }
        );
    }
    println!(
        "  cross-origin isolated: {}, cores: {}",
        adapter["isolated"], adapter["cores"]
    );
    println!(
        "\n{:<36} {:>8} {:>11} {:>11}  where the runtime put the layers (its load log)",
        "", "backend", "write tok/s", "read tok/s"
    );
    for row in figures["rows"].as_array().into_iter().flatten() {
        let runs_on: RunsOn = serde_json::from_value(row["runs_on"].clone()).unwrap_or_default();
        let reports: Vec<String> = row["attempts"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                let r = &a["report"];
                // llama.cpp logs "offloaded N/M layers" only where a GPU device exists.
                let layers = if r["layers"] == json!(0) {
                    "no GPU device, no layer offloaded".to_string()
                } else {
                    format!("{}/{} layers on the GPU", r["gpuLayers"], r["layers"])
                };
                format!(
                    "asked {}: {layers}, weights {:.0} MiB on the GPU, {:.0} MiB on the CPU",
                    if a["gpu"] == json!(true) {
                        "GPU"
                    } else {
                        "CPU"
                    },
                    f(&r["gpuMiB"]),
                    f(&r["cpuMiB"])
                )
            })
            .collect();
        println!(
            "{:<36} {:>8} {:>11.1} {:>11.1}  {}",
            row["model"].as_str().unwrap_or("?"),
            row["backend"].as_str().unwrap_or("?"),
            f(&row["speeds"]["generation_tokens_per_s"]),
            f(&row["speeds"]["prompt_tokens_per_s"]),
            runs_on.describe()
        );
        for report in reports {
            println!("{:<58}  {report}", "");
        }
    }
}
