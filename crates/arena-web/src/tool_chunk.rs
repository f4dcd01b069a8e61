//! The built-in tools' code, a split point of the page's module (`src/split_points.rs`): a run
//! lists its tools to the model from their specs, sends its first request, and only then is
//! this chunk fetched (`after_model_request`), so the first request does not wait for it and
//! the first call finds it here. A call that comes before it has arrived waits for it
//! (`arena_core::tools::deferred`).

use std::cell::Cell;
use std::rc::Rc;

use arena_core::tools::deferred::LoadTools;
use arena_core::tools::endpoints::ToolEndpoints;
use arena_core::tools::registry::{built_in_tools, ToolEnv};
use arena_core::tools::{FailureKind, Tool, ToolFailure};
use wasm_bindgen_futures::spawn_local;

use crate::engine::{ChunkMissing, Fetching};
use crate::jsonp::FrameJsonp;
use crate::python_worker::WorkerPython;
use crate::tool_fetch::BrowserHttp;

/// Time limit of one web request of a tool, and of one JSONP search.
const TOOL_TIMEOUT_SECS: u32 = 15;

/// What a run's built-in tools are made from: plain data, so that what they talk to (fetch,
/// the search frame, the Python worker) is made in the chunk too.
pub struct ToolsWanted {
    pub enabled: Vec<String>,
    pub endpoints: ToolEndpoints,
    pub python_timeout_secs: u32,
}

/// What fetches the chunk and makes the tools: given by the page's binary (the split point),
/// or by a module that links the tools directly ([`made_here`]).
pub type FetchTools = fn(ToolsWanted) -> Fetching<Vec<Box<dyn Tool>>>;

thread_local! {
    static FETCH: Cell<Option<FetchTools>> = const { Cell::new(None) };
    /// A run with built-in tools is under way: its first request's leaving fetches the chunk.
    static WANTED: Cell<bool> = const { Cell::new(false) };
    /// The chunk was asked for once (the browser keeps it after).
    static ASKED: Cell<bool> = const { Cell::new(false) };
}

pub fn install(fetch: FetchTools) {
    FETCH.with(|f| f.set(Some(fetch)));
}

/// The tools made here, without a chunk: for a module that links them (Evaluate).
pub fn made_here(wanted: ToolsWanted) -> Fetching<Vec<Box<dyn Tool>>> {
    Box::pin(async move { Ok(make(wanted)) })
}

/// The run's enabled built-in tools and what they talk to: what the chunk's split point calls.
pub fn make(wanted: ToolsWanted) -> Vec<Box<dyn Tool>> {
    let env = ToolEnv {
        http: Rc::new(BrowserHttp {
            timeout_secs: TOOL_TIMEOUT_SECS,
        }),
        jsonp: Rc::new(FrameJsonp {
            timeout_secs: TOOL_TIMEOUT_SECS,
        }),
        python: Rc::new(WorkerPython::new(wanted.endpoints.pyodide.clone())),
        endpoints: wanted.endpoints,
        python_timeout_secs: wanted.python_timeout_secs,
    };
    built_in_tools(&env, |name| wanted.enabled.iter().any(|n| n == name))
}

/// What makes one run's tools when the first is called: `arena_core::tools::deferred`'s loader.
pub fn loader(
    enabled: Vec<String>,
    endpoints: ToolEndpoints,
    python_timeout_secs: u32,
) -> LoadTools {
    if !enabled.is_empty() {
        WANTED.with(|w| w.set(true));
    }
    Box::new(move || {
        let wanted = ToolsWanted {
            enabled: enabled.clone(),
            endpoints: endpoints.clone(),
            python_timeout_secs,
        };
        Box::pin(async move {
            let missing = || ToolFailure::new(FailureKind::Network, TOOLS_MISSING);
            let fetch = FETCH.with(Cell::get).ok_or_else(missing)?;
            ASKED.with(|a| a.set(true));
            fetch(wanted).await.map_err(|ChunkMissing| missing())
        })
    })
}

/// What a call says when the tools' chunk (which holds the arguments check too) cannot be
/// fetched.
pub const TOOLS_MISSING: &str =
    "The tools' part of the page could not be fetched; the call was not made. Check the connection.";

/// A model request has just been sent: a run that may call tools has its chunk fetched now,
/// while the model thinks, and not before (the first request waits for nothing it does not
/// need).
pub fn after_model_request() {
    if !WANTED.with(Cell::get) || ASKED.with(|a| a.replace(true)) {
        return;
    }
    let Some(fetch) = FETCH.with(Cell::get) else {
        return;
    };
    // After the request's own task has yielded: its fetch has been called by then.
    spawn_local(async move {
        let nothing = ToolsWanted {
            enabled: Vec::new(),
            endpoints: ToolEndpoints::default(),
            python_timeout_secs: 0,
        };
        if fetch(nothing).await.is_err() {
            // Asked again at the first call.
            ASKED.with(|a| a.set(false));
        }
    });
}
