use leptos::prelude::*;

use crate::origin::{is_shared_origin, Origin};
use crate::settings::token_problem;
use crate::ui::app_context::{AppContext, FieldError, SettingsOpen};
use crate::ui::parts::{self, FirstPart, Part};
use crate::web::storage;

#[component]
pub fn SettingsPanel(
    /// Counts the runs started: once one starts with a token, the settings fold away (the
    /// summary still opens them).
    fold_on: RwSignal<u32>,
) -> impl IntoView {
    let AppContext {
        settings,
        token,
        alert,
    } = AppContext::get();
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
    // Open on first visit, when there is nothing to run with yet: then only the token and
    // where to get one are in view, and the rest is one click away.
    let needs_token =
        token.get_untracked().is_empty() && !settings.get_untracked().endpoint_is_local();
    // Which of the two are open, as the user left them (the sections inside the inner one
    // are fetched when first seen).
    let open = RwSignal::new(needs_token);
    let more_open = RwSignal::new(!needs_token);
    let field_error = RwSignal::new(None::<String>);
    provide_context(FieldError(field_error));
    provide_context(SettingsOpen(open));
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
    // Storage is read again for the list of what is kept when a secret changes here, and
    // when Settings open (a host may have been confirmed elsewhere since).
    let kept_changed = RwSignal::new(0u32);
    let forget = move |_| {
        storage::forget_secrets();
        token.set(String::new());
        kept_changed.update(|n| *n += 1);
    };
    // On a GitHub Pages project site, other sites of its owner share this page's origin.
    let shared_origin = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .filter(|href| is_shared_origin(href))
        .and_then(|href| Origin::of(&href));

    view! {
        <section aria-label="Settings">
        <details id="settings" class="settings" open=needs_token node_ref=details
            on:toggle=move |ev| {
                open.set(details_open(&ev));
                kept_changed.update(|n| *n += 1);
            }>
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
                {shared_origin.map(|origin| view! {
                    <p id="shared-origin-note" class="hint wide">
                        "Other pages of this site ("{origin.to_string()}") can read what is remembered here: this page shares their origin."
                    </p>
                })}
                <Show when=move || token_error.get().is_some()>
                    <p id="token-error" class="field-error wide" role="alert">
                        {move || token_error.get().unwrap_or_default()}
                    </p>
                </Show>
                <p class="hint wide">
                    "Kept in this tab's session storage unless you tick Remember. Create one with the \"Make calls to Inference Providers\" permission in "
                    <a href="https://huggingface.co/settings/tokens" target="_blank" rel="noopener noreferrer">"your Hugging Face settings"</a>
                    "."
                </p>
                {parts::show_once(
                    move || open.get(),
                    move || parts::show_first(FirstPart::KeptSecrets { changed: kept_changed }).into_any(),
                )}
            </div>
            <details id="settings-more" class="settings-more" open=!needs_token
                on:toggle=move |ev| more_open.set(details_open(&ev))>
                <summary>"Model, tools and prompts"</summary>
                <div class="settings-grid">
                    // Fetched when first opened: most visits never open them.
                    {parts::show_once(
                        move || open.get() && more_open.get(),
                        move || parts::show(Part::ModelBackend).into_any(),
                    )}
                    {parts::show_once(
                        move || open.get() && more_open.get(),
                        move || parts::show(Part::ToolSettings).into_any(),
                    )}
                </div>
            </details>
            <Show when=move || field_error.get().is_some()>
                <p class="field-error" role="alert">{move || field_error.get().unwrap_or_default()}</p>
            </Show>
        </details>
        </section>
    }
}

/// Whether the `<details>` a toggle event came from is open.
fn details_open(ev: &leptos::ev::Event) -> bool {
    event_target::<web_sys::HtmlDetailsElement>(ev).open()
}
