//! Fetches a file into a Blob while counting its bytes as they arrive, so a long download
//! can show how far it got.

use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, ReadableStreamDefaultReader, Response};

/// GETs `url` and returns its body as a Blob of the response's content type; `on_bytes` is
/// called with the size of each chunk as it arrives.
pub async fn fetch_counted(url: &str, mut on_bytes: impl FnMut(u64)) -> Result<Blob, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response: Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|_| format!("{url} could not be fetched"))?
        .unchecked_into();
    if !response.ok() {
        return Err(format!("{url} answered HTTP {}", response.status()));
    }
    let unreadable = || format!("{url} could not be read");
    let body = response.body().ok_or_else(unreadable)?;
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let parts = Array::new();
    loop {
        let chunk = JsFuture::from(reader.read())
            .await
            .map_err(|_| unreadable())?;
        let done = Reflect::get(&chunk, &JsValue::from_str("done"))
            .map(|d| d.is_truthy())
            .unwrap_or(true);
        if done {
            break;
        }
        let value: Uint8Array = Reflect::get(&chunk, &JsValue::from_str("value"))
            .map_err(|_| unreadable())?
            .dyn_into()
            .map_err(|_| unreadable())?;
        on_bytes(u64::from(value.length()));
        parts.push(&value);
    }
    // Module scripts and wasm are checked by their type: the Blob keeps the server's.
    let options = BlobPropertyBag::new();
    if let Ok(Some(kind)) = response.headers().get("content-type") {
        options.set_type(&kind);
    }
    Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(|_| unreadable())
}
