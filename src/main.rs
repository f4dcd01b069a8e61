#[cfg(target_arch = "wasm32")]
fn main() {
    leptos::mount::mount_to_body(react_arena::ui::App);
    // For scripts/bench: when the page became usable, and the wasm memory (where the runs'
    // state lives) to measure.
    if let Some(window) = web_sys::window() {
        if let Some(performance) = window.performance() {
            let _ = performance.mark("app-interactive");
        }
        let _ = js_sys::Reflect::set(
            &window,
            &"reactArenaWasmMemory".into(),
            &wasm_bindgen::memory(),
        );
    }
}

// The binary is only meaningful in the browser; on the host `cargo test` builds the library.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}
