use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::markdown::render_markdown;
use crate::web::clipboard::copy_text;
use crate::web::timer::sleep;

/// The app's own origin, which links in model and tool text may not point back into.
fn page_origin() -> String {
    web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default()
}

/// Model or tool text rendered as markdown; `render_markdown` guarantees no live HTML. Each
/// code block gets a Copy button, added here (not in the markdown) so the sanitised HTML
/// stays free of controls.
#[component]
pub fn Markdown(
    #[prop(into)] text: Signal<String>,
    #[prop(optional)] class: &'static str,
) -> impl IntoView {
    let origin = page_origin();
    let node = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let html = render_markdown(&text.get(), &origin);
        if let Some(el) = node.get() {
            el.set_inner_html(&html);
            add_copy_buttons(&el);
        }
    });
    // One listener for every code block's button.
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(button) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("button.copy-code").ok().flatten())
        else {
            return;
        };
        let code = button
            .parent_element()
            .and_then(|wrap| wrap.query_selector("pre").ok().flatten())
            .and_then(|pre| pre.text_content())
            .unwrap_or_default();
        spawn_local(async move {
            let said = if copy_text(&code).await.is_ok() {
                "Copied"
            } else {
                "Copy failed"
            };
            button.set_text_content(Some(said));
            sleep(1500).await;
            button.set_text_content(Some("Copy"));
        });
    };
    view! { <div class=format!("md {class}") node_ref=node on:click=on_click></div> }
}

/// Wraps each `<pre>` with a Copy button.
fn add_copy_buttons(root: &web_sys::Element) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    while let Ok(Some(pre)) = root.query_selector("pre:not([data-copyable])") {
        let _ = pre.set_attribute("data-copyable", "");
        let (Ok(wrap), Ok(button)) = (
            document.create_element("div"),
            document.create_element("button"),
        ) else {
            return;
        };
        wrap.set_class_name("code-block");
        button.set_class_name("copy copy-code");
        let _ = button.set_attribute("type", "button");
        let _ = button.set_attribute("aria-label", "Copy the code");
        let _ = button.set_attribute("title", "Copy the code");
        button.set_text_content(Some("Copy"));
        let _ = pre.replace_with_with_node_1(&wrap);
        let _ = wrap.append_child(&button);
        let _ = wrap.append_child(&pre);
    }
}
