//! Leptos components (wasm32 only). They render state and dispatch user intent; decisions
//! live in `agent`, `settings` and `llm`.

mod app;
mod arena;
mod backend_settings;
mod blind_vote;
mod browser_model_settings;
mod comparison;
mod consent_question;
mod copy_button;
mod embed_code;
mod evaluate;
mod follow_scroll;
mod frame_batch;
mod from_address;
mod history;
mod host_confirm;
mod inspect;
mod keep;
mod kept_secrets;
mod leaderboard;
mod markdown_view;
mod mcp_servers;
mod panel;
mod panel_run;
mod panels;
mod panels_in_view;
pub mod part_views;
pub mod parts;
mod progress_line;
mod prompt_settings;
mod question_bar;
mod recording_cards;
mod replay_player;
mod run_files;
mod runner;
mod settings_panel;
mod shortcut_keys;
mod show_file;
mod tools_settings;
mod turn_driver;
mod welcome;

pub use app::App;
pub use evaluate::mount as mount_evaluation;
