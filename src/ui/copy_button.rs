//! A "Copy" button that says "Copied" for a moment once the text is on the clipboard.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::web::clipboard::copy_text;
use crate::web::timer::sleep;

/// How long "Copied" (or the failure) stays before the button reads "Copy" again.
const FEEDBACK_MS: u32 = 1500;

#[component]
pub fn CopyButton(
    /// The text to copy, read at the moment of the click.
    #[prop(into)]
    text: Signal<String>,
    /// What is copied, for screen readers ("Copy the answer").
    label: &'static str,
) -> impl IntoView {
    let feedback = RwSignal::new(None::<&'static str>);
    // Each click's feedback stays its full time: an earlier click's timer does not clear it.
    let clicks = StoredValue::new(0u32);
    let copy = move |_| {
        let value = text.get_untracked();
        let click = clicks.get_value().wrapping_add(1);
        clicks.set_value(click);
        spawn_local(async move {
            let said = match copy_text(&value).await {
                Ok(()) => "Copied",
                Err(_) => "Copy failed",
            };
            // `try_`: the panel may be gone meanwhile.
            let _ = feedback.try_set(Some(said));
            sleep(FEEDBACK_MS).await;
            if clicks.try_get_value() == Some(click) {
                let _ = feedback.try_set(None);
            }
        });
    };
    view! {
        <button type="button" class="copy" aria-label=label title=label on:click=copy
            data-copied=move || feedback.get().is_some().to_string()>
            <span aria-live="polite">{move || feedback.get().unwrap_or("Copy")}</span>
        </button>
    }
}
