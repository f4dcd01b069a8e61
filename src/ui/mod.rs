//! Leptos components (wasm32 only). They render state and dispatch user intent; decisions
//! live in `agent`, `settings` and `llm`.

mod app;
mod markdown_view;
mod panel;
mod question_bar;
mod runner;
mod settings_panel;
mod storage;

pub use app::App;
