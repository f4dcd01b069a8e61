//! ReAct Arena's browser layer: the thin adapters over every browser API the app calls for
//! something other than drawing. Fetch (the model endpoint, the tools' web APIs, `/models`,
//! Pyodide's files), timers, storage, IndexedDB, the clipboard, downloads, sandboxed frames,
//! the Python worker, JSONP, deflate, and the loading of the engine's, the built-in tools'
//! and the Markdown parser's chunks and of the Evaluate module. The logic they serve is pure and lives in
//! `arena-core`, tested on the host; the views live in the app crate and this crate renders
//! nothing (no Leptos in its dependency tree: scripts/test, stage web-has-no-views).
//!
//! Only meaningful on wasm32: on any other target the crate is empty, so host runs over the
//! workspace (tests, clippy) pass over it.

#![cfg(target_arch = "wasm32")]

pub mod agent_engine;
pub mod args_chunk;
pub mod browser_model;
pub mod clipboard;
pub mod clock;
pub mod counted_fetch;
pub mod deflate;
pub mod download;
pub mod engine;
pub mod eval_store;
pub mod evaluate_loader;
pub mod fetch;
pub mod file_read;
pub mod hub_fetch;
pub mod idb;
pub mod jsonp;
pub mod markdown_chunk;
pub mod mcp_chunk;
pub mod mcp_fetch;
pub mod mcp_tools;
pub mod memory_probe;
pub mod model_info;
pub mod page_file;
pub mod parent_height;
pub mod program_chunk;
pub mod program_tools;
pub mod python_worker;
pub mod read_body;
pub mod run_store;
pub mod sandbox_frame;
pub mod stoppable_tools;
pub mod storage;
pub mod timer;
pub mod tool_chunk;
pub mod tool_fetch;
