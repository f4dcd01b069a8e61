//! MCP servers' tools in a run, and the sessions behind them. One client per server (URL,
//! token, time limit) is shared by every panel and by Settings' Connect, so the session a
//! Connect opened is the one the runs use. A server's token is read from storage here, at the
//! edge: it never travels with the settings or the run, and goes only to its own server
//! (`McpTokens::to_send`).

use std::cell::RefCell;
use std::rc::Rc;

use arena_core::agent::Mode;
use arena_core::mcp::consent::{ConsentGate, LivePolicy};
use arena_core::mcp::server_tools::{runtime_tool, McpServer, Sessions};
use arena_core::mcp::{McpClient, McpEndpoint};
use arena_core::settings::Settings;
use arena_core::tools::{Registry, ToolFailure};

use crate::mcp_fetch::BrowserMcp;
use crate::storage;

type Key = (String, Option<String>, u32);

thread_local! {
    static CLIENTS: RefCell<Vec<(Key, Rc<McpClient>)>> = RefCell::default();
}

/// Sessions kept at most; the oldest is dropped first.
const KEPT_CLIENTS: usize = 16;

/// This page's origin: what a server must allow.
pub fn page_origin() -> String {
    web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default()
}

/// The token to send to the server at `url`, if the user gave one and confirmed its host.
pub fn token_for(url: &str) -> Option<String> {
    storage::load_mcp_tokens().to_send(url, &storage::load_mcp_token_hosts())
}

/// The client of the server at `url` with `token`: the kept one, or a new one (`fresh`: a
/// new one in any case, as Connect wants).
pub fn client(url: &str, token: Option<String>, timeout_secs: u32, fresh: bool) -> Rc<McpClient> {
    let key: Key = (url.to_string(), token.clone(), timeout_secs);
    CLIENTS.with(|kept| {
        let mut kept = kept.borrow_mut();
        if fresh {
            kept.retain(|(k, _)| *k != key);
        } else if let Some((_, client)) = kept.iter().find(|(k, _)| *k == key) {
            return client.clone();
        }
        let client = Rc::new(McpClient::new(
            McpEndpoint {
                url: url.to_string(),
                token,
            },
            Rc::new(BrowserMcp { timeout_secs }),
        ));
        kept.push((key, client.clone()));
        if kept.len() > KEPT_CLIENTS {
            kept.remove(0);
        }
        client
    })
}

/// Forgets the sessions of the server at `url` (removed in Settings): no call goes there again.
pub fn forget(url: &str) {
    CLIENTS.with(|kept| kept.borrow_mut().retain(|((u, _, _), _)| u != url));
}

/// Adds the MCP tools `mode` may call to `registry`, after the built-in ones. Only servers the
/// user has added are called (a run shown from a file carries none), with the token and
/// session they have when the call is made, once the run's `gate` lets them.
pub fn add_tools(registry: &mut Registry, settings: &Settings, mode: Mode, gate: &Rc<ConsentGate>) {
    let origin = page_origin();
    for server in &settings.mcp_servers.servers() {
        let enabled: Vec<_> = server
            .tools
            .iter()
            .filter(|t| settings.tool_enabled(mode, &t.offered))
            .collect();
        if enabled.is_empty() {
            continue;
        }
        let sessions = sessions(server, settings.mcp_timeout_secs);
        for tool in enabled {
            registry.push(Box::new(runtime_tool(
                server,
                tool,
                sessions.clone(),
                &origin,
                (gate.clone(), live_policy(&server.url, &tool.name)),
            )));
        }
    }
}

/// The server's ask policy and whether the tool only reads, as Settings have them at the
/// call: a stricter choice made while a run is open applies to it.
fn live_policy(url: &str, tool: &str) -> LivePolicy {
    let (url, tool) = (url.to_string(), tool.to_string());
    Rc::new(move || {
        let servers = storage::load_settings().mcp_servers.servers();
        let server = servers.iter().find(|s| s.url == url)?;
        let read_only = server.tools.iter().any(|t| t.name == tool && t.read_only);
        Some((server.ask, read_only))
    })
}

fn sessions(server: &McpServer, timeout_secs: u32) -> Sessions {
    let (url, label) = (server.url.clone(), server.label());
    Rc::new(move || {
        let added = storage::load_settings()
            .mcp_servers
            .servers()
            .iter()
            .any(|s| s.url == url);
        if !added {
            return Err(ToolFailure::not_found(format!(
                "{label} was removed in Settings: its tools cannot be called."
            )));
        }
        Ok(client(&url, token_for(&url), timeout_secs, false))
    })
}
