//! `JsonpClient` for the browser. A JSONP answer is a third-party script; it runs only inside a
//! fresh `<iframe sandbox="allow-scripts">` (no `allow-same-origin`, so its origin is opaque:
//! it cannot read the app's storage, cookies or DOM). The frame (`public/search-frame.html`)
//! says it is ready, gets the URL by message (never in its own URL, which anyone could link
//! to), loads the script and posts the JSON back; one frame per call, removed afterwards.

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::oneshot;
use futures::future::{select, Either, LocalBoxFuture};
use js_sys::{Object, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlIFrameElement, MessageEvent};

use super::sandbox_frame::{attach, is_from, sandboxed_frame};
use crate::timer::sleep;
use arena_core::tools::http::FetchError;
use arena_core::tools::web_search::JsonpClient;

pub struct FrameJsonp {
    pub timeout_secs: u32,
}

/// What the frame posted: the JSON text, or why there is none.
type FrameReply = Result<String, String>;

impl JsonpClient for FrameJsonp {
    fn get<'a>(&'a self, url: &'a str) -> LocalBoxFuture<'a, Result<String, FetchError>> {
        Box::pin(async move {
            let frame = open_frame().map_err(FetchError::Network)?;
            let (sender, receiver) = oneshot::channel::<FrameReply>();
            let sender = Rc::new(RefCell::new(Some(sender)));
            let source = frame.content_window();
            let listener = {
                let sender = sender.clone();
                let url = url.to_string();
                Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                    // Only this call's sandboxed frame may answer it.
                    let Some(own) = source.as_ref() else { return };
                    if !is_from(own, &event) {
                        return;
                    }
                    let data = event.data();
                    if is_ready(&data) {
                        // An opaque origin cannot be named as the target: the window is ours.
                        let _ = own.post_message(&url_message(&url), "*");
                    } else if let Some(tx) = sender.borrow_mut().take() {
                        let _ = tx.send(read_reply(&data));
                    }
                })
            };
            let window =
                web_sys::window().ok_or_else(|| FetchError::Network("no window".into()))?;
            let _ = window
                .add_event_listener_with_callback("message", listener.as_ref().unchecked_ref());
            let outcome = select(
                receiver,
                Box::pin(sleep(self.timeout_secs.saturating_mul(1000))),
            )
            .await;
            let _ = window
                .remove_event_listener_with_callback("message", listener.as_ref().unchecked_ref());
            frame.remove();
            match outcome {
                Either::Left((Ok(Ok(json)), _)) => Ok(json),
                Either::Left((Ok(Err(reason)), _)) => Err(FetchError::Network(reason)),
                Either::Left((Err(_), _)) => {
                    Err(FetchError::Network("the search frame closed".into()))
                }
                Either::Right(_) => Err(FetchError::Timeout {
                    seconds: self.timeout_secs,
                }),
            }
        })
    }
}

/// A hidden sandboxed frame; it asks for its URL once it has loaded.
fn open_frame() -> Result<HtmlIFrameElement, String> {
    let frame = sandboxed_frame("search-frame.html", "search-frame")?;
    attach(&frame)?;
    Ok(frame)
}

fn is_ready(data: &JsValue) -> bool {
    Reflect::get(data, &JsValue::from_str("ready"))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

fn url_message(url: &str) -> JsValue {
    let message = Object::new();
    let _ = Reflect::set(&message, &JsValue::from_str("url"), &JsValue::from_str(url));
    message.into()
}

/// The frame posts `{json: "…"}` or `{error: "…"}`; anything else is refused.
fn read_reply(data: &JsValue) -> FrameReply {
    let field = |name: &str| {
        Reflect::get(data, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_string())
    };
    match (field("json"), field("error")) {
        (Some(json), _) => Ok(json),
        (None, Some(error)) => Err(error.chars().take(200).collect()),
        _ => Err("the search frame sent an unreadable answer".into()),
    }
}
