//! A sleep on the browser's event loop, for time limits.

use js_sys::Promise;
use wasm_bindgen_futures::JsFuture;

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
