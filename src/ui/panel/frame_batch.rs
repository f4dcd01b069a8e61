//! Coalesces a run's events into at most one panel update per animation frame. A fast
//! provider streams hundreds of tokens a second per panel; rendering each one would redo
//! the panel's text hundreds of times a second for nothing the eye can see.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::agent::record::{RunRecord, Status};
use crate::agent::AgentEvent;
use crate::web::clock::wall_ms;

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
        self.pending.borrow_mut().push((wall_ms(), event));
        if self.scheduled.replace(true) {
            return;
        }
        self.at_next_frame();
    }

    fn at_next_frame(&self) {
        let batch = self.clone();
        let flush = Closure::once_into_js(move || batch.flush_in_frame());
        let requested =
            web_sys::window().and_then(|w| w.request_animation_frame(flush.unchecked_ref()).ok());
        if requested.is_none() {
            self.flush();
        }
    }

    /// At a frame. A panel's first frame draws what its run will show (the step, the
    /// progress line) and the streamed text waits for the next: a fast reply arrives with
    /// the run's start, and both in one frame, in three panels at once, made a long one.
    fn flush_in_frame(&self) {
        match self.before_first_text() {
            Some(start) => {
                self.apply(start);
                self.at_next_frame();
            }
            None => self.flush(),
        }
    }

    /// The events before the first text of a run not drawn yet, taken from those pending;
    /// `None` when there is no such split.
    fn before_first_text(&self) -> Option<Vec<(f64, AgentEvent)>> {
        let first = self
            .state
            .try_with_untracked(|s| s.status == Status::Idle)?;
        if !first {
            return None;
        }
        let mut pending = self.pending.borrow_mut();
        let text_at = pending
            .iter()
            .position(|(_, e)| matches!(e, AgentEvent::Token(_) | AgentEvent::Reasoning(_)))
            .filter(|&at| at > 0)?;
        let text = pending.split_off(text_at);
        Some(std::mem::replace(&mut *pending, text))
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
        self.apply(events);
    }

    fn apply(&self, events: Vec<(f64, AgentEvent)>) {
        if events.is_empty() {
            return;
        }
        // `try_update`: the panel may have been replaced by a newer run meanwhile.
        self.state
            .try_update(|s| events.iter().for_each(|(at, e)| s.apply(*at, e)));
    }
}
