//! Reads a file the user chose (an `<input type="file">`'s file) as text.

use wasm_bindgen_futures::JsFuture;

/// The file's text; `None` when the browser could not read it as text.
pub async fn read_text(file: &web_sys::File) -> Option<String> {
    JsFuture::from(file.text())
        .await
        .ok()
        .and_then(|t| t.as_string())
}
