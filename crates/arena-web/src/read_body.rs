//! Reads a fetch response body through its `ReadableStream` with a size cap: bytes are
//! counted as they come, reading is cancelled at the cap, the text is decoded leniently.
//! Every body of the model endpoint, `/models` and the tools' web APIs is read this way, so no
//! response can make the page hold an unbounded body (`response.text()` would).

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStream, ReadableStreamDefaultReader};

pub use arena_core::llm::body::BodyText;
use arena_core::llm::body::CappedBody;

/// Reads at most `cap` bytes of `body` (`None`: a response without a body, read as empty).
/// Errs with the browser's message when the connection breaks or the request is aborted.
pub async fn read_capped(body: Option<ReadableStream>, cap: usize) -> Result<BodyText, String> {
    let mut capped = CappedBody::new(cap);
    let Some(body) = body else {
        return Ok(capped.into_text());
    };
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    while let Some(bytes) = next_chunk(&reader).await? {
        if !capped.push(&bytes) {
            // The rest is not wanted: stop the download instead of draining it.
            let _ = reader.cancel();
            break;
        }
    }
    Ok(capped.into_text())
}

/// The next chunk of a body being read; `None` once it has ended. Errs with the browser's
/// message when the connection breaks or the request is aborted.
pub async fn next_chunk(reader: &ReadableStreamDefaultReader) -> Result<Option<Vec<u8>>, String> {
    let chunk = JsFuture::from(reader.read())
        .await
        .map_err(|e| js_error_text(&e))?;
    let done = Reflect::get(&chunk, &JsValue::from_str("done"))
        .ok()
        .and_then(|d| d.as_bool())
        .unwrap_or(true);
    if done {
        return Ok(None);
    }
    // A chunk without a value carries nothing.
    Ok(Some(
        Reflect::get(&chunk, &JsValue::from_str("value"))
            .map(|value| Uint8Array::new(&value).to_vec())
            .unwrap_or_default(),
    ))
}

/// A thrown JS value as a short message.
pub fn js_error_text(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the connection broke".into())
}
