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
    let copy = move |_| {
        let value = text.get_untracked();
        spawn_local(async move {
            let said = match copy_text(&value).await {
                Ok(()) => "Copied",
                Err(_) => "Copy failed",
            };
            feedback.set(Some(said));
            sleep(FEEDBACK_MS).await;
            // A later click may have replaced the feedback; disposed with the panel is fine.
            let _ = feedback.try_set(None);
        });
    };
    view! {
        <button type="button" class="copy" aria-label=label title=label on:click=copy
            data-copied=move || feedback.get().is_some().to_string()>
            <span aria-live="polite">{move || feedback.get().unwrap_or("Copy")}</span>
        </button>
    }
}
