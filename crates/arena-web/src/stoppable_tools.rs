//! The run's tools, stopped with the run: Stop drops a tool call that is still going (the
//! Python sandbox of a dropped call is ended, a fetch's answer is ignored) and the model is not
//! asked again, since its own request is aborted by the same signal.

use futures::channel::oneshot;
use futures::future::{select, Either};
use serde_json::Value;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

use arena_core::tools::{FailureKind, ToolFailure, ToolSpec, Toolbox};

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
        if self.signal.aborted() {
            return Err(stopped());
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
        let outcome = select(Box::pin(self.tools.call(name, args)), rx).await;
        let _ = self
            .signal
            .remove_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref());
        match outcome {
            Either::Left((result, _)) => result,
            Either::Right(_) => Err(stopped()),
        }
    }
}
