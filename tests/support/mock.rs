//! A scripted OpenAI-compatible endpoint on 127.0.0.1 for the tests.
//!
//! Wire format follows OpenAI's chat-completions streaming reference
//! (platform.openai.com/docs/api-reference/chat-streaming) and the Hugging Face router docs
//! (huggingface/hub-docs `docs/inference-providers/`): `data: {chunk}` SSE events with
//! `choices[0].delta.{content,reasoning}`, a last `choices: []` chunk carrying `usage` when
//! `stream_options.include_usage` is set, then `data: [DONE]`. Errors are the documented shapes
//! `{"error": {"message", "type", "code"}}` either as the HTTP body or as an SSE event.
//!
//! A test scripts replies per rule: a rule matches when its text occurs in the request body
//! (typically a mode's system prompt heading), and hands out its replies in order.
//!
//! Besides well-behaved replies it can misbehave as endpoints and the proxies in front of
//! them do: never send the headers, stream an error body without end, keep a stream alive
//! with SSE comments (lines starting with `:`, which the SSE format defines as comments) and
//! no data, redirect elsewhere (HTTP 307 keeps the method and body), or answer 200 with a page
//! that is not an event stream.

/// Think-only's reply to 6 × 7 in the scripted runs.
pub const THINK_42: &str =
    "Thought: Six groups of seven make forty-two; that is the **product**.\nAnswer: 42";

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;
use futures::StreamExt;
use react_arena::agent::Mode;
use tower_http::cors::CorsLayer;

/// One scripted answer to a chat-completions call.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A normal SSE stream.
    Stream(StreamScript),
    /// A plain HTTP error with a JSON body.
    Status {
        code: u16,
        body: String,
        retry_after: Option<u32>,
    },
    /// Any status with a body of any content type, e.g. a 200 login page.
    Body {
        code: u16,
        content_type: String,
        body: String,
    },
    /// The response headers never come: the request is held open, silent.
    HeadersNever,
    /// The headers of a JSON error come at once; its body then streams without end.
    EndlessErrorBody { code: u16 },
    /// A redirect to `location`, with no body.
    Redirect { code: u16, location: String },
}

/// How a streamed reply goes: what is sent, how fast, and how it ends.
#[derive(Clone, Debug)]
pub struct StreamScript {
    pub reasoning: Vec<String>,
    pub content: Vec<String>,
    /// Native tool calls (name, JSON arguments), streamed as fragments after the content.
    pub tool_calls: Vec<(String, String)>,
    /// Wait before the response headers are sent.
    pub latency: Duration,
    /// Wait before each SSE event.
    pub chunk_delay: Duration,
    pub usage: Option<(u32, u32)>,
    pub ending: Ending,
    /// `data:` lines that are not JSON, sent before the content.
    pub garbage_lines: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// `data: [DONE]`.
    Done,
    /// An `{"error": …}` event after the content, then the stream ends.
    ErrorEvent(String),
    /// The connection is cut after the content, with no `[DONE]`.
    Dropped,
    /// After the content the stream stays open and silent for good.
    Stalls,
    /// After the content the stream sends only keep-alive comments and blank lines, every
    /// `chunk_delay`, for good.
    KeepAlive,
}

/// Splits text into word-sized tokens that keep their whitespace, as a model would stream it.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for ch in text.chars() {
        if ch.is_whitespace() && !current.trim().is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.push(ch);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

impl Reply {
    /// Streams `text` token by token with a short delay, usage 10 + token count, `[DONE]`.
    pub fn text(text: &str) -> Self {
        let content = tokens(text);
        let completion = content.len() as u32;
        Reply::Stream(StreamScript {
            reasoning: Vec::new(),
            content,
            tool_calls: Vec::new(),
            latency: Duration::from_millis(20),
            chunk_delay: Duration::from_millis(10),
            usage: Some((10, completion)),
            ending: Ending::Done,
            garbage_lines: 0,
        })
    }

    pub fn status(code: u16, message: &str) -> Self {
        let body = serde_json::json!({
            "error": { "message": message, "type": "mock_error", "code": code }
        });
        Reply::Status {
            code,
            body: body.to_string(),
            retry_after: None,
        }
    }

    fn script(mut self, edit: impl FnOnce(&mut StreamScript)) -> Self {
        if let Reply::Stream(s) = &mut self {
            edit(s);
        }
        self
    }

    /// A native tool-call reply: no content, the given calls.
    pub fn tool_calls(calls: &[(&str, &str)]) -> Self {
        Reply::text("").script(|s| {
            s.tool_calls = calls
                .iter()
                .map(|(n, a)| (n.to_string(), a.to_string()))
                .collect()
        })
    }

    pub fn with_reasoning(self, text: &str) -> Self {
        self.script(|s| s.reasoning = tokens(text))
    }

    pub fn with_chunk_delay(self, ms: u64) -> Self {
        self.script(|s| s.chunk_delay = Duration::from_millis(ms))
    }

    pub fn with_latency(self, ms: u64) -> Self {
        self.script(|s| s.latency = Duration::from_millis(ms))
    }

    pub fn with_usage(self, prompt: u32, completion: u32) -> Self {
        self.script(|s| s.usage = Some((prompt, completion)))
    }

    pub fn ending(self, ending: Ending) -> Self {
        self.script(|s| s.ending = ending)
    }

    /// For an HTTP error reply: send a `Retry-After: secs` header.
    pub fn retry_after(mut self, secs: u32) -> Self {
        if let Reply::Status { retry_after, .. } = &mut self {
            *retry_after = Some(secs);
        }
        self
    }

    /// Adds lines that are not JSON among the content chunks.
    pub fn with_garbage_lines(self, n: usize) -> Self {
        self.script(|s| s.garbage_lines = n)
    }

    /// A stream that, after its opening chunk, sends only keep-alive comments, every 100 ms.
    pub fn keep_alive_only() -> Self {
        Reply::text("")
            .with_chunk_delay(100)
            .ending(Ending::KeepAlive)
    }

    /// A 200 whose body is an HTML page.
    pub fn html(page: &str) -> Self {
        Reply::Body {
            code: 200,
            content_type: "text/html; charset=utf-8".into(),
            body: page.into(),
        }
    }

    pub fn redirect(code: u16, location: &str) -> Self {
        Reply::Redirect {
            code,
            location: location.into(),
        }
    }
}

/// A request the mock received, for assertions.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub uri: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub received: Instant,
    /// When the last byte of a chat stream was sent (None for other requests or if cut).
    pub finished: Option<Instant>,
}

impl Recorded {
    /// A request as it arrives, before anything is sent back.
    pub fn new(method: &Method, uri: &Uri, headers: &HeaderMap, body: &str) -> Self {
        Recorded {
            method: method.to_string(),
            uri: uri.to_string(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_string()))
                .collect(),
            body: body.to_string(),
            received: Instant::now(),
            finished: None,
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn is_chat(&self) -> bool {
        self.method == "POST" && self.uri.ends_with("/chat/completions")
    }
}

struct Rule {
    when: String,
    /// More texts the body must contain too.
    also: Vec<String>,
    replies: VecDeque<Reply>,
    /// The last reply is handed out again and again, never used up.
    repeats: bool,
}

impl Rule {
    fn matches(&self, body: &str) -> bool {
        body.contains(&self.when) && self.also.iter().all(|t| body.contains(t.as_str()))
    }

    fn take(&mut self) -> Option<Reply> {
        if self.repeats && self.replies.len() == 1 {
            return self.replies.front().cloned();
        }
        self.replies.pop_front()
    }
}

#[derive(Default)]
struct Inner {
    rules: Vec<Rule>,
    log: Vec<Recorded>,
    /// Body bytes handed to the connection, by request index (streamed replies only).
    bytes_sent: HashMap<usize, u64>,
    /// When a streamed body ended or the client hung up on it, by request index.
    closed: HashMap<usize, Instant>,
}

#[derive(Clone)]
pub struct MockEndpoint {
    inner: Arc<Mutex<Inner>>,
    pub addr: SocketAddr,
}

impl MockEndpoint {
    /// Starts the mock on a free port of 127.0.0.1.
    pub async fn start() -> Self {
        let inner = Arc::new(Mutex::new(Inner::default()));
        let app = Router::new()
            .route("/v1/models", get(models))
            .route("/v1/chat/completions", any(chat))
            .fallback(not_found)
            // Browsers let the page read Retry-After only when the endpoint exposes it.
            .layer(
                CorsLayer::very_permissive()
                    .expose_headers([axum::http::HeaderName::from_static("retry-after")]),
            )
            // A conversation may carry megabytes of arguments (the hostile-schema tests).
            .layer(axum::extract::DefaultBodyLimit::max(64 << 20))
            .with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        MockEndpoint { inner, addr }
    }

    /// The API base URL to put in the app's settings.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Adds replies for requests whose body contains `when`; they are used in order.
    pub fn script(&self, when: &str, replies: impl IntoIterator<Item = Reply>) -> &Self {
        self.inner.lock().unwrap().rules.push(Rule {
            when: when.to_string(),
            also: Vec::new(),
            replies: replies.into_iter().collect(),
            repeats: false,
        });
        self
    }

    /// Adds replies for requests whose body contains every one of `texts`; they are used in
    /// order.
    pub fn script_all_of(&self, texts: &[&str], replies: impl IntoIterator<Item = Reply>) -> &Self {
        let (when, also) = texts.split_first().expect("at least one text");
        self.inner.lock().unwrap().rules.push(Rule {
            when: when.to_string(),
            also: also.iter().map(|t| t.to_string()).collect(),
            replies: replies.into_iter().collect(),
            repeats: false,
        });
        self
    }

    /// Answers `reply` to every request whose body contains all of `texts`, however often it
    /// comes (a run stopped and done again gets the same reply). Rules are tried in the order
    /// they were added: add the more specific first.
    pub fn script_always(&self, texts: &[&str], reply: Reply) -> &Self {
        let (when, also) = texts.split_first().expect("at least one text");
        self.inner.lock().unwrap().rules.push(Rule {
            when: when.to_string(),
            also: also.iter().map(|t| t.to_string()).collect(),
            replies: VecDeque::from([reply]),
            repeats: true,
        });
        self
    }

    /// Scripts 6 × 7 in the three modes: Think-only replies `think`; Act-only and ReAct call
    /// the calculator once, then answer 42. Every reply streams with `delay_ms` between chunks.
    pub fn script_six_times_seven(&self, think: &str, delay_ms: u64) {
        let paced = |text: &str| Reply::text(text).with_chunk_delay(delay_ms);
        self.script(Mode::Think.prompt_heading(), [paced(think)]);
        self.script(
            Mode::Act.prompt_heading(),
            [
                paced("Action: calculator\nAction Input: 6 * 7"),
                paced("Answer: 42"),
            ],
        );
        self.script(
            Mode::ReAct.prompt_heading(),
            [
                paced("Thought: I should compute this with the calculator.\nAction: calculator\nAction Input: 6 * 7"),
                paced("Thought: The calculator says 42.\nAnswer: 42"),
            ],
        );
        // An answer with no program: the panel needs no Python sandbox (tests of programs
        // script their own).
        self.script(
            Mode::CodeAct.prompt_heading(),
            [paced(
                "Thought: Six times seven is 42; no program is needed.\nAnswer: 42",
            )],
        );
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.inner.lock().unwrap().log.clone()
    }

    pub fn chat_requests(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(Recorded::is_chat)
            .collect()
    }

    /// Body bytes sent in answer to request number `index` (of `requests()`), for streamed
    /// replies.
    pub fn bytes_sent(&self, index: usize) -> u64 {
        let inner = self.inner.lock().unwrap();
        inner.bytes_sent.get(&index).copied().unwrap_or(0)
    }

    /// When the streamed answer to request number `index` ended, or its client hung up.
    pub fn closed_at(&self, index: usize) -> Option<Instant> {
        self.inner.lock().unwrap().closed.get(&index).copied()
    }

    /// Chat requests whose body contains `text`, in arrival order.
    pub fn chat_requests_containing(&self, text: &str) -> Vec<Recorded> {
        self.chat_requests()
            .into_iter()
            .filter(|r| r.body.contains(text))
            .collect()
    }
}

type Shared = Arc<Mutex<Inner>>;

fn record(state: &Shared, method: &Method, uri: &Uri, headers: &HeaderMap, body: &str) -> usize {
    let mut inner = state.lock().unwrap();
    inner.log.push(Recorded::new(method, uri, headers, body));
    inner.log.len() - 1
}

async fn not_found(
    State(state): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    record(&state, &method, &uri, &headers, "");
    (StatusCode::NOT_FOUND, "{\"error\":\"not found\"}").into_response()
}

async fn models(
    State(state): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    record(&state, &method, &uri, &headers, "");
    // Shaped as the Hugging Face router's list (huggingface/hub-docs
    // `docs/inference-providers/`): providers with status, context length and pricing in US
    // dollars per million tokens. No `supports_tools`, so "auto" means the text protocol.
    let priced = |id: &str, input: f64, output: f64| {
        serde_json::json!({
            "id": id, "object": "model", "owned_by": "mock",
            "providers": [{
                "provider": "mock", "status": "live", "context_length": 32768,
                "pricing": { "input": input, "output": output }
            }]
        })
    };
    let body = serde_json::json!({
        "object": "list",
        "data": [
            { "id": "mock/model", "object": "model", "owned_by": "mock" },
            priced("mock/think", 1.0, 2.0),
            priced("mock/act", 0.5, 1.0),
        ]
    });
    axum::Json(body).into_response()
}

async fn chat(
    State(state): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body = String::from_utf8_lossy(&body).into_owned();
    let index = record(&state, &method, &uri, &headers, &body);
    let reply = {
        let mut inner = state.lock().unwrap();
        inner
            .rules
            .iter_mut()
            .find(|r| r.matches(&body) && !r.replies.is_empty())
            .and_then(|r| r.take())
    };
    let Some(reply) = reply else {
        let reply = Reply::status(500, "mock endpoint: no scripted reply for this request");
        return respond(reply, state, index).await;
    };
    respond(reply, state, index).await
}

async fn respond(reply: Reply, state: Shared, index: usize) -> Response {
    match reply {
        Reply::Status {
            code,
            body,
            retry_after,
        } => {
            let mut response = (
                StatusCode::from_u16(code).unwrap(),
                [("content-type", "application/json")],
                body,
            )
                .into_response();
            if let Some(secs) = retry_after {
                response
                    .headers_mut()
                    .insert("retry-after", secs.to_string().parse().unwrap());
            }
            state.lock().unwrap().log[index].finished = Some(Instant::now());
            response
        }
        Reply::Body {
            code,
            content_type,
            body,
        } => {
            state.lock().unwrap().log[index].finished = Some(Instant::now());
            (
                StatusCode::from_u16(code).unwrap(),
                [("content-type", content_type)],
                body,
            )
                .into_response()
        }
        Reply::HeadersNever => futures::future::pending().await,
        Reply::Redirect { code, location } => (
            StatusCode::from_u16(code).unwrap(),
            [("location", location)],
        )
            .into_response(),
        Reply::EndlessErrorBody { code } => {
            let opening = Bytes::from_static(b"{\"error\":{\"message\":\"");
            let filler = Bytes::from(vec![b'x'; 8 * 1024]);
            let chunks = futures::stream::once(async move { opening })
                .chain(futures::stream::repeat(filler).then(|chunk| async move {
                    // Fast, but not so fast that a client reading it all would eat the machine.
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    chunk
                }))
                .map(Ok::<_, std::io::Error>);
            Response::builder()
                .status(code)
                .header("content-type", "application/json")
                .body(Body::from_stream(Counted::new(chunks, state, index)))
                .unwrap()
        }
        Reply::Stream(script) => {
            if !script.latency.is_zero() {
                tokio::time::sleep(script.latency).await;
            }
            let events = sse_events(&script);
            let delay = script.chunk_delay;
            let dropped = script.ending == Ending::Dropped;
            let stalls = script.ending == Ending::Stalls;
            let keeps_alive = script.ending == Ending::KeepAlive;
            let keep_alive_every = delay.max(Duration::from_millis(10));
            let counted_state = state.clone();
            let stream = futures::stream::unfold(
                (events.into_iter(), state, false),
                move |(mut events, state, ended)| async move {
                    if ended {
                        return None;
                    }
                    // sleep(0) still waits for a timer tick (about 1 ms): skip it.
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                    match events.next() {
                        Some(event) => {
                            // The client may hang up right after [DONE]: the last event sent
                            // is when the reply finished.
                            if events.len() == 0 && !dropped && !stalls && !keeps_alive {
                                state.lock().unwrap().log[index].finished = Some(Instant::now());
                            }
                            Some((Ok(Bytes::from(event)), (events, state, false)))
                        }
                        None if dropped => Some((
                            Err(std::io::Error::other("scripted connection drop")),
                            (events, state, true),
                        )),
                        None if stalls => {
                            // Silent, open, forever (until the client hangs up).
                            futures::future::pending::<()>().await;
                            None
                        }
                        None if keeps_alive => {
                            // A comment, then an empty line on its own: neither is data.
                            tokio::time::sleep(keep_alive_every).await;
                            let bytes = Bytes::from_static(b": keep-alive\n\n\n");
                            Some((Ok(bytes), (events, state, false)))
                        }
                        None => None,
                    }
                },
            );
            Response::builder()
                .header("content-type", "text/event-stream")
                .header("cache-control", "no-cache")
                .body(Body::from_stream(Counted::new(
                    stream,
                    counted_state,
                    index,
                )))
                .unwrap()
        }
    }
}

/// A streamed body that counts the bytes it hands out and notes when it is dropped: at its
/// end, or when the client hung up.
struct Counted<S> {
    inner: std::pin::Pin<Box<S>>,
    state: Shared,
    index: usize,
}

impl<S> Counted<S> {
    fn new(inner: S, state: Shared, index: usize) -> Self {
        Counted {
            inner: Box::pin(inner),
            state,
            index,
        }
    }
}

impl<S> futures::Stream for Counted<S>
where
    S: futures::Stream<Item = std::io::Result<Bytes>>,
{
    type Item = std::io::Result<Bytes>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        let polled = self.inner.as_mut().poll_next(cx);
        if let std::task::Poll::Ready(Some(Ok(bytes))) = &polled {
            let (n, index) = (bytes.len() as u64, self.index);
            *self
                .state
                .lock()
                .unwrap()
                .bytes_sent
                .entry(index)
                .or_default() += n;
        }
        polled
    }
}

impl<S> Drop for Counted<S> {
    fn drop(&mut self) {
        if let Ok(mut inner) = self.state.lock() {
            inner.closed.insert(self.index, Instant::now());
        }
    }
}

fn chunk(delta: serde_json::Value) -> String {
    let value = serde_json::json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": 1_760_000_000,
        "model": "mock/model",
        "choices": [{ "index": 0, "delta": delta, "finish_reason": null }]
    });
    format!("data: {value}\n\n")
}

fn sse_events(script: &StreamScript) -> Vec<String> {
    let mut events = vec![chunk(
        serde_json::json!({ "role": "assistant", "content": "" }),
    )];
    events.extend((0..script.garbage_lines).map(|i| format!("data: {{not json {i}\n\n")));
    events.extend(
        script
            .reasoning
            .iter()
            .map(|t| chunk(serde_json::json!({ "reasoning": t }))),
    );
    events.extend(
        script
            .content
            .iter()
            .map(|t| chunk(serde_json::json!({ "content": t }))),
    );
    // Interleaved as OpenAI does it: each call opens with id and name, then its arguments
    // arrive in two pieces, the calls' pieces alternating.
    for (i, (name, _)) in script.tool_calls.iter().enumerate() {
        events.push(chunk(serde_json::json!({ "tool_calls": [{
            "index": i, "id": format!("call_mock_{i}"), "type": "function",
            "function": { "name": name, "arguments": "" }
        }]})));
    }
    for half in 0..2 {
        for (i, (_, args)) in script.tool_calls.iter().enumerate() {
            let cut = args
                .char_indices()
                .nth(args.chars().count() / 2)
                .map_or(args.len(), |(b, _)| b);
            let piece = if half == 0 {
                &args[..cut]
            } else {
                &args[cut..]
            };
            events.push(chunk(serde_json::json!({ "tool_calls": [{
                "index": i, "function": { "arguments": piece }
            }]})));
        }
    }
    match &script.ending {
        Ending::Done => {
            if let Some((prompt, completion)) = script.usage {
                let value = serde_json::json!({
                    "id": "chatcmpl-mock",
                    "object": "chat.completion.chunk",
                    "model": "mock/model",
                    "choices": [],
                    "usage": {
                        "prompt_tokens": prompt,
                        "completion_tokens": completion,
                        "total_tokens": prompt + completion
                    }
                });
                events.push(format!("data: {value}\n\n"));
            }
            events.push("data: [DONE]\n\n".to_string());
        }
        Ending::ErrorEvent(message) => {
            let value = serde_json::json!({
                "error": { "message": message, "type": "server_error", "code": 500 }
            });
            events.push(format!("data: {value}\n\n"));
        }
        Ending::Dropped | Ending::Stalls | Ending::KeepAlive => {}
    }
    events
}
