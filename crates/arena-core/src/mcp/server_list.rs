//! The MCP servers the user added, as the settings keep them: JSON text the first screen need
//! not read, made safe again when read (settings may come from a file).

use serde::{Deserialize, Serialize};

use super::server_tools::{distinct_name, repair_tools, server_name, shared_names, McpServer};
use crate::origin::Origin;
use crate::tools::registry::TOOL_NAMES;

/// The MCP servers, kept in the settings as JSON text: the settings are read by the first
/// screen, which need not carry the code that reads the servers. Read with
/// [`McpServerList::servers`], which makes them safe again (settings may come from a file).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct McpServerList(String);

/// Longest list of servers kept, as JSON text.
const MAX_SERVER_LIST_BYTES: usize = 1024 * 1024;

impl McpServerList {
    pub fn of(servers: &[McpServer]) -> Self {
        McpServerList(serde_json::to_string(servers).unwrap_or_default())
    }

    /// The list, or none when it is longer than the settings keep.
    pub fn capped(self) -> Self {
        if self.0.len() > MAX_SERVER_LIST_BYTES {
            Self::default()
        } else {
            self
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty() || self.0 == "[]"
    }

    /// The servers, made safe: every URL http(s), every name and description plain and cut,
    /// clashes renamed, at most [`MAX_MCP_SERVERS`].
    pub fn servers(&self) -> Vec<McpServer> {
        if self.is_empty() {
            return Vec::new();
        }
        let kept: Vec<McpServer> = serde_json::from_str(&self.0).unwrap_or_default();
        let kept: Vec<McpServer> = kept
            .into_iter()
            .filter(|s| mcp_url_problem(&s.url).is_none())
            .take(MAX_MCP_SERVERS)
            .collect();
        let shared = shared_names(
            kept.iter()
                .map(|s| s.tools.iter().map(|t| t.name.as_str()).collect()),
        );
        let mut taken: Vec<String> = TOOL_NAMES.iter().map(|n| n.to_string()).collect();
        let mut names: Vec<String> = Vec::new();
        kept.into_iter()
            .map(|server| {
                let url = server.url.trim().to_string();
                // Each server's name is its own: a later one that calls itself by an earlier
                // one's name is told apart.
                let name = distinct_name(&server_name(&server.name, &url), &names);
                names.push(name.clone());
                let tools = repair_tools(server.tools, &name, &mut taken, &shared);
                McpServer {
                    name,
                    url,
                    tools,
                    ask: server.ask,
                }
            })
            .collect()
    }
}

/// What is wrong with `url` as an MCP server's address; `None` when the page can call it.
pub fn mcp_url_problem(url: &str) -> Option<String> {
    let Some(origin) = Origin::of(url.trim()) else {
        return Some(format!(
            "\"{}\" is not an http(s) URL. Give the server's Streamable HTTP endpoint, e.g. http://localhost:3001/mcp.",
            url.trim().chars().take(80).collect::<String>()
        ));
    };
    if origin.host == "[::1]" {
        return Some("Use localhost instead of [::1]: the page's security policy cannot name an IPv6 address.".into());
    }
    if !origin.is_https() && !origin.is_local() {
        return Some(
            "Use https for an MCP server: plain http is allowed only to this machine.".into(),
        );
    }
    None
}

/// Most MCP servers kept.
pub const MAX_MCP_SERVERS: usize = 16;
