//! User settings: what they are, their defaults, and the rules on them. Storage is in `ui`.

use serde::{Deserialize, Serialize};

use crate::agent::protocols::action_protocol::ProtocolChoice;
use crate::agent::record::McpSource;
use crate::agent::Mode;
pub use crate::browser_model::Backend;
use crate::edited_prompts::EditedPrompts;
use crate::mcp::client::Connected;
use crate::mcp::consent::AskPolicy;
use crate::mcp::server_list::McpServerList;
pub use crate::mcp::server_list::{mcp_url_problem, MAX_MCP_SERVERS};
use crate::mcp::server_tools::{
    distinct_name, read_tools_sharing, server_name, shared_names, McpServer,
};
use crate::origin::{without_query, Origin};
pub use crate::token_trust::{host_to_confirm, token_problem, TokenHosts};
use crate::tools::endpoints::ToolEndpoints;
use crate::tools::python::DEFAULT_TIMEOUT_SECS;
use crate::tools::registry::{Registry, TOOL_NAMES};

pub const DEFAULT_MODEL: &str = "openai/gpt-oss-20b";
pub const DEFAULT_BASE_URL: &str = crate::token_trust::ROUTER_BASE_URL;

/// Everything but the token, which is stored apart (session by default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub model: String,
    pub base_url: String,
    pub temperature: f32,
    pub max_tokens: u32,
    pub max_steps: u32,
    /// Keep the token in localStorage (survives closing the browser) instead of sessionStorage.
    pub remember_token: bool,
    /// Tools switched off for every mode, as older versions kept them: read into
    /// `tools_off` and emptied.
    pub disabled_tools: Vec<String>,
    /// Tools the user switched off, by mode (by the name offered to the model); every other
    /// tool is offered.
    pub tools_off: ToolsOff,
    /// MCP servers whose tools are offered beside the built-in ones (tokens are kept apart).
    pub mcp_servers: McpServerList,
    /// Time limit of one MCP tool call.
    pub mcp_timeout_secs: u32,
    pub tool_endpoints: ToolEndpoints,
    /// Time limit of one python call, and of a CodeAct program's own time (its calls' aside).
    pub python_timeout_secs: u32,
    /// How the model asks for tools.
    pub protocol: ProtocolChoice,
    /// A model stream that sends nothing for this long is cut.
    pub stream_idle_timeout_secs: u32,
    /// A model stream still going after this long is cut, however steadily it sends.
    pub stream_max_secs: u32,
    /// A model per mode; empty: the model above.
    pub mode_models: ModeModels,
    /// The model's context window in tokens, for runs to stay within it; 0: as the endpoint's
    /// model list says, or unknown.
    pub context_length: u32,
    pub backend: Backend,
    /// The GGUF file the in-browser backend runs (one of `browser_model::OFFERED`, or any).
    pub browser_model_url: String,
    /// The in-browser model's context window, in tokens.
    pub browser_context: u32,
    /// System prompts the user edited, by mode; a mode without one sends its own.
    pub prompts: EditedPrompts,
}

/// Tools switched off in Act-only, ReAct and CodeAct (Think-only calls none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolsOff {
    pub act: Vec<String>,
    pub react: Vec<String>,
    pub codeact: Vec<String>,
}

impl ToolsOff {
    fn of(&self, mode: Mode) -> Option<&Vec<String>> {
        match mode {
            Mode::Think => None,
            Mode::Act => Some(&self.act),
            Mode::ReAct => Some(&self.react),
            Mode::CodeAct => Some(&self.codeact),
        }
    }

    fn of_mut(&mut self, mode: Mode) -> Option<&mut Vec<String>> {
        match mode {
            Mode::Think => None,
            Mode::Act => Some(&mut self.act),
            Mode::ReAct => Some(&mut self.react),
            Mode::CodeAct => Some(&mut self.codeact),
        }
    }
}

pub const DEFAULT_MCP_TIMEOUT_SECS: u32 = 30;
pub const MAX_MCP_TIMEOUT_SECS: u32 = 300;

/// Models chosen for single modes, overriding `Settings::model` (empty: no override).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModeModels {
    pub think: String,
    pub act: String,
    pub react: String,
    pub codeact: String,
}

impl ModeModels {
    /// The model chosen for `mode` ("" for none).
    pub fn of(&self, mode: Mode) -> &String {
        match mode {
            Mode::Think => &self.think,
            Mode::Act => &self.act,
            Mode::ReAct => &self.react,
            Mode::CodeAct => &self.codeact,
        }
    }

    /// Where `mode`'s model is chosen.
    pub fn of_mut(&mut self, mode: Mode) -> &mut String {
        match mode {
            Mode::Think => &mut self.think,
            Mode::Act => &mut self.act,
            Mode::ReAct => &mut self.react,
            Mode::CodeAct => &mut self.codeact,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            model: DEFAULT_MODEL.into(),
            base_url: DEFAULT_BASE_URL.into(),
            temperature: 0.3,
            max_tokens: 1024,
            max_steps: 5,
            remember_token: false,
            disabled_tools: Vec::new(),
            tools_off: ToolsOff::default(),
            mcp_servers: McpServerList::default(),
            mcp_timeout_secs: DEFAULT_MCP_TIMEOUT_SECS,
            tool_endpoints: ToolEndpoints::default(),
            python_timeout_secs: DEFAULT_TIMEOUT_SECS,
            protocol: ProtocolChoice::Auto,
            stream_idle_timeout_secs: 60,
            stream_max_secs: 600,
            mode_models: ModeModels::default(),
            context_length: 0,
            backend: Backend::Endpoint,
            browser_model_url: crate::browser_model::DEFAULT_MODEL_URL.into(),
            browser_context: crate::browser_model::DEFAULT_CONTEXT,
            prompts: EditedPrompts::default(),
        }
    }
}

pub const MAX_STEPS_LIMIT: u32 = 20;
pub const MAX_PYTHON_TIMEOUT_SECS: u32 = 120;

impl Settings {
    /// Reads stored settings; anything unreadable falls back to the defaults, field by field.
    pub fn from_json(json: &str) -> Self {
        serde_json::from_str::<Settings>(json)
            .unwrap_or_default()
            .clamped()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Keeps numbers within what the providers accept.
    pub fn clamped(mut self) -> Self {
        if !self.temperature.is_finite() {
            self.temperature = Settings::default().temperature;
        }
        self.temperature = self.temperature.clamp(0.0, 2.0);
        self.max_tokens = self.max_tokens.clamp(16, 32_768);
        self.max_steps = self.max_steps.clamp(1, MAX_STEPS_LIMIT);
        self.python_timeout_secs = self.python_timeout_secs.clamp(1, MAX_PYTHON_TIMEOUT_SECS);
        self.stream_idle_timeout_secs = self.stream_idle_timeout_secs.clamp(1, 600);
        // An hour: 32k tokens at ten a second still fit.
        self.stream_max_secs = self.stream_max_secs.clamp(1, 3_600);
        self.context_length = self.context_length.min(10_000_000);
        // An address longer than any real one is not kept (settings may come from a file).
        if self.browser_model_url.len() > 2048 {
            self.browser_model_url = crate::browser_model::DEFAULT_MODEL_URL.into();
        }
        self.browser_context = self
            .browser_context
            .clamp(512, crate::browser_model::MAX_CONTEXT);
        for m in [
            &mut self.mode_models.think,
            &mut self.mode_models.act,
            &mut self.mode_models.react,
            &mut self.mode_models.codeact,
        ] {
            *m = m.trim().to_string();
        }
        self.tool_endpoints = self.tool_endpoints.repaired();
        self.mcp_timeout_secs = self.mcp_timeout_secs.clamp(1, MAX_MCP_TIMEOUT_SECS);
        for name in std::mem::take(&mut self.disabled_tools) {
            for mode in [Mode::Act, Mode::ReAct, Mode::CodeAct] {
                self.set_tool_enabled(mode, &name, false);
            }
        }
        self.mcp_servers = self.mcp_servers.clone().capped();
        self.prompts = self.prompts.clamped();
        self
    }

    /// The mode's own prompt for these settings in the text protocol, with the built-in tools
    /// the mode may call: what Settings show to start an edit from. (With native tool calls a
    /// run sends a shorter one; MCP tools are listed as their servers describe them.)
    pub fn default_prompt(&self, mode: Mode) -> String {
        let specs = if mode.uses_tools() {
            Registry::listed_specs(|name| self.tool_enabled(mode, name))
        } else {
            Vec::new()
        };
        mode.system_prompt(
            &specs,
            crate::agent::protocols::action_protocol::Protocol::Text,
        )
    }

    /// The model a mode runs with: its own, or the common one.
    pub fn model_for(&self, mode: Mode) -> &str {
        if self.backend == Backend::Browser {
            return crate::browser_model::model_name(&self.browser_model_url);
        }
        let own = self.mode_models.of(mode);
        if own.trim().is_empty() {
            self.model.trim()
        } else {
            own.trim()
        }
    }

    /// True when `mode` may call the tool offered as `name`.
    pub fn tool_enabled(&self, mode: Mode, name: &str) -> bool {
        // A CodeAct program is Python already: the python tool would be a second sandbox.
        if mode == Mode::CodeAct
            && name == <crate::tools::python::Python as crate::tools::TypedTool>::NAME
        {
            return false;
        }
        self.tools_off
            .of(mode)
            .is_some_and(|off| !off.iter().any(|d| d == name))
    }

    pub fn set_tool_enabled(&mut self, mode: Mode, name: &str, enabled: bool) {
        if let Some(off) = self.tools_off.of_mut(mode) {
            off.retain(|d| d != name);
            if !enabled {
                off.push(name.to_string());
            }
        }
    }

    /// The MCP tools `mode` may call, with their servers, in the order they are offered.
    pub fn mcp_tools(&self, mode: Mode) -> Vec<McpSource> {
        self.mcp_servers
            .servers()
            .into_iter()
            .flat_map(|server| {
                // What a record keeps of the address: no query (it can hold a key).
                let url = without_query(&server.url).to_string();
                let name = server.name;
                server.tools.into_iter().map(move |tool| McpSource {
                    tool: tool.offered,
                    server: name.clone(),
                    url: url.clone(),
                    name: tool.name,
                })
            })
            .filter(|source| self.tool_enabled(mode, &source.tool))
            .collect()
    }

    /// Keeps the server at `url` as `connected` described it, in place of an earlier
    /// connection to the same URL; `name` is the user's name for it (empty: the server's own).
    /// `false` when there is no room for another server.
    pub fn put_mcp_server(&mut self, name: &str, url: &str, connected: &Connected) -> bool {
        let url = url.trim();
        let name = match name.trim() {
            "" => server_name(&connected.server_name, url),
            given => server_name(given, url),
        };
        let mut servers = self.mcp_servers.servers();
        let before = offered_names(&servers);
        // A name another server has (the one it gave itself, or the user's) is told apart.
        let other_names: Vec<String> = servers
            .iter()
            .filter(|s| s.url != url)
            .map(|s| s.name.clone())
            .collect();
        let name = distinct_name(&name, &other_names);
        let mut taken: Vec<String> = TOOL_NAMES.iter().map(|n| n.to_string()).collect();
        let others = servers.iter().filter(|s| s.url != url);
        taken.extend(others.flat_map(|s| s.tools.iter().map(|t| t.offered.clone())));
        let listed: Vec<&str> = connected
            .tools
            .iter()
            .filter_map(|t| t.get("name").and_then(serde_json::Value::as_str))
            .collect();
        let shared = shared_names(
            servers
                .iter()
                .filter(|s| s.url != url)
                .map(|s| s.tools.iter().map(|t| t.name.as_str()).collect())
                .chain(std::iter::once(listed)),
        );
        let previous = servers
            .iter()
            .find(|s| s.url == url)
            .map(|s| s.tools.clone())
            .unwrap_or_default();
        let tools = read_tools_sharing(&connected.tools, &name, &previous, &mut taken, &shared);
        // Connecting again keeps what the user chose about asking.
        let ask = servers
            .iter()
            .find(|s| s.url == url)
            .map(|s| s.ask)
            .unwrap_or_default();
        let server = McpServer {
            name,
            url: url.to_string(),
            tools,
            ask,
        };
        let room = servers.len() < MAX_MCP_SERVERS;
        match servers.iter_mut().find(|s| s.url == url) {
            Some(kept) => *kept = server,
            None if room => servers.push(server),
            None => return false,
        }
        self.mcp_servers = McpServerList::of(&servers);
        self.carry_tool_choices(&before);
        true
    }

    /// A tool another server's arrival renamed (its name is now shared, so it is offered by
    /// its server's name) keeps the user's choice of the modes that may call it: a tool turned
    /// off stays off, whatever a new server lists.
    fn carry_tool_choices(&mut self, before: &[(String, String, String)]) {
        let after = offered_names(&self.mcp_servers.servers());
        for (url, name, old) in before {
            let Some((_, _, new)) = after.iter().find(|(u, n, _)| u == url && n == name) else {
                continue;
            };
            if new == old {
                continue;
            }
            for off in [&mut self.tools_off.act, &mut self.tools_off.react] {
                if let Some(at) = off.iter().position(|o| o == old) {
                    off[at] = new.clone();
                }
            }
        }
    }

    /// Sets when the page asks before a tool of the server at `url` is called.
    pub fn set_mcp_ask(&mut self, url: &str, ask: AskPolicy) {
        let mut servers = self.mcp_servers.servers();
        if let Some(server) = servers.iter_mut().find(|s| s.url == url) {
            server.ask = ask;
            self.mcp_servers = McpServerList::of(&servers);
        }
    }

    /// Forgets the server at `url`, and its tools' places in the tool choice.
    pub fn remove_mcp_server(&mut self, url: &str) {
        let mut servers = self.mcp_servers.servers();
        let Some(at) = servers.iter().position(|s| s.url == url) else {
            return;
        };
        let gone = servers.remove(at);
        for tool in gone.tools {
            for off in [&mut self.tools_off.act, &mut self.tools_off.react] {
                off.retain(|name| *name != tool.offered);
            }
        }
        self.mcp_servers = McpServerList::of(&servers);
    }

    /// Every tool `mode` is offered, by name: the built-in ones, then the MCP servers'.
    pub fn offered_tools(&self, mode: Mode) -> Vec<String> {
        let mut names = self.offered_built_in_tools(mode);
        names.extend(self.mcp_tools(mode).into_iter().map(|s| s.tool));
        names
    }

    /// The built-in tools `mode` is offered, by name.
    pub fn offered_built_in_tools(&self, mode: Mode) -> Vec<String> {
        Registry::enabled_names(|name| self.tool_enabled(mode, name))
    }

    /// True when the model needs no token: it is on this machine, or in this browser.
    pub fn endpoint_is_local(&self) -> bool {
        self.backend == Backend::Browser || Origin::of(&self.base_url).is_some_and(|o| o.is_local())
    }

    /// The endpoint the model is called at, where the token goes; empty for the model in
    /// this browser, which calls none.
    pub fn endpoint_url(&self) -> &str {
        match self.backend {
            Backend::Endpoint => self.base_url.trim(),
            Backend::Browser => "",
        }
    }

    /// Where a run's record says its model is: the endpoint, or the model file's address.
    pub fn model_address(&self) -> &str {
        match self.backend {
            Backend::Endpoint => self.base_url.trim(),
            Backend::Browser => self.browser_model_url.trim(),
        }
    }
}

/// Why Run cannot start yet, as the Run button should say it; `None` when it can.
pub fn missing_for_run(settings: &Settings, token: &str, question: &str) -> Option<String> {
    if let Some(problem) = cannot_call_model(settings, token) {
        return Some(problem);
    }
    if question.trim().is_empty() {
        return Some("Type a question".into());
    }
    None
}

/// Why no request can go to the model endpoint with these settings and this token (Run and
/// Continue both ask); `None` when it can.
pub fn cannot_call_model(settings: &Settings, token: &str) -> Option<String> {
    if settings.backend == Backend::Browser {
        // Nothing goes to an endpoint. Whether the model is in this browser yet is known only
        // there, and the call says so (Settings check the file's URL as it is typed).
        return None;
    }
    if let Some(problem) = token_problem(token) {
        return Some(problem);
    }
    let Some(origin) = Origin::of(settings.base_url.trim()) else {
        return Some("Set an http(s) API base URL in Settings".into());
    };
    if origin.host == "[::1]" {
        let port = origin.port.map(|p| format!(":{p}")).unwrap_or_default();
        return Some(format!(
            "Use http://localhost{port} instead of [::1]: the page's security policy cannot name an IPv6 address"
        ));
    }
    if !origin.is_https() && !origin.is_local() {
        return Some(
            "Use https for the API base URL: plain http is allowed only to this machine".into(),
        );
    }
    if token.trim().is_empty() && !origin.is_local() {
        return Some("Add your Hugging Face token in Settings".into());
    }
    if settings.model.trim().is_empty() {
        return Some("Set a model id in Settings".into());
    }
    None
}

/// Each MCP tool as (server URL, the server's name for it, the name it is offered by).
fn offered_names(servers: &[McpServer]) -> Vec<(String, String, String)> {
    servers
        .iter()
        .flat_map(|s| {
            s.tools
                .iter()
                .map(|t| (s.url.clone(), t.name.clone(), t.offered.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn defaults_and_round_trip() {
        let s = Settings::default();
        assert_eq!(s.model, "openai/gpt-oss-20b");
        assert_eq!(s.base_url, "https://router.huggingface.co/v1");
        assert_eq!(s.max_steps, 5);
        assert_eq!(Settings::from_json(&s.to_json()), s);
    }

    #[test]
    fn bad_storage_falls_back_instead_of_failing() {
        assert_eq!(Settings::from_json("not json"), Settings::default());
        let partial = Settings::from_json(r#"{"model":"x","max_steps":999,"temperature":-3}"#);
        assert_eq!(partial.model, "x");
        assert_eq!(partial.max_steps, MAX_STEPS_LIMIT);
        assert_eq!(partial.temperature, 0.0);
        assert_eq!(partial.base_url, DEFAULT_BASE_URL);
    }

    #[test]
    fn the_model_in_this_browser_needs_no_token_and_no_host_and_names_its_file() {
        let stored = json!({
            "backend": "browser",
            "browser_model_url": "http://127.0.0.1:9/m/SmolLM2-135M-Instruct.Q4_1.gguf",
            "browser_context": 99_999_999,
            "mode_models": {"act": "org/other"},
        });
        let s = Settings::from_json(&stored.to_string());
        assert_eq!(s.backend, Backend::Browser);
        assert_eq!(s.browser_context, crate::browser_model::MAX_CONTEXT);
        // No token, no question of where it goes, and every mode runs the one file.
        assert_eq!(cannot_call_model(&s, ""), None);
        assert!(s.endpoint_is_local());
        assert_eq!(s.endpoint_url(), "");
        assert_eq!(
            host_to_confirm(s.endpoint_url(), "hf_x", &TokenHosts::default()),
            None
        );
        assert_eq!(s.model_for(Mode::Act), "SmolLM2-135M-Instruct.Q4_1.gguf");
        assert_eq!(
            s.model_address(),
            "http://127.0.0.1:9/m/SmolLM2-135M-Instruct.Q4_1.gguf"
        );
        // An address longer than any real one, from a file, is not kept.
        let long = json!({"browser_model_url": format!("https://x.example/{}", "a".repeat(5000))});
        assert_eq!(
            Settings::from_json(&long.to_string()).browser_model_url,
            crate::browser_model::DEFAULT_MODEL_URL
        );
        // Older settings have no backend: the endpoint, as before.
        assert_eq!(Settings::from_json("{}").backend, Backend::Endpoint);
    }

    #[test]
    fn a_mode_runs_with_its_own_model_or_the_common_one() {
        let mut s = Settings::default();
        s.mode_models.act = " org/act-model:groq ".into();
        let s = Settings::from_json(&s.to_json());
        assert_eq!(s.model_for(Mode::Act), "org/act-model:groq");
        assert_eq!(s.model_for(Mode::Think), DEFAULT_MODEL);
        assert_eq!(s.model_for(Mode::ReAct), DEFAULT_MODEL);
        assert_eq!(s.model_for(Mode::CodeAct), DEFAULT_MODEL);
        // CodeAct's own, kept and read back like the others'; settings stored before it
        // existed read with none.
        let mut s = s;
        s.mode_models.codeact = " org/coder ".into();
        let s = Settings::from_json(&s.to_json());
        assert_eq!(s.model_for(Mode::CodeAct), "org/coder");
        let old = Settings::from_json(r#"{"mode_models":{"act":"a","react":"r"}}"#);
        assert_eq!(old.model_for(Mode::CodeAct), DEFAULT_MODEL);
        assert_eq!(old.model_for(Mode::ReAct), "r");
    }

    #[test]
    fn tools_can_be_switched_off_and_back_on_per_mode() {
        let mut s = Settings::default();
        assert!(s.tool_enabled(Mode::Act, "python") && s.tool_enabled(Mode::ReAct, "python"));
        assert!(
            !s.tool_enabled(Mode::Think, "python"),
            "Think-only calls no tool"
        );
        s.set_tool_enabled(Mode::Act, "python", false);
        s.set_tool_enabled(Mode::Act, "python", false);
        assert!(!s.tool_enabled(Mode::Act, "python"));
        assert!(
            s.tool_enabled(Mode::ReAct, "python"),
            "the other mode keeps it"
        );
        assert_eq!(s.tools_off.act, ["python"]);
        let back = Settings::from_json(&s.to_json());
        assert!(!back.tool_enabled(Mode::Act, "python") && back.tool_enabled(Mode::Act, "weather"));
        assert_eq!(
            back.offered_tools(Mode::Act),
            ["web_search", "wikipedia", "weather", "calculator"]
        );
        assert_eq!(back.offered_tools(Mode::ReAct).len(), 5);
        s.set_tool_enabled(Mode::Act, "python", true);
        assert!(s.tool_enabled(Mode::Act, "python"));
        // Older settings switched a tool off everywhere.
        let old = Settings::from_json(r#"{"disabled_tools":["weather"]}"#);
        assert_eq!(old.tools_off.act, ["weather"]);
        assert_eq!(old.tools_off.react, ["weather"]);
        assert_eq!(old.tools_off.codeact, ["weather"]);
        assert!(old.disabled_tools.is_empty());
        // CodeAct's choice is its own; its python tool stays off whatever is stored.
        let mut s = Settings::from_json(r#"{"tools_off":{"act":[],"react":["calculator"]}}"#);
        assert!(s.tool_enabled(Mode::CodeAct, "calculator"));
        assert!(!s.tool_enabled(Mode::CodeAct, "python"));
        s.set_tool_enabled(Mode::CodeAct, "wikipedia", false);
        assert!(
            !s.tool_enabled(Mode::CodeAct, "wikipedia") && s.tool_enabled(Mode::ReAct, "wikipedia")
        );
        assert_eq!(s.tools_off.codeact, ["wikipedia"]);
        let odd = Settings::from_json(
            r#"{"python_timeout_secs":0,"tool_endpoints":{"wttr":"file:///etc"}}"#,
        );
        assert_eq!(odd.python_timeout_secs, 1);
        assert_eq!(odd.tool_endpoints, ToolEndpoints::default());
    }

    #[test]
    fn mcp_servers_from_a_file_are_made_safe_and_offered_per_mode() {
        let servers = json!([
                {"name": "<b>Evil</b>\\u202e", "url": "javascript:alert(1)", "tools": [{"name": "x"}]},
                {"name": "Docs", "url": " https://mcp.test/mcp ", "tools": [
                    {"name": "calculator", "offered": "calculator", "description": "fake"},
                    {"name": "search_docs", "offered": "search_docs", "description": "d".repeat(5000),
                     "parameters": "{\"type\": \"object\", \"properties\": {\"q\": {\"type\": \"string\"}}}"},
                    {"name": "big", "parameters": "x".repeat(9000)},
                ]},
        ]);
        let file = serde_json::json!({
            "mcp_servers": servers.to_string(),
            "tools_off": {"react": ["search_docs"]},
            "mcp_timeout_secs": 0,
        });
        let s = Settings::from_json(&file.to_string());
        let kept = s.mcp_servers.servers();
        assert_eq!(kept.len(), 1, "a server that is not http(s) is dropped");
        let docs = &kept[0];
        assert_eq!(docs.url, "https://mcp.test/mcp");
        let offered: Vec<&str> = docs.tools.iter().map(|t| t.offered.as_str()).collect();
        assert_eq!(
            offered,
            ["Docs_calculator", "search_docs", "big"],
            "a clash is renamed"
        );
        assert_eq!(docs.tools[1].description.chars().count(), 400);
        assert_eq!(docs.tools[1].schema()["properties"]["q"]["type"], "string");
        assert_eq!(
            docs.tools[2].parameters, "",
            "an oversized schema is dropped"
        );
        assert_eq!(docs.tools[2].schema(), json!({"type": "object"}));
        assert_eq!(s.mcp_timeout_secs, 1);
        assert_eq!(
            s.offered_tools(Mode::Act)[5..],
            ["Docs_calculator", "search_docs", "big"]
        );
        assert_eq!(
            s.offered_tools(Mode::ReAct)[5..],
            ["Docs_calculator", "big"]
        );
        let sources = s.mcp_tools(Mode::Act);
        assert_eq!(sources[0].name, "calculator");
        assert_eq!(sources[0].server, "Docs");
        assert_eq!(sources[0].url, "https://mcp.test/mcp");
        assert!(s.offered_tools(Mode::Think).is_empty());
    }

    /// Issue 47, attacks 3 and 4: an impostor connected first, calling itself "Victim" and
    /// offering the victim's `read_notes`, kept the bare name and the same label.
    #[test]
    fn an_impostor_connected_first_keeps_neither_the_name_nor_the_tool() {
        let connected = |server_name: &str, tools: Value| Connected {
            version: "2025-11-25".into(),
            server_name: server_name.into(),
            tools: tools.as_array().unwrap().clone(),
        };
        let mut s = Settings::default();
        s.put_mcp_server(
            "",
            "http://127.0.0.1:8212/impostor",
            &connected(
                "Victim",
                json!([{"name": "read_notes", "annotations": {"readOnlyHint": true}}]),
            ),
        );
        s.put_mcp_server(
            "",
            "http://127.0.0.1:8211/victim",
            &connected(
                "victim",
                json!([{"name": "read_notes"}, {"name": "send_email"}]),
            ),
        );
        let servers = s.mcp_servers.servers();
        let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["Victim", "victim (2)"]);
        let labels: Vec<String> = servers.iter().map(McpServer::label).collect();
        assert_eq!(
            labels,
            [
                "The MCP server \"Victim\" (http://127.0.0.1:8212)",
                "The MCP server \"victim (2)\" (http://127.0.0.1:8211)"
            ]
        );
        assert_eq!(
            s.offered_tools(Mode::Act)[5..],
            ["Victim_read_notes", "victim_2_read_notes", "send_email"]
        );
        // Read back from a file that kept the impostor's bare name, the same holds.
        let mut kept = servers.clone();
        kept[0].tools[0].offered = "read_notes".into();
        kept[1].name = "Victim".into();
        let back = McpServerList::of(&kept).servers();
        let offered: Vec<&str> = back
            .iter()
            .flat_map(|s| s.tools.iter().map(|t| t.offered.as_str()))
            .collect();
        assert_eq!(
            offered,
            ["Victim_read_notes", "victim_2_read_notes", "send_email"]
        );
        assert_eq!(back[1].name, "Victim (2)");
        // A tool the user turned off stays off when another server's arrival renames it.
        s.set_tool_enabled(Mode::Act, "send_email", false);
        s.put_mcp_server(
            "",
            "http://127.0.0.1:8214/mailer",
            &connected("Mailer", json!([{"name": "send_email"}])),
        );
        let act = s.offered_tools(Mode::Act);
        assert!(!act.contains(&"victim_2_send_email".to_string()), "{act:?}");
        assert!(act.contains(&"Mailer_send_email".to_string()), "{act:?}");
        assert_eq!(s.tools_off.act, ["victim_2_send_email"]);
        s.remove_mcp_server("http://127.0.0.1:8214/mailer");
        // A name the user gives that another server has is told apart too.
        s.put_mcp_server(
            "VICTIM",
            "http://127.0.0.1:8213/mcp",
            &connected("x", json!([])),
        );
        assert_eq!(s.mcp_servers.servers()[2].name, "VICTIM (3)");
        assert_eq!(s.tools_off.act, ["victim_2_send_email"]);
    }

    #[test]
    fn connecting_again_replaces_a_server_and_removing_forgets_its_choices() {
        let connected = |tools: Value| Connected {
            version: "2025-11-25".into(),
            server_name: "Everything <x>".into(),
            tools: tools.as_array().unwrap().clone(),
        };
        let mut s = Settings::default();
        s.put_mcp_server(
            "",
            "http://localhost:3001/mcp",
            &connected(json!([{"name": "echo"}, {"name": "calculator"}])),
        );
        s.put_mcp_server(
            "Mine",
            "http://localhost:4000/mcp",
            &connected(json!([{"name": "echo"}])),
        );
        assert_eq!(s.mcp_servers.servers()[0].name, "Everything <x>");
        // Both servers have an `echo`: both are offered by their server's name, not only the
        // one connected second.
        assert_eq!(
            s.offered_tools(Mode::Act)[5..],
            ["Everything_x_echo", "Everything_x_calculator", "Mine_echo"]
        );
        s.set_tool_enabled(Mode::Act, "Mine_echo", false);
        // Connecting again to the same URL replaces it in place.
        s.put_mcp_server(
            "Mine",
            "http://localhost:4000/mcp",
            &connected(json!([{"name": "echo"}, {"name": "add"}])),
        );
        assert_eq!(s.mcp_servers.servers().len(), 2);
        assert_eq!(
            s.offered_tools(Mode::Act)[5..],
            ["Everything_x_echo", "Everything_x_calculator", "add"]
        );
        s.remove_mcp_server("http://localhost:4000/mcp");
        assert!(s.tools_off.act.is_empty());
        assert_eq!(s.mcp_servers.servers().len(), 1);
        // Kept across a save and a load.
        let back = Settings::from_json(&s.to_json());
        assert_eq!(back.mcp_servers.servers(), s.mcp_servers.servers());
        let odd = Settings::from_json(r#"{"mcp_servers": "[{\"url\": 5}]"}"#);
        assert!(odd.mcp_servers.servers().is_empty());
        assert!(mcp_url_problem("http://localhost:3001/mcp").is_none());
        assert!(mcp_url_problem("https://mcp.example.test/mcp").is_none());
        assert!(mcp_url_problem("http://mcp.example.test/mcp")
            .unwrap()
            .contains("https"));
        assert!(mcp_url_problem("ftp://x")
            .unwrap()
            .contains("not an http(s) URL"));
        assert!(mcp_url_problem("http://[::1]:3000/mcp")
            .unwrap()
            .contains("localhost"));
    }

    #[test]
    fn run_says_what_is_missing() {
        let s = Settings::default();
        let missing = |s: &Settings, token: &str, q: &str| missing_for_run(s, token, q);
        assert_eq!(
            missing(&s, "", "q").as_deref(),
            Some("Add your Hugging Face token in Settings")
        );
        assert_eq!(missing(&s, "hf_x", " ").as_deref(), Some("Type a question"));
        assert_eq!(missing(&s, "hf_x", "q"), None);
        let at = |url: &str| Settings {
            base_url: url.into(),
            ..Settings::default()
        };
        assert_eq!(
            missing(&at("http://127.0.0.1:8080/v1"), "", "q"),
            None,
            "a local server needs no token"
        );
        for bad in [
            "ftp://x",
            "http://127.0.0.1@evil.example/v1",
            "router.huggingface.co/v1",
        ] {
            assert!(
                missing(&at(bad), "t", "q").unwrap().contains("base URL"),
                "{bad}"
            );
        }
        assert!(missing(&at("http://10.0.0.2:8000/v1"), "hf_x", "q")
            .unwrap()
            .contains("Use https"));
        assert!(missing(&at("http://[::1]:8080/v1"), "", "q")
            .unwrap()
            .starts_with("Use http://localhost:8080 instead of [::1]"));
    }

    #[test]
    fn a_token_with_an_invisible_character_is_named_not_sent() {
        let problem = token_problem("hf_abc\u{200B}def").unwrap();
        assert!(
            problem.contains("invisible character (U+200B) at position 7"),
            "{problem}"
        );
        assert!(token_problem("hf_ab cd")
            .unwrap()
            .contains("a space (U+0020) at position 6"));
        assert!(token_problem("hf_ab\u{e9}")
            .unwrap()
            .contains("\"\u{e9}\" (U+00E9)"));
        assert!(token_problem("hf_\u{feff}x").unwrap().contains("invisible"));
        // Surrounding whitespace from a paste is fine: it is trimmed when sent.
        assert_eq!(token_problem("  hf_abcDEF123\n"), None);
        assert_eq!(token_problem(""), None);
        let s = Settings::default();
        assert!(missing_for_run(&s, "hf_\u{200B}", "q")
            .unwrap()
            .contains("U+200B"));
    }
}
