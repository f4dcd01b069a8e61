//! A panel's scrolling body that keeps its newest text in view while it streams, unless the
//! user scrolled up to read; then a "Jump to latest" button brings them back.

use leptos::prelude::*;

use crate::agent::record::RunRecord;
use crate::follow::{follows_after_scroll, BOTTOM_SLACK_PX};

#[component]
pub fn FollowScroll(
    /// Every change of the run's record may have added text at the bottom.
    state: RwSignal<RunRecord>,
    /// Names the region for screen readers ("Think-only output").
    label: String,
    children: Children,
) -> impl IntoView {
    let body = NodeRef::<leptos::html::Div>::new();
    let following = RwSignal::new(true);
    let overflowing = RwSignal::new(false);
    let last_top = StoredValue::new(0.0f64);

    let to_bottom = move || {
        if let Some(el) = body.get_untracked() {
            el.set_scroll_top(el.scroll_height());
            last_top.set_value(f64::from(el.scroll_top()));
        }
    };
    Effect::new(move |_| {
        state.track();
        // After the browser has laid the new text out.
        request_animation_frame(move || {
            let Some(el) = body.get_untracked() else {
                return;
            };
            let max_top = f64::from(el.scroll_height() - el.client_height());
            let _ = overflowing.try_set(max_top > BOTTOM_SLACK_PX);
            if following.try_get_untracked() == Some(true) {
                to_bottom();
            }
        });
    });
    let on_scroll = move |_| {
        let Some(el) = body.get_untracked() else {
            return;
        };
        let top = f64::from(el.scroll_top());
        let max_top = f64::from(el.scroll_height() - el.client_height());
        following.set(follows_after_scroll(
            following.get_untracked(),
            last_top.get_value(),
            top,
            max_top,
        ));
        overflowing.set(max_top > BOTTOM_SLACK_PX);
        last_top.set_value(top);
    };
    let jump = move |_| {
        following.set(true);
        to_bottom();
    };

    view! {
        <div class="panel-scroll">
            <div
                class="panel-body"
                node_ref=body
                tabindex="0"
                role="region"
                aria-label=label
                data-following=move || following.get().to_string()
                on:scroll=on_scroll
            >
                {children()}
            </div>
            <button
                type="button"
                class="jump-latest"
                hidden=move || following.get() || !overflowing.get()
                on:click=jump
            >
                "Jump to latest ↓"
            </button>
        </div>
    }
}
