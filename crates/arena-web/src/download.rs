//! Hands text to the browser as a file download (exports of runs and evaluations).

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// How long a download's object URL is kept: the browser reads the blob after the click.
const REVOKE_AFTER_MS: i32 = 60_000;

/// Offers `text` as a file called `name` of type `mime`.
pub fn download(name: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let window = web_sys::window().ok_or("no window")?;
    let link: HtmlAnchorElement = window
        .document()
        .ok_or("no document")?
        .create_element("a")?
        .dyn_into()?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    let revoke = wasm_bindgen::closure::Closure::once_into_js(move || {
        let _ = Url::revoke_object_url(&url);
    });
    window.set_timeout_with_callback_and_timeout_and_arguments_0(
        revoke.unchecked_ref(),
        REVOKE_AFTER_MS,
    )?;
    Ok(())
}
