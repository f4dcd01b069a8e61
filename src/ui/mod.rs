//! Leptos components (wasm32 only). They render state and dispatch user intent; decisions
//! live in `agent`, `settings` and `llm`.

mod app;
mod clipboard;
mod comparison;
mod copy_button;
mod counted_fetch;
mod follow_scroll;
mod frame_batch;
mod history;
mod host_confirm;
mod idb;
mod inspect;
mod jsonp;
mod keep;
mod markdown_view;
mod model_info;
mod panel;
mod progress_line;
mod python_worker;
mod question_bar;
mod replay_player;
mod run_files;
mod runner;
mod sandbox_frame;
mod settings_panel;
mod shortcut_keys;
mod stoppable_tools;
mod storage;
mod tool_fetch;
mod tools_settings;

pub use app::App;
