//! Kept runs in IndexedDB, through the small module `idb.js`: JSON text in, JSON text out.
//! Errors come back as the browser's name for them (`QuotaExceededError`…) and its message.

use js_sys::{Array, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/src/web/idb.js")]
extern "C" {
    #[wasm_bindgen(js_name = putRun)]
    fn put_run_js(id: &str, file_json: &str, summary_json: &str) -> Promise;
    #[wasm_bindgen(js_name = getRun)]
    fn get_run_js(id: &str) -> Promise;
    #[wasm_bindgen(js_name = deleteRun)]
    fn delete_run_js(id: &str) -> Promise;
    #[wasm_bindgen(js_name = summaries)]
    fn summaries_js() -> Promise;
}

/// Why the browser refused: its error's name and message.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub name: String,
    pub message: String,
}

impl From<JsValue> for Refusal {
    fn from(e: JsValue) -> Self {
        let field = |key: &str| {
            Reflect::get(&e, &JsValue::from_str(key))
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default()
        };
        let name = field("name");
        Refusal {
            name: if name.is_empty() {
                "UnknownError".into()
            } else {
                name
            },
            message: field("message"),
        }
    }
}

async fn settle(promise: Promise) -> Result<JsValue, Refusal> {
    JsFuture::from(promise).await.map_err(Refusal::from)
}

/// Writes a run and its history line together.
pub async fn put_run(id: &str, file_json: &str, summary_json: &str) -> Result<(), Refusal> {
    settle(put_run_js(id, file_json, summary_json))
        .await
        .map(|_| ())
}

/// Starts writing a run without waiting: for the last save as the page goes away.
pub fn put_run_now(id: &str, file_json: &str, summary_json: &str) {
    let _ = put_run_js(id, file_json, summary_json);
}

/// A kept run's file, if it is there.
pub async fn get_run(id: &str) -> Result<Option<String>, Refusal> {
    settle(get_run_js(id)).await.map(|v| v.as_string())
}

pub async fn delete_run(id: &str) -> Result<(), Refusal> {
    settle(delete_run_js(id)).await.map(|_| ())
}

/// Every kept run's history line (JSON text), in no particular order.
pub async fn summaries() -> Result<Vec<String>, Refusal> {
    let all = settle(summaries_js()).await?;
    Ok(Array::from(&all)
        .iter()
        .filter_map(|v| v.as_string())
        .collect())
}
