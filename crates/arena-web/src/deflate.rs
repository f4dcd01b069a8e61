//! Deflate (raw) by the browser's own CompressionStream: a run carried in the page's address
//! is compressed with no code of ours in the bundle. Inflating stops at a size cap while it
//! streams, so a small fragment cannot make the page hold a huge text.

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, ReadableWritablePair, Response};

use crate::read_body::read_capped;

// web-sys has these only behind its unstable-API flag; each is a {readable, writable} pair.
#[wasm_bindgen]
extern "C" {
    type CompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<CompressionStream, JsValue>;

    type DecompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<DecompressionStream, JsValue>;
}

const FORMAT: &str = "deflate-raw";

fn blob_of(part: &JsValue) -> Result<Blob, String> {
    Blob::new_with_u8_array_sequence(&Array::of1(part)).map_err(|_| "the browser refused".into())
}

/// `text` deflated (raw, no header).
pub async fn deflate(text: &str) -> Result<Vec<u8>, String> {
    let fail = |_: JsValue| "the browser could not compress the run".to_string();
    let bytes = Uint8Array::from(text.as_bytes());
    let squeeze = CompressionStream::new(FORMAT).map_err(fail)?;
    let pair: &ReadableWritablePair = squeeze.unchecked_ref();
    let stream = blob_of(&bytes)?.stream().pipe_through(pair);
    let response = Response::new_with_opt_readable_stream(Some(&stream)).map_err(fail)?;
    let buffer = JsFuture::from(response.array_buffer().map_err(fail)?)
        .await
        .map_err(fail)?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// The text `bytes` inflate to, if it is at most `max_bytes` long.
pub async fn inflate(bytes: &[u8], max_bytes: usize) -> Result<String, String> {
    let fail = |_: JsValue| "the browser could not decompress it".to_string();
    let unsqueeze = DecompressionStream::new(FORMAT).map_err(fail)?;
    let pair: &ReadableWritablePair = unsqueeze.unchecked_ref();
    let stream = blob_of(&Uint8Array::from(bytes))?
        .stream()
        .pipe_through(pair);
    let body = read_capped(Some(stream.unchecked_into()), max_bytes)
        .await
        .map_err(|_| "it is not a compressed run".to_string())?;
    if body.cut {
        return Err(format!(
            "it inflates to more than {} MB",
            max_bytes / (1024 * 1024)
        ));
    }
    Ok(body.text)
}
