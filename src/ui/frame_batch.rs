//! Coalesces a run's events into at most one panel update per animation frame. A fast
//! provider streams hundreds of tokens a second per panel; rendering each one would redo
//! the panel's text hundreds of times a second for nothing the eye can see.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::agent::panel::PanelState;
use crate::agent::AgentEvent;

#[derive(Clone)]
pub struct FrameBatch {
    state: RwSignal<PanelState>,
    pending: Rc<RefCell<Vec<AgentEvent>>>,
    scheduled: Rc<RefCell<bool>>,
}

impl FrameBatch {
    pub fn new(state: RwSignal<PanelState>) -> Self {
        Self {
            state,
            pending: Rc::default(),
            scheduled: Rc::default(),
        }
    }

    pub fn push(&self, event: AgentEvent) {
        self.pending.borrow_mut().push(event);
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
            .try_update(|s| events.into_iter().for_each(|e| s.apply(e)));
    }
}
