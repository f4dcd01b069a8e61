//! Browser transport: `fetch` with the body read as a stream, cancellable by an AbortSignal,
//! and limited everywhere: time to the response headers, redirects (not followed), the
//! content type, the size of every body, the stream's idle time and its total time.

use gloo_net::http::{Request, Response};
use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, AbortSignal, ReadableStreamDefaultReader, RequestRedirect, ResponseType,
};

use super::read_body::{js_error_text, read_capped};
use crate::browser_model;
use crate::timer::sleep;
use arena_core::agent::ChatModel;
use arena_core::llm::body::ERROR_BODY_MAX_BYTES;
use arena_core::llm::error::{body_snippet, message_from_error_body};
use arena_core::llm::request::{completions_url, request_body};
use arena_core::llm::stream::{is_event_stream, ChatStreamReader, StreamDeadlines};
use arena_core::llm::{ChatCall, ChatDelta, ChatParams, LlmError, RunsOn, RuntimeTimings};
use futures::future::{select, Either, LocalBoxFuture};

/// An OpenAI-compatible endpoint called from the page.
pub struct BrowserChatModel {
    pub base_url: String,
    /// Sent only in the Authorization header, only to `base_url`.
    pub token: String,
    pub params: ChatParams,
    /// Aborts every request of the run when the user presses Stop.
    pub signal: AbortSignal,
    /// The endpoint may be silent this long: until the response headers arrive, and between
    /// data events of the stream (keep-alive comments do not count).
    pub idle_timeout_secs: u32,
    /// Longest time one reply may stream, however steadily it sends.
    pub max_stream_secs: u32,
    /// The model runs in this page instead of at `base_url`.
    pub in_browser: Option<InBrowser>,
}

/// The model in this browser, as a run calls it.
pub struct InBrowser {
    /// The GGUF file's address (it is read from the browser's cache).
    pub url: String,
    pub context: u32,
    /// Who calls, shown to the panels that wait for their turn.
    pub caller: browser_model::Caller,
}

/// Longest stretch of stream reading before the page gets to draw.
const YIELD_EVERY_MS: f64 = 5.0;

thread_local! {
    /// When a stream last gave the event loop a turn. Shared: the three panels' streams are
    /// read in the same task, so each must count the time the others took as well.
    static LAST_YIELD: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// How much of a chunk is read between two looks at the clock (a few dozen tokens).
const PIECE_BYTES: usize = 2048;

/// Gives the event loop a turn if the streams have had it for `YIELD_EVERY_MS`.
async fn yield_if_due() {
    if now_ms() - LAST_YIELD.get() > YIELD_EVERY_MS {
        sleep(0).await;
        LAST_YIELD.set(now_ms());
    }
}

/// A signal that aborts when either does. Browsers without `AbortSignal.any` (older than
/// 2024) get the run's signal alone: a time limit then only stops waiting for the request.
fn either(run: &AbortSignal, attempt: &AbortSignal) -> AbortSignal {
    let has_any = Reflect::get(&js_sys::global(), &JsValue::from_str("AbortSignal"))
        .and_then(|class| Reflect::has(&class, &JsValue::from_str("any")))
        .unwrap_or(false);
    if has_any {
        AbortSignal::any(&Array::of2(run, attempt))
    } else {
        run.clone()
    }
}

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
        // Both act once this task yields, when the request below has been sent: what the run
        // needs next (its tools' code) and what waited for its first request are fetched
        // while the model thinks.
        crate::tool_chunk::after_model_request();
        crate::engine::model_request_left();
        if let Some(local) = &self.in_browser {
            return self.stream_in_browser(local, call, on_delta).await;
        }
        // This request's own controller, so a time limit ends this request and no other
        // panel's; Stop (the run's signal) still ends it too.
        let attempt = AbortController::new().map_err(|e| LlmError::Network(js_error_text(&e)))?;
        let signal = either(&self.signal, &attempt.signal());
        let mut request = Request::post(&completions_url(&self.base_url))
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream")
            // A redirect would resend the conversation and the token to another address.
            .redirect(RequestRedirect::Manual)
            .abort_signal(Some(&signal));
        if !self.token.trim().is_empty() {
            request = request.header("Authorization", &format!("Bearer {}", self.token.trim()));
        }
        let request = request
            .body(request_body(&self.params, call))
            .map_err(|e| LlmError::Network(e.to_string()))?;
        let header_limit = sleep(self.idle_timeout_secs.saturating_mul(1000));
        let response = match select(Box::pin(request.send()), Box::pin(header_limit)).await {
            Either::Left((sent, _)) => sent.map_err(|e| self.failure(e.to_string()))?,
            Either::Right(_) => {
                attempt.abort();
                return Err(LlmError::NoHeaders {
                    seconds: self.idle_timeout_secs,
                });
            }
        };
        if response.type_() == ResponseType::Opaqueredirect
            || (300..400).contains(&response.status())
        {
            return Err(LlmError::Redirected);
        }
        if !response.ok() {
            return Err(self.http_error(&response).await);
        }
        let content_type = response.headers().get("content-type");
        if !is_event_stream(content_type.as_deref()) {
            let body = read_capped(response.body(), ERROR_BODY_MAX_BYTES)
                .await
                .map(|b| b.text)
                .unwrap_or_default();
            return Err(LlmError::NotEventStream {
                content_type,
                snippet: body_snippet(&body),
            });
        }
        self.read_stream(&response, on_delta).await
    }

    fn pause(&self, ms: u32) -> LocalBoxFuture<'_, ()> {
        self.pause_for(ms)
    }

    fn jitter(&self) -> f64 {
        js_sys::Math::random()
    }
}

impl BrowserChatModel {
    /// The same call answered by the model in this page: after this panel's turn comes (the
    /// panels share it), its event stream is read as an endpoint's.
    async fn stream_in_browser(
        &self,
        local: &InBrowser,
        call: &ChatCall<'_>,
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError> {
        // Settings may come from a file or an old store: only an http(s) file is ever read.
        if let Some(problem) = arena_core::browser_model::url_problem(&local.url) {
            return Err(LlmError::InBrowser(format!(
                "{problem} Set the model file in Settings."
            )));
        }
        let asked = js_sys::Date::now();
        let another_holds_it = browser_model::holder().is_some();
        let _turn = self
            .until_stopped(browser_model::take_turn(local.caller.clone()))
            .await?;
        // The time another panel's call held the model is this call's wait, not its model time.
        let waited = js_sys::Date::now() - asked;
        if another_holds_it && waited > 0.0 {
            on_delta(ChatDelta::WaitedForModel(waited));
        }
        // Stop is heard while the model loads too: the glue ends that load (its runtime
        // terminated), so the next call never waits for it.
        self.until_stopped(browser_model::load(&local.url, local.context, &self.signal))
            .await?
            .map_err(LlmError::InBrowser)?;
        // Stop is heard at once here too: a runtime stuck inside the call (a chat template's
        // loops) answers nothing until the glue terminates it.
        let response = self
            .until_stopped(browser_model::respond(
                &request_body(&self.params, call),
                &self.signal,
            ))
            .await?
            .map_err(|message| {
                if self.signal.aborted() {
                    LlmError::Aborted
                } else {
                    LlmError::InBrowser(message)
                }
            })?;
        // Where it ran comes with the answer, from the page's own runtime (an endpoint's word
        // on it is never read: `RuntimeTimings::into_bounded`).
        let runs_on: Option<RunsOn> = response
            .headers()
            .get(browser_model::RUNS_ON_HEADER)
            .ok()
            .flatten()
            .and_then(|h| serde_json::from_str::<RunsOn>(&h).ok())
            .map(RunsOn::into_trimmed);
        self.read_stream(&Response::from(response), &mut |delta| match delta {
            ChatDelta::Timings(t) => on_delta(ChatDelta::Timings(RuntimeTimings {
                runs_on: runs_on.clone(),
                ..t
            })),
            other => on_delta(other),
        })
        .await
    }

    /// `work`'s outcome, or `Aborted` as soon as the user presses Stop.
    async fn until_stopped<T>(
        &self,
        work: impl std::future::Future<Output = T>,
    ) -> Result<T, LlmError> {
        match select(
            Box::pin(work),
            Box::pin(browser_model::aborted(&self.signal)),
        )
        .await
        {
            Either::Left((done, _)) => Ok(done),
            Either::Right(_) => Err(LlmError::Aborted),
        }
    }

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

    /// A non-success status, with the message of (the start of) its body.
    async fn http_error(&self, response: &Response) -> LlmError {
        let body = read_capped(response.body(), ERROR_BODY_MAX_BYTES)
            .await
            .map(|b| b.text)
            .unwrap_or_default();
        // Retry-After in seconds (the HTTP-date form is rare from model APIs).
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.trim().parse::<u32>().ok());
        LlmError::Http {
            status: response.status(),
            message: message_from_error_body(&body),
            retry_after,
        }
    }

    /// Reads the event stream until `[DONE]`, its end, or a limit.
    async fn read_stream(
        &self,
        response: &Response,
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError> {
        let body = response
            .body()
            .ok_or_else(|| LlmError::Network("the response has no body".into()))?;
        let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        let mut stream = ChatStreamReader::new();
        let mut received = 0usize;
        let mut deadlines =
            StreamDeadlines::new(now_ms(), self.idle_timeout_secs, self.max_stream_secs);
        // One timer per deadline, not one per read: when it fires, the deadline is checked
        // again, since data may have moved it meanwhile.
        let mut timer = Box::pin(sleep(deadlines.check(now_ms())?));
        loop {
            let mut read = JsFuture::from(reader.read());
            let chunk = loop {
                match select(&mut read, timer.as_mut()).await {
                    Either::Left((chunk, _)) => {
                        break chunk.map_err(|e| self.failure(js_error_text(&e)))?
                    }
                    Either::Right(_) => match deadlines.check(now_ms()) {
                        Ok(wait) => timer = Box::pin(sleep(wait)),
                        Err(limit) => {
                            let _ = reader.cancel();
                            return Err(limit);
                        }
                    },
                }
            };
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
                let events_before = stream.data_events();
                // Data that waited while the page was busy comes as one large chunk: it is read
                // a piece at a time, with a turn for the page when one is due, so reading it is
                // never one long task.
                for piece in bytes.chunks(PIECE_BYTES) {
                    if let Err(e) = stream.push(piece, on_delta) {
                        let _ = reader.cancel();
                        return Err(e);
                    }
                    if stream.is_done() {
                        break;
                    }
                    yield_if_due().await;
                    // Stop pressed during that turn: nothing more of the chunk is shown.
                    if self.signal.aborted() {
                        let _ = reader.cancel();
                        return Err(LlmError::Aborted);
                    }
                }
                deadlines.arrived(now_ms(), stream.data_events() > events_before);
            }
            if stream.is_done() {
                let _ = reader.cancel(); // nothing after [DONE] matters
                break;
            }
            // Bytes that keep coming must not keep the stream past its limits.
            if let Err(limit) = deadlines.check(now_ms()) {
                let _ = reader.cancel();
                return Err(limit);
            }
            // Data that is already there resolves reads as microtasks, one after another, and
            // the page could not draw until the whole stream is read.
            yield_if_due().await;
        }
        stream.finish(on_delta)
    }
}
