//! Settings' model part: where the model runs (an endpoint, or this browser), the endpoint's
//! model ids and base URL or the model in this browser, and the limits of every call. Drawn
//! from the parts chunk with the tool section: the first screen keeps only the token.

use leptos::prelude::*;

use crate::agent::Mode;
use crate::browser_model::{Backend, DEFAULT_CONTEXT, MAX_CONTEXT};
use crate::settings::{Settings, MAX_STEPS_LIMIT};
use crate::ui::app_context::{AppContext, FieldError};
use crate::ui::settings::browser_model_settings::BrowserModel;
use crate::web::model_info::known_model_ids;

fn mode_model(s: &Settings, mode: Mode) -> &String {
    s.mode_models.of(mode)
}

fn set_mode_model(s: &mut Settings, mode: Mode, model: String) {
    *s.mode_models.of_mut(mode) = model;
}

#[component]
pub fn ModelBackend() -> impl IntoView {
    let settings = AppContext::get().settings;
    let field_error = FieldError::get();
    let in_browser = Memo::new(move |_| settings.with(|s| s.backend == Backend::Browser));
    let choose = move |backend: Backend| settings.update(|s| s.backend = backend);
    // The endpoint's model ids, as far as a run has read them, for the model fields.
    let model_ids = RwSignal::new(Vec::<String>::new());
    let refresh_ids = move || {
        model_ids.set(known_model_ids(
            &settings.with_untracked(|s| s.base_url.clone()),
        ))
    };

    // A number field: invalid input is reported and the previous value kept.
    let number_field = move |id: &'static str,
                             label: &'static str,
                             hint: String,
                             get: fn(&Settings) -> String,
                             set: fn(&mut Settings, f64) -> bool| {
        view! {
            <label for=id>{label}</label>
            <input
                id=id
                type="number"
                title=hint.clone()
                prop:value=move || settings.with(get)
                on:change=move |ev| {
                    let raw = event_target_value(&ev);
                    let mut next = settings.get_untracked();
                    match raw.trim().parse::<f64>() {
                        Ok(v) if v.is_finite() && set(&mut next, v) => {
                            settings.set(next.clamped());
                            field_error.set(None);
                        }
                        _ => {
                            field_error.set(Some(format!("{label}: \"{raw}\" is not valid ({hint}). Kept the previous value.")));
                            settings.update(|_| {}); // re-render the field with the kept value
                        }
                    }
                }
            />
        }
    };

    view! {
            <span class="settings-label" id="backend-label">"Model runs"</span>
            <div class="backend-choice" role="radiogroup" aria-labelledby="backend-label">
                <label class="inline">
                    <input
                        type="radio"
                        name="backend"
                        id="backend-endpoint"
                        prop:checked=move || !in_browser.get()
                        on:change=move |_| choose(Backend::Endpoint)
                    />
                    "At an endpoint (Hugging Face router, or any OpenAI-compatible server)"
                </label>
                <label class="inline">
                    <input
                        type="radio"
                        name="backend"
                        id="backend-browser"
                        prop:checked=move || in_browser.get()
                        on:change=move |_| choose(Backend::Browser)
                    />
                    "In this browser (no token: a small model runs on this device)"
                </label>
            </div>
            <Show when=move || in_browser.get()>
                <BrowserModel />
                {number_field("browser-context", "Context window (tokens)", format!("a whole number from 512 to {MAX_CONTEXT}; {DEFAULT_CONTEXT} by default"),
                    |s| s.browser_context.to_string(),
                    |s, v| { s.browser_context = v as u32; v.fract() == 0.0 && (512.0..=MAX_CONTEXT as f64).contains(&v) })}
            </Show>
            <Show when=move || !in_browser.get()>
                <label for="model">"Model id"</label>
                <input
                    id="model"
                    type="text"
                    list="model-ids"
                    spellcheck="false"
                    on:focus=move |_| refresh_ids()
                    prop:value=move || settings.with(|s| s.model.clone())
                    on:change=move |ev| settings.update(|s| s.model = event_target_value(&ev).trim().to_string())
                />

                <label>"Model per mode"</label>
                <div class="mode-models">
                    {[(Mode::Think, "model-think"), (Mode::Act, "model-act"), (Mode::ReAct, "model-react"), (Mode::CodeAct, "model-codeact")]
                        .into_iter()
                        .map(|(mode, id)| {
                            view! {
                                <label class="inline" for=id>{mode.label()}</label>
                                <input
                                    id=id
                                    type="text"
                                    list="model-ids"
                                    spellcheck="false"
                                    placeholder="same as above"
                                    on:focus=move |_| refresh_ids()
                                    prop:value=move || settings.with(|s| mode_model(s, mode).clone())
                                    on:change=move |ev| {
                                        let value = event_target_value(&ev).trim().to_string();
                                        settings.update(|s| set_mode_model(s, mode, value));
                                    }
                                />
                            }
                        })
                        .collect_view()}
                </div>
                <datalist id="model-ids">
                    {move || model_ids.get().into_iter().map(|id| view! { <option value=id></option> }).collect_view()}
                </datalist>
                <p class="hint wide">
                    "Compare models: each mode can run its own (a \":provider\", \":fastest\" or \":cheapest\" suffix works on the Hugging Face router). The list offers the endpoint's models once a run has read them."
                </p>

                <label for="base-url">"API base URL"</label>
                <input
                    id="base-url"
                    type="url"
                    spellcheck="false"
                    prop:value=move || settings.with(|s| s.base_url.clone())
                    on:change=move |ev| settings.update(|s| s.base_url = event_target_value(&ev).trim().to_string())
                />
                <p class="hint wide">
                    "Any OpenAI-compatible endpoint works, e.g. a local llama.cpp server at http://127.0.0.1:8080/v1 (no token needed for localhost)."
                </p>
    {number_field("context-length", "Context window (tokens)", "0 for what the endpoint says, or a whole number up to 10,000,000".into(),
                    |s| s.context_length.to_string(),
                    |s, v| { s.context_length = v as u32; v.fract() == 0.0 && (0.0..=10_000_000.0).contains(&v) })}
            </Show>
    {number_field("temperature", "Temperature", "a number from 0 to 2".into(),
                |s| s.temperature.to_string(),
                |s, v| { s.temperature = v as f32; (0.0..=2.0).contains(&v) })}
    {number_field("max-tokens", "Max tokens", "a whole number from 16 to 32768".into(),
                |s| s.max_tokens.to_string(),
                |s, v| { s.max_tokens = v as u32; v.fract() == 0.0 && (16.0..=32768.0).contains(&v) })}
    {number_field("max-steps", "Max steps", format!("a whole number from 1 to {MAX_STEPS_LIMIT}"),
                |s| s.max_steps.to_string(),
                |s, v| { s.max_steps = v as u32; v.fract() == 0.0 && (1.0..=MAX_STEPS_LIMIT as f64).contains(&v) })}
        }
}
