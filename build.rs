//! The page's wasm keeps its relocations: scripts/lib/split_page.py needs them to cut the
//! page's split points (src/split_points.rs: the parts, the engine, Markdown) into chunks of their
//! own. Only the page's module: the Evaluate module is not split, and relocations would stay in
//! it as dead weight.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-bin=react-arena=--emit-relocs");
    }
}
