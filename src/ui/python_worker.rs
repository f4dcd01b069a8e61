//! `PythonRunner` for the browser: Pyodide in a module Web Worker (`public/python-worker.js`).
//! The worker is created at the first python call of a panel's run (so the page never
//! downloads Pyodide otherwise), receives only the code, and is terminated when a program
//! runs past its limit; the next call starts a fresh one.

use std::cell::{Cell, RefCell};

use futures::channel::mpsc;
use futures::future::{select, Either, LocalBoxFuture};
use futures::StreamExt;
use js_sys::{Object, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

use super::timer::sleep;
use crate::tools::python::{PythonFailure, PythonOutput, PythonRunner, MAX_OUTPUT_CHARS};

/// Loading Pyodide (a few MB) is not the program's time: it has its own, generous limit.
const LOAD_LIMIT_SECS: u32 = 120;

pub struct WorkerPython {
    index_url: String,
    live: RefCell<Option<LiveWorker>>,
    next_id: Cell<u32>,
}

struct LiveWorker {
    worker: Worker,
    inbox: mpsc::UnboundedReceiver<JsValue>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

impl WorkerPython {
    pub fn new(index_url: String) -> Self {
        Self {
            index_url,
            live: RefCell::new(None),
            next_id: Cell::new(0),
        }
    }

    fn start_worker(&self) -> Result<LiveWorker, PythonFailure> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options("python-worker.js", &options).map_err(|_| {
            PythonFailure::Unavailable("the browser refused to start a worker".into())
        })?;
        let (sender, inbox) = mpsc::unbounded();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let _ = sender.unbounded_send(event.data());
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(LiveWorker {
            worker,
            inbox,
            _on_message: on_message,
        })
    }

    fn kill(&self) {
        if let Some(live) = self.live.borrow_mut().take() {
            live.worker.terminate();
        }
    }

    /// Waits for the next message about call `id`, or gives up after `secs`.
    async fn next_message(&self, id: u32, secs: u32) -> Option<JsValue> {
        let deadline = Box::pin(sleep(secs.saturating_mul(1000)));
        let wait = Box::pin(async {
            loop {
                // The receiver is taken out while waiting so no RefCell borrow spans an await.
                let mut inbox = {
                    let mut live = self.live.borrow_mut();
                    let live = live.as_mut()?;
                    std::mem::replace(&mut live.inbox, mpsc::unbounded().1)
                };
                let message = inbox.next().await;
                if let Some(live) = self.live.borrow_mut().as_mut() {
                    live.inbox = inbox;
                }
                let message = message?;
                if field_u32(&message, "id") == Some(id) {
                    return Some(message);
                }
            }
        });
        match select(wait, deadline).await {
            Either::Left((message, _)) => message,
            Either::Right(_) => None,
        }
    }
}

impl Drop for WorkerPython {
    fn drop(&mut self) {
        self.kill();
    }
}

impl PythonRunner for WorkerPython {
    fn run<'a>(
        &'a self,
        code: &'a str,
        timeout_secs: u32,
    ) -> LocalBoxFuture<'a, Result<PythonOutput, PythonFailure>> {
        Box::pin(async move {
            if self.live.borrow().is_none() {
                let live = self.start_worker()?;
                *self.live.borrow_mut() = Some(live);
            }
            let id = self.next_id.get() + 1;
            self.next_id.set(id);
            let message = Object::new();
            let set = |k: &str, v: JsValue| Reflect::set(&message, &JsValue::from_str(k), &v);
            let _ = set("id", JsValue::from(id));
            let _ = set("code", JsValue::from_str(code));
            let _ = set("indexURL", JsValue::from_str(&self.index_url));
            let _ = set("maxOutput", JsValue::from(MAX_OUTPUT_CHARS as u32));
            if let Some(live) = self.live.borrow().as_ref() {
                live.worker.post_message(&message).map_err(|_| {
                    PythonFailure::Unavailable("the worker refused the program".into())
                })?;
            }

            // Phase 1: Pyodide loads (first call only), then the worker says it started.
            match self.next_message(id, LOAD_LIMIT_SECS).await {
                Some(m) if field(&m, "kind").as_deref() == Some("started") => {}
                Some(m) => {
                    let reason = field(&m, "error").unwrap_or_else(|| "unknown error".into());
                    self.kill();
                    return Err(PythonFailure::Unavailable(reason));
                }
                None => {
                    self.kill();
                    return Err(PythonFailure::Unavailable(format!(
                        "Pyodide did not load within {LOAD_LIMIT_SECS} s (check the Pyodide base URL in Settings)"
                    )));
                }
            }
            // Phase 2: the program, within its limit.
            match self.next_message(id, timeout_secs).await {
                Some(m) if field(&m, "kind").as_deref() == Some("done") => Ok(PythonOutput {
                    stdout: field(&m, "stdout").unwrap_or_default(),
                    value: field(&m, "value"),
                    cut_chars: field_u32(&m, "cut").unwrap_or(0) as usize,
                }),
                Some(m) => Err(PythonFailure::Raised(
                    field(&m, "error").unwrap_or_else(|| "unknown error".into()),
                )),
                None => {
                    // The only way to stop a running program: end the worker.
                    self.kill();
                    Err(PythonFailure::TimedOut {
                        seconds: timeout_secs,
                    })
                }
            }
        })
    }
}

fn field(v: &JsValue, name: &str) -> Option<String> {
    Reflect::get(v, &JsValue::from_str(name))
        .ok()
        .and_then(|v| v.as_string())
}

fn field_u32(v: &JsValue, name: &str) -> Option<u32> {
    Reflect::get(v, &JsValue::from_str(name))
        .ok()
        .and_then(|v| v.as_f64())
        .map(|n| n as u32)
}
