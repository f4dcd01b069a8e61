//! ReAct Arena: three LLM agent modes streaming side by side in the browser.
//!
//! `agent`, `llm` (except its browser transport), `tools` (except fetches) and `markdown` are
//! pure and tested on the host; `ui` and the browser transports exist only on wasm32.

pub mod agent;
pub mod export;
pub mod follow;
pub mod history;
pub mod llm;
pub mod markdown;
pub mod origin;
pub mod progress;
pub mod run_file;
pub mod settings;
pub mod shortcuts;
pub mod tools;

/// The browser's timer, shared by the transports and the UI (wasm32 only).
#[cfg(target_arch = "wasm32")]
pub mod timer;
#[cfg(target_arch = "wasm32")]
pub mod ui;
