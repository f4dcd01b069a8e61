//! Tools the agent can call. Each tool is one file; the registry is what a run sees.

pub mod calculator;
pub mod endpoints;
pub mod http;
pub mod observation;
pub mod python;
pub mod registry;
pub mod weather;
pub mod web_search;
pub mod wikipedia;

pub use registry::Registry;

use futures::future::LocalBoxFuture;
use serde_json::Value;

/// How a tool presents itself to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: &'static str,
    /// One line for the model: what the tool does.
    pub description: &'static str,
    /// What the text protocol's `Action Input:` should hold.
    pub input_hint: &'static str,
    /// JSON Schema of the arguments, for protocols that pass structured arguments.
    pub parameters: Value,
}

impl ToolSpec {
    /// A tool taking one string argument named `input`.
    pub fn new(name: &'static str, description: &'static str, input_hint: &'static str) -> Self {
        let parameters = serde_json::json!({
            "type": "object",
            "properties": { "input": { "type": "string", "description": input_hint } },
            "required": ["input"],
        });
        Self {
            name,
            description,
            input_hint,
            parameters,
        }
    }
}

/// A callable tool. The future is boxed so that tools of different kinds share one registry.
pub trait Tool {
    fn spec(&self) -> ToolSpec;
    /// `Ok` is the observation; `Err` is a readable error the model is shown instead.
    fn call<'a>(&'a self, input: &'a str) -> LocalBoxFuture<'a, Result<String, String>>;
}

/// The tools a run may call (the agent loop's seam: built-in tools, or any other set).
#[allow(async_fn_in_trait)]
pub trait Toolbox {
    fn specs(&self) -> Vec<ToolSpec>;
    /// Runs `name` on `input`; `Err` carries a readable message for the model and the user.
    async fn call(&self, name: &str, input: &str) -> Result<String, String>;
}
