//! Settings, as the user sees them: the token box and what this browser keeps (first screen,
//! and the first visit's chunk), and under "Model, tools and prompts" the model's backend, the
//! model in this browser, the tools per mode, the MCP servers and the prompts (parts chunk,
//! drawn when first opened).

pub(crate) mod backend_settings;
pub(crate) mod browser_model_settings;
pub(crate) mod kept_secrets;
pub(crate) mod mcp_servers;
pub(crate) mod prompt_settings;
pub(crate) mod settings_panel;
pub(crate) mod tools_settings;
