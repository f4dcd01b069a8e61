//! The Evaluate view as its own wasm module: the arena page imports it the first time the view
//! opens (arena-web's `evaluate_loader.js`), so the page's first load does not carry it.

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn mount_evaluation(root: web_sys::HtmlElement) {
    // This module has no split points: its runs' tools and CodeAct's interpreter are made in it.
    react_arena::web::tool_chunk::install(react_arena::web::tool_chunk::made_here);
    react_arena::web::program_chunk::install(react_arena::web::program_chunk::made_here);
    react_arena::web::args_chunk::install(react_arena::web::args_chunk::made_here);
    react_arena::web::mcp_chunk::install(react_arena::web::mcp_chunk::made_here);
    react_arena::ui::mount_evaluation(root);
}

fn main() {}
