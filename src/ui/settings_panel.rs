use leptos::prelude::*;

use super::parts::{self, Part};
use crate::agent::Mode;
use crate::settings::{token_problem, Settings, MAX_STEPS_LIMIT};
use crate::web::model_info::known_model_ids;
use crate::web::storage;

fn mode_model(s: &Settings, mode: Mode) -> &String {
    match mode {
        Mode::Think => &s.mode_models.think,
        Mode::Act => &s.mode_models.act,
        Mode::ReAct => &s.mode_models.react,
    }
}

fn mode_model_mut(s: &mut Settings, mode: Mode) -> &mut String {
    match mode {
        Mode::Think => &mut s.mode_models.think,
        Mode::Act => &mut s.mode_models.act,
        Mode::ReAct => &mut s.mode_models.react,
    }
}

#[component]
pub fn SettingsPanel(
    settings: RwSignal<Settings>,
    token: RwSignal<String>,
    /// Where storage failures are reported.
    alert: RwSignal<Option<String>>,
    /// Counts the runs started: once one starts with a token, the settings fold away (the
    /// summary still opens them).
    fold_on: RwSignal<u32>,
) -> impl IntoView {
    let details = NodeRef::<leptos::html::Details>::new();
    Effect::new(move |previous: Option<u32>| {
        let runs = fold_on.get();
        if previous.is_some_and(|p| p != runs) && !token.with_untracked(String::is_empty) {
            if let Some(d) = details.get_untracked() {
                d.set_open(false);
            }
        }
        runs
    });
    // Open on first visit, when there is nothing to run with yet.
    let open = token.get_untracked().is_empty() && !settings.get_untracked().endpoint_is_local();
    let field_error = RwSignal::new(None::<String>);
    let token_error = Memo::new(move |_| token.with(|t| token_problem(t)));

    let set_token = move |value: String| {
        if let Err(e) = storage::save_token(&value, settings.with_untracked(|s| s.remember_token)) {
            alert.set(Some(e));
        }
        token.set(value);
    };
    // The setting changes only once the token is where it says: a refused write keeps both
    // the old copy and the old choice.
    let set_remember = move |ev: leptos::ev::Event| {
        let remember = event_target_checked(&ev);
        // The MCP servers' tokens are kept where the Hugging Face token is.
        let saved = storage::save_token(&token.get_untracked(), remember)
            .and_then(|()| storage::move_mcp_tokens(remember));
        match saved {
            Ok(()) => settings.update(|s| s.remember_token = remember),
            Err(e) => {
                alert.set(Some(e));
                // The box goes back to where the token really is.
                event_target::<web_sys::HtmlInputElement>(&ev).set_checked(!remember);
            }
        }
    };
    let forget = move |_| {
        storage::forget_token();
        token.set(String::new());
    };

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
        <section aria-label="Settings">
        <details id="settings" class="settings" open=open node_ref=details>
            <summary>"Settings"</summary>
            <div class="settings-grid">
                <label for="token">"Hugging Face token"</label>
                <div class="token-row">
                    <input
                        id="token"
                        type="password"
                        autocomplete="off"
                        spellcheck="false"
                        placeholder="hf_…"
                        prop:value=move || token.get()
                        on:input=move |ev| set_token(event_target_value(&ev))
                    />
                    <label class="inline">
                        <input
                            id="remember-token"
                            type="checkbox"
                            prop:checked=move || settings.with(|s| s.remember_token)
                            on:change=set_remember
                        />
                        "Remember on this device"
                    </label>
                    <button id="forget-token" on:click=forget>"Forget"</button>
                </div>
                <Show when=move || token_error.get().is_some()>
                    <p id="token-error" class="field-error wide" role="alert">
                        {move || token_error.get().unwrap_or_default()}
                    </p>
                </Show>
                <p class="hint wide">
                    "Kept in this tab's session storage unless you tick Remember. Create one with the \"Make calls to Inference Providers\" permission in your Hugging Face settings."
                </p>

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
                    {[(Mode::Think, "model-think"), (Mode::Act, "model-act"), (Mode::ReAct, "model-react")]
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
                                        settings.update(|s| *mode_model_mut(s, mode) = value);
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

                {number_field("temperature", "Temperature", "a number from 0 to 2".into(),
                    |s| s.temperature.to_string(),
                    |s, v| { s.temperature = v as f32; (0.0..=2.0).contains(&v) })}
                {number_field("max-tokens", "Max tokens", "a whole number from 16 to 32768".into(),
                    |s| s.max_tokens.to_string(),
                    |s, v| { s.max_tokens = v as u32; v.fract() == 0.0 && (16.0..=32768.0).contains(&v) })}
                {number_field("context-length", "Context window (tokens)", "0 for what the endpoint says, or a whole number up to 10,000,000".into(),
                    |s| s.context_length.to_string(),
                    |s, v| { s.context_length = v as u32; v.fract() == 0.0 && (0.0..=10_000_000.0).contains(&v) })}
                {number_field("max-steps", "Max steps", format!("a whole number from 1 to {MAX_STEPS_LIMIT}"),
                    |s| s.max_steps.to_string(),
                    |s, v| { s.max_steps = v as u32; v.fract() == 0.0 && (1.0..=MAX_STEPS_LIMIT as f64).contains(&v) })}
                {parts::show(Part::ToolSettings { settings, field_error })}
            </div>
            <Show when=move || field_error.get().is_some()>
                <p class="field-error" role="alert">{move || field_error.get().unwrap_or_default()}</p>
            </Show>
        </details>
        </section>
    }
}
