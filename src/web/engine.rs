//! The page's side of the agent engine, which is its own wasm module (`src/bin/engine.rs`)
//! imported the first time it is needed: a question written, a run started, or Markdown to
//! draw (`engine_loader.js`).

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use crate::agent::AgentEvent;
use crate::progress::Download;
use crate::turn_request::{events_from_json, TurnRequest};

#[wasm_bindgen(module = "/src/web/engine_loader.js")]
extern "C" {
    #[wasm_bindgen(js_name = runTurn)]
    fn run_turn_js(request: String, emit: &Function, signal: &AbortSignal) -> Promise;
    #[wasm_bindgen(js_name = prefetchEngine)]
    fn prefetch_engine();
    #[wasm_bindgen(js_name = pythonDownload)]
    fn python_download_js() -> String;
    #[wasm_bindgen(js_name = engineLoaded)]
    fn engine_loaded() -> bool;
    #[wasm_bindgen(js_name = whenEngineLoaded)]
    fn when_engine_loaded() -> Promise;
    #[wasm_bindgen(js_name = markdownHtml)]
    fn markdown_html_js(text: &str, origin: &str) -> Option<String>;
    #[wasm_bindgen(js_name = markdownBlockStarts)]
    fn markdown_block_starts_js(text: &str) -> Option<Vec<u32>>;
}

/// Starts loading the engine, so a run started soon does not wait for it.
pub fn prefetch() {
    prefetch_engine();
}

pub fn is_loaded() -> bool {
    engine_loaded()
}

/// Loads the engine if it is not yet; `Err` with the reason when it cannot be loaded.
pub async fn load() -> Result<(), String> {
    JsFuture::from(when_engine_loaded())
        .await
        .map(|_| ())
        .map_err(|e| reason(&e))
}

/// Model or tool text as HTML that runs nothing (`markdown::render_markdown`); `None` until
/// the engine is loaded.
pub fn markdown_html(text: &str, page_origin: &str) -> Option<String> {
    markdown_html_js(text, page_origin)
}

/// Where the settled blocks of a growing text start (`markdown_blocks::settled_block_starts`);
/// `None` until the engine is loaded.
pub fn markdown_block_starts(text: &str) -> Option<Vec<usize>> {
    markdown_block_starts_js(text).map(|starts| starts.into_iter().map(|i| i as usize).collect())
}

fn reason(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// Runs one turn in the engine; `on_event` hears each of its events. `Err` when the engine
/// could not be loaded or could not read the request: no event was sent then.
pub async fn run_turn(
    request: &TurnRequest,
    signal: &AbortSignal,
    mut on_event: impl FnMut(AgentEvent) + 'static,
) -> Result<(), String> {
    let emit = Closure::<dyn FnMut(String)>::new(move |json: String| {
        events_from_json(&json).into_iter().for_each(&mut on_event);
    });
    let done = JsFuture::from(run_turn_js(
        request.to_json(),
        emit.as_ref().unchecked_ref(),
        signal,
    ))
    .await;
    // The engine sends nothing after its promise settles, so the callback can go.
    drop(emit);
    done.map(|_| ()).map_err(|e| {
        format!(
            "The agent engine could not start ({}). Check the connection and press Run again.",
            reason(&e)
        )
    })
}

/// How much of Pyodide the engine has fetched (`None` before any download, or before the
/// engine is loaded).
pub fn python_download() -> Option<Download> {
    serde_json::from_str(&python_download_js()).ok().flatten()
}
