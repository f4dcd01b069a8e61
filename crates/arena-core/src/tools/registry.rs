use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::calculator::Calculator;
use super::endpoints::ToolEndpoints;
use super::http::HttpClient;
use super::observation::{squash_whitespace, truncate, MAX_OBSERVATION_CHARS};
use super::python::{Python, PythonRunner};
use super::weather::{Weather, WeatherEndpoints};
use super::web_search::{JsonpClient, WebSearch};
use super::wikipedia::Wikipedia;
use super::Toolbox;
use super::{Tool, ToolSpec};

/// Every tool, in the order they are listed to the model and in Settings.
pub const TOOL_NAMES: [&str; 5] = ["web_search", "wikipedia", "weather", "calculator", "python"];

/// What the tools of one run talk to. The browser passes `fetch`, the sandboxed search frame
/// and the Python worker; tests pass fakes.
pub struct ToolEnv {
    pub http: Rc<dyn HttpClient>,
    pub jsonp: Rc<dyn JsonpClient>,
    pub python: Rc<dyn PythonRunner>,
    pub endpoints: ToolEndpoints,
    pub python_timeout_secs: u32,
}

/// Marks an observation answered from this run's cache.
pub const CACHED_NOTE: &str = "(cached: the same call was made earlier in this run)";

/// The tools available to one run, plus that run's cache of results.
pub struct Registry {
    tools: Vec<Box<dyn Tool>>,
    cache: RefCell<HashMap<(String, String), String>>,
}

impl Registry {
    pub fn new(tools: Vec<Box<dyn Tool>>) -> Self {
        Self {
            tools,
            cache: RefCell::default(),
        }
    }

    /// The tools that need no network: the calculator.
    pub fn standard() -> Self {
        Self::new(vec![Box::new(Calculator)])
    }

    /// The names of the tools `for_run` would offer, in its order, without building them: the
    /// page names a run's tools in its record before the engine module has loaded.
    pub fn enabled_names(is_enabled: impl Fn(&str) -> bool) -> Vec<String> {
        TOOL_NAMES
            .iter()
            .filter(|name| is_enabled(name))
            .map(|name| name.to_string())
            .collect()
    }

    /// A fresh registry for one run with the enabled tools (state such as the Wikipedia page
    /// last read and the cache belong to the run).
    pub fn for_run(env: &ToolEnv, is_enabled: impl Fn(&str) -> bool) -> Self {
        let e = &env.endpoints;
        let tools = TOOL_NAMES
            .iter()
            .filter(|name| is_enabled(name))
            .map(|&name| -> Box<dyn Tool> {
                match name {
                    "web_search" => Box::new(WebSearch::new(
                        env.jsonp.clone(),
                        env.http.clone(),
                        e.duckduckgo_api.clone(),
                        e.wikipedia_api.clone(),
                    )),
                    "wikipedia" => {
                        Box::new(Wikipedia::new(env.http.clone(), e.wikipedia_api.clone()))
                    }
                    "weather" => Box::new(Weather::new(
                        env.http.clone(),
                        WeatherEndpoints {
                            geocoding: e.geocoding_api.clone(),
                            forecast: e.forecast_api.clone(),
                            wttr: e.wttr.clone(),
                        },
                    )),
                    "python" => Box::new(Python::new(env.python.clone(), env.python_timeout_secs)),
                    _ => Box::new(Calculator),
                }
            })
            .collect();
        Self::new(tools)
    }

    fn find(&self, name: &str) -> Option<&dyn Tool> {
        let wanted = normalise_tool_name(name);
        self.tools
            .iter()
            .map(|t| t.as_ref())
            .find(|t| t.spec().name == wanted)
    }
}

/// Models write `Calculator`, `` `calculator` ``, `calculator tool` or `web search`; all mean
/// the same.
fn normalise_tool_name(name: &str) -> String {
    let n = name
        .trim()
        .trim_matches(|c: char| c == '`' || c == '"' || c == '\'' || c == '*')
        .trim();
    let n = n.strip_suffix(" tool").unwrap_or(n);
    n.to_ascii_lowercase().replace([' ', '-'], "_")
}

impl Toolbox for Registry {
    fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec()).collect()
    }

    async fn call(&self, name: &str, input: &str) -> Result<String, String> {
        let Some(tool) = self.find(name) else {
            let names: Vec<&str> = self.tools.iter().map(|t| t.spec().name).collect();
            let available = if names.is_empty() {
                "none (all tools are disabled in Settings)".to_string()
            } else {
                names.join(", ")
            };
            return Err(format!(
                "There is no tool named \"{}\". Available tools: {available}.",
                name.trim()
            ));
        };
        // Same tool, same input (up to spacing) → same answer within a run. Failures are not
        // cached: they may be transient.
        let key = (tool.spec().name.to_string(), squash_whitespace(input));
        if let Some(hit) = self.cache.borrow().get(&key) {
            return Ok(format!("{hit}\n{CACHED_NOTE}"));
        }
        let result = tool.call(input).await;
        let result = match result {
            Ok(text) => Ok(truncate(&text, MAX_OBSERVATION_CHARS)),
            Err(text) => Err(truncate(&text, MAX_OBSERVATION_CHARS)),
        };
        if let Ok(text) = &result {
            self.cache.borrow_mut().insert(key, text.clone());
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::http::fake::FakeHttp;
    use crate::tools::python::{PythonFailure, PythonOutput};
    use futures::executor::block_on;
    use futures::future::LocalBoxFuture;
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
        assert_eq!(block_on(r.call("Calculator", "2+3")), Ok("5".into()));
        assert_eq!(block_on(r.call("`calculator`", "2*3")), Ok("6".into()));
        let err = block_on(r.call("search", "x")).unwrap_err();
        assert!(
            err.contains("no tool named \"search\"") && err.contains("calculator"),
            "{err}"
        );
    }

    #[test]
    fn lists_only_enabled_tools_in_order() {
        let all = Registry::for_run(&env(Rc::default()), |_| true);
        let names: Vec<_> = all.specs().iter().map(|s| s.name).collect();
        assert_eq!(names, TOOL_NAMES);
        let some = Registry::for_run(&env(Rc::default()), |n| n != "python" && n != "weather");
        let names: Vec<_> = some.specs().iter().map(|s| s.name).collect();
        assert_eq!(names, ["web_search", "wikipedia", "calculator"]);
        assert_eq!(normalise_tool_name("Web Search"), "web_search");
        let err = block_on(some.call("python", "print(1)")).unwrap_err();
        assert!(
            err.contains("Available tools: web_search, wikipedia, calculator."),
            "{err}"
        );
        // The names a record gets before its tools exist are the names the tools say.
        let some_tools = |n: &str| n != "python" && n != "weather";
        assert_eq!(Registry::enabled_names(some_tools), names);
        let all_names: Vec<_> = all.specs().iter().map(|s| s.name.to_string()).collect();
        assert_eq!(Registry::enabled_names(|_| true), all_names);
        let none = Registry::for_run(&env(Rc::default()), |_| false);
        assert!(block_on(none.call("calculator", "1"))
            .unwrap_err()
            .contains("all tools are disabled"));
    }

    #[test]
    fn repeated_calls_are_answered_from_the_run_cache() {
        let python = Rc::new(CountingPython::default());
        let r = Registry::for_run(&env(python.clone()), |_| true);
        let first = block_on(r.call("python", "print('ok')")).unwrap();
        let again = block_on(r.call("python", "  print('ok')   ")).unwrap();
        assert_eq!(python.0.get(), 1, "the second call was not run");
        assert!(!first.contains(CACHED_NOTE));
        assert_eq!(again, format!("{first}\n{CACHED_NOTE}"));
        // a new run has a new cache
        let r2 = Registry::for_run(&env(python.clone()), |_| true);
        block_on(r2.call("python", "print('ok')")).unwrap();
        assert_eq!(python.0.get(), 2);
    }

    #[test]
    fn long_observations_are_cut_with_a_note() {
        let r = Registry::for_run(&env(Rc::default()), |_| true);
        let out = block_on(r.call("python", "long")).unwrap();
        assert!(
            out.chars().count() < MAX_OBSERVATION_CHARS + 60,
            "{}",
            out.len()
        );
        assert!(out.contains("more characters cut]"));
    }
}
