//! The page's keyboard shortcuts, listened for on the whole window: Ctrl/Cmd+Enter runs,
//! Escape stops, "/" focuses the question. Which key does what is decided in `shortcuts`.

use leptos::ev::{keydown, KeyboardEvent};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::shortcuts::{shortcut, Press, Shortcut};

/// The element that takes "/".
pub const QUESTION_ID: &str = "question";

fn in_text_field(ev: &KeyboardEvent) -> bool {
    let Some(el) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return false;
    };
    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || el.is_content_editable()
}

/// Installs the listener for as long as the calling component lives.
pub fn listen_for_shortcuts(on_run: Callback<()>, on_stop: Callback<()>, running: Signal<bool>) {
    let handle = window_event_listener(keydown, move |ev: KeyboardEvent| {
        let key = ev.key();
        let press = Press {
            key: &key,
            ctrl: ev.ctrl_key(),
            meta: ev.meta_key(),
            alt: ev.alt_key(),
            in_text_field: in_text_field(&ev),
            running: running.try_get_untracked().unwrap_or(false),
            escape_taken: ev.default_prevented(),
        };
        match shortcut(press) {
            Some(Shortcut::Run) => {
                ev.prevent_default();
                on_run.run(());
            }
            Some(Shortcut::Stop) => {
                ev.prevent_default();
                on_stop.run(());
            }
            Some(Shortcut::FocusQuestion) => {
                let field = document()
                    .get_element_by_id(QUESTION_ID)
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
                if let Some(field) = field {
                    ev.prevent_default();
                    let _ = field.focus();
                }
            }
            None => {}
        }
    });
    on_cleanup(move || handle.remove());
}
