//! Browser storage of settings, the token, the MCP servers' tokens and the hosts each may go to. The token lives
//! in sessionStorage unless the user asked to remember it on this device. Every write reports
//! its failure (storage full or disabled) so the UI can say so.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::Storage;

use arena_core::kept_secrets::{KeptSecrets, Place};
use arena_core::mcp::tokens::{keep_for_servers, McpTokens};
use arena_core::origin::Origin;
use arena_core::settings::{Settings, TokenHosts};

const SETTINGS_KEY: &str = "react-arena.settings";
const TOKEN_KEY: &str = "react-arena.token";
const TOKEN_HOSTS_KEY: &str = "react-arena.token-hosts";
const MCP_TOKENS_KEY: &str = "react-arena.mcp-tokens";
const MCP_TOKEN_HOSTS_KEY: &str = "react-arena.mcp-token-hosts";

#[derive(Clone, Copy)]
enum Area {
    /// This tab, until it closes.
    Session,
    /// This device, until the user clears it.
    Local,
}

impl Area {
    fn for_token(remember: bool) -> Area {
        if remember {
            Area::Local
        } else {
            Area::Session
        }
    }

    fn place(self) -> Place {
        match self {
            Area::Session => Place::Tab,
            Area::Local => Place::Device,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Area::Session => "this tab's session storage",
            Area::Local => "this browser's local storage",
        }
    }

    fn open(self) -> Result<Storage, String> {
        let window = web_sys::window().ok_or("no window")?;
        let storage = match self {
            Area::Session => window.session_storage(),
            Area::Local => window.local_storage(),
        };
        match storage {
            Ok(Some(s)) => Ok(s),
            Ok(None) => Err(format!("{} is not available", self.name())),
            Err(e) => Err(format!("{} is disabled ({})", self.name(), error_name(&e))),
        }
    }

    fn read(self, key: &str) -> Option<String> {
        self.open().ok()?.get_item(key).ok().flatten()
    }

    fn write(self, key: &str, value: &str) -> Result<(), String> {
        self.open()?
            .set_item(key, value)
            .map_err(|e| format!("{} refused it ({})", self.name(), error_name(&e)))
    }

    fn remove(self, key: &str) {
        if let Ok(s) = self.open() {
            let _ = s.remove_item(key);
        }
    }
}

/// `QuotaExceededError`, `SecurityError`…: the name says what happened.
fn error_name(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.name()))
        .unwrap_or_else(|| "unknown error".into())
}

pub fn load_settings() -> Settings {
    Area::Local
        .read(SETTINGS_KEY)
        .map(|json| Settings::from_json(&json))
        .unwrap_or_default()
}

pub fn save_settings(settings: &Settings) -> Result<(), String> {
    Area::Local
        .write(SETTINGS_KEY, &settings.to_json())
        .map_err(|e| format!("Settings were not saved: {e}. They last until you reload."))
}

/// A secret as stored: session first (this tab), then the remembered one.
fn load_secret(key: &str) -> Option<String> {
    Area::Session.read(key).or_else(|| Area::Local.read(key))
}

/// Stores a secret in the place `remember` chooses (empty: nowhere); the copy in the other
/// place is removed only once the new one is written, so a failed write never loses the only
/// copy.
fn save_secret(key: &str, text: &str, remember: bool) -> Result<(), String> {
    let keep = Area::for_token(remember);
    let other = Area::for_token(!remember);
    if text.is_empty() {
        keep.remove(key);
        other.remove(key);
        return Ok(());
    }
    keep.write(key, text)?;
    other.remove(key);
    Ok(())
}

/// The stored token: session first (this tab), then the remembered one.
pub fn load_token() -> String {
    load_secret(TOKEN_KEY).unwrap_or_default()
}

/// Stores the token in the place `remember` chooses.
pub fn save_token(token: &str, remember: bool) -> Result<(), String> {
    save_secret(TOKEN_KEY, token, remember).map_err(|e| {
        format!("The token was not saved: {e}. It is still in the field until you reload.")
    })
}

/// Forget: every secret goes, wherever it was kept: the Hugging Face token, the MCP
/// servers' tokens, and the hosts confirmed for either.
pub fn forget_secrets() {
    for key in [TOKEN_KEY, MCP_TOKENS_KEY] {
        Area::Session.remove(key);
        Area::Local.remove(key);
    }
    Area::Local.remove(TOKEN_HOSTS_KEY);
    Area::Local.remove(MCP_TOKEN_HOSTS_KEY);
}

/// Where a secret is kept: this tab's copy is the one read first.
fn place_of(key: &str) -> Option<(Area, String)> {
    [Area::Session, Area::Local]
        .into_iter()
        .find_map(|area| area.read(key).map(|text| (area, text)))
        .filter(|(_, text)| !text.is_empty())
}

/// What this browser keeps of the secrets, and where.
pub fn kept_secrets() -> KeptSecrets {
    let mcp_tokens = place_of(MCP_TOKENS_KEY)
        .map(|(area, json)| (McpTokens::from_json(&json).len(), area.place()))
        .filter(|(count, _)| *count > 0);
    let mut confirmed_hosts = load_token_hosts().confirmed_by_user();
    for host in load_mcp_token_hosts().confirmed_by_user() {
        if !confirmed_hosts.contains(&host) {
            confirmed_hosts.push(host);
        }
    }
    KeptSecrets {
        hf_token: place_of(TOKEN_KEY).map(|(area, _)| area.place()),
        mcp_tokens,
        confirmed_hosts,
    }
}

pub fn load_token_hosts() -> TokenHosts {
    Area::Local
        .read(TOKEN_HOSTS_KEY)
        .map(|json| TokenHosts::from_json(&json))
        .unwrap_or_default()
}

pub fn save_token_hosts(hosts: &TokenHosts) -> Result<(), String> {
    Area::Local
        .write(TOKEN_HOSTS_KEY, &hosts.to_json())
        .map_err(|e| {
            format!(
                "The confirmed host was not saved: {e}. You will be asked again after a reload."
            )
        })
}

/// The MCP servers' tokens: session first (this tab), then the remembered ones.
pub fn load_mcp_tokens() -> McpTokens {
    load_secret(MCP_TOKENS_KEY)
        .map(|json| McpTokens::from_json(&json))
        .unwrap_or_default()
}

/// Stores the MCP tokens where `remember` chooses (as the Hugging Face token is stored).
pub fn save_mcp_tokens(tokens: &McpTokens, remember: bool) -> Result<(), String> {
    let text = if tokens.is_empty() {
        String::new()
    } else {
        tokens.to_json()
    };
    save_secret(MCP_TOKENS_KEY, &text, remember)
        .map_err(|e| format!("The MCP token was not saved: {e}."))
}

/// Moves the MCP tokens, as stored, where `remember` chooses (the Remember box), without
/// reading them: the first screen calls this and need not carry their reader.
pub fn move_mcp_tokens(remember: bool) -> Result<(), String> {
    let Some(text) = Area::for_token(!remember).read(MCP_TOKENS_KEY) else {
        return Ok(());
    };
    save_secret(MCP_TOKENS_KEY, &text, remember)
        .map_err(|e| format!("The MCP tokens were not moved: {e}."))
}

/// After a successful Connect: the server's token (an empty one removes it), kept where
/// `remember` chooses, and `confirmed`, the host the user confirmed for it. Nothing is kept
/// for a server that did not answer.
pub fn keep_mcp_token(
    url: &str,
    token: &str,
    remember: bool,
    confirmed: Option<&Origin>,
) -> Result<(), String> {
    let mut tokens = load_mcp_tokens();
    tokens.set(url, token);
    save_mcp_tokens(&tokens, remember)?;
    if let Some(origin) = confirmed {
        let mut hosts = load_mcp_token_hosts();
        hosts.trust(origin);
        save_mcp_token_hosts(&hosts)?;
    }
    Ok(())
}

/// After a server is removed: only the servers at `urls` keep tokens and confirmed hosts.
pub fn keep_mcp_secrets_for(urls: &[&str], remember: bool) -> Result<(), String> {
    let mut tokens = load_mcp_tokens();
    let mut hosts = load_mcp_token_hosts();
    keep_for_servers(&mut tokens, &mut hosts, urls);
    save_mcp_tokens(&tokens, remember)?;
    save_mcp_token_hosts(&hosts)
}

/// The origins the user confirmed as places to send an MCP token (apart from the model's).
pub fn load_mcp_token_hosts() -> TokenHosts {
    Area::Local
        .read(MCP_TOKEN_HOSTS_KEY)
        .map(|json| TokenHosts::confirmed_only(&json))
        .unwrap_or_else(|| TokenHosts::confirmed_only("[]"))
}

pub fn save_mcp_token_hosts(hosts: &TokenHosts) -> Result<(), String> {
    Area::Local
        .write(MCP_TOKEN_HOSTS_KEY, &hosts.to_json())
        .map_err(|e| format!("The confirmed MCP host was not saved: {e}."))
}

const LEADERBOARD_SINCE_KEY: &str = "react-arena.leaderboard-since";

/// When the leaderboard was last cleared (epoch ms; 0: never): it counts what came after.
pub fn load_leaderboard_since() -> f64 {
    Area::Local
        .read(LEADERBOARD_SINCE_KEY)
        .and_then(|t| t.parse::<f64>().ok())
        .filter(|t| t.is_finite() && *t >= 0.0)
        .unwrap_or(0.0)
}

pub fn save_leaderboard_since(since: f64) -> Result<(), String> {
    Area::Local
        .write(LEADERBOARD_SINCE_KEY, &format!("{since:.0}"))
        .map_err(|e| format!("The leaderboard's Clear was not saved: {e}."))
}

const HUB_URL_KEY: &str = "react-arena.hub-url";

/// The Hub's address the user set in the publish dialog (empty: the Hub itself). Kept apart
/// from the settings, which run files carry: no file can choose where the token is sent.
pub fn load_hub_url() -> String {
    Area::Local.read(HUB_URL_KEY).unwrap_or_default()
}

pub fn save_hub_url(url: &str) -> Result<(), String> {
    Area::Local
        .write(HUB_URL_KEY, url)
        .map_err(|e| format!("The Hub's address was not saved: {e}."))
}
