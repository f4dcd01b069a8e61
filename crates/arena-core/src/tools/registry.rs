use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::args;
use super::calculator::Calculator;
use super::deferred::{deferred_tools, LoadTools};
use super::endpoints::ToolEndpoints;
use super::http::HttpClient;
use super::observation::{squash_whitespace, truncate, MAX_OBSERVATION_CHARS};
use super::python::{Python, PythonRunner};
use super::returns::bounded;
use super::weather::{Weather, WeatherEndpoints};
use super::web_search::{JsonpClient, WebSearch};
use super::wikipedia::Wikipedia;
use super::{typed, Tool, ToolSpec, TypedTool};
use super::{ToolFailure, Toolbox};

/// What the tools of one run talk to. The browser passes `fetch`, the sandboxed search frame
/// and the Python worker; tests pass fakes.
pub struct ToolEnv {
    pub http: Rc<dyn HttpClient>,
    pub jsonp: Rc<dyn JsonpClient>,
    pub python: Rc<dyn PythonRunner>,
    pub endpoints: ToolEndpoints,
    pub python_timeout_secs: u32,
}

/// A built-in tool made for one run from what the run talks to.
trait FromEnv: TypedTool + Sized + 'static {
    fn from_env(env: &ToolEnv) -> Self;
}

impl FromEnv for WebSearch {
    fn from_env(env: &ToolEnv) -> Self {
        let e = &env.endpoints;
        WebSearch::new(
            env.jsonp.clone(),
            env.http.clone(),
            e.duckduckgo_api.clone(),
            e.wikipedia_api.clone(),
        )
    }
}

impl FromEnv for Wikipedia {
    fn from_env(env: &ToolEnv) -> Self {
        Wikipedia::new(env.http.clone(), env.endpoints.wikipedia_api.clone())
    }
}

impl FromEnv for Weather {
    fn from_env(env: &ToolEnv) -> Self {
        let e = &env.endpoints;
        Weather::new(
            env.http.clone(),
            WeatherEndpoints {
                geocoding: e.geocoding_api.clone(),
                forecast: e.forecast_api.clone(),
                wttr: e.wttr.clone(),
            },
        )
    }
}

impl FromEnv for Calculator {
    fn from_env(_: &ToolEnv) -> Self {
        Calculator
    }
}

impl FromEnv for Python {
    fn from_env(env: &ToolEnv) -> Self {
        Python::new(env.python.clone(), env.python_timeout_secs)
    }
}

/// One built-in tool as the model and Settings see it: its declared name, what it does and
/// its arguments' schema.
struct BuiltIn {
    name: &'static str,
    description: &'static str,
    input_hint: &'static str,
    parameters: fn() -> Value,
    output_schema: fn() -> Option<Value>,
}

/// How a run makes one built-in tool.
type MakeTool = fn(&ToolEnv) -> Box<dyn Tool>;

fn build<T: FromEnv>(env: &ToolEnv) -> Box<dyn Tool> {
    typed(T::from_env(env))
}

const fn built_in<T: TypedTool>() -> BuiltIn {
    BuiltIn {
        name: T::NAME,
        description: T::DESCRIPTION,
        input_hint: T::INPUT_HINT,
        parameters: T::parameters,
        output_schema: T::output_schema,
    }
}

/// Every built-in tool, in the order they are listed to the model and in Settings.
const BUILT_IN: [BuiltIn; 5] = [
    built_in::<WebSearch>(),
    built_in::<Wikipedia>(),
    built_in::<Weather>(),
    built_in::<Calculator>(),
    built_in::<Python>(),
];

/// How a run makes each of [`BUILT_IN`], in its order. Kept apart from it: code that lists
/// the tools then carries none of theirs (the page fetches their code after a run's first
/// request, `deferred.rs`).
const MAKE: [MakeTool; BUILT_IN.len()] = [
    build::<WebSearch>,
    build::<Wikipedia>,
    build::<Weather>,
    build::<Calculator>,
    build::<Python>,
];

/// The built-in tools' names, as the tools declare them, in [`BUILT_IN`]'s order.
pub const TOOL_NAMES: [&str; BUILT_IN.len()] = {
    let mut names = [""; BUILT_IN.len()];
    let mut i = 0;
    while i < BUILT_IN.len() {
        names[i] = BUILT_IN[i].name;
        i += 1;
    }
    names
};

/// The enabled built-in tools, made for one run, in [`BUILT_IN`]'s order.
pub fn built_in_tools(env: &ToolEnv, is_enabled: impl Fn(&str) -> bool) -> Vec<Box<dyn Tool>> {
    BUILT_IN
        .iter()
        .zip(MAKE)
        .filter(|(b, _)| is_enabled(b.name))
        .map(|(_, make)| make(env))
        .collect()
}

/// Marks an observation answered from this run's cache.
pub const CACHED_NOTE: &str = "(cached: the same call was made earlier in this run)";

/// Reads a call's arguments against its tool's schema ([`args::read`]): which object the tool
/// gets, or the message for the model.
pub type ReadArgs = fn(&str, &Value, &Value) -> Result<Value, String>;

/// Gives the [`ReadArgs`] of a registry whose schema check arrives later: the page's chunk of
/// it, fetched and called (a run's first request does not wait for the check's code).
pub type LoadReadArgs = Box<dyn Fn() -> LocalBoxFuture<'static, Result<ReadArgs, ToolFailure>>>;

/// How a registry reads a call's arguments.
enum ArgsCheck {
    Here(ReadArgs),
    /// Loaded at the first call (again after a failure), then kept.
    Later {
        load: LoadReadArgs,
        loaded: Cell<Option<ReadArgs>>,
    },
}

/// The tools available to one run, plus that run's cache of results.
pub struct Registry {
    tools: Vec<Box<dyn Tool>>,
    cache: RefCell<HashMap<(String, String), String>>,
    /// Structured results a program got (`call_value`), by the same key.
    values: RefCell<HashMap<(String, String), Value>>,
    check: ArgsCheck,
}

impl Registry {
    pub fn new(tools: Vec<Box<dyn Tool>>) -> Self {
        Self {
            tools,
            cache: RefCell::default(),
            values: RefCell::default(),
            check: ArgsCheck::Here(args::read),
        }
    }

    /// The tools that need no network: the calculator.
    pub fn standard() -> Self {
        Self::new(vec![typed(Calculator)])
    }

    /// The names of the tools `for_run` would offer, in its order, without building them: the
    /// page names a run's tools in its record before the engine's chunk has arrived.
    pub fn enabled_names(is_enabled: impl Fn(&str) -> bool) -> Vec<String> {
        TOOL_NAMES
            .iter()
            .filter(|name| is_enabled(name))
            .map(|name| name.to_string())
            .collect()
    }

    /// What the text protocol's prompt lists of the enabled built-in tools (their names,
    /// descriptions and input hints), without building them: Settings show the default
    /// prompt before any run.
    pub fn listed_specs(is_enabled: impl Fn(&str) -> bool) -> Vec<ToolSpec> {
        BUILT_IN
            .iter()
            .filter(|b| is_enabled(b.name))
            .map(|b| ToolSpec {
                name: b.name.into(),
                description: b.description.into(),
                input_hint: b.input_hint.into(),
                // CodeAct's prompt lists them as the functions' parameters.
                parameters: (b.parameters)(),
                output_schema: (b.output_schema)(),
            })
            .collect()
    }

    /// A fresh registry for one run with the enabled tools (state such as the Wikipedia page
    /// last read and the cache belong to the run).
    pub fn for_run(env: &ToolEnv, is_enabled: impl Fn(&str) -> bool) -> Self {
        Self::new(built_in_tools(env, is_enabled))
    }

    /// The same registry, its built-in tools made when one is first called (by `load`, once),
    /// and its calls' arguments read by what `read_args` gives at the first call: the page
    /// sends a run's first request before the tools' code and the schema check have arrived.
    /// The tools' specs are the ones [`Registry::for_run`]'s tools give.
    pub fn deferred(
        is_enabled: impl Fn(&str) -> bool,
        load: LoadTools,
        read_args: LoadReadArgs,
    ) -> Self {
        let specs: Vec<ToolSpec> = BUILT_IN
            .iter()
            .filter(|b| is_enabled(b.name))
            .map(|b| ToolSpec {
                name: b.name.into(),
                description: b.description.into(),
                input_hint: b.input_hint.into(),
                parameters: (b.parameters)(),
                output_schema: (b.output_schema)(),
            })
            .collect();
        // Not `new`: the page's engine names no schema check of its own.
        Self {
            tools: deferred_tools(specs, load),
            cache: RefCell::default(),
            values: RefCell::default(),
            check: ArgsCheck::Later {
                load: read_args,
                loaded: Cell::new(None),
            },
        }
    }

    async fn args_reader(&self) -> Result<ReadArgs, ToolFailure> {
        match &self.check {
            ArgsCheck::Here(read) => Ok(*read),
            ArgsCheck::Later { load, loaded } => {
                if let Some(read) = loaded.get() {
                    return Ok(read);
                }
                let read = load().await?;
                loaded.set(Some(read));
                Ok(read)
            }
        }
    }

    /// Adds a tool after the others (a run-time tool, say).
    pub fn push(&mut self, tool: Box<dyn Tool>) {
        self.tools.push(tool);
    }

    fn find(&self, name: &str) -> Option<(&dyn Tool, ToolSpec)> {
        let wanted = normalise_tool_name(name);
        self.tools
            .iter()
            .map(|t| (t.as_ref(), t.spec()))
            .find(|(_, spec)| normalise_tool_name(&spec.name) == wanted)
    }
}

/// Models write `Calculator`, `` `calculator` ``, `calculator tool` or `web search`; all mean
/// the same.
pub fn normalise_tool_name(name: &str) -> String {
    let n = name
        .trim()
        .trim_matches(|c: char| c == '`' || c == '"' || c == '\'' || c == '*')
        .trim();
    let n = n.strip_suffix(" tool").unwrap_or(n);
    n.to_ascii_lowercase().replace([' ', '-'], "_")
}

/// `value` with the spacing of every string in it squashed and the keys of every object in
/// order: the cache's idea of "the same" (JSON objects keep the order they were written in).
fn squash_strings(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(squash_whitespace(s)),
        Value::Array(items) => Value::Array(items.iter().map(squash_strings).collect()),
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), squash_strings(v)))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

impl Registry {
    /// The tool `name` finds, its spec, and `args` read against its schema; or the message
    /// for the model.
    async fn prepare(
        &self,
        name: &str,
        args: &Value,
    ) -> Result<(&dyn Tool, ToolSpec, Value), ToolFailure> {
        let Some((tool, spec)) = self.find(name) else {
            let names: Vec<String> = self.tools.iter().map(|t| t.spec().name).collect();
            let available = if names.is_empty() {
                "none (all tools are disabled in Settings)".to_string()
            } else {
                names.join(", ")
            };
            return Err(ToolFailure::not_found(format!(
                "There is no tool named \"{}\". Available tools: {available}.",
                name.trim()
            )));
        };
        let read = self.args_reader().await?;
        let args = read(&spec.name, &spec.parameters, args)
            .map_err(|text| ToolFailure::bad_arguments(truncate(&text, MAX_OBSERVATION_CHARS)))?;
        Ok((tool, spec, args))
    }
}

impl Toolbox for Registry {
    fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec()).collect()
    }

    async fn call(&self, name: &str, args: &Value) -> Result<String, ToolFailure> {
        let (tool, spec, args) = self.prepare(name, args).await?;
        // Same tool, same arguments (up to spacing) → same answer within a run. Failures are
        // not cached: they may be transient.
        let key = (spec.name, squash_strings(&args).to_string());
        let cacheable = tool.cacheable();
        if let Some(hit) = self.cache.borrow().get(&key).filter(|_| cacheable) {
            return Ok(format!("{hit}\n{CACHED_NOTE}"));
        }
        // A tool that only reads is asked once more when the kind of its failure may pass
        // (its arguments kept for that only).
        let again = tool.retried().then(|| args.clone());
        let mut result = tool.call(args).await;
        if let (Err(failure), Some(args)) = (&result, again) {
            if failure.kind.retried_at_once() {
                result = tool.call(args).await;
            }
        }
        let result = match result {
            Ok(text) => Ok(truncate(&text, MAX_OBSERVATION_CHARS)),
            Err(failure) => Err(failure.map_message(|m| truncate(&m, MAX_OBSERVATION_CHARS))),
        };
        if let (Ok(text), true) = (&result, cacheable) {
            self.cache.borrow_mut().insert(key, text.clone());
        }
        result
    }

    /// A tool whose spec names an output schema gives its JSON (bounded, not cut), and a
    /// repeated call the same value from the run's cache; a text tool's call is [`Self::call`]'s.
    async fn call_value(&self, name: &str, args: &Value) -> Result<Value, ToolFailure> {
        let (tool, spec, args) = self.prepare(name, args).await?;
        if !tool.gives_values() {
            return self.call(name, &args).await.map(Value::String);
        }
        let key = (spec.name, format!("value {}", squash_strings(&args)));
        let cacheable = tool.cacheable();
        if let Some(hit) = self.values.borrow().get(&key).filter(|_| cacheable) {
            return Ok(hit.clone());
        }
        let again = tool.retried().then(|| args.clone());
        let mut result = tool.call_value(args).await;
        if let (Err(failure), Some(args)) = (&result, again) {
            if failure.kind.retried_at_once() {
                result = tool.call_value(args).await;
            }
        }
        let value = result
            .map_err(|failure| failure.map_message(|m| truncate(&m, MAX_OBSERVATION_CHARS)))
            .and_then(|value| bounded(value).map_err(ToolFailure::upstream))?;
        if cacheable {
            self.values.borrow_mut().insert(key, value.clone());
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::http::fake::FakeHttp;
    use crate::tools::python::{PythonFailure, PythonOutput};
    use crate::tools::FailureKind;
    use futures::executor::block_on;
    use futures::future::LocalBoxFuture;
    use serde_json::json;
    use std::cell::Cell;

    struct NoJsonp;
    impl JsonpClient for NoJsonp {
        fn get<'a>(
            &'a self,
            _: &'a str,
        ) -> LocalBoxFuture<'a, Result<String, crate::tools::http::FetchError>> {
            Box::pin(async { Err(crate::tools::http::FetchError::Network(String::new())) })
        }
    }

    #[derive(Default)]
    struct CountingPython(Cell<u32>);
    impl PythonRunner for CountingPython {
        fn run<'a>(
            &'a self,
            code: &'a str,
            _: u32,
        ) -> LocalBoxFuture<'a, Result<PythonOutput, PythonFailure>> {
            self.0.set(self.0.get() + 1);
            let stdout = if code.contains("long") {
                "x".repeat(5000)
            } else {
                "ok".into()
            };
            Box::pin(async move {
                Ok(PythonOutput {
                    stdout,
                    ..PythonOutput::default()
                })
            })
        }
    }

    fn env(python: Rc<CountingPython>) -> ToolEnv {
        ToolEnv {
            http: Rc::new(FakeHttp::new()),
            jsonp: Rc::new(NoJsonp),
            python,
            endpoints: ToolEndpoints::default(),
            python_timeout_secs: 10,
        }
    }

    #[test]
    fn finds_tools_by_loose_name_and_reports_unknown_ones() {
        let r = Registry::standard();
        assert_eq!(
            block_on(r.call("Calculator", &json!("2+3"))),
            Ok("5".into())
        );
        assert_eq!(
            block_on(r.call("`calculator`", &json!("2*3"))),
            Ok("6".into())
        );
        let err = block_on(r.call("search", &json!("x"))).unwrap_err();
        assert_eq!(err.kind, FailureKind::NotFound);
        let err = err.message;
        assert!(
            err.contains("no tool named \"search\"") && err.contains("calculator"),
            "{err}"
        );
    }

    #[test]
    fn lists_only_enabled_tools_in_order() {
        let all = Registry::for_run(&env(Rc::default()), |_| true);
        let names: Vec<_> = all.specs().into_iter().map(|s| s.name).collect();
        assert_eq!(names, TOOL_NAMES);
        let some = Registry::for_run(&env(Rc::default()), |n| n != "python" && n != "weather");
        let names: Vec<_> = some.specs().into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["web_search", "wikipedia", "calculator"]);
        assert_eq!(normalise_tool_name("Web Search"), "web_search");
        let err = block_on(some.call("python", &json!("print(1)")))
            .unwrap_err()
            .message;
        assert!(
            err.contains("Available tools: web_search, wikipedia, calculator."),
            "{err}"
        );
        // The names a record gets before its tools exist are the names the tools say.
        let some_tools = |n: &str| n != "python" && n != "weather";
        assert_eq!(Registry::enabled_names(some_tools), names);
        let all_names: Vec<_> = all.specs().into_iter().map(|s| s.name).collect();
        assert_eq!(Registry::enabled_names(|_| true), all_names);
        let none = Registry::for_run(&env(Rc::default()), |_| false);
        assert!(block_on(none.call("calculator", &json!("1")))
            .unwrap_err()
            .message
            .contains("all tools are disabled"));
    }

    /// A tool that fails with `kinds` in turn, then answers; it counts its calls.
    struct Flaky {
        kinds: RefCell<Vec<FailureKind>>,
        calls: Rc<Cell<u32>>,
        reads_only: bool,
    }
    impl Tool for Flaky {
        fn spec(&self) -> ToolSpec {
            ToolSpec::new("flaky", "Fails, then answers.", "anything")
        }
        fn call(&self, _: Value) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
            self.calls.set(self.calls.get() + 1);
            let next = {
                let mut kinds = self.kinds.borrow_mut();
                (!kinds.is_empty()).then(|| kinds.remove(0))
            };
            Box::pin(async move {
                match next {
                    Some(kind) => Err(ToolFailure::new(kind, "failed")),
                    None => Ok("answered".into()),
                }
            })
        }
        fn cacheable(&self) -> bool {
            self.reads_only
        }
    }

    /// The registry makes a call once more by itself only for the kind that may pass (a
    /// network blip) and only for a tool that only reads; a server's error, a rate limit, a
    /// time-out or bad arguments are the model's to act on.
    #[test]
    fn a_failure_is_retried_by_its_kind_not_its_words() {
        let run = |kinds: Vec<FailureKind>, reads_only: bool| {
            let calls = Rc::new(Cell::new(0));
            let registry = Registry::new(vec![Box::new(Flaky {
                kinds: RefCell::new(kinds),
                calls: calls.clone(),
                reads_only,
            })]);
            let result = block_on(registry.call("flaky", &json!("x")));
            (result.map_err(|f| f.kind), calls.get())
        };
        let kind = FailureKind::Network;
        assert_eq!(run(vec![kind], true), (Ok("answered".into()), 2));
        // Once only: a second failure is the answer.
        assert_eq!(run(vec![kind, kind], true), (Err(kind), 2));
        // A tool that may change things is not called twice by the page.
        assert_eq!(run(vec![kind], false), (Err(kind), 1));
        for kind in [
            FailureKind::Upstream,
            FailureKind::RateLimited,
            FailureKind::TimedOut,
            FailureKind::BadArguments,
            FailureKind::NotFound,
            FailureKind::Stopped,
            FailureKind::Declined,
        ] {
            assert_eq!(run(vec![kind], true), (Err(kind), 1), "{kind:?}");
        }
    }

    #[test]
    fn repeated_calls_are_answered_from_the_run_cache() {
        let python = Rc::new(CountingPython::default());
        let r = Registry::for_run(&env(python.clone()), |_| true);
        let first = block_on(r.call("python", &json!("print('ok')"))).unwrap();
        let again = block_on(r.call("python", &json!("  print('ok')   "))).unwrap();
        assert_eq!(python.0.get(), 1, "the second call was not run");
        assert!(!first.contains(CACHED_NOTE));
        assert_eq!(again, format!("{first}\n{CACHED_NOTE}"));
        // a new run has a new cache
        let r2 = Registry::for_run(&env(python.clone()), |_| true);
        block_on(r2.call("python", &json!("print('ok')"))).unwrap();
        assert_eq!(python.0.get(), 2);
    }

    #[test]
    fn long_observations_are_cut_with_a_note() {
        let r = Registry::for_run(&env(Rc::default()), |_| true);
        let out = block_on(r.call("python", &json!("long"))).unwrap();
        assert!(
            out.chars().count() < MAX_OBSERVATION_CHARS + 60,
            "{}",
            out.len()
        );
        assert!(out.contains("more characters cut]"));
    }

    #[test]
    fn a_runtime_schema_tool_is_listed_with_its_schema_and_called() {
        use crate::tools::runtime::RuntimeTool;
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "first"},
                "b": {"type": "integer", "description": "second"},
            },
            "required": ["a", "b"],
        });
        let calls = Rc::new(Cell::new(0));
        let counted = calls.clone();
        let add = RuntimeTool::new(
            "add",
            "Adds two integers.",
            schema.clone(),
            Rc::new(move |args: Value| {
                counted.set(counted.get() + 1);
                Box::pin(async move {
                    let (a, b) = (args["a"].as_i64(), args["b"].as_i64());
                    Ok(format!("{}", a.unwrap_or(0) + b.unwrap_or(0)))
                })
            }),
        );
        let mut r = Registry::standard();
        r.push(Box::new(add));
        let specs = r.specs();
        let spec = specs.iter().find(|s| s.name == "add").expect("listed");
        assert_eq!(spec.parameters, schema);
        assert_eq!(spec.description, "Adds two integers.");
        assert!(
            spec.input_hint.contains("\"a\": integer"),
            "{}",
            spec.input_hint
        );
        let tools = crate::agent::protocols::native::tools_param(&specs);
        assert_eq!(tools[1]["function"]["parameters"], schema);

        assert_eq!(
            block_on(r.call("Add", &json!({"a": 2, "b": 3}))),
            Ok("5".into())
        );
        // The text protocol's JSON text is read as the arguments.
        assert_eq!(
            block_on(r.call("add", &json!("{\"a\": 4, \"b\": 1}"))),
            Ok("5".into())
        );
        let err = block_on(r.call("add", &json!({"a": 2, "b": "3"}))).unwrap_err();
        assert_eq!(err.kind, FailureKind::BadArguments);
        let err = err.message;
        assert!(
            err.contains("add do not fit: `b` should be an integer, not a string"),
            "{err}"
        );
        let err = block_on(r.call("add", &json!("2 and 3")))
            .unwrap_err()
            .message;
        assert!(err.contains("not a JSON object"), "{err}");
        assert_eq!(
            calls.get(),
            2,
            "arguments that do not fit do not reach the tool"
        );
        // A run-time tool is called every time (it may change things)…
        let again = block_on(r.call("add", &json!({"b": 3, "a": 2}))).unwrap();
        assert_eq!(again, "5");
        assert_eq!(calls.get(), 3);
        // …unless it says it only reads.
        let reads = Rc::new(Cell::new(0));
        let counted = reads.clone();
        let lookup = RuntimeTool::new(
            "lookup",
            "Reads.",
            json!({"type": "object", "properties": {"q": {"type": "string"}}}),
            Rc::new(move |_| {
                counted.set(counted.get() + 1);
                Box::pin(async { Ok("found".to_string()) })
            }),
        )
        .cached(true);
        r.push(Box::new(lookup));
        block_on(r.call("lookup", &json!("x"))).unwrap();
        let again = block_on(r.call("lookup", &json!("x"))).unwrap();
        assert_eq!(again, format!("found\n{CACHED_NOTE}"));
        assert_eq!(reads.get(), 1);
    }

    #[test]
    fn tool_names_are_the_names_the_tools_declare() {
        use crate::tools::TypedTool;
        assert_eq!(
            TOOL_NAMES,
            [
                WebSearch::NAME,
                Wikipedia::NAME,
                Weather::NAME,
                Calculator::NAME,
                Python::NAME
            ]
        );
        assert_eq!(
            TOOL_NAMES,
            ["web_search", "wikipedia", "weather", "calculator", "python"]
        );
    }
}
