//! Coalesces a run's events into at most one panel update per animation frame. A fast
//! provider streams hundreds of tokens a second per panel; rendering each one would redo
//! the panel's text hundreds of times a second for nothing the eye can see.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::agent::record::RunRecord;
use crate::agent::AgentEvent;

#[derive(Clone)]
pub struct FrameBatch {
    state: RwSignal<RunRecord>,
    /// Events with the time they happened (epoch ms), not the time they are drawn.
    pending: Rc<RefCell<Vec<(f64, AgentEvent)>>>,
    scheduled: Rc<RefCell<bool>>,
}

impl FrameBatch {
    pub fn new(state: RwSignal<RunRecord>) -> Self {
        Self {
            state,
            pending: Rc::default(),
            scheduled: Rc::default(),
        }
    }

    pub fn push(&self, event: AgentEvent) {
        self.pending.borrow_mut().push((js_sys::Date::now(), event));
        if self.scheduled.replace(true) {
            return;
        }
        let batch = self.clone();
        let flush = Closure::once_into_js(move || batch.flush());
        let requested =
            web_sys::window().and_then(|w| w.request_animation_frame(flush.unchecked_ref()).ok());
        if requested.is_none() {
            self.flush();
        }
    }

    /// Applies one event at once, without waiting for a frame (a user action the next click
    /// must already see).
    pub fn apply_now(&self, event: AgentEvent) {
        self.push(event);
        self.flush();
    }

    /// Applies everything queued in one signal update (also called when the run ends, so the
    /// last events never wait for a frame that a hidden tab will not draw).
    pub fn flush(&self) {
        *self.scheduled.borrow_mut() = false;
        let events = std::mem::take(&mut *self.pending.borrow_mut());
        if events.is_empty() {
            return;
        }
        // `try_update`: the panel may have been replaced by a newer run meanwhile.
        self.state
            .try_update(|s| events.iter().for_each(|(at, e)| s.apply(*at, e)));
    }
}
