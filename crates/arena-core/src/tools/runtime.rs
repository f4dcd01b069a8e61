//! Tools whose name, description and argument schema are only known at run time (a server's
//! tool list): they sit in the same registry as the built-in tools and take their arguments as
//! a JSON value, checked against the schema they came with.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::{args, Tool, ToolFailure, ToolSpec};

/// What runs a run-time tool: given its checked arguments, the observation or an error.
pub type Handler = Rc<dyn Fn(Value) -> LocalBoxFuture<'static, Result<String, ToolFailure>>>;

/// What runs it for a CodeAct program: the structured result where the tool gave one, else
/// the observation's text (`Value::String`).
pub type ValueHandler = Rc<dyn Fn(Value) -> LocalBoxFuture<'static, Result<Value, ToolFailure>>>;

pub struct RuntimeTool {
    spec: ToolSpec,
    handler: Handler,
    values: Option<ValueHandler>,
    cacheable: bool,
}

impl RuntimeTool {
    /// A tool named `name` taking arguments that fit `schema` (a JSON Schema object).
    pub fn new(name: &str, description: &str, schema: Value, handler: Handler) -> Self {
        let fields = schema
            .get("properties")
            .and_then(Value::as_object)
            .map_or(0, |p| p.len());
        let input_hint = match args::text_field(&schema) {
            Some(field) if fields == 1 => format!("the {field}"),
            _ => format!("a JSON object: {}", args::expected(&schema)),
        };
        Self {
            spec: ToolSpec {
                name: name.to_string(),
                description: description.to_string(),
                input_hint,
                parameters: schema,
                output_schema: None,
            },
            handler,
            values: None,
            cacheable: false,
        }
    }

    /// Gives programs `values`' results, and says their shape in the spec (`output_schema`,
    /// if the tool declared one).
    pub fn with_values(mut self, output_schema: Option<Value>, values: ValueHandler) -> Self {
        self.spec.output_schema = output_schema;
        self.values = Some(values);
        self
    }

    /// Lets the run's cache answer a repeated call (a tool that only reads).
    pub fn cached(mut self, cacheable: bool) -> Self {
        self.cacheable = cacheable;
        self
    }
}

impl Tool for RuntimeTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn call(&self, args: Value) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
        (self.handler)(args)
    }

    fn call_value(&self, args: Value) -> LocalBoxFuture<'_, Result<Value, ToolFailure>> {
        match &self.values {
            Some(values) => values(args),
            None => Box::pin(async move { (self.handler)(args).await.map(Value::String) }),
        }
    }

    fn gives_values(&self) -> bool {
        self.values.is_some()
    }

    fn cacheable(&self) -> bool {
        self.cacheable
    }

    /// A server's tool is called once per call the model makes: its handler may ask the user
    /// first, and its client renews an expired session itself.
    fn retried(&self) -> bool {
        false
    }
}
