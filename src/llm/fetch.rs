//! Browser transport: `fetch` with the body read as a stream, cancellable by an AbortSignal.

use gloo_net::http::Request;
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStreamDefaultReader};

use super::error::message_from_error_body;
use super::request::{completions_url, request_body};
use super::stream::ChatStreamReader;
use super::{ChatCall, ChatDelta, ChatParams, LlmError};
use crate::agent::ChatModel;
use crate::ui::timer::sleep;
use futures::future::{select, Either, LocalBoxFuture};

/// An OpenAI-compatible endpoint called from the page.
pub struct BrowserChatModel {
    pub base_url: String,
    /// Sent only in the Authorization header, only to `base_url`.
    pub token: String,
    pub params: ChatParams,
    /// Aborts every request of the run when the user presses Stop.
    pub signal: AbortSignal,
    /// A stream that sends nothing for this long is cut.
    pub idle_timeout_secs: u32,
}

/// Longest stretch of stream reading before the page gets to draw.
const YIELD_EVERY_MS: f64 = 8.0;

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Reading stops past this many bytes: no reply is that long, and the page must stay alive.
const MAX_RESPONSE_BYTES: usize = 8_000_000;

impl ChatModel for BrowserChatModel {
    async fn stream_chat(
        &self,
        call: &ChatCall<'_>,
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError> {
        let mut request = Request::post(&completions_url(&self.base_url))
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream")
            .abort_signal(Some(&self.signal));
        if !self.token.trim().is_empty() {
            request = request.header("Authorization", &format!("Bearer {}", self.token.trim()));
        }
        let request = request
            .body(request_body(&self.params, call))
            .map_err(|e| LlmError::Network(e.to_string()))?;
        let response = request
            .send()
            .await
            .map_err(|e| self.failure(e.to_string()))?;
        if !response.ok() {
            let text = response.text().await.unwrap_or_default();
            // Retry-After in seconds (the HTTP-date form is rare from model APIs).
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.trim().parse::<u32>().ok());
            return Err(LlmError::Http {
                status: response.status(),
                message: message_from_error_body(&text),
                retry_after,
            });
        }
        let body = response
            .body()
            .ok_or_else(|| LlmError::Network("the response has no body".into()))?;
        let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        let mut stream = ChatStreamReader::new();
        let mut received = 0usize;
        // One idle timer per timeout window, not one per read: when it fires, the stream has
        // stalled only if nothing arrived since it was set.
        let idle_ms = self.idle_timeout_secs.saturating_mul(1000);
        let mut idle = Box::pin(sleep(idle_ms));
        let mut arrived_since_timer = false;
        let mut last_yield = now_ms();
        loop {
            let mut read = JsFuture::from(reader.read());
            let chunk = loop {
                match select(&mut read, idle.as_mut()).await {
                    Either::Left((chunk, _)) => {
                        break chunk.map_err(|e| self.failure(js_error_text(&e)))?
                    }
                    Either::Right(_) if arrived_since_timer => {
                        arrived_since_timer = false;
                        idle = Box::pin(sleep(idle_ms));
                    }
                    Either::Right(_) => {
                        let _ = reader.cancel();
                        return Err(LlmError::Stalled {
                            seconds: self.idle_timeout_secs,
                        });
                    }
                }
            };
            arrived_since_timer = true;
            let done = Reflect::get(&chunk, &JsValue::from_str("done"))
                .ok()
                .and_then(|d| d.as_bool())
                .unwrap_or(true);
            if done {
                break;
            }
            if let Ok(value) = Reflect::get(&chunk, &JsValue::from_str("value")) {
                let bytes = Uint8Array::new(&value).to_vec();
                received += bytes.len();
                if received > MAX_RESPONSE_BYTES {
                    let _ = reader.cancel();
                    return Err(LlmError::TooLarge { bytes: received });
                }
                if let Err(e) = stream.push(&bytes, on_delta) {
                    let _ = reader.cancel();
                    return Err(e);
                }
            }
            // Data that is already there resolves reads as microtasks, one after another, and
            // the page could not draw until the whole stream is read: give the event loop a
            // turn every few milliseconds.
            if now_ms() - last_yield > YIELD_EVERY_MS {
                sleep(0).await;
                last_yield = now_ms();
            }
            if stream.is_done() {
                let _ = reader.cancel(); // nothing after [DONE] matters
                break;
            }
        }
        stream.finish(on_delta)
    }

    fn pause(&self, ms: u32) -> LocalBoxFuture<'_, ()> {
        self.pause_for(ms)
    }

    fn jitter(&self) -> f64 {
        js_sys::Math::random()
    }
}

impl BrowserChatModel {
    fn pause_for(&self, ms: u32) -> LocalBoxFuture<'_, ()> {
        Box::pin(sleep(ms))
    }

    fn failure(&self, detail: String) -> LlmError {
        if self.signal.aborted() {
            LlmError::Aborted
        } else {
            LlmError::Network(detail)
        }
    }
}

fn js_error_text(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the connection broke".into())
}
