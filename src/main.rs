#[cfg(target_arch = "wasm32")]
mod split_points;

#[cfg(target_arch = "wasm32")]
fn main() {
    split_points::install();
    leptos::mount::mount_to_body(react_arena::ui::App);
    // For scripts/bench: when the page became usable, and its memory.
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark("app-interactive");
    }
    react_arena::web::memory_probe::expose_memory("reactArenaWasmMemory");
}

// The binary is only meaningful in the browser; on the host `cargo test` builds the library.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}
