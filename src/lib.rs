//! ReAct Arena: three LLM agent modes streaming side by side in the browser.
//!
//! Everything but `ui` (the components) and `web` (the browser adapters) is pure and tested on
//! the host; those two exist only on wasm32.

pub mod agent;
pub mod dates;
pub mod draw_budget;
pub mod evaluation;
pub mod export;
pub mod follow;
pub mod hidden_text;
pub mod history;
pub mod live_lines;
pub mod llm;
pub mod markdown;
pub mod markdown_blocks;
pub mod origin;
pub mod page_params;
pub mod progress;
pub mod recordings;
pub mod run_file;
pub mod run_limits;
pub mod settings;
pub mod shortcuts;
pub mod tools;
pub mod turn_request;

#[cfg(target_arch = "wasm32")]
pub mod ui;
#[cfg(target_arch = "wasm32")]
pub mod web;
