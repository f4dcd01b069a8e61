//! Settings' system prompts: each mode's prompt, to read and to edit. An edited prompt is
//! marked, is sent exactly as written, and Reset brings back the mode's own.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::agent::Mode;
use crate::settings::Settings;
use crate::ui::app_context::{AppContext, FieldError};

#[component]
pub fn PromptSettings() -> impl IntoView {
    let settings = AppContext::get().settings;
    let field_error = FieldError::get();
    view! {
        <span class="settings-label">"System prompts"</span>
        <div class="prompt-edits">
            <p class="hint">
                "What each mode is told before the question. Edit one to try your own: it is sent exactly as written (with native tool calls too) and kept with the run. The default shown lists the tools the mode may call, for the text protocol (CodeAct's, as the Python functions its programs get)."
            </p>
            {Mode::ALL.map(|mode| view! { <PromptEdit mode=mode settings=settings field_error=field_error /> })}
        </div>
    }
}

#[component]
fn PromptEdit(
    mode: Mode,
    settings: RwSignal<Settings>,
    field_error: RwSignal<Option<String>>,
) -> impl IntoView {
    let id = format!("prompt-{}", mode.id());
    let edited = Memo::new(move |_| settings.with(|s| s.prompts.get(mode).is_some()));
    let text = Memo::new(move |_| {
        settings.with(|s| {
            s.prompts
                .get(mode)
                .map_or_else(|| s.default_prompt(mode), str::to_string)
        })
    });
    let save = move |ev: leptos::ev::Event| {
        let written = event_target_value(&ev);
        let result = settings
            .try_update(|s| {
                let default = s.default_prompt(mode);
                s.prompts.set(mode, &written, &default)
            })
            .unwrap_or(Ok(()));
        match result {
            Ok(()) => field_error.set(None),
            Err(e) => {
                field_error.set(Some(e));
                // The field shows the prompt that stays (the memo did not change, so it is
                // put back by hand).
                if let Some(field) = ev
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
                {
                    field.set_value(&text.get_untracked());
                }
            }
        }
    };
    view! {
        <details class="prompt-edit" data-mode=mode.id() class:edited=move || edited.get()>
            <summary>
                {mode.label()}
                <span class="edited-mark" hidden=move || !edited.get()>" · edited"</span>
            </summary>
            <textarea
                id=id.clone()
                aria-label=format!("{} system prompt", mode.label())
                rows="8"
                spellcheck="false"
                prop:value=move || text.get()
                on:change=save
            ></textarea>
            <button
                id=format!("{id}-reset")
                disabled=move || !edited.get()
                on:click=move |_| settings.update(|s| s.prompts.reset(mode))
            >
                "Reset to the default"
            </button>
        </details>
    }
}
