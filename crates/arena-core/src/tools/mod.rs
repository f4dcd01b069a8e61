//! Tools the agent can call. Each built-in tool is a [`TypedTool`]: it names itself once, reads
//! its arguments as a type and offers the model that type's JSON schema. The registry holds them
//! as [`Tool`] objects, which take a JSON value of arguments, beside tools whose schema is only
//! known at run time ([`runtime::RuntimeTool`]).

pub mod args;
pub mod calculator;
pub mod endpoints;
pub mod http;
pub mod json_read;
pub mod observation;
pub mod python;
pub mod registry;
pub mod runtime;
pub mod schema_check;
pub mod weather;
pub mod web_search;
pub mod wikipedia;

pub use registry::Registry;

use futures::future::LocalBoxFuture;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

/// How a tool presents itself to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    /// One line for the model: what the tool does.
    pub description: String,
    /// What the text protocol's `Action Input:` should hold.
    pub input_hint: String,
    /// JSON Schema of the arguments, for protocols that pass structured arguments.
    pub parameters: Value,
}

impl ToolSpec {
    /// A tool taking one string argument named `input`.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_hint: impl Into<String>,
    ) -> Self {
        let input_hint = input_hint.into();
        let parameters = text_parameters(&input_hint);
        Self {
            name: name.into(),
            description: description.into(),
            input_hint,
            parameters,
        }
    }
}

/// The schema of one string argument named `input`, described by `hint`.
pub fn text_parameters(hint: &str) -> Value {
    serde_json::json!({
        "type": "object",
        "properties": { "input": { "type": "string", "description": hint } },
        "required": ["input"],
    })
}

/// The arguments of a tool that takes one string, `{"input": "…"}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TextInput {
    pub input: String,
}

/// A tool with typed arguments. Its name is written here and nowhere else.
pub trait TypedTool {
    const NAME: &'static str;
    /// One line for the model: what the tool does.
    const DESCRIPTION: &'static str;
    /// What the text protocol's `Action Input:` should hold.
    const INPUT_HINT: &'static str;
    type Args: DeserializeOwned;
    /// The JSON schema of [`Self::Args`] offered to the model; by default one string `input`
    /// (for `Args = TextInput`).
    fn parameters() -> Value {
        text_parameters(Self::INPUT_HINT)
    }
    /// `Ok` is the observation; `Err` is a readable error the model is shown instead.
    fn run(&self, args: Self::Args) -> LocalBoxFuture<'_, Result<String, String>>;
}

/// A callable tool with its types erased: what the registry holds.
pub trait Tool {
    fn spec(&self) -> ToolSpec;
    /// Runs on arguments already read against the spec's schema ([`args::read`]).
    fn call(&self, args: Value) -> LocalBoxFuture<'_, Result<String, String>>;
    /// Whether a repeated call may be answered from the run's cache: the built-in tools only
    /// read; a server's tool may change things, so it is called every time unless it says not.
    fn cacheable(&self) -> bool {
        true
    }
}

/// A [`TypedTool`] as a [`Tool`]: the arguments are deserialised into its type.
pub struct Typed<T>(pub T);

impl<T: TypedTool> Tool for Typed<T> {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: T::NAME.to_string(),
            description: T::DESCRIPTION.to_string(),
            input_hint: T::INPUT_HINT.to_string(),
            parameters: T::parameters(),
        }
    }

    fn call(&self, args: Value) -> LocalBoxFuture<'_, Result<String, String>> {
        Box::pin(async move {
            let args = serde_json::from_value::<T::Args>(args)
                .map_err(|e| args::misfit(T::NAME, &T::parameters(), &e.to_string()))?;
            self.0.run(args).await
        })
    }
}

/// `tool` boxed for a registry.
pub fn typed<T: TypedTool + 'static>(tool: T) -> Box<dyn Tool> {
    Box::new(Typed(tool))
}

/// The tools a run may call (the agent loop's seam: built-in tools, or any other set).
#[allow(async_fn_in_trait)]
pub trait Toolbox {
    fn specs(&self) -> Vec<ToolSpec>;
    /// A step's calls are about to run (all of them, at once).
    fn begin_calls(&self) {}
    /// Runs `name` on `args`: a JSON string is the text a protocol gave (`Action Input:`), any
    /// other value the structured arguments of a call. `Err` carries a readable message for
    /// the model and the user.
    async fn call(&self, name: &str, args: &Value) -> Result<String, String>;
}
