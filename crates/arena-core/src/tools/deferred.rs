//! Built-in tools whose code arrives when the first of them is called. The page sends a run's
//! first request before the tools' part of the page is fetched (it is fetched once that
//! request has left); each tool here stands in for one, with its spec known beforehand, and
//! makes them all at its first call, once for every call that comes meanwhile.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::{LocalBoxFuture, Shared};
use futures::FutureExt;
use serde_json::Value;

use super::{FailureKind, Tool, ToolFailure, ToolSpec};

/// Makes a run's enabled built-in tools, in the order of the specs the stand-ins were given:
/// the page's tools chunk, fetched and called.
pub type LoadTools =
    Box<dyn Fn() -> LocalBoxFuture<'static, Result<Vec<Box<dyn Tool>>, ToolFailure>>>;

type Made = Rc<Vec<Box<dyn Tool>>>;

/// The tools being made, awaited by every call that comes meanwhile.
type Making = Shared<LocalBoxFuture<'static, Result<Made, ToolFailure>>>;

/// The tools once made, or being made, for every stand-in of one run.
struct Loader {
    load: LoadTools,
    made: RefCell<Option<Making>>,
}

impl Loader {
    async fn tools(&self) -> Result<Made, ToolFailure> {
        let made = self
            .made
            .borrow_mut()
            .get_or_insert_with(|| (self.load)().map(|m| m.map(Rc::new)).boxed_local().shared())
            .clone();
        let made = made.await;
        if made.is_err() {
            // Fetched again at the next call: the connection may be back.
            *self.made.borrow_mut() = None;
        }
        made
    }
}

/// Stands in for the built-in tool at `at` of what the loader makes.
struct DeferredTool {
    spec: ToolSpec,
    at: usize,
    loader: Rc<Loader>,
}

impl Tool for DeferredTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn call(&self, args: Value) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
        Box::pin(async move { self.made().await?[self.at].call(args).await })
    }

    fn call_value(&self, args: Value) -> LocalBoxFuture<'_, Result<Value, ToolFailure>> {
        Box::pin(async move { self.made().await?[self.at].call_value(args).await })
    }
}

impl DeferredTool {
    /// The tools made at the first call, with the one at `at` checked to be the one this
    /// stands in for.
    async fn made(&self) -> Result<Made, ToolFailure> {
        let made = self.loader.tools().await?;
        if made.get(self.at).map(|t| t.spec().name) != Some(self.spec.name.clone()) {
            return Err(ToolFailure::new(
                FailureKind::Other,
                format!("The tool {} could not be made.", self.spec.name),
            ));
        }
        Ok(made)
    }
}

/// One stand-in per spec, sharing one loader.
pub(super) fn deferred_tools(specs: Vec<ToolSpec>, load: LoadTools) -> Vec<Box<dyn Tool>> {
    let loader = Rc::new(Loader {
        load,
        made: RefCell::default(),
    });
    specs
        .into_iter()
        .enumerate()
        .map(|(at, spec)| {
            Box::new(DeferredTool {
                spec,
                at,
                loader: loader.clone(),
            }) as Box<dyn Tool>
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use futures::executor::block_on;
    use futures::future::join_all;
    use serde_json::json;

    use crate::tools::args;
    use crate::tools::endpoints::ToolEndpoints;
    use crate::tools::http::fake::FakeHttp;
    use crate::tools::http::FetchError;
    use crate::tools::python::{PythonFailure, PythonOutput, PythonRunner};
    use crate::tools::registry::{built_in_tools, LoadReadArgs, ReadArgs, ToolEnv};
    use crate::tools::web_search::JsonpClient;
    use crate::tools::{Registry, Toolbox};

    use super::*;

    struct NoJsonp;
    impl JsonpClient for NoJsonp {
        fn get<'a>(&'a self, _: &'a str) -> LocalBoxFuture<'a, Result<String, FetchError>> {
            Box::pin(async { Err(FetchError::Network(String::new())) })
        }
    }

    struct NoPython;
    impl PythonRunner for NoPython {
        fn run<'a>(
            &'a self,
            _: &'a str,
            _: u32,
        ) -> LocalBoxFuture<'a, Result<PythonOutput, PythonFailure>> {
            Box::pin(async { Ok(PythonOutput::default()) })
        }
    }

    fn env() -> ToolEnv {
        ToolEnv {
            http: Rc::new(FakeHttp::new()),
            jsonp: Rc::new(NoJsonp),
            python: Rc::new(NoPython),
            endpoints: ToolEndpoints::default(),
            python_timeout_secs: 10,
        }
    }

    /// A registry whose tools are made by `built_in_tools`, counting the loads; the first
    /// `failures` loads fail as an unreachable chunk would.
    fn deferred(enabled: fn(&str) -> bool, loads: Rc<Cell<u32>>, failures: u32) -> Registry {
        with_check(enabled, loads, failures, schema_check(Rc::default(), 0))
    }

    fn with_check(
        enabled: fn(&str) -> bool,
        loads: Rc<Cell<u32>>,
        failures: u32,
        read_args: LoadReadArgs,
    ) -> Registry {
        Registry::deferred(
            enabled,
            Box::new(move || {
                let loads = loads.clone();
                Box::pin(async move {
                    loads.set(loads.get() + 1);
                    if loads.get() <= failures {
                        return Err(ToolFailure::new(FailureKind::Network, "no chunk"));
                    }
                    Ok(built_in_tools(&env(), enabled))
                })
            }),
            read_args,
        )
    }

    /// The schema check as the page's chunk gives it, counting the loads; the first `failures`
    /// fail as an unreachable chunk would.
    fn schema_check(loads: Rc<Cell<u32>>, failures: u32) -> LoadReadArgs {
        Box::new(move || {
            let loads = loads.clone();
            Box::pin(async move {
                loads.set(loads.get() + 1);
                if loads.get() <= failures {
                    return Err(ToolFailure::new(FailureKind::Network, "no chunk"));
                }
                Ok(args::read as ReadArgs)
            })
        })
    }

    #[test]
    fn the_stand_ins_offer_what_the_made_tools_offer_before_any_is_made() {
        let some = |n: &str| n != "python" && n != "weather";
        for enabled in [(|_: &str| true) as fn(&str) -> bool, some, |_| false] {
            let loads = Rc::new(Cell::new(0));
            let stand_ins = deferred(enabled, loads.clone(), 0);
            let made = Registry::for_run(&env(), enabled);
            assert_eq!(stand_ins.specs(), made.specs());
            assert_eq!(loads.get(), 0, "nothing is made to list the tools");
        }
    }

    #[test]
    fn the_tools_are_made_once_for_every_call_even_at_once() {
        let loads = Rc::new(Cell::new(0));
        let r = deferred(|_| true, loads.clone(), 0);
        let answers = block_on(join_all([
            r.call("calculator", &json!("2+3")),
            r.call("calculator", &json!("4*5")),
            r.call("Calculator", &json!({"input": "1+1"})),
        ]));
        assert_eq!(answers, [Ok("5".into()), Ok("20".into()), Ok("2".into())]);
        assert_eq!(
            block_on(r.call("calculator", &json!("6*7"))),
            Ok("42".into())
        );
        assert_eq!(loads.get(), 1);
    }

    #[test]
    fn a_tool_whose_code_cannot_be_fetched_fails_as_unreachable_and_is_fetched_again_later() {
        let loads = Rc::new(Cell::new(0));
        // Two failed loads: the call and the registry's one retry after a network failure.
        let r = deferred(|_| true, loads.clone(), 2);
        let failed = block_on(r.call("calculator", &json!("2+3"))).unwrap_err();
        assert_eq!(failed.kind, FailureKind::Network);
        assert_eq!(loads.get(), 2);
        assert_eq!(
            block_on(r.call("calculator", &json!("2+3"))),
            Ok("5".into())
        );
        assert_eq!(loads.get(), 3);
    }

    #[test]
    fn arguments_are_read_against_the_stand_in_s_schema_before_anything_is_made() {
        let loads = Rc::new(Cell::new(0));
        let r = deferred(|_| true, loads.clone(), 0);
        let failed = block_on(r.call("weather", &json!({"location": 3}))).unwrap_err();
        assert_eq!(failed.kind, FailureKind::BadArguments);
        assert_eq!(loads.get(), 0);
    }

    #[test]
    fn the_schema_check_is_fetched_at_the_first_call_and_kept_for_the_run() {
        let (tools, checks) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
        let r = with_check(|_| true, tools.clone(), 0, schema_check(checks.clone(), 0));
        assert_eq!(checks.get(), 0, "listing the tools needs no check");
        assert!(!r.specs().is_empty());
        assert_eq!(checks.get(), 0);
        let misfit = block_on(r.call("weather", &json!({"location": 3}))).unwrap_err();
        assert_eq!(misfit.kind, FailureKind::BadArguments);
        assert!(misfit.message.contains("location"), "{}", misfit.message);
        assert_eq!(
            block_on(r.call("calculator", &json!({"input": "6*7"}))),
            Ok("42".into())
        );
        assert_eq!(checks.get(), 1);
        assert_eq!(tools.get(), 1);
    }

    #[test]
    fn a_call_whose_schema_check_cannot_be_fetched_reaches_no_tool_and_the_next_fetches_it_again() {
        let (tools, checks) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
        let r = with_check(|_| true, tools.clone(), 0, schema_check(checks.clone(), 1));
        let failed = block_on(r.call("calculator", &json!("2+3"))).unwrap_err();
        assert_eq!(failed.kind, FailureKind::Network);
        assert_eq!(tools.get(), 0, "no tool was made for a call left unread");
        assert_eq!(
            block_on(r.call("calculator", &json!("2+3"))),
            Ok("5".into())
        );
        assert_eq!(checks.get(), 2);
    }
}
