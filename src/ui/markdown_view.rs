use leptos::prelude::*;

use crate::markdown::render_markdown;

/// The app's own origin, which links in model and tool text may not point back into.
fn page_origin() -> String {
    web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default()
}

/// Model or tool text rendered as markdown; `render_markdown` guarantees no live HTML.
#[component]
pub fn Markdown(
    #[prop(into)] text: Signal<String>,
    #[prop(optional)] class: &'static str,
) -> impl IntoView {
    let origin = page_origin();
    view! {
        <div class=format!("md {class}") inner_html=move || render_markdown(&text.get(), &origin)></div>
    }
}
