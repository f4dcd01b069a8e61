//! Each kernel the runtime build put in (scripts/lib/build_runtime.py), timed in headless
//! Chromium beside the generic kernel wllama shipped, both in the page's own wasm (the build's
//! harness: the shipped runtime with both kept and exported): a 4096×4096 quantised mat-vec on
//! one thread, best of 5 (tests/kernels/check.js, `?bench`).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::support::browser::{serve_dir, Rig};

fn site() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let runtime = std::env::var("REACT_ARENA_RUNTIME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("target/runtime"));
    let site =
        std::env::temp_dir().join(format!("react-arena-kernel-bench-{}", std::process::id()));
    std::fs::create_dir_all(&site).unwrap();
    for (from, file) in [
        (root.join("tests/kernels"), "check.html"),
        (root.join("tests/kernels"), "check.js"),
        (runtime.clone(), "harness.wasm"),
        (runtime, "report.json"),
    ] {
        std::fs::copy(from.join(file), site.join(file)).unwrap_or_else(|e| {
            panic!("{file}: {e} (scripts/lib/build_runtime.py makes the runtime's files)")
        });
    }
    site
}

pub async fn kernels(rig: &Rig) -> Value {
    let address = serve_dir(site()).await;
    rig.client
        .goto(&format!("http://{address}/check.html?bench"))
        .await
        .unwrap();
    rig.wait_for(
        "the kernel bench",
        Duration::from_secs(600),
        "return document.body.dataset.done === '1'",
    )
    .await;
    let out = rig.js("return window.kernelCheck").await;
    assert_eq!(out["ok"], true, "kernel bench: {}", out["error"]);
    out["results"].clone()
}

pub fn print(figures: &Value) {
    println!("\neach kernel in the page's own wasm, 4096×4096 mat-vec, one thread, best of 5 (ms)");
    println!(
        "{:<8} {:>10} {:>10} {:>8}",
        "weights", "shipped", "SIMD", "speed-up"
    );
    for (weights, f) in figures.as_object().into_iter().flatten() {
        let shipped = f["shipped_ms"].as_f64().unwrap_or(f64::NAN);
        let simd = f["simd_ms"].as_f64().unwrap_or(f64::NAN);
        println!(
            "{weights:<8} {shipped:>10.2} {simd:>10.2} {:>7.1}x",
            shipped / simd
        );
    }
}
