//! Where History and the leaderboard go on the page, and when their chunk is fetched: at once
//! when this browser may keep runs or evaluations of an earlier visit (asked without opening,
//! so without creating, the database); else once the panels show a run, or when one of their
//! closed summaries, which stand in for them on the first screen, is opened. (A first visit
//! has nothing to list.)

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::leaderboard::NO_VOTES;
use crate::ui::arena::Arena;
use crate::ui::panel::panel_run::shows_a_run;
use crate::ui::parts::{show, show_once, Part};
use crate::web::{eval_store, run_store};

#[component]
pub fn KeptRuns(arena: Arena) -> impl IntoView {
    let panels = arena.panels;
    // (A task, not a `LocalResource`: that would bring the async machinery, 8.4 KB gzipped,
    // into the first screen.)
    let may_hold_runs = RwSignal::new(false);
    spawn_local(async move {
        if run_store::may_hold_runs().await || eval_store::may_hold().await {
            may_hold_runs.set(true);
        }
    });
    // Which closed summary the user opened before the real ones were here.
    let asked = RwSignal::new(None::<&'static str>);
    let drawn = RwSignal::new(false);
    let due =
        move || may_hold_runs.get() || panels.with(|ps| shows_a_run(ps)) || asked.get().is_some();
    view! {
        {show_once(due, move || {
            show(Part::History {
                wiring: arena.keep_wiring(),
                opened: asked,
                drawn,
            })
            .into_any()
        })}
        {move || (!drawn.get()).then(|| view! { <NothingKeptYet asked=asked /> })}
    }
}

/// History and the leaderboard before the real ones are here: their closed summaries, on the
/// first screen. Opening one asks for the real ones (`asked`), which open the same one.
#[component]
pub fn NothingKeptYet(asked: RwSignal<Option<&'static str>>) -> impl IntoView {
    let ask = move |id: &'static str| {
        move |ev: leptos::ev::Event| {
            if event_target::<web_sys::HtmlDetailsElement>(&ev).open() {
                asked.set(Some(id));
            }
        }
    };
    view! {
        <section aria-label="History">
            <details id="history" class="history" open=move || asked.get() == Some("history")
                on:toggle=ask("history")>
                <summary>"History"</summary>
            </details>
        </section>
        <section aria-label="Leaderboard">
            <details id="leaderboard" class="leaderboard"
                open=move || asked.get() == Some("leaderboard") on:toggle=ask("leaderboard")>
                <summary>"Leaderboard"</summary>
                <p id="leaderboard-note" class="leaderboard-note" role="status">{NO_VOTES}</p>
            </details>
        </section>
    }
}
