//! The tabs of a phone's view (`phone_tabs.rs`): one per mode and one for the comparison. Each
//! says its mode's state as it changes (waiting, streaming and its step, done and its time,
//! error); the arrow keys move along them (wrapping), Home and End to either end, and the tab
//! shown follows the focus. What ends in a hidden mode is said politely, at most once every
//! `NEWS_EVERY_MS`. In the parts chunk, drawn in the slot the first screen keeps for them.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::agent::record::{RunRecord, Status};
use crate::panel_lines::tab_state;
use crate::ui::phone_tabs::{panel_id, tab_id, PhoneTabs, COMPARE_PANEL};
use crate::web::timer::sleep;

/// What ends in the hidden modes is said at most this often: a screen reader is not read
/// every change of three streams.
const NEWS_EVERY_MS: u32 = 1_500;

fn focus_tab(index: usize) {
    if let Some(tab) = document()
        .get_element_by_id(&tab_id(index))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = tab.focus();
    }
}

#[component]
pub fn ModeTabs(tabs: PhoneTabs) -> impl IntoView {
    let panels = tabs.panels;
    let news = RwSignal::new(String::new());
    say_what_ends_out_of_sight(tabs, news);
    // Arrow keys move along the tabs (wrapping), Home and End to either end; the tab shown
    // follows the focus.
    let on_key = move |ev: KeyboardEvent| {
        match ev.key().as_str() {
            "ArrowRight" => tabs.step(1),
            "ArrowLeft" => tabs.step(-1),
            "Home" => tabs.show(0),
            "End" => tabs.show(tabs.count() - 1),
            _ => return,
        }
        ev.prevent_default();
        focus_tab(tabs.shown());
    };
    let tab = move |index: usize,
                    name: Signal<String>,
                    state: Signal<String>,
                    status: Signal<&'static str>,
                    controls: String| {
        view! {
            <button
                type="button"
                role="tab"
                id=tab_id(index)
                aria-controls=controls
                aria-selected=move || (tabs.shown() == index).to_string()
                tabindex=move || if tabs.shown() == index { "0" } else { "-1" }
                data-status=status
                on:click=move |_| tabs.show(index)
            >
                <span class="tab-name">{name}</span>
                <span class="tab-state">{state}</span>
            </button>
        }
    };
    move || {
        tabs.tabbed().then(|| {
            let modes = panels
                .get()
                .into_iter()
                .enumerate()
                .map(|(index, p)| {
                    let state = p.state;
                    // What a tab says changes with these, not with each token: its texts are
                    // made again only when they change.
                    let face =
                        Memo::new(move |_| state.with(|r| (r.status, r.step_number(), r.awaits_vote())));
                    // A blind run's tab goes by its letter until the vote, as its panel.
                    let name = Memo::new(move |_| {
                        face.track();
                        state.with_untracked(RunRecord::shown_name)
                    });
                    let said = Memo::new(move |_| {
                        face.track();
                        state.with_untracked(tab_state)
                    });
                    let status = Memo::new(move |_| face.with(|f| f.0.id()));
                    tab(index, name.into(), said.into(), status.into(), panel_id(index))
                })
                .collect::<Vec<_>>();
            let compare = tab(
                tabs.count() - 1,
                Signal::stored("Compare".to_string()),
                Signal::stored(String::new()),
                Signal::stored("idle"),
                COMPARE_PANEL.to_string(),
            );
            view! {
                <div id="mode-tabs" class="mode-tabs" role="tablist" aria-label="Modes of this run" on:keydown=on_key>
                    {modes}
                    {compare}
                </div>
                <p id="mode-tabs-news" class="visually-hidden" aria-live="polite">{move || news.get()}</p>
            }
        })
    }
}

/// Says, in `news`, each mode that ends while another is shown ("ReAct: Done."), gathered
/// into one line at most every `NEWS_EVERY_MS`.
fn say_what_ends_out_of_sight(tabs: PhoneTabs, news: RwSignal<String>) {
    let pending = StoredValue::new(Vec::<String>::new());
    let saying = StoredValue::new(false);
    let flush = move || {
        if saying.get_value() {
            return;
        }
        saying.set_value(true);
        spawn_local(async move {
            loop {
                let said = pending.try_update_value(std::mem::take).unwrap_or_default();
                if said.is_empty() {
                    break;
                }
                let _ = news.try_set(said.join(" "));
                sleep(NEWS_EVERY_MS).await;
            }
            saying.set_value(false);
        });
    };
    Effect::new(move |was: Option<Vec<(u32, Status)>>| {
        // Each panel's run and state: tracked, so this runs as they change.
        let now: Vec<(u32, Status)> = tabs.panels.with(|ps| {
            ps.iter()
                .map(|p| (p.run_id, p.state.with(|r| r.status)))
                .collect()
        });
        if tabs.tabbed() {
            let shown = tabs.shown.get_untracked();
            for (index, (run_id, status)) in now.iter().enumerate() {
                let ended = matches!(status, Status::Done | Status::Error | Status::Stopped);
                let was_going = was
                    .as_ref()
                    .and_then(|w| w.get(index))
                    .is_some_and(|(r, s)| r == run_id && s.is_active());
                if ended && was_going && index != shown {
                    let name = tabs
                        .panels
                        .with_untracked(|ps| ps[index].state.with_untracked(RunRecord::shown_name));
                    pending.update_value(|p| p.push(format!("{name}: {}.", status.label())));
                }
            }
            if pending.with_value(|p| !p.is_empty()) {
                flush();
            }
        }
        now
    });
}
