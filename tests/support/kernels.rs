//! The runtime kernels' check page (tests/kernels/), served with the runtime build's harness:
//! the kernel-equivalence test runs it, the bench times with it (`?bench`).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::browser::{serve_dir, Rig};

/// The runtime build's output (scripts/lib/build_runtime.py): `REACT_ARENA_RUNTIME`, or
/// target/runtime. Fails, never skips, when the harness is missing.
fn runtime_dir() -> PathBuf {
    let dir = std::env::var("REACT_ARENA_RUNTIME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/runtime"));
    assert!(
        dir.join("harness.wasm").is_file(),
        "no kernel harness in {}: run scripts/lib/build_runtime.py (scripts/test does)",
        dir.display()
    );
    dir
}

/// The check page, the harness and the splice's report, in one folder to serve.
fn check_site() -> PathBuf {
    let site = std::env::temp_dir().join(format!("react-arena-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&site).unwrap();
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/kernels");
    for file in ["check.html", "check.js"] {
        std::fs::copy(here.join(file), site.join(file)).unwrap();
    }
    let runtime = runtime_dir();
    for file in ["harness.wasm", "report.json"] {
        std::fs::copy(runtime.join(file), site.join(file)).unwrap();
    }
    site
}

/// Runs the check page (`query` "" checks, "?bench" times) and returns its results; fails
/// when the page could not run.
pub async fn run_check_page(rig: &Rig, query: &str) -> Value {
    let site = serve_dir(check_site()).await;
    rig.client
        .goto(&format!("http://{site}/check.html{query}"))
        .await
        .unwrap();
    rig.wait_for(
        "the kernel page to finish",
        Duration::from_secs(600),
        "return document.body.dataset.done === '1'",
    )
    .await;
    let out = rig.js("return window.kernelCheck").await;
    assert_eq!(
        out["ok"], true,
        "the kernel page did not run: {}",
        out["error"]
    );
    out["results"].clone()
}
