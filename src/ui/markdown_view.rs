use leptos::prelude::*;

use crate::markdown::render_markdown;

/// Model or tool text rendered as markdown; `render_markdown` guarantees no live HTML.
#[component]
pub fn Markdown(
    #[prop(into)] text: Signal<String>,
    #[prop(optional)] class: &'static str,
) -> impl IntoView {
    view! { <div class=format!("md {class}") inner_html=move || render_markdown(&text.get())></div> }
}
