//! The first visit without a token: recorded example runs to watch in the panels (made
//! with the app's own export, shipped in `recordings/`), and how to get a Hugging Face token.
//! Shown while no token is set; once one is, a "Recordings" button brings it back. The cards
//! are drawn from the first visit's chunk, and playing one is the parts chunk's
//! (src/ui/runs/recording_cards.rs).

use crate::ui::parts::{show_first, FirstPart};
use crate::ui::runs::show_file::FileShow;
use leptos::prelude::*;

#[component]
pub fn Welcome(token: RwSignal<String>, shower: FileShow) -> impl IntoView {
    // The user asked for the recordings while a token is set.
    let asked = RwSignal::new(false);
    let shown = Memo::new(move |_| token.with(|t| t.trim().is_empty()) || asked.get());
    view! {
        <Show
            when=move || shown.get()
            fallback=move || view! {
                <button id="show-recordings" class="show-recordings" on:click=move |_| asked.set(true)>
                    "Recordings"
                </button>
            }
        >
            <section id="welcome" class="welcome" aria-labelledby="welcome-title">
                <h2 id="welcome-title">"Watch a recorded run"</h2>
                <p>
                    "Each recording is a real run of this app, exported with its own Export JSON and played back in the panels at four times its original pace (the replay list has “as it ran”): no token, no network."
                </p>
                {show_first(FirstPart::RecordingCards(shower))}
                <details class="token-guide">
                    <summary>"Run your own question: get a Hugging Face token"</summary>
                    <ol>
                        <li>
                            "Sign in at "
                            <a href="https://huggingface.co/settings/tokens" target="_blank" rel="noopener noreferrer">"huggingface.co → Settings → Access Tokens"</a>
                            "."
                        </li>
                        <li>"Create new token → Fine-grained, and tick \u{201c}Make calls to Inference Providers\u{201d}. No other permission is needed."</li>
                        <li>"Paste it in Settings below. It stays in this browser (this tab only, unless you tick Remember) and is sent only to the API host you confirm."</li>
                    </ol>
                </details>
                <Show when=move || token.with(|t| !t.trim().is_empty())>
                    <button id="hide-recordings" on:click=move |_| asked.set(false)>"Hide recordings"</button>
                </Show>
            </section>
        </Show>
    }
}
