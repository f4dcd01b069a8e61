//! Tools the agent can call. Each built-in tool is a [`TypedTool`]: it names itself once, reads
//! its arguments as a type and offers the model that type's JSON schema. The registry holds them
//! as [`Tool`] objects, which take a JSON value of arguments, beside tools whose schema is only
//! known at run time ([`runtime::RuntimeTool`]).

pub mod args;
pub mod arguments_text;
pub mod calculator;
pub mod deferred;
pub mod endpoints;
pub mod failure;
pub mod http;
pub mod json_read;
pub mod observation;
pub mod program;
pub mod python;
pub mod registry;
pub mod returns;
pub mod runtime;
pub mod sandbox_order;
pub mod schema_check;
pub mod weather;
pub mod web_search;
pub mod wikipedia;

pub use failure::{FailureKind, ToolFailure};
pub use registry::Registry;
pub use returns::Returns;

use futures::future::LocalBoxFuture;
pub use program::{ProgramCallError, ProgramCalls, NO_INTERPRETER};
use program::{ProgramLimits, ProgramRun, PythonTool};
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
    /// JSON Schema of a structured result (an object or an array), which a CodeAct program
    /// gets as a `dict` or a `list`; `None`: the result is text.
    pub output_schema: Option<Value>,
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
            output_schema: None,
        }
    }

    /// What a call gives a program: text, a dict or a list.
    pub fn returns(&self) -> Returns {
        Returns::from_schema(self.output_schema.as_ref())
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
#[cfg_attr(all(test, not(target_arch = "wasm32")), derive(schemars::JsonSchema))]
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
    /// `Ok` is the observation; `Err` is the failure, whose message the model is shown
    /// instead.
    fn run(&self, args: Self::Args) -> LocalBoxFuture<'_, Result<String, ToolFailure>>;
    /// The JSON Schema of the result a program gets from [`Self::run_value`]; `None`: text.
    fn output_schema() -> Option<Value> {
        None
    }
    /// The result a CodeAct program gets: by default the observation's text.
    fn run_value(&self, args: Self::Args) -> LocalBoxFuture<'_, Result<Value, ToolFailure>> {
        Box::pin(async move { self.run(args).await.map(Value::String) })
    }
}

/// A callable tool with its types erased: what the registry holds.
pub trait Tool {
    fn spec(&self) -> ToolSpec;
    /// Runs on arguments already read against the spec's schema ([`args::read`]).
    fn call(&self, args: Value) -> LocalBoxFuture<'_, Result<String, ToolFailure>>;
    /// The result a CodeAct program gets, on the same arguments: JSON where the spec names an
    /// output schema, by default the text of [`Tool::call`].
    fn call_value(&self, args: Value) -> LocalBoxFuture<'_, Result<Value, ToolFailure>> {
        Box::pin(async move { self.call(args).await.map(Value::String) })
    }
    /// Whether [`Tool::call_value`] may give more than text: the spec names an output schema,
    /// or (a server's tool) the result may carry structured content.
    fn gives_values(&self) -> bool {
        self.spec().output_schema.is_some()
    }
    /// Whether a repeated call may be answered from the run's cache: the built-in tools only
    /// read; a server's tool may change things, so it is called every time unless it says not.
    fn cacheable(&self) -> bool {
        true
    }
    /// Whether the registry may make a failed call once more by itself (by the failure's
    /// kind): a tool that only reads and asks no one.
    fn retried(&self) -> bool {
        self.cacheable()
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
            output_schema: T::output_schema(),
        }
    }

    fn call(&self, args: Value) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
        Box::pin(async move { self.0.run(typed_args::<T>(args)?).await })
    }

    fn call_value(&self, args: Value) -> LocalBoxFuture<'_, Result<Value, ToolFailure>> {
        Box::pin(async move { self.0.run_value(typed_args::<T>(args)?).await })
    }
}

/// `args` read as `T`'s argument type, or the message for the model.
fn typed_args<T: TypedTool>(args: Value) -> Result<T::Args, ToolFailure> {
    serde_json::from_value::<T::Args>(args).map_err(|e| {
        ToolFailure::bad_arguments(args::misfit(T::NAME, &T::parameters(), &e.to_string()))
    })
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
    /// Runs `name` on `args`: the value the model wrote (the text of an `Action Input:`, or
    /// the JSON of a call). `Err` is the failure, with its kind and a message for the model.
    async fn call(&self, name: &str, args: &Value) -> Result<String, ToolFailure>;
    /// CodeAct: a program's call of `name`, through the same gates as [`Toolbox::call`]; the
    /// result is JSON where the tool's spec names an output schema, else the text (a
    /// `Value::String`, with the cache's note where the run's cache answered).
    async fn call_value(&self, name: &str, args: &Value) -> Result<Value, ToolFailure> {
        self.call(name, args).await.map(Value::String)
    }
    /// CodeAct: runs `code` in the run's Python interpreter (its variables kept for the run's
    /// next program), within `limits`, each tool call it makes going through `calls` (the
    /// run's gate: the same `call` as every other). A toolbox with no interpreter says so as
    /// the program's error.
    async fn run_program<C: ProgramCalls>(
        &self,
        code: &str,
        tools: &[PythonTool],
        limits: ProgramLimits,
        calls: &C,
    ) -> ProgramRun {
        let _ = (code, tools, limits, calls);
        ProgramRun {
            error: Some(NO_INTERPRETER.into()),
            ..ProgramRun::default()
        }
    }
}

/// The schemas the built-in tools offer are written by hand (the page pays nothing for a
/// schema generator); here they are held to the schemas their argument types give.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod schemas_follow_the_argument_types {
    use super::*;
    use serde_json::Value;

    /// A schema's shape: each property with its types, and the required ones. An optional
    /// `Option` field may be null in the generated schema; the hand-kept one says it may be
    /// left out (and a null the schema does not allow is left out before the check).
    fn shape(schema: &Value) -> (Vec<(String, Vec<String>)>, Vec<String>) {
        let mut required: Vec<String> = schema["required"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(|n| n.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        required.sort();
        let mut properties: Vec<(String, Vec<String>)> = schema["properties"]
            .as_object()
            .expect("properties")
            .iter()
            .map(|(name, p)| {
                let mut types: Vec<String> = match &p["type"] {
                    Value::String(t) => vec![t.clone()],
                    Value::Array(list) => list
                        .iter()
                        .filter_map(|t| t.as_str().map(str::to_string))
                        .collect(),
                    other => panic!("{name}: type {other}"),
                };
                if !required.contains(name) {
                    types.retain(|t| t != "null");
                }
                types.sort();
                (name.clone(), types)
            })
            .collect();
        properties.sort();
        (properties, required)
    }

    fn follows<T: TypedTool>()
    where
        T::Args: schemars::JsonSchema,
    {
        let generated = serde_json::to_value(schemars::schema_for!(T::Args)).expect("JSON");
        let offered = T::parameters();
        assert_eq!(offered["type"], "object", "{}", T::NAME);
        assert_eq!(shape(&offered), shape(&generated), "{}", T::NAME);
    }

    #[test]
    fn each_built_in_tool_offers_its_argument_type_s_schema() {
        follows::<calculator::Calculator>();
        follows::<python::Python>();
        follows::<web_search::WebSearch>();
        follows::<wikipedia::Wikipedia>();
        follows::<weather::Weather>();
    }

    /// The comparison sees a drift: a field the type has and the schema does not.
    #[test]
    fn a_field_missing_from_the_schema_is_seen() {
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Wider {
            input: String,
            days: u32,
        }
        let generated = serde_json::to_value(schemars::schema_for!(Wider)).expect("JSON");
        assert_ne!(shape(&text_parameters("x")), shape(&generated));
    }
}
