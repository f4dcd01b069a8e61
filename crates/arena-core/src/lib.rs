//! ReAct Arena's pure core: everything the page does that needs no browser. The agent loops
//! and the run record (`agent`), the model's wire format (`llm`), the tools' requests and
//! answers (`tools`), evaluation, and the page's pure logic (its address, run files, history,
//! Markdown). The compiler keeps it pure: no web-sys, js-sys, wasm-bindgen, gloo or leptos is
//! in its dependency tree (`scripts/test` checks), so all of it is tested on the host.

pub mod agent;
pub mod bradley_terry;
pub mod browser_model;
pub mod dates;
pub mod draw_budget;
pub mod edited_prompts;
pub mod evaluation;
pub mod export;
pub mod follow;
pub mod hidden_text;
pub mod history;
pub mod hub;
pub mod kept_secrets;
pub mod leaderboard;
pub mod live_lines;
pub mod llm;
pub mod markdown;
pub mod markdown_blocks;
pub mod mcp;
pub mod origin;
pub mod page_params;
pub mod panel_lines;
pub mod progress;
pub mod recordings;
pub mod run_file;
pub mod run_limits;
pub mod run_setup;
pub mod seeded;
pub mod settings;
pub mod shortcuts;
pub mod token_trust;
pub mod tools;
pub mod turn_queue;
pub mod turn_request;
