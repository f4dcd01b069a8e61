//! The first load's size budget: the built page (REACT_ARENA_DIST, as the browser tests use)
//! must not fetch more than this, gzipped, before it is interactive: 210 KB (issue 25; it
//! was 250 KB, issue 14's budget).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::browser::dist_dir;
use support::first_load::first_load;

const FIRST_LOAD_BUDGET_BYTES: u64 = 210_000;

#[test]
fn the_first_load_stays_within_its_budget() {
    let load = first_load(&dist_dir());
    let total = load["gzip_bytes"].as_u64().unwrap();
    let files: Vec<String> = load["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {} B", f["file"], f["gzip_bytes"]))
        .collect();
    eprintln!("the first load: {total} B gzipped (budget {FIRST_LOAD_BUDGET_BYTES} B)");
    assert!(
        total <= FIRST_LOAD_BUDGET_BYTES,
        "the first load is {total} B gzipped, over its budget of {FIRST_LOAD_BUDGET_BYTES} B:\n{}",
        files.join("\n")
    );
    // The engine, the Markdown parser, the page's parts (the page's chunks) and the Evaluate
    // view are not part of it: they load when first used.
    assert!(
        files
            .iter()
            .all(|f| !f.contains("evaluate-") && !f.contains("split_") && !f.contains("chunk_")),
        "a lazily loaded module is in the first load:\n{}",
        files.join("\n")
    );
    assert!(
        files.iter().any(|f| f.contains(".wasm")),
        "no wasm found in the first load: {files:?}"
    );
}
