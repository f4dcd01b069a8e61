#[cfg(target_arch = "wasm32")]
fn main() {
    leptos::mount::mount_to_body(react_arena::ui::App);
}

// The binary is only meaningful in the browser; on the host `cargo test` builds the library.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}
