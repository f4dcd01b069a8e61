//! The run's tools, stopped with the run: Stop drops a tool call that is still going (the
//! Python sandbox of a dropped call is ended, a fetch's answer is ignored) and the model is not
//! asked again, since its own request is aborted by the same signal.

use futures::channel::oneshot;
use futures::future::{select, Either};
use serde_json::Value;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

use arena_core::tools::program::{ProgramLimits, ProgramRun, ProgramStop, PythonTool};
use arena_core::tools::{FailureKind, ProgramCalls, ToolFailure, ToolSpec, Toolbox};

const STOPPED: &str = "Stopped by the user.";

pub struct StoppableTools<T> {
    pub tools: T,
    pub signal: AbortSignal,
}

impl<T: Toolbox> Toolbox for StoppableTools<T> {
    fn specs(&self) -> Vec<ToolSpec> {
        self.tools.specs()
    }

    fn begin_calls(&self) {
        self.tools.begin_calls();
    }

    async fn call(&self, name: &str, args: &Value) -> Result<String, ToolFailure> {
        let stopped = || ToolFailure::new(FailureKind::Stopped, STOPPED);
        match self.until_stopped(self.tools.call(name, args)).await {
            Some(result) => result,
            None => Err(stopped()),
        }
    }

    async fn call_value(&self, name: &str, args: &Value) -> Result<Value, ToolFailure> {
        match self.until_stopped(self.tools.call_value(name, args)).await {
            Some(result) => result,
            None => Err(ToolFailure::new(FailureKind::Stopped, STOPPED)),
        }
    }

    /// Stop ends a running program: dropped, its sandbox ended.
    async fn run_program<C: ProgramCalls>(
        &self,
        code: &str,
        tools: &[PythonTool],
        limits: ProgramLimits,
        calls: &C,
    ) -> ProgramRun {
        let running = self.tools.run_program(code, tools, limits, calls);
        self.until_stopped(running)
            .await
            .unwrap_or_else(|| ProgramRun {
                stopped: Some(ProgramStop::Stopped),
                ..ProgramRun::default()
            })
    }
}

impl<T> StoppableTools<T> {
    /// `work`'s outcome, or `None` once the run is stopped (`work` is then dropped).
    async fn until_stopped<O>(&self, work: impl std::future::Future<Output = O>) -> Option<O> {
        if self.signal.aborted() {
            return None;
        }
        let (tx, rx) = oneshot::channel::<()>();
        let mut tx = Some(tx);
        let on_abort = Closure::<dyn FnMut()>::new(move || {
            if let Some(tx) = tx.take() {
                let _ = tx.send(());
            }
        });
        let _ = self
            .signal
            .add_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref());
        let outcome = select(Box::pin(work), rx).await;
        let _ = self
            .signal
            .remove_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref());
        match outcome {
            Either::Left((result, _)) => Some(result),
            Either::Right(_) => None,
        }
    }
}
