//! The page's wasm keeps its relocations: scripts/lib/split_page.py needs them to cut the
//! page's split point (src/split_points.rs) into a chunk of its own. Only the page: the engine
//! and Evaluate modules are not split, and relocations would stay in them as dead weight.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-bin=react-arena=--emit-relocs");
    }
}
