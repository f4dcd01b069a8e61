//! MCP servers' bearer tokens, kept apart from the settings like the Hugging Face token (this
//! tab's session unless the user asked to remember it), by the exact URL of their server. A
//! token goes only to the server it was given for, and only once the user confirmed that
//! server's origin: settings read from a file can name a server, never give it a token.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::origin::Origin;
use crate::token_trust::TokenHosts;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct McpTokens(BTreeMap<String, String>);

impl McpTokens {
    pub fn from_json(json: &str) -> Self {
        serde_json::from_str(json).unwrap_or_default()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Keeps `token` for the server at `url`; an empty token removes it.
    pub fn set(&mut self, url: &str, token: &str) {
        let token = token.trim();
        if token.is_empty() {
            self.0.remove(url.trim());
        } else {
            self.0.insert(url.trim().to_string(), token.to_string());
        }
    }

    /// The token kept for `url`, confirmed or not (the settings show it in its field).
    pub fn get(&self, url: &str) -> Option<&str> {
        self.0.get(url.trim()).map(String::as_str)
    }

    /// The token to send to `url`: kept for exactly that URL, and its origin confirmed.
    pub fn to_send(&self, url: &str, confirmed: &TokenHosts) -> Option<String> {
        let origin = Origin::of(url.trim())?;
        if !confirmed.contains(&origin) {
            return None;
        }
        self.get(url).map(str::to_string)
    }
}

/// What stays kept once the servers at `urls` are the only ones: their tokens, and the
/// confirmed hosts at least one of them is on. A removed server's token goes, and so does its
/// host when no other server is on it; so does a token no server uses (one a failed Connect
/// kept before tokens waited for a successful one).
pub fn keep_for_servers(tokens: &mut McpTokens, hosts: &mut TokenHosts, urls: &[&str]) {
    tokens.0.retain(|url, _| urls.contains(&url.as_str()));
    let used: Vec<Origin> = urls.iter().filter_map(|u| Origin::of(u.trim())).collect();
    hosts.keep_only(&used);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_goes_only_to_its_own_confirmed_server() {
        let mut tokens = McpTokens::default();
        tokens.set(" https://mcp.test/mcp ", " secret ");
        let mut hosts = TokenHosts::confirmed_only("[]");
        assert_eq!(tokens.get("https://mcp.test/mcp"), Some("secret"));
        assert_eq!(
            tokens.to_send("https://mcp.test/mcp", &hosts),
            None,
            "not confirmed"
        );
        let router = Origin::of(crate::token_trust::ROUTER_BASE_URL).unwrap();
        assert!(
            !hosts.contains(&router),
            "no origin is confirmed for MCP by default"
        );
        hosts.trust(&Origin::of("https://mcp.test").unwrap());
        assert_eq!(
            tokens.to_send("https://mcp.test/mcp", &hosts).as_deref(),
            Some("secret")
        );
        // Another path or host of a server named in a file gets nothing.
        assert_eq!(tokens.to_send("https://mcp.test/other", &hosts), None);
        assert_eq!(tokens.to_send("https://evil.test/mcp", &hosts), None);
        let back = McpTokens::from_json(&tokens.to_json());
        assert_eq!(back, tokens);
        tokens.set("https://mcp.test/mcp", "");
        assert!(tokens.is_empty());
        assert_eq!(McpTokens::from_json("{bad"), McpTokens::default());
    }

    /// Issue 36, attack 3: tokens and confirmed hosts outlived their servers.
    #[test]
    fn removing_a_server_drops_its_token_and_a_host_no_other_server_is_on() {
        let (a, b, c) = (
            "https://mcp.test/a",
            "https://mcp.test/b",
            "https://other.test/mcp",
        );
        let mut tokens = McpTokens::default();
        let mut hosts = TokenHosts::confirmed_only("[]");
        for url in [a, b, c] {
            tokens.set(url, "t");
            hosts.trust(&Origin::of(url).unwrap());
        }
        tokens.set("https://gone.test/mcp", "orphan");
        hosts.trust(&Origin::of("https://gone.test").unwrap());

        // `c` removed: its token and its host go, and the orphan with them.
        keep_for_servers(&mut tokens, &mut hosts, &[a, b]);
        assert_eq!(
            (tokens.get(c), tokens.get("https://gone.test/mcp")),
            (None, None)
        );
        assert_eq!(hosts.confirmed_by_user(), ["https://mcp.test"]);
        // `b` removed: `a` is still on its host.
        keep_for_servers(&mut tokens, &mut hosts, &[a]);
        assert_eq!((tokens.get(a), tokens.get(b)), (Some("t"), None));
        assert_eq!(tokens.to_send(a, &hosts).as_deref(), Some("t"));
        // The last one removed: nothing is kept.
        keep_for_servers(&mut tokens, &mut hosts, &[]);
        assert!(tokens.is_empty() && hosts.confirmed_by_user().is_empty());
    }
}
