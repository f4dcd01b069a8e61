//! After Run or Play, the panels stream where the user looks: a first visit shows the
//! recordings and the settings above them, and a run that streams out of view looks like
//! nothing happened.

use leptos::prelude::request_animation_frame;

/// Space kept above the panels once scrolled to, in CSS pixels.
const MARGIN_PX: f64 = 8.0;
/// How much of a panel below its head must be in view to see it stream: a few lines.
const BODY_IN_VIEW_PX: f64 = 120.0;

/// Scrolls the page (its own document only: a host page around a frame is left alone) so the
/// first panel is at the top, unless its head and a few lines below it are in view already.
/// Runs once the new panels are drawn.
pub fn bring_panels_into_view() {
    request_animation_frame(|| {
        let Some(window) = web_sys::window() else {
            return;
        };
        let Some(document) = window.document() else {
            return;
        };
        let find = |css: &str| document.query_selector(css).ok().flatten();
        // On a phone the tabs come first, and only the shown panel has a size.
        let (Some(panel), Some(head)) = (
            find("#mode-tabs-slot:not([hidden])").or_else(|| find("#panels .panel")),
            find("#panels .panel:not([hidden]) .panel-head"),
        ) else {
            return;
        };
        let head = head.get_bounding_client_rect();
        let height = window
            .inner_height()
            .ok()
            .and_then(|h| h.as_f64())
            .unwrap_or(0.0);
        if head.top() >= 0.0 && head.bottom() + BODY_IN_VIEW_PX <= height {
            return;
        }
        // The panel's top edge (its mode's colour) comes into view with its head.
        let top = panel.get_bounding_client_rect().top();
        window.scroll_by_with_x_and_y(0.0, top - MARGIN_PX);
    });
}
