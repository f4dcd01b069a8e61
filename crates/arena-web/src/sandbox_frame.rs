//! The hidden `<iframe sandbox="allow-scripts">` that third-party and untrusted code runs in
//! (search answers, Python): an opaque origin that cannot read the app's storage, cookies or
//! DOM, and whose messages are told apart from everyone else's.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlIFrameElement, MessageEvent, Window};

/// A hidden sandboxed frame for `page`, not yet attached (listen first, then attach).
pub fn sandboxed_frame(page: &str, class: &str) -> Result<HtmlIFrameElement, String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let frame: HtmlIFrameElement = document
        .create_element("iframe")
        .map_err(|_| "cannot create a frame")?
        .unchecked_into();
    let _ = frame.set_attribute("sandbox", "allow-scripts");
    // The frame's `document.referrer` would be this page's address, with its `?q=` question.
    let _ = frame.set_attribute("referrerpolicy", "no-referrer");
    let _ = frame.set_attribute("hidden", "");
    let _ = frame.set_attribute("class", class);
    if under_embedding_policy() {
        let _ = frame.set_attribute("credentialless", "");
    }
    frame.set_src(page);
    Ok(frame)
}

/// Whether this page may frame only documents that agree to its embedding policy: it was
/// loaded through its isolation worker (COEP credentialless; cross-origin isolated, or not
/// when embedded in a page of the same site). A sandboxed frame is then framed credentialless
/// (no cookies, its own short-lived storage), which that policy allows whatever headers the
/// frame's document comes with. Otherwise it is framed as usual, and keeps its cache.
fn under_embedding_policy() -> bool {
    let global = js_sys::global();
    let get = |on: &JsValue, key: &str| js_sys::Reflect::get(on, &key.into()).ok();
    get(&global, "crossOriginIsolated").and_then(|v| v.as_bool()) == Some(true)
        || get(&global, "navigator")
            .and_then(|n| get(&n, "serviceWorker"))
            .filter(|c| !c.is_undefined())
            .and_then(|c| get(&c, "controller"))
            .is_some_and(|w| w.is_object())
}

pub fn attach(frame: &HtmlIFrameElement) -> Result<(), String> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
        .ok_or("no body")?
        .append_child(frame)
        .map(|_| ())
        .map_err(|_| "cannot attach the frame".into())
}

/// Whether `event` comes from this frame's window, at an opaque origin ("null").
pub fn is_from(window: &Window, event: &MessageEvent) -> bool {
    event
        .source()
        .is_some_and(|from| JsValue::from(window.clone()) == JsValue::from(from))
        && event.origin() == "null"
}
