//! Opens the Evaluate view, which is its own wasm module loaded on first use
//! (`evaluate_loader.js`).

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/evaluate_loader.js")]
extern "C" {
    /// Loads and mounts the view the first time; does nothing after.
    #[wasm_bindgen(js_name = openEvaluate)]
    pub fn open_evaluate();
}
