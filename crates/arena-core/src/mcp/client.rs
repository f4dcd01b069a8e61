//! One MCP server's session as the page holds it: initialize, list tools, call tools, over a
//! transport the browser gives (`fetch`) and host tests fake. The session id and the protocol
//! revision the server chose are kept and sent with every later request; a session the server
//! forgot (404) is opened again once. A call dropped before its answer (Stop) or out of time
//! tells the server with `notifications/cancelled`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::lock::Mutex;
use serde_json::Value;

use super::failure::McpFailure;
use super::wire::{self, Unanswered, PROTOCOL_VERSIONS};
use crate::tools::http::FetchError;

/// One POST to the server.
#[derive(Debug, Clone, PartialEq)]
pub struct PostRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The id of the request whose answer to read; `None` for a notification, whose answer
    /// (202, no body) is not read.
    pub answer_id: Option<u64>,
}

/// What came back: the status, the headers that matter, and the body (for an SSE stream, the
/// data of the event that answered the request; empty if none did).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PostReply {
    pub status: u16,
    pub session_id: Option<String>,
    pub www_authenticate: Option<String>,
    pub body: String,
}

pub trait McpTransport {
    /// Sends `request` and reads its answer, within the transport's time and size limits.
    fn post(&self, request: PostRequest) -> LocalBoxFuture<'static, Result<PostReply, FetchError>>;
    /// Sends `request` without waiting for anything (a cancellation, sent while its call is
    /// being dropped).
    fn post_detached(&self, request: PostRequest);
}

/// Where the server is and how to sign the requests.
#[derive(Debug, Clone, PartialEq)]
pub struct McpEndpoint {
    pub url: String,
    /// The bearer token for this server only.
    pub token: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
struct Session {
    id: Option<String>,
    version: String,
}

/// What `initialize` and `tools/list` gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Connected {
    pub version: String,
    /// The server's own name for itself (`serverInfo.name`), as it sent it.
    pub server_name: String,
    /// The tools as listed, every page of them.
    pub tools: Vec<Value>,
}

/// Most tools kept from one server; listing stops there.
pub const MAX_TOOLS: usize = 64;

/// Pages of `tools/list` followed at most; a server that hands out cursors forever stops here.
const MAX_TOOL_PAGES: usize = 20;

pub struct McpClient {
    endpoint: McpEndpoint,
    transport: Rc<dyn McpTransport>,
    /// Published only once `notifications/initialized` has gone out.
    session: RefCell<Option<Session>>,
    /// One session is opened at a time: panels that find none (or the same one forgotten)
    /// wait for the one being opened instead of opening their own.
    opening: Mutex<()>,
    next_id: Cell<u64>,
}

impl McpClient {
    pub fn new(endpoint: McpEndpoint, transport: Rc<dyn McpTransport>) -> Self {
        Self {
            endpoint,
            transport,
            session: RefCell::default(),
            opening: Mutex::new(()),
            next_id: Cell::new(1),
        }
    }

    pub fn endpoint(&self) -> &McpEndpoint {
        &self.endpoint
    }

    fn take_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    fn headers(&self, session: Option<&Session>) -> Vec<(String, String)> {
        let mut headers = vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            (
                "Accept".to_string(),
                "application/json, text/event-stream".to_string(),
            ),
        ];
        if let Some(token) = self.endpoint.token.as_deref().filter(|t| !t.is_empty()) {
            headers.push(("Authorization".into(), format!("Bearer {token}")));
        }
        if let Some(session) = session {
            if let Some(id) = &session.id {
                headers.push(("Mcp-Session-Id".into(), id.clone()));
            }
            headers.push(("MCP-Protocol-Version".into(), session.version.clone()));
        }
        headers
    }

    /// A request within the current session (if any).
    fn request(&self, body: &Value, answer_id: Option<u64>) -> PostRequest {
        let session = self.session.borrow().clone();
        self.request_in(body, answer_id, session.as_ref())
    }

    fn request_in(
        &self,
        body: &Value,
        answer_id: Option<u64>,
        session: Option<&Session>,
    ) -> PostRequest {
        PostRequest {
            url: self.endpoint.url.clone(),
            headers: self.headers(session),
            body: body.to_string(),
            answer_id,
        }
    }

    /// The current session's id, as requests send it.
    fn session_id(&self) -> Option<String> {
        self.session.borrow().as_ref().and_then(|s| s.id.clone())
    }

    /// Opens a session unless one is open; `forgotten`: the server forgot the session with
    /// this id, so open another unless someone already has.
    async fn ensure_session(&self, forgotten: Option<Option<String>>) -> Result<(), McpFailure> {
        let _turn = self.opening.lock().await;
        let open = self.session.borrow().as_ref().map(|s| s.id.clone());
        match (forgotten, open) {
            (None, Some(_)) => Ok(()),
            (Some(failed), Some(now)) if failed != now => Ok(()),
            _ => self.initialize().await.map(|_| ()),
        }
    }

    /// Opens a new session and lists the server's tools.
    pub async fn connect(&self) -> Result<Connected, McpFailure> {
        let server_name = {
            let _turn = self.opening.lock().await;
            self.initialize().await?
        };
        let tools = self.list_tools().await?;
        let version = self
            .session
            .borrow()
            .as_ref()
            .map(|s| s.version.clone())
            .unwrap_or_default();
        Ok(Connected {
            version,
            server_name,
            tools,
        })
    }

    /// `initialize` then `notifications/initialized`; returns the server's name for itself.
    /// The session is kept only once both went through.
    async fn initialize(&self) -> Result<String, McpFailure> {
        *self.session.borrow_mut() = None;
        let id = self.take_id();
        let reply = self
            .send(self.request_in(&wire::initialize(id), Some(id), None))
            .await?;
        // Session ids are visible ASCII (the transport spec): anything else is not sent back.
        let session_id = reply.session_id.clone().filter(|s| {
            (1..=256).contains(&s.len()) && s.bytes().all(|b| (0x21..=0x7e).contains(&b))
        });
        let result = self.answer(reply, id, false)?;
        let offered = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        // A server answering a revision we do not speak gets our oldest; most accept it.
        let version = PROTOCOL_VERSIONS
            .iter()
            .find(|v| **v == offered)
            .unwrap_or(&PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.len() - 1]);
        let session = Session {
            id: session_id,
            version: version.to_string(),
        };
        let note = self.request_in(&wire::initialized(), None, Some(&session));
        let reply = self.send(note).await?;
        if !(200..300).contains(&reply.status) {
            return Err(self.status_failure(reply.status, false));
        }
        *self.session.borrow_mut() = Some(session);
        let name = result
            .pointer("/serverInfo/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        Ok(name.chars().take(80).collect())
    }

    /// Every tool the server lists, following `nextCursor`.
    pub async fn list_tools(&self) -> Result<Vec<Value>, McpFailure> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_TOOL_PAGES {
            let page = self
                .in_session(|id| wire::list_tools(id, cursor.as_deref()))
                .await?;
            if let Some(list) = page.get("tools").and_then(Value::as_array) {
                tools.extend(
                    list.iter()
                        .take(MAX_TOOLS - tools.len().min(MAX_TOOLS))
                        .cloned(),
                );
            }
            if tools.len() >= MAX_TOOLS {
                break;
            }
            cursor = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
                .map(str::to_string);
            if cursor.is_none() {
                break;
            }
        }
        Ok(tools)
    }

    /// Calls the tool `name` (the server's own name for it) with `arguments`; the result as
    /// the server sent it.
    pub async fn call_tool(&self, name: &str, arguments: &Value) -> Result<Value, McpFailure> {
        self.in_session(|id| wire::call_tool(id, name, arguments))
            .await
    }

    /// Sends the request `make(id)` within a session: one is opened first if there is none,
    /// and once more if the server has forgotten it (404).
    async fn in_session(&self, make: impl Fn(u64) -> Value) -> Result<Value, McpFailure> {
        self.ensure_session(None).await?;
        let used = self.session_id();
        match self.once(&make).await {
            Err(McpFailure::Expired) => {
                self.ensure_session(Some(used)).await?;
                self.once(&make).await
            }
            other => other,
        }
    }

    async fn once(&self, make: &impl Fn(u64) -> Value) -> Result<Value, McpFailure> {
        let id = self.take_id();
        let request = self.request(&make(id), Some(id));
        let had_session = self.session_id().is_some();
        // Made now, in this request's session, in case it is needed.
        let cancel = self.request(
            &wire::cancelled(id, "The user stopped the run, or its time ran out."),
            None,
        );
        let mut pending = Pending {
            transport: self.transport.as_ref(),
            cancel: Some(cancel),
        };
        let result = self.send(request).await;
        let result = result.and_then(|reply| self.answer(reply, id, had_session));
        // The server may still be working on a call whose answer never came (out of time, cut
        // at the size cap, a stream that ended without it, a connection that broke); any
        // answer, an error status included, ends it.
        let unanswered = matches!(
            result,
            Err(McpFailure::Timeout { .. }
                | McpFailure::TooLarge
                | McpFailure::NoAnswer
                | McpFailure::Unreachable)
        );
        if !unanswered {
            pending.cancel = None;
        }
        result
    }

    async fn send(&self, request: PostRequest) -> Result<PostReply, McpFailure> {
        self.transport.post(request).await.map_err(|e| match e {
            FetchError::Timeout { seconds } => McpFailure::Timeout { seconds },
            FetchError::TooLarge { .. } => McpFailure::TooLarge,
            FetchError::Network(_) => McpFailure::Unreachable,
        })
    }

    fn status_failure(&self, status: u16, had_session: bool) -> McpFailure {
        let sent_token = self
            .endpoint
            .token
            .as_deref()
            .is_some_and(|t| !t.is_empty());
        match status {
            401 => McpFailure::SignIn { sent_token },
            403 => McpFailure::Refused,
            404 if had_session => McpFailure::Expired,
            other => McpFailure::Http(other),
        }
    }

    /// The result in `reply` to request `id`.
    fn answer(&self, reply: PostReply, id: u64, had_session: bool) -> Result<Value, McpFailure> {
        if !(200..300).contains(&reply.status) {
            // The spec answers a forgotten session with 404; some servers (Express wrappers
            // of the reference SDK) with 400 and a message naming the session.
            let body = reply.body.to_ascii_lowercase();
            let forgotten = reply.status == 400
                && had_session
                && ["session id", "session-id", "sessionid"]
                    .iter()
                    .any(|s| body.contains(s));
            if forgotten {
                return Err(McpFailure::Expired);
            }
            // Some servers answer an HTTP error with a JSON-RPC error that says more.
            if let Err(Unanswered::Error { code, message }) = wire::read_response(&reply.body, id) {
                if !matches!(reply.status, 401 | 403 | 404) {
                    return Err(McpFailure::Rpc { code, message });
                }
            }
            return Err(self.status_failure(reply.status, had_session));
        }
        if reply.body.is_empty() {
            return Err(McpFailure::NoAnswer);
        }
        wire::read_response(&reply.body, id).map_err(|e| match e {
            Unanswered::NotJsonRpc(what) => McpFailure::NotMcp(what),
            Unanswered::Error { code, message } => McpFailure::Rpc { code, message },
        })
    }
}

/// A request sent and not yet answered: dropped so (Stop), or ended without its answer, it
/// tells the server.
struct Pending<'a> {
    transport: &'a dyn McpTransport,
    /// The cancellation to send, until an answer came.
    cancel: Option<PostRequest>,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if let Some(cancel) = self.cancel.take() {
            self.transport.post_detached(cancel);
        }
    }
}

/// A scripted transport for host tests: answers in order, records what was sent.
#[cfg(test)]
pub mod fake {
    use super::*;
    use std::collections::VecDeque;

    #[derive(Default)]
    pub struct FakeTransport {
        pub replies: RefCell<VecDeque<Result<PostReply, FetchError>>>,
        pub sent: RefCell<Vec<PostRequest>>,
        pub detached: RefCell<Vec<PostRequest>>,
        /// With no scripted reply left, never answer (instead of a 500).
        pub hang: Cell<bool>,
        /// Answer only after giving way once, as a real network does.
        pub slow: Cell<bool>,
    }

    impl FakeTransport {
        pub fn answer(&self, status: u16, session: Option<&str>, body: Value) -> &Self {
            self.replies.borrow_mut().push_back(Ok(PostReply {
                status,
                session_id: session.map(str::to_string),
                www_authenticate: None,
                body: if body.is_null() {
                    String::new()
                } else {
                    body.to_string()
                },
            }));
            self
        }

        pub fn fail(&self, error: FetchError) -> &Self {
            self.replies.borrow_mut().push_back(Err(error));
            self
        }

        /// The JSON bodies sent, in order.
        pub fn bodies(&self) -> Vec<Value> {
            self.sent
                .borrow()
                .iter()
                .map(|r| serde_json::from_str(&r.body).unwrap())
                .collect()
        }

        pub fn header(&self, index: usize, name: &str) -> Option<String> {
            self.sent.borrow()[index]
                .headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        }
    }

    impl McpTransport for FakeTransport {
        fn post(
            &self,
            request: PostRequest,
        ) -> LocalBoxFuture<'static, Result<PostReply, FetchError>> {
            let request_id = request.answer_id;
            self.sent.borrow_mut().push(request);
            if self.hang.get() && self.replies.borrow().is_empty() {
                return Box::pin(futures::future::pending());
            }
            let mut reply = self
                .replies
                .borrow_mut()
                .pop_front()
                .unwrap_or(Ok(PostReply {
                    status: 500,
                    ..PostReply::default()
                }));
            // A scripted answer with id 0 answers whichever request it meets.
            if let (Ok(reply), Some(id)) = (&mut reply, request_id) {
                if let Ok(mut body) = serde_json::from_str::<Value>(&reply.body) {
                    if body.get("id") == Some(&Value::from(0)) {
                        body["id"] = Value::from(id);
                        reply.body = body.to_string();
                    }
                }
            }
            let slow = self.slow.get();
            Box::pin(async move {
                if slow {
                    let mut gave_way = false;
                    futures::future::poll_fn(|cx| {
                        if gave_way {
                            std::task::Poll::Ready(())
                        } else {
                            gave_way = true;
                            cx.waker().wake_by_ref();
                            std::task::Poll::Pending
                        }
                    })
                    .await;
                }
                reply
            })
        }

        fn post_detached(&self, request: PostRequest) {
            self.detached.borrow_mut().push(request);
        }
    }

    pub fn init_result(version: &str) -> Value {
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": version, "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake", "version": "1"}}})
    }
}

#[cfg(test)]
mod tests {
    use super::fake::*;
    use super::*;
    use futures::executor::block_on;
    use serde_json::json;
    use std::future::Future;

    fn client(transport: &Rc<FakeTransport>, token: Option<&str>) -> McpClient {
        McpClient::new(
            McpEndpoint {
                url: "http://127.0.0.1:9/mcp".into(),
                token: token.map(str::to_string),
            },
            transport.clone(),
        )
    }

    fn rpc(id: u64, result: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    }

    #[test]
    fn connects_keeps_the_session_and_follows_cursors() {
        let t = Rc::new(FakeTransport::default());
        t.answer(200, Some("s-1"), init_result("2025-06-18"))
            .answer(202, None, Value::Null)
            .answer(
                200,
                None,
                rpc(0, json!({"tools": [{"name": "a"}], "nextCursor": "p2"})),
            )
            .answer(200, None, rpc(0, json!({"tools": [{"name": "b"}]})));
        let c = client(&t, Some("secret"));
        let connected = block_on(c.connect()).unwrap();
        assert_eq!(connected.version, "2025-06-18");
        assert_eq!(connected.server_name, "fake");
        assert_eq!(
            connected.tools,
            vec![json!({"name": "a"}), json!({"name": "b"})]
        );
        let bodies = t.bodies();
        assert_eq!(bodies[0]["method"], "initialize");
        assert_eq!(bodies[0]["params"]["protocolVersion"], PROTOCOL_VERSIONS[0]);
        assert_eq!(bodies[1]["method"], "notifications/initialized");
        assert_eq!(bodies[3]["params"]["cursor"], "p2");
        // The first request has no session; later ones carry it and the agreed revision.
        assert_eq!(t.header(0, "Mcp-Session-Id"), None);
        assert_eq!(t.header(0, "MCP-Protocol-Version"), None);
        assert_eq!(t.header(2, "Mcp-Session-Id").as_deref(), Some("s-1"));
        assert_eq!(
            t.header(2, "MCP-Protocol-Version").as_deref(),
            Some("2025-06-18")
        );
        assert_eq!(
            t.header(3, "Authorization").as_deref(),
            Some("Bearer secret")
        );
    }

    #[test]
    fn a_forgotten_session_is_opened_again_once() {
        let t = Rc::new(FakeTransport::default());
        t.answer(200, Some("old"), init_result("2025-11-25"))
            .answer(202, None, Value::Null)
            .answer(404, None, Value::Null)
            .answer(200, Some("new"), init_result("2025-11-25"))
            .answer(202, None, Value::Null)
            .answer(
                200,
                None,
                rpc(0, json!({"content": [{"type": "text", "text": "ok"}]})),
            );
        let c = client(&t, None);
        let result = block_on(c.call_tool("echo", &json!({"m": 1}))).unwrap();
        assert_eq!(result["content"][0]["text"], "ok");
        assert_eq!(t.header(5, "Mcp-Session-Id").as_deref(), Some("new"));
        assert_eq!(t.header(5, "Authorization"), None, "no token was given");
        // A 400 naming the session, as server-everything answers, is a forgotten session too.
        t.answer(400, None, json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}}))
            .answer(200, Some("newest"), init_result("2025-11-25"))
            .answer(202, None, Value::Null)
            .answer(200, None, rpc(0, json!({"content": []})));
        block_on(c.call_tool("echo", &json!({}))).unwrap();
        assert_eq!(t.header(9, "Mcp-Session-Id").as_deref(), Some("newest"));
        // Forgotten again at once: named, not looped.
        t.answer(404, None, Value::Null)
            .answer(200, Some("newer"), init_result("2025-11-25"))
            .answer(202, None, Value::Null)
            .answer(404, None, Value::Null);
        assert_eq!(
            block_on(c.call_tool("echo", &json!({}))),
            Err(McpFailure::Expired)
        );
        assert!(t.detached.borrow().is_empty());
    }

    #[test]
    fn http_failures_become_what_the_user_can_act_on() {
        let cases = [
            (401, Some("tok"), McpFailure::SignIn { sent_token: true }),
            (401, None, McpFailure::SignIn { sent_token: false }),
            (403, None, McpFailure::Refused),
            (404, None, McpFailure::Http(404)),
            (405, None, McpFailure::Http(405)),
        ];
        for (status, token, want) in cases {
            let t = Rc::new(FakeTransport::default());
            t.answer(status, None, Value::Null);
            assert_eq!(block_on(client(&t, token).connect()), Err(want), "{status}");
        }
        let t = Rc::new(FakeTransport::default());
        t.fail(FetchError::Network("Failed to fetch".into()));
        assert_eq!(
            block_on(client(&t, None).connect()),
            Err(McpFailure::Unreachable)
        );
        let t = Rc::new(FakeTransport::default());
        t.replies.borrow_mut().push_back(Ok(PostReply {
            status: 200,
            body: "<html><body>Log in</body></html>".into(),
            ..PostReply::default()
        }));
        assert_eq!(
            block_on(client(&t, None).connect()),
            Err(McpFailure::NotMcp("a web page".into()))
        );
        let t = Rc::new(FakeTransport::default());
        t.answer(
            500,
            None,
            json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32603, "message": "boom"}}),
        );
        assert_eq!(
            block_on(client(&t, None).connect()),
            Err(McpFailure::Rpc {
                code: -32603,
                message: "boom".into()
            })
        );
    }

    #[test]
    fn an_unknown_revision_falls_back_to_the_oldest_spoken() {
        let t = Rc::new(FakeTransport::default());
        t.answer(200, None, init_result("2024-11-05"))
            .answer(202, None, Value::Null)
            .answer(200, None, rpc(0, json!({"tools": []})));
        let connected = block_on(client(&t, None).connect()).unwrap();
        assert_eq!(connected.version, "2025-03-26");
        assert_eq!(
            t.header(2, "Mcp-Session-Id"),
            None,
            "the server gave no session"
        );
    }

    #[test]
    fn a_call_dropped_or_out_of_time_is_cancelled_on_the_server() {
        let t = Rc::new(FakeTransport::default());
        t.answer(200, Some("s"), init_result("2025-11-25"))
            .answer(202, None, Value::Null)
            .fail(FetchError::Timeout { seconds: 3 });
        let c = client(&t, Some("k"));
        assert_eq!(
            block_on(c.call_tool("slow", &json!({}))),
            Err(McpFailure::Timeout { seconds: 3 })
        );
        let detached = t.detached.borrow();
        assert_eq!(detached.len(), 1);
        let note: Value = serde_json::from_str(&detached[0].body).unwrap();
        assert_eq!(note["method"], "notifications/cancelled");
        assert_eq!(note["params"]["requestId"], 2);
        assert!(detached[0]
            .headers
            .contains(&("Mcp-Session-Id".into(), "s".into())));
        drop(detached);

        // Dropped mid-call (Stop): the call never finishes, and the server is told.
        let t = Rc::new(FakeTransport::default());
        t.answer(200, Some("s"), init_result("2025-11-25"))
            .answer(202, None, Value::Null);
        t.hang.set(true);
        let c = client(&t, None);
        let no_args = json!({});
        {
            let mut call = Box::pin(c.call_tool("slow", &no_args));
            let waker = futures::task::noop_waker();
            let mut cx = std::task::Context::from_waker(&waker);
            assert!(call.as_mut().poll(&mut cx).is_pending());
            assert!(
                t.detached.borrow().is_empty(),
                "not cancelled while it runs"
            );
        }
        let detached = t.detached.borrow();
        assert_eq!(detached.len(), 1, "dropping the call cancels it");
        let note: Value = serde_json::from_str(&detached[0].body).unwrap();
        assert_eq!(note["params"]["requestId"], 2);
        drop(detached);

        // An answered call is not cancelled.
        let t = Rc::new(FakeTransport::default());
        t.answer(200, Some("s"), init_result("2025-11-25"))
            .answer(202, None, Value::Null)
            .answer(200, None, rpc(0, json!({"content": []})));
        block_on(client(&t, None).call_tool("quick", &json!({}))).unwrap();
        assert!(t.detached.borrow().is_empty());
    }

    #[test]
    fn panels_that_find_no_session_share_the_one_being_opened() {
        let t = Rc::new(FakeTransport::default());
        t.slow.set(true);
        t.answer(200, Some("s"), init_result("2025-11-25"))
            .answer(202, None, Value::Null)
            .answer(
                200,
                None,
                rpc(0, json!({"content": [{"type": "text", "text": "a"}]})),
            )
            .answer(
                200,
                None,
                rpc(0, json!({"content": [{"type": "text", "text": "b"}]})),
            );
        let c = client(&t, None);
        let args = json!({});
        let (a, b) = block_on(futures::future::join(
            c.call_tool("x", &args),
            c.call_tool("y", &args),
        ));
        assert!(a.is_ok() && b.is_ok(), "{a:?} {b:?}");
        let methods: Vec<Value> = t.bodies().iter().map(|b| b["method"].clone()).collect();
        assert_eq!(
            methods,
            [
                "initialize",
                "notifications/initialized",
                "tools/call",
                "tools/call"
            ],
            "one session for both"
        );
        // Nothing went out in the session before it was announced as initialized.
        assert_eq!(t.header(1, "Mcp-Session-Id").as_deref(), Some("s"));
        assert!(t.detached.borrow().is_empty());
    }

    #[test]
    fn a_call_cut_at_the_cap_is_cancelled_and_an_error_answer_is_not() {
        let t = Rc::new(FakeTransport::default());
        t.answer(200, Some("s"), init_result("2025-11-25"))
            .answer(202, None, Value::Null)
            .fail(FetchError::TooLarge { limit_bytes: 1 })
            .answer(500, None, Value::Null);
        let c = client(&t, None);
        assert_eq!(
            block_on(c.call_tool("big", &json!({}))),
            Err(McpFailure::TooLarge)
        );
        assert_eq!(t.detached.borrow().len(), 1);
        assert_eq!(
            block_on(c.call_tool("x", &json!({}))),
            Err(McpFailure::Http(500))
        );
        assert_eq!(t.detached.borrow().len(), 1, "an error status is an answer");
    }

    #[test]
    fn a_session_id_that_is_not_visible_ascii_is_not_sent_back() {
        let t = Rc::new(FakeTransport::default());
        t.answer(200, Some("bad id\n"), init_result("2025-11-25"))
            .answer(202, None, Value::Null)
            .answer(200, None, rpc(0, json!({"tools": []})));
        block_on(client(&t, None).connect()).unwrap();
        assert_eq!(t.header(2, "Mcp-Session-Id"), None);
    }
}
