//! Settings: what this browser keeps of the user's secrets, and where. Drawn with the first
//! screen: a first visit pastes its token under it.

use leptos::prelude::*;

use crate::ui::app_context::AppContext;
use crate::web::storage;

#[component]
pub fn KeptSecretsLine(
    /// Bumped when a secret changes that neither signal follows (Forget, a confirmed host).
    changed: RwSignal<u32>,
) -> impl IntoView {
    let AppContext {
        settings, token, ..
    } = AppContext::get();
    let summary = move || {
        // The MCP servers (their tokens and hosts) and the Remember box are in the settings.
        settings.track();
        token.track();
        changed.track();
        storage::kept_secrets().summary()
    };
    view! { <p id="kept-secrets" class="hint wide">{summary}</p> }
}
