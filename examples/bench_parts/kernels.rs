//! Each kernel the runtime build put in (scripts/lib/build_runtime.py), timed in headless
//! Chromium beside the generic kernel wllama shipped, both in the page's own wasm (the build's
//! harness: the shipped runtime with both kept and exported): a 4096×4096 quantised mat-vec on
//! one thread, best of 5 (tests/kernels/check.js, `?bench`); for a kernel that also takes two
//! rows against two columns, a two-column product both ways.

use serde_json::Value;

use crate::support::browser::Rig;
use crate::support::kernels::run_check_page;

pub async fn kernels(rig: &Rig) -> Value {
    run_check_page(rig, "?bench").await
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
    let two: Vec<_> = figures
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(weights, f)| Some((weights, f.get("simd_two_columns_ms")?)))
        .collect();
    if !two.is_empty() {
        println!(
            "\nreading a prompt: two columns, SIMD kernel, ms per 4096² (rows and columns one at a time, two by two)"
        );
        for (weights, f) in two {
            let single = f["one_by_one"].as_f64().unwrap_or(f64::NAN);
            let pairs = f["two_by_two"].as_f64().unwrap_or(f64::NAN);
            println!(
                "{weights:<8} {single:>10.2} {pairs:>10.2} {:>7.1}x",
                single / pairs
            );
        }
    }
}
