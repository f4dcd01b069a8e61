//! Proves the MCP test rig (tests/support/mcp.rs) from the host, with plain HTTP: the two real
//! servers speak MCP over Streamable HTTP and let a page on another origin call them, and the
//! hostile server misbehaves as scripted. The browser tests build on these facts.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use axum::http::Method;
use serde_json::{json, Value};
use support::mcp::{
    http, initialize_message, markup_long_tool_name, post_rpc, secret_word_text,
    start_real_servers, station_code, station_code_text, Behaviour, HostileMcp, HUGE_RESULT_BYTES,
    MARKUP_RESULT, PYTHON_MCP_TOKEN,
};

/// A page served from another 127.0.0.1 port.
const PAGE_ORIGIN: &str = "http://127.0.0.1:1";
const ASKED_HEADERS: &str = "content-type,mcp-session-id,mcp-protocol-version,authorization";

fn tools_call(id: u64, name: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": name, "arguments": arguments } })
}

fn tools_list(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list" })
}

fn initialized() -> Value {
    json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })
}

fn tool_text(result: &Value) -> String {
    result["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content: {result}"))
        .to_string()
}

fn lower_list(value: Option<&str>) -> Vec<String> {
    value
        .unwrap_or("")
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A browser's preflight for an MCP POST.
async fn preflight(url: &str) -> support::mcp::Reply {
    http(
        Method::OPTIONS,
        url,
        &[
            ("origin", PAGE_ORIGIN),
            ("access-control-request-method", "POST"),
            ("access-control-request-headers", ASKED_HEADERS),
        ],
        "",
    )
    .await
}

fn assert_preflight_allows(reply: &support::mcp::Reply, what: &str) {
    assert!(
        (200..300).contains(&reply.status),
        "{what} preflight: {reply:?}"
    );
    assert_eq!(
        reply.header("access-control-allow-origin"),
        Some("*"),
        "{what}"
    );
    let allowed = lower_list(reply.header("access-control-allow-headers"));
    for asked in ASKED_HEADERS.split(',') {
        assert!(
            allowed.iter().any(|a| a == asked || a == "*"),
            "{what} preflight does not allow {asked}: {allowed:?}"
        );
    }
    let methods = lower_list(reply.header("access-control-allow-methods"));
    assert!(methods.iter().any(|m| m == "post"), "{what}: {methods:?}");
}

fn assert_exposes_session(reply: &support::mcp::Reply, what: &str) {
    assert_eq!(
        reply.header("access-control-allow-origin"),
        Some("*"),
        "{what}"
    );
    let exposed = lower_list(reply.header("access-control-expose-headers"));
    assert!(
        exposed.iter().any(|h| h == "mcp-session-id"),
        "{what} does not expose Mcp-Session-Id: {exposed:?}"
    );
}

/// The schemas the core's reference test holds the checker to (captured from these servers
/// with tests/capture_tools_list.py): each server must still list exactly them.
fn assert_listed_as_captured(server: &str, tools: &Value) {
    let captured: Value =
        serde_json::from_str(include_str!("fixtures/mcp/tools_list_schemas.json"))
            .expect("the fixture is JSON");
    let listed: Vec<Value> = tools
        .as_array()
        .expect("a tools list")
        .iter()
        .map(|t| json!({ "name": t["name"], "inputSchema": t["inputSchema"] }))
        .collect();
    assert_eq!(
        Value::Array(listed),
        captured["servers"][server],
        "{server} lists other schemas than tests/fixtures/mcp/tools_list_schemas.json: capture them again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_server_speaks_mcp_with_its_token_only() {
    let servers = start_real_servers();
    let url = &servers.python_url;
    let bearer = format!("Bearer {PYTHON_MCP_TOKEN}");
    let auth = [("authorization", bearer.as_str()), ("origin", PAGE_ORIGIN)];

    assert_preflight_allows(&preflight(url).await, "python");

    // Without the token: 401, readable by the page, with the SDK's challenge.
    let refused = post_rpc(
        url,
        None,
        &[("origin", PAGE_ORIGIN)],
        &initialize_message(1, "2025-11-25"),
    )
    .await;
    assert_eq!(refused.status, 401, "{refused:?}");
    assert_eq!(refused.header("access-control-allow-origin"), Some("*"));
    let challenge = refused.header("www-authenticate").unwrap_or("");
    assert!(
        challenge.starts_with("Bearer ") && challenge.contains("resource_metadata="),
        "{challenge}"
    );
    assert!(lower_list(refused.header("access-control-expose-headers"))
        .contains(&"www-authenticate".to_string()));
    let wrong = post_rpc(
        url,
        None,
        &[("authorization", "Bearer wrong")],
        &initialize_message(1, "2025-11-25"),
    )
    .await;
    assert_eq!(wrong.status, 401);

    let init = post_rpc(url, None, &auth, &initialize_message(1, "2025-11-25")).await;
    assert_eq!(init.status, 200, "{init:?}");
    assert_exposes_session(&init, "python initialize");
    let session = init.session_id().expect("a session id").to_string();
    let result = init.jsonrpc();
    assert_eq!(
        result["result"]["protocolVersion"], "2025-11-25",
        "{result}"
    );
    assert!(result["result"]["capabilities"]["tools"].is_object());

    let ack = post_rpc(url, Some(&session), &auth, &initialized()).await;
    assert_eq!(ack.status, 202, "{ack:?}");

    let list = post_rpc(url, Some(&session), &auth, &tools_list(2)).await;
    assert_eq!(list.status, 200);
    let tools = list.jsonrpc()["result"]["tools"].clone();
    assert_eq!(tools[0]["name"], "station_code", "{tools}");
    assert_eq!(
        tools[0]["inputSchema"]["properties"]["city"]["type"],
        "string"
    );
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["city"]));
    assert_listed_as_captured("python_sdk", &tools);

    let call = post_rpc(
        url,
        Some(&session),
        &auth,
        &tools_call(3, "station_code", json!({ "city": "Paris" })),
    )
    .await;
    let answer = call.jsonrpc();
    assert_eq!(tool_text(&answer), station_code_text("Paris"));
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({ "city": "Paris", "code": station_code("Paris") })
    );

    // The server saw the token and the page's origin on the calls it answered.
    let seen = servers.python_seen().await;
    assert!(seen.iter().any(|r| r.method == "OPTIONS"
        && r.header("access-control-request-headers") == Some(ASKED_HEADERS)));
    let posts: Vec<_> = seen
        .iter()
        .filter(|r| r.method == "POST" && r.header("mcp-session-id") == Some(session.as_str()))
        .collect();
    assert_eq!(posts.len(), 3, "{seen:#?}");
    assert!(posts
        .iter()
        .all(|r| r.header("authorization") == Some(bearer.as_str())
            && r.header("origin") == Some(PAGE_ORIGIN)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_speaks_mcp_to_a_page_on_another_origin() {
    let servers = start_real_servers();
    let url = &servers.everything_url;
    let origin = [("origin", PAGE_ORIGIN)];

    assert_preflight_allows(&preflight(url).await, "server-everything");

    let init = post_rpc(url, None, &origin, &initialize_message(1, "2025-11-25")).await;
    assert_eq!(init.status, 200, "{init:?}");
    assert_exposes_session(&init, "server-everything initialize");
    let session = init.session_id().expect("a session id").to_string();
    assert_eq!(init.jsonrpc()["result"]["protocolVersion"], "2025-11-25");

    let ack = post_rpc(url, Some(&session), &origin, &initialized()).await;
    assert_eq!(ack.status, 202, "{ack:?}");

    let list = post_rpc(url, Some(&session), &origin, &tools_list(2)).await;
    let tools = list.jsonrpc()["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in ["echo", "get-sum", "get-structured-content"] {
        assert!(names.contains(&name), "{names:?}");
    }
    let sum = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get-sum")
        .unwrap();
    assert_eq!(sum["inputSchema"]["required"], json!(["a", "b"]));
    assert_listed_as_captured("everything", &tools);

    let call = post_rpc(
        url,
        Some(&session),
        &origin,
        &tools_call(3, "get-sum", json!({ "a": 2, "b": 3 })),
    )
    .await;
    assert!(
        call.content_type().starts_with("text/event-stream"),
        "{call:?}"
    );
    assert_eq!(tool_text(&call.jsonrpc()), "The sum of 2 and 3 is 5.");
    let echo = post_rpc(
        url,
        Some(&session),
        &origin,
        &tools_call(4, "echo", json!({ "message": "hi" })),
    )
    .await;
    assert_eq!(tool_text(&echo.jsonrpc()), "Echo: hi");

    // Its get-env tool shows the server's environment: the rig gives it nothing else.
    let env = post_rpc(
        url,
        Some(&session),
        &origin,
        &tools_call(5, "get-env", json!({})),
    )
    .await;
    let env: Value = serde_json::from_str(&tool_text(&env.jsonrpc())).unwrap();
    let mut names: Vec<&str> = env
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    names.sort();
    assert_eq!(names, ["GZIP_ALLOWED_DOMAINS", "PATH", "PORT"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hostile_server_misbehaves_as_scripted() {
    let hostile = HostileMcp::start().await;
    let origin = [("origin", PAGE_ORIGIN)];

    // Ok: the whole exchange, JSON and SSE replies, CORS for a page.
    let ok = hostile.url(Behaviour::Ok);
    assert_preflight_allows(&preflight(&ok).await, "ok");
    let init = post_rpc(&ok, None, &origin, &initialize_message(1, "2025-11-25")).await;
    assert_exposes_session(&init, "ok");
    assert_eq!(init.jsonrpc()["result"]["protocolVersion"], "2025-11-25");
    let old = post_rpc(&ok, None, &[], &initialize_message(1, "2024-11-05")).await;
    assert_eq!(old.jsonrpc()["result"]["protocolVersion"], "2025-06-18");
    let session = init.session_id().unwrap().to_string();
    assert_eq!(
        post_rpc(&ok, Some(&session), &origin, &initialized())
            .await
            .status,
        202
    );
    let list = post_rpc(&ok, Some(&session), &origin, &tools_list(2)).await;
    assert_eq!(list.jsonrpc()["result"]["tools"][0]["name"], "lookup_word");
    let call = post_rpc(
        &ok,
        Some(&session),
        &origin,
        &tools_call(3, "lookup_word", json!({ "word": "apple" })),
    )
    .await;
    assert!(call.content_type().starts_with("application/json"));
    assert_eq!(tool_text(&call.jsonrpc()), secret_word_text("apple"));
    let sse = post_rpc(
        &ok,
        Some(&session),
        &origin,
        &tools_call(4, "lookup_word", json!({ "word": "sse" })),
    )
    .await;
    assert!(sse.content_type().starts_with("text/event-stream"));
    assert_eq!(tool_text(&sse.jsonrpc()), secret_word_text("sse"));
    assert_ne!(secret_word_text("apple"), secret_word_text("pear"));

    // Expiring: 404 after the first call, then a new session.
    let expiring = hostile.url(Behaviour::Expiring);
    let first = post_rpc(&expiring, None, &[], &initialize_message(1, "2025-06-18")).await;
    let first_id = first.session_id().unwrap().to_string();
    let call = post_rpc(
        &expiring,
        Some(&first_id),
        &[],
        &tools_call(2, "lookup_word", json!({ "word": "a" })),
    )
    .await;
    assert_eq!(call.status, 200);
    let gone = post_rpc(
        &expiring,
        Some(&first_id),
        &[],
        &tools_call(3, "lookup_word", json!({ "word": "a" })),
    )
    .await;
    assert_eq!(gone.status, 404, "{gone:?}");
    let second = post_rpc(&expiring, None, &[], &initialize_message(4, "2025-06-18")).await;
    assert_ne!(second.session_id().unwrap(), first_id);
    assert_eq!(hostile.initialize_count(Behaviour::Expiring), 2);

    // OAuth: 401 with a readable challenge.
    let oauth = post_rpc(
        &hostile.url(Behaviour::OAuth),
        None,
        &origin,
        &initialize_message(1, "2025-06-18"),
    )
    .await;
    assert_eq!(oauth.status, 401);
    let challenge = oauth.header("www-authenticate").unwrap();
    assert_eq!(
        challenge,
        format!(
            "Bearer resource_metadata=\"http://{}/.well-known/oauth-protected-resource\"",
            hostile.addr
        )
    );
    assert!(lower_list(oauth.header("access-control-expose-headers"))
        .contains(&"www-authenticate".to_string()));

    // NoCors: fine for a host client, nothing for a page.
    let nocors = hostile.url(Behaviour::NoCors);
    let pre = preflight(&nocors).await;
    assert!(pre.status == 404 || pre.status == 405, "{pre:?}");
    assert!(pre.header("access-control-allow-origin").is_none());
    let init = post_rpc(&nocors, None, &origin, &initialize_message(1, "2025-06-18")).await;
    assert_eq!(init.status, 200);
    assert!(init.header("access-control-allow-origin").is_none());

    // Forbidden: 403 to a page, CORS headers present.
    let forbidden = post_rpc(
        &hostile.url(Behaviour::Forbidden),
        None,
        &origin,
        &initialize_message(1, "2025-06-18"),
    )
    .await;
    assert_eq!(forbidden.status, 403);
    assert_eq!(forbidden.header("access-control-allow-origin"), Some("*"));
    assert!(forbidden.jsonrpc()["error"]["message"].is_string());

    // NotMcp: a login page.
    let page = post_rpc(
        &hostile.url(Behaviour::NotMcp),
        None,
        &origin,
        &initialize_message(1, "2025-06-18"),
    )
    .await;
    assert_eq!(page.status, 200);
    assert!(page.content_type().starts_with("text/html") && page.body.contains("login page"));

    // Markup and Huge.
    let markup = hostile.url(Behaviour::Markup);
    let s = post_rpc(&markup, None, &[], &initialize_message(1, "2025-06-18"))
        .await
        .session_id()
        .unwrap()
        .to_string();
    let tools = post_rpc(&markup, Some(&s), &[], &tools_list(2))
        .await
        .jsonrpc()["result"]["tools"]
        .clone();
    assert_eq!(tools[0]["name"], "calculator");
    assert_eq!(tools[1]["name"], markup_long_tool_name());
    assert_eq!(markup_long_tool_name().chars().count(), 300);
    assert!(tools[2]["description"].as_str().unwrap().len() >= 5000);
    let call = post_rpc(
        &markup,
        Some(&s),
        &[],
        &tools_call(3, "calculator", json!({ "expression": "1+1" })),
    )
    .await;
    assert_eq!(tool_text(&call.jsonrpc()), MARKUP_RESULT);
    let huge = hostile.url(Behaviour::Huge);
    let s = post_rpc(&huge, None, &[], &initialize_message(1, "2025-06-18"))
        .await
        .session_id()
        .unwrap()
        .to_string();
    let big = post_rpc(&huge, Some(&s), &[], &tools_call(2, "fetch_log", json!({}))).await;
    assert_eq!(tool_text(&big.jsonrpc()).len(), HUGE_RESULT_BYTES);

    // Endless: headers and keep-alives, never an answer; the hang-up and the cancellation are
    // recorded.
    let endless = hostile.url(Behaviour::Endless);
    let s = post_rpc(&endless, None, &[], &initialize_message(1, "2025-06-18"))
        .await
        .session_id()
        .unwrap()
        .to_string();
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<http_body_util::Full<bytes::Bytes>>();
    let request = hyper::Request::post(&endless)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &s)
        .body(http_body_util::Full::new(bytes::Bytes::from(
            tools_call(7, "slow_search", json!({ "query": "q" })).to_string(),
        )))
        .unwrap();
    let response = client.request(request).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body();
    let frame = http_body_util::BodyExt::frame(&mut body)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(frame.data_ref().unwrap().as_ref(), b": keep-alive\n\n");
    assert_eq!(hostile.streams_opened(Behaviour::Endless), 1);
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": { "requestId": 7, "reason": "stopped by the user" } });
    assert_eq!(post_rpc(&endless, Some(&s), &[], &cancel).await.status, 202);
    drop(body);
    drop(client);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while hostile.hangups(Behaviour::Endless).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the hang-up was not noticed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        hostile.cancelled_request_ids(Behaviour::Endless),
        vec![json!(7)]
    );

    // Everything was recorded, preflights included; no request carried a token.
    assert!(hostile
        .requests_to(Behaviour::Ok)
        .iter()
        .any(|r| r.method == "OPTIONS"));
    assert!(hostile
        .requests()
        .iter()
        .any(|r| r.rpc_method().as_deref() == Some("notifications/cancelled")));
    assert!(hostile.authorization_headers().is_empty());
}
