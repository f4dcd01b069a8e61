//! What the page asks the agent engine to run: one turn of one panel. The engine (the loop,
//! the model client and the tools) is a chunk of the page's module fetched the first time a
//! run starts; the request is handed to it as it is, and its events come back one by one.

use crate::agent::record::RunRecord;
use crate::agent::run::{Next, RunOptions};
use crate::settings::Settings;

#[derive(Debug, Clone, PartialEq)]
pub struct TurnRequest {
    /// The run so far; the turn goes on from it.
    pub record: RunRecord,
    pub next: Next,
    /// The settings the run started with (base URL, tools, their endpoints, time limits).
    pub settings: Settings,
    /// Sent to the model endpoint only, never to a tool.
    pub token: String,
    pub options: RunOptions,
    /// The run's tools (their cache, the Wikipedia page last read, the Python worker) are kept
    /// under this name (the run's id), so Continue and follow-ups go on with them.
    pub tools_key: String,
}
