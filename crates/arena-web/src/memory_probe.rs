//! For scripts/bench: a module's wasm memory, where the runs' state lives, under a global
//! name the bench reads. Each module that calls it names its own memory.

pub fn expose_memory(global: &str) {
    if let Some(window) = web_sys::window() {
        let _ = js_sys::Reflect::set(&window, &global.into(), &wasm_bindgen::memory());
    }
}
