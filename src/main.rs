#[cfg(target_arch = "wasm32")]
fn main() {
    leptos::mount::mount_to_body(react_arena::ui::App);
    // For scripts/bench: when the page became usable.
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark("app-interactive");
    }
}

// The binary is only meaningful in the browser; on the host `cargo test` builds the library.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}
