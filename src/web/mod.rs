//! Every browser API the app uses lives here: fetch (the model endpoint, the tools' web APIs,
//! `/models`, Pyodide's files), timers, storage, IndexedDB, the clipboard, sandboxed frames,
//! the Python worker and JSONP. The agent and the components reach the browser only through
//! these thin adapters, so everything else stays pure and tested on the host.

pub mod agent_engine;
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
pub mod idb;
pub mod jsonp;
pub mod markdown_chunk;
pub mod memory_probe;
pub mod model_info;
pub mod page_file;
pub mod parent_height;
pub mod python_worker;
pub mod read_body;
pub mod run_store;
pub mod sandbox_frame;
pub mod stoppable_tools;
pub mod storage;
pub mod timer;
pub mod tool_fetch;
