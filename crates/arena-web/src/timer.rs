//! A sleep on the browser's event loop, for time limits, and the clock that times them.

use js_sys::Promise;
use wasm_bindgen_futures::JsFuture;

/// Milliseconds on the page's clock, for durations (`performance.now()`; the wall clock where
/// there is none).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// Resolves after `ms` milliseconds.
pub async fn sleep(ms: u32) {
    let promise = Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ =
                window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Resolves at the next animation frame, or after `at_most_ms` if no frame comes first (a
/// hidden tab draws none).
pub async fn next_frame(at_most_ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.request_animation_frame(&resolve);
            let _ =
                window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, at_most_ms);
        }
    });
    let _ = JsFuture::from(promise).await;
}
