//! Evaluations in IndexedDB, through `eval_idb.js`: specs, results as they arrive (so a
//! stopped or reloaded evaluation resumes where it was) and each run's record.

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::idb::Refusal;

#[wasm_bindgen(module = "/src/web/eval_idb.js")]
extern "C" {
    #[wasm_bindgen(js_name = putSpec)]
    fn put_spec_js(id: &str, spec_json: &str) -> Promise;
    #[wasm_bindgen(js_name = specs)]
    fn specs_js() -> Promise;
    #[wasm_bindgen(js_name = putResult)]
    fn put_result_js(id: &str, job: &str, result_json: &str, record_json: &str) -> Promise;
    #[wasm_bindgen(js_name = results)]
    fn results_js(id: &str) -> Promise;
    #[wasm_bindgen(js_name = record)]
    fn record_js(id: &str, job: &str) -> Promise;
    #[wasm_bindgen(js_name = deleteEvaluation)]
    fn delete_evaluation_js(id: &str) -> Promise;
}

async fn settle(promise: Promise) -> Result<JsValue, Refusal> {
    JsFuture::from(promise).await.map_err(Refusal::from)
}

fn strings(all: JsValue) -> Vec<String> {
    Array::from(&all)
        .iter()
        .filter_map(|v| v.as_string())
        .collect()
}

pub async fn put_spec(id: &str, spec_json: &str) -> Result<(), Refusal> {
    settle(put_spec_js(id, spec_json)).await.map(|_| ())
}

/// Every kept evaluation's spec (JSON text).
pub async fn specs() -> Result<Vec<String>, Refusal> {
    settle(specs_js()).await.map(strings)
}

/// Keeps a run's result and its record together.
pub async fn put_result(
    id: &str,
    job: &str,
    result_json: &str,
    record_json: &str,
) -> Result<(), Refusal> {
    settle(put_result_js(id, job, result_json, record_json))
        .await
        .map(|_| ())
}

/// Every result of evaluation `id` (JSON text).
pub async fn results(id: &str) -> Result<Vec<String>, Refusal> {
    settle(results_js(id)).await.map(strings)
}

/// The record of one run, if kept.
pub async fn record(id: &str, job: &str) -> Result<Option<String>, Refusal> {
    settle(record_js(id, job)).await.map(|v| v.as_string())
}

pub async fn delete_evaluation(id: &str) -> Result<(), Refusal> {
    settle(delete_evaluation_js(id)).await.map(|_| ())
}
