//! ReAct Arena: four LLM agent modes streaming side by side in the browser.
//!
//! The pure core is its own crate (`arena-core`, re-exported here under the same paths), and so
//! are the browser adapters (`arena-web`, re-exported as `web`); this crate adds the Leptos
//! components (`ui`). The views and the adapters exist only on wasm32.

pub use arena_core::{
    agent, browser_model, dates, draw_budget, edited_prompts, evaluation, export, follow,
    hidden_text, history, hub, kept_secrets, leaderboard, live_lines, llm, markdown,
    markdown_blocks, mcp, origin, page_params, panel_lines, progress, recordings, run_file,
    run_limits, run_setup, seeded, settings, shortcuts, token_trust, tools, turn_request,
};

#[cfg(target_arch = "wasm32")]
pub mod ui;
#[cfg(target_arch = "wasm32")]
pub use arena_web as web;
