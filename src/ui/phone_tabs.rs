//! On a phone (under 600 px) a run of several modes is one view with a tab per mode and one for
//! the comparison; wider screens keep the panels side by side. This is what the first screen
//! holds of it: whether the panels are tabs, which one is shown, the panels' and the
//! comparison's tab-panel attributes, and swipes across the panels. The tabs themselves are a
//! part (`mode_tabs.rs`), drawn in a slot kept for them, so nothing moves when they come.

use leptos::ev::TouchEvent;
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::ui::panel::panel_run::{shows_a_run, PanelRun};

/// Screens this narrow show one mode at a time (the style sheet's own breakpoint).
const NARROW: &str = "(max-width: 600px)";
/// A move across the panels longer than this, and twice as long as it is tall, is a swipe.
const SWIPE_PX: i32 = 60;

/// Which tab a phone shows, and whether the panels are tabs at all.
#[derive(Clone, Copy)]
pub struct PhoneTabs {
    /// A narrow screen and a run of several modes. (A memo: what depends on it is not run
    /// again on each token, which changes the records it reads.)
    tabbed: Memo<bool>,
    /// The shown tab: a panel's index, or the panels' count for the comparison.
    pub(crate) shown: RwSignal<usize>,
    pub(crate) panels: RwSignal<Vec<PanelRun>>,
    /// Where a touch on the panels started.
    touch_start: StoredValue<Option<(i32, i32)>>,
}

impl PhoneTabs {
    /// Follows the screen's width from now on.
    pub fn start(panels: RwSignal<Vec<PanelRun>>) -> Self {
        let narrow = RwSignal::new(false);
        if let Some(query) = window().match_media(NARROW).ok().flatten() {
            narrow.set(query.matches());
            let watched = query.clone();
            let on_change = Closure::<dyn Fn()>::new(move || narrow.set(watched.matches()));
            query.set_onchange(Some(on_change.as_ref().unchecked_ref()));
            // For the page's life, as the query is.
            on_change.forget();
        }
        let tabbed =
            Memo::new(move |_| narrow.get() && panels.with(|p| p.len() > 1 && shows_a_run(p)));
        Self {
            tabbed,
            shown: RwSignal::new(0),
            panels,
            touch_start: StoredValue::new(None),
        }
    }

    /// Whether the panels are tabs: a narrow screen, and a run of more than one mode (idle
    /// panels stay as they are, and fetch nothing).
    pub fn tabbed(self) -> bool {
        self.tabbed.get()
    }

    /// The tabs: one per panel, and the comparison's.
    pub(crate) fn count(self) -> usize {
        self.panels.with(Vec::len) + 1
    }

    /// The shown tab's index.
    pub fn shown(self) -> usize {
        self.shown.get().min(self.count() - 1)
    }

    /// Whether the panel at `index` (or the comparison, at the panels' count) is hidden.
    pub fn hides(self, index: usize) -> bool {
        self.tabbed() && self.shown() != index
    }

    pub(crate) fn show(self, index: usize) {
        self.shown.set(index);
    }

    /// Shows the tab `by` places on, wrapping round.
    pub(crate) fn step(self, by: isize) {
        let count = self.count() as isize;
        self.show((self.shown() as isize + by).rem_euclid(count) as usize);
    }

    /// A finger down on the panels. (Touch events, not pointer events: the browser cancels a
    /// pointer once it pans, even across a `pan-y` element.) Not on code or a table, which
    /// scroll sideways themselves.
    pub fn touch_down(self, ev: TouchEvent) {
        let on_scroller = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("pre, table").ok().flatten())
            .is_some();
        let one = (ev.touches().length() == 1 && !on_scroller)
            .then(|| ev.touches().get(0))
            .flatten();
        self.touch_start
            .set_value(one.map(|t| (t.client_x(), t.client_y())));
    }

    /// A finger moving: once it goes more sideways than down, the swipe is the page's (the
    /// browser would otherwise take it to go back a page).
    pub fn touch_move(self, ev: TouchEvent) {
        let (Some((x, y)), Some(now)) = (self.touch_start.get_value(), ev.touches().get(0)) else {
            return;
        };
        let sideways = (now.client_x() - x).abs() > (now.client_y() - y).abs();
        // Not once the browser scrolls: then the move is its own and cannot be cancelled.
        if self.tabbed() && sideways && ev.cancelable() {
            ev.prevent_default();
        }
    }

    /// A finger up: a swipe to the left shows the next mode, to the right the one before.
    pub fn touch_up(self, ev: TouchEvent) {
        let Some((x, y)) = self.touch_start.get_value() else {
            return;
        };
        self.touch_start.set_value(None);
        let Some(end) = ev.changed_touches().get(0) else {
            return;
        };
        let (dx, dy) = (end.client_x() - x, end.client_y() - y);
        if self.tabbed() && dx.abs() > SWIPE_PX && dx.abs() > 2 * dy.abs() {
            self.step(if dx < 0 { 1 } else { -1 });
        }
    }

    /// The browser took the touch (a scroll): it is no swipe.
    pub fn touch_cancel(self) {
        self.touch_start.set_value(None);
    }
}

/// The id of the tab at `index`.
pub fn tab_id(index: usize) -> String {
    format!("mode-tab-{index}")
}

/// The id of the panel at `index`, which its tab controls.
pub fn panel_id(index: usize) -> String {
    format!("mode-panel-{index}")
}

/// The comparison's wrapper: the last tab controls it.
pub const COMPARE_PANEL: &str = "compare-panel";

/// The tab that labels the panel at `index`, while the panels are tabs.
pub fn labelled_by(tabs: PhoneTabs, index: usize) -> Option<String> {
    tabs.tabbed().then(|| tab_id(index))
}
