//! When the page is framed (an embed in a docs page), it tells the parent its content height,
//! `{type: "react-arena:height", height}`, each time it changes, so the parent can size the
//! iframe with no scrollbar. The height is the body's own (never the viewport's), so the
//! parent resizing the frame cannot make it change again: no resize loop.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::prelude::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::ResizeObserver;

pub const HEIGHT_MESSAGE: &str = "react-arena:height";

/// Starts posting the height to the parent; does nothing when the page is not framed.
pub fn post_height_to_parent() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    if js_sys::Object::is(&parent, &window) {
        return;
    }
    let Some(body) = window.document().and_then(|d| d.body()) else {
        return;
    };
    let last = Rc::new(Cell::new(-1));
    let measured = body.clone();
    let post = Closure::<dyn FnMut()>::new(move || {
        let height = measured.offset_height();
        if height == last.get() {
            return;
        }
        last.set(height);
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &HEIGHT_MESSAGE.into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &JsValue::from(height));
        // "*": the height is not a secret, and the parent may be any docs site.
        let _ = parent.post_message(&message, "*");
    });
    if let Ok(observer) = ResizeObserver::new(post.as_ref().unchecked_ref()) {
        observer.observe(&body);
    }
    // The observer lives as long as the page.
    post.forget();
}
