//! The Evaluate view as its own wasm module: the arena page imports it the first time the view
//! opens (`ui/evaluate_host.rs`), so the page's first load does not carry it.

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn mount_evaluation(root: web_sys::HtmlElement, bridge: wasm_bindgen::JsValue) {
    react_arena::ui::mount_evaluation(root, bridge);
}

fn main() {}
