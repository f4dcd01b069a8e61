//! Leptos components (wasm32 only). They render state and dispatch user intent; decisions
//! live in `agent`, `settings` and `llm`.

mod app;
mod app_context;
mod arena;
mod blind_vote;
mod comparison;
mod copy_button;
mod embed_code;
mod evaluate;
mod host_confirm;
mod hub;
mod leaderboard;
mod mode_tabs;
mod panel;
mod panels;
mod panels_in_view;
pub mod part_views;
pub mod parts;
mod phone_tabs;
mod question_bar;
mod runner;
mod runs;
mod settings;
mod shortcut_keys;
mod turn_driver;
mod welcome;

pub use app::App;
pub use evaluate::mount as mount_evaluation;
