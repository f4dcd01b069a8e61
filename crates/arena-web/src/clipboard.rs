//! The system clipboard (`navigator.clipboard.writeText`), reached through `Reflect` so the
//! build needs no extra web-sys features.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Puts `text` on the clipboard; the error says why not (no clipboard, permission refused).
pub async fn copy_text(text: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let get = |target: &JsValue, name: &str| Reflect::get(target, &JsValue::from_str(name)).ok();
    let clipboard = get(&window, "navigator")
        .and_then(|n| get(&n, "clipboard"))
        .filter(|c| !c.is_undefined() && !c.is_null())
        .ok_or("this browser offers no clipboard here (it needs https or localhost)")?;
    let write: Function = get(&clipboard, "writeText")
        .and_then(|f| f.dyn_into().ok())
        .ok_or("this browser cannot write text to the clipboard")?;
    let promise: Promise = write
        .call1(&clipboard, &JsValue::from_str(text))
        .map_err(|_| "the clipboard refused the text".to_string())?
        .dyn_into()
        .map_err(|_| "the clipboard gave no answer".to_string())?;
    JsFuture::from(promise)
        .await
        .map(|_| ())
        .map_err(|_| "the browser did not allow copying".to_string())
}
