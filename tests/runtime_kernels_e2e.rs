//! The page's model runtime with ggml's wasm SIMD kernels (scripts/lib/build_runtime.py): each
//! kernel put in is checked against the generic kernel wllama shipped, in headless Chromium,
//! on random blocks of every type it handles. The build script's harness is the runtime as
//! shipped in dist/, with the shipped kernels kept beside the new ones and both exported
//! (scripts/lib/splice_kernels.py); tests/kernels/check.js feeds both the same blocks.
//!
//! `REACT_ARENA_RUNTIME` names the build script's output folder (default: target/runtime;
//! tests/support/kernels.rs serves it).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use serde_json::Value;
use support::browser::browser_test;
use support::kernels::run_check_page;

#[test]
fn every_simd_kernel_gives_what_the_shipped_kernel_gives() {
    browser_test(|rig| async move {
        let results = &run_check_page(&rig, "").await;
        eprintln!("{results}");

        // Activations: the same scales; integers equal except where x/d is exactly halfway
        // (the fix rounds half to even, the shipped reference half away from zero).
        for kind in ["q8_0", "q8_1", "q8_K"] {
            let quantize = &results["quantize"][kind];
            assert!(
                quantize["values"].as_u64().unwrap() >= 60_000,
                "{kind}: {quantize}"
            );
            assert_eq!(
                quantize["scale_differs"], 0,
                "{kind}: scales differ: {quantize}"
            );
            assert_eq!(
                quantize["off_tie"], 0,
                "{kind}: values differ off a tie: {quantize}"
            );
            assert_eq!(
                quantize["sum_differs"], 0,
                "{kind}: block sums differ: {quantize}"
            );
        }
        // Dot products: equal up to float32 summation order, on every weight type replaced.
        let dots = results["dot"].as_object().unwrap();
        let names: Vec<&str> = dots.keys().map(String::as_str).collect();
        for name in [
            "ggml_vec_dot_q4_0_q8_0",
            "ggml_vec_dot_q4_1_q8_1",
            "ggml_vec_dot_q5_0_q8_0",
            "ggml_vec_dot_q5_1_q8_1",
            "ggml_vec_dot_q8_0_q8_0",
            "ggml_vec_dot_q2_K_q8_K",
            "ggml_vec_dot_q3_K_q8_K",
            "ggml_vec_dot_q4_K_q8_K",
            "ggml_vec_dot_q5_K_q8_K",
            "ggml_vec_dot_q6_K_q8_K",
        ] {
            let dot: &Value = &dots[name];
            assert!(names.contains(&name), "{name} was not checked");
            assert_eq!(dot["trials"], 200, "{name}: {dot}");
            assert!(dot["nonzero"].as_u64().unwrap() >= 190, "{name}: {dot}");
            assert_eq!(dot["failures"], 0, "{name}: {dot}");
            assert_eq!(dot["overruns"], 0, "{name}: wrote past its output: {dot}");
        }
        // The Q5_0, Q6_K and Q4_K kernels also take two rows against two columns (reading a
        // prompt), and the runtime's type table asks them to: the four results equal the
        // shipped kernel's.
        for name in [
            "ggml_vec_dot_q5_0_q8_0",
            "ggml_vec_dot_q6_K_q8_K",
            "ggml_vec_dot_q4_K_q8_K",
        ] {
            let two = &results["two_by_two"][name];
            assert_eq!(two["trials"], 100, "{name}: {two}");
            assert_eq!(two["failures"], 0, "{name}: {two}");
            assert_eq!(two["overruns"], 0, "{name}: wrote past its output: {two}");
            assert_eq!(
                two["untouched"], true,
                "{name}: wrote outside its four results: {two}"
            );
        }
    });
}
