//! Where the user's token may go: a pasted token's problems, and the origins the user
//! confirmed as places to send it (the Hugging Face router needs no confirmation). Beside
//! `origin`, below the settings and the MCP servers' tokens, which both read it.

use serde::{Deserialize, Serialize};

use crate::hidden_text::is_invisible;
use crate::origin::Origin;

/// The Hugging Face router: the default endpoint, trusted with the token without asking.
pub const ROUTER_BASE_URL: &str = "https://router.huggingface.co/v1";

/// What is wrong with a pasted token, said so the user can fix it. Tokens are printable ASCII;
/// anything else (a zero-width space from a copy, a space inside) would make the browser
/// refuse the request header.
pub fn token_problem(token: &str) -> Option<String> {
    let (position, c) = token
        .trim()
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_graphic())?;
    let code = format!("U+{:04X}", c as u32);
    let what = if c.is_whitespace() {
        format!("a space ({code})")
    } else if c.is_control() || is_invisible(c) {
        format!("an invisible character ({code})")
    } else {
        format!("the character \"{c}\" ({code}), which tokens never have")
    };
    Some(format!(
        "The token contains {what} at position {}: paste it again in Settings",
        position + 1
    ))
}

/// The origin the token would be sent to, when the user has not yet confirmed it. Without a
/// token there is nothing to confirm.
pub fn host_to_confirm(base_url: &str, token: &str, trusted: &TokenHosts) -> Option<Origin> {
    if token.trim().is_empty() {
        return None;
    }
    let origin = Origin::of(base_url.trim())?;
    (!trusted.contains(&origin)).then_some(origin)
}

/// Origins the user confirmed as places to send the token, sorted. Stored apart from the
/// settings, so importing settings can never add to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenHosts(Vec<String>);

impl Default for TokenHosts {
    /// The Hugging Face router, the default endpoint, needs no confirmation.
    fn default() -> Self {
        let router = Origin::of(ROUTER_BASE_URL).map(|o| o.to_string());
        TokenHosts(router.into_iter().collect())
    }
}

impl TokenHosts {
    pub fn from_json(json: &str) -> Self {
        let mut hosts = Self::confirmed_only(json);
        hosts.0.extend(TokenHosts::default().0);
        hosts.0.sort();
        hosts.0.dedup();
        hosts
    }

    /// Only the origins the user confirmed, without the router (MCP servers' hosts).
    pub fn confirmed_only(json: &str) -> Self {
        let mut hosts = serde_json::from_str::<TokenHosts>(json).unwrap_or(TokenHosts(Vec::new()));
        // Only well-formed origins, as this code writes them.
        hosts
            .0
            .retain(|h| Origin::of(h).is_some_and(|o| o.to_string() == *h));
        hosts.0.sort();
        hosts.0.dedup();
        hosts
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn contains(&self, origin: &Origin) -> bool {
        self.0.binary_search(&origin.to_string()).is_ok()
    }

    pub fn trust(&mut self, origin: &Origin) {
        let origin = origin.to_string();
        if let Err(at) = self.0.binary_search(&origin) {
            self.0.insert(at, origin);
        }
    }

    /// Forgets every origin but those in `used`.
    pub fn keep_only(&mut self, used: &[Origin]) {
        self.0.retain(|h| used.iter().any(|o| o.to_string() == *h));
    }

    /// The origins the user confirmed: all but the Hugging Face router, which needs no
    /// confirmation.
    pub fn confirmed_by_user(&self) -> Vec<String> {
        let router = TokenHosts::default().0;
        self.0
            .iter()
            .filter(|h| !router.contains(h))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_goes_only_to_confirmed_hosts() {
        let mut trusted = TokenHosts::default();
        assert_eq!(host_to_confirm(ROUTER_BASE_URL, "hf_x", &trusted), None);
        let other = "https://models.example.org/v1";
        let origin = host_to_confirm(other, "hf_x", &trusted).expect("a new host asks");
        assert_eq!(origin.to_string(), "https://models.example.org");
        assert_eq!(
            host_to_confirm(other, "", &trusted),
            None,
            "no token, nothing to ask"
        );
        trusted.trust(&origin);
        assert_eq!(
            host_to_confirm("https://MODELS.example.org:443/x", "hf_x", &trusted),
            None
        );
        assert!(host_to_confirm("https://models.example.org:8443/v1", "hf_x", &trusted).is_some());
        assert!(host_to_confirm("http://127.0.0.1:9/v1", "hf_x", &trusted).is_some());
        let back = TokenHosts::from_json(&trusted.to_json());
        assert_eq!(back, trusted);
    }

    #[test]
    fn stored_token_hosts_keep_only_well_formed_origins() {
        let hosts = TokenHosts::from_json(
            r#"["https://ok.example.org","https://x.org/path","http://a@b","not a url"]"#,
        );
        let ok = Origin::of("https://ok.example.org").unwrap();
        assert!(hosts.contains(&ok));
        assert_eq!(hosts.0.len(), 2, "{hosts:?}");
        assert_eq!(TokenHosts::from_json("garbage"), TokenHosts::default());
    }
}
