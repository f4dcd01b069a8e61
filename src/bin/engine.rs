//! The agent engine as its own wasm module: the loop, the model client, the tools and the
//! Markdown parser. The Arena page imports it when it is first needed (a question written, a
//! run started, Markdown to draw: `web/engine_loader.js`), so the page's first load does not
//! carry it. Requests and events cross as JSON (`turn_request`).

#[cfg(target_arch = "wasm32")]
mod exports {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use react_arena::agent::AgentEvent;
    use react_arena::turn_request::{events_to_json, TurnRequest};
    use react_arena::web::agent_engine::run_request;
    use react_arena::web::python_worker::pyodide_download;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::future_to_promise;

    /// The events of one task, sent to the page together once the task has run (a fast
    /// stream gives many tokens a task; each crossing costs the page's thread).
    struct Outbox {
        emit: js_sys::Function,
        pending: RefCell<Vec<AgentEvent>>,
        scheduled: Cell<bool>,
    }

    impl Outbox {
        fn push(self: &Rc<Self>, event: AgentEvent) {
            self.pending.borrow_mut().push(event);
            if self.scheduled.replace(true) {
                return;
            }
            let outbox = self.clone();
            let flush = Closure::once_into_js(move || outbox.flush());
            match web_sys::window() {
                Some(window) => window.queue_microtask(flush.unchecked_ref()),
                None => self.flush(),
            }
        }

        fn flush(&self) {
            self.scheduled.set(false);
            let events = std::mem::take(&mut *self.pending.borrow_mut());
            if !events.is_empty() {
                let json = JsValue::from_str(&events_to_json(events));
                let _ = self.emit.call1(&JsValue::NULL, &json);
            }
        }
    }

    /// Runs one turn of one panel. `emit` is called with the events as JSON lists, in order;
    /// the promise settles when the turn has ended (its last event sent), or is refused when
    /// the request cannot be read.
    #[wasm_bindgen]
    pub fn run_turn(
        request: String,
        emit: js_sys::Function,
        signal: web_sys::AbortSignal,
    ) -> js_sys::Promise {
        future_to_promise(async move {
            let request = TurnRequest::from_json(&request).map_err(|e| JsValue::from_str(&e))?;
            let outbox = Rc::new(Outbox {
                emit,
                pending: RefCell::default(),
                scheduled: Cell::new(false),
            });
            let mut send = |event| outbox.push(event);
            run_request(request, signal, &mut send).await;
            outbox.flush();
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Model or tool text as HTML that runs nothing (`markdown::render_markdown`). Markdown
    /// is drawn by the engine's module: the page's first load does not carry the parser.
    #[wasm_bindgen]
    pub fn markdown_html(text: &str, page_origin: &str) -> String {
        react_arena::markdown::render_markdown(text, page_origin)
    }

    /// Where the blocks of a growing text start, as far as they are settled
    /// (`markdown_blocks::settled_block_starts`).
    #[wasm_bindgen]
    pub fn markdown_block_starts(text: &str) -> Vec<u32> {
        react_arena::markdown_blocks::settled_block_starts(text)
            .into_iter()
            .map(|i| i as u32)
            .collect()
    }

    /// How much of Pyodide has been fetched, as JSON (`null` before any download).
    #[wasm_bindgen]
    pub fn python_download() -> String {
        serde_json::to_string(&pyodide_download()).unwrap_or_default()
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {
    // Where each run's own copy of its record lives while it goes.
    react_arena::web::memory_probe::expose_memory("reactArenaEngineMemory");
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
