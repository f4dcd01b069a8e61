use leptos::prelude::*;

use crate::agent::mode::ModeChoice;
use crate::agent::Mode;
use crate::ui::app_context::AppContext;
use crate::ui::arena::Arena;
use crate::ui::embed_code::EmbedButton;
use crate::ui::panel::panel::Panel;
use crate::ui::panel::panel_run::{shows_a_run, PanelAction};
use crate::ui::parts::{show, show_once, Part};
use crate::ui::phone_tabs::{labelled_by, PhoneTabs, COMPARE_PANEL};
use crate::ui::question_bar::QuestionBar;
use crate::ui::runs::kept_runs::KeptRuns;
use crate::ui::runs::replay_player::ReplayClock;
use crate::ui::runs::run_files::RunFiles;
use crate::ui::settings::settings_panel::SettingsPanel;
use crate::ui::welcome::Welcome;

#[component]
pub fn App() -> impl IntoView {
    let arena = Arena::start();
    let stop = Callback::new(move |()| arena.stop());
    let panel_action = Callback::new(move |(run_id, mode, action): (u32, Mode, PanelAction)| {
        arena.panel_action(run_id, mode, action)
    });
    let on_confirm = Callback::new(move |()| arena.confirm_host());
    let on_cancel = Callback::new(move |()| arena.cancel_host());
    let Arena {
        panels,
        replay,
        alert,
        question,
        mode_choice,
        shower,
        ..
    } = arena;
    provide_context(ReplayClock(replay.clock));
    provide_context(AppContext {
        settings: arena.settings,
        token: arena.token,
        alert,
    });
    // The panels show a run (live, kept or played back), not only their empty frames.
    let has_run = move || panels.with(|ps| shows_a_run(ps));
    // On a phone, the panels of a run are tabs.
    let tabs = PhoneTabs::start(panels);
    let compare_tab = move || panels.with(Vec::len);

    view! {
        <header class="top">
            <h1>"ReAct Arena"</h1>
            <p class="tagline">
                "Watch Think-only, Act-only, ReAct and CodeAct answer the same question, side by side, streaming live."
            </p>
            <ViewSwitch arena=arena />
        </header>
        <Welcome token=arena.token shower=shower />
        <SettingsPanel fold_on=arena.runs_started />
        <QuestionBar
            question=question
            question_note=arena.question_note
            mode_choice=mode_choice
            missing=arena.missing
            running=arena.running
            turns=arena.turns
            on_run=Callback::new(move |()| arena.run())
            on_stop=stop
            on_new_conversation=Callback::new(move |()| arena.new_conversation())
            blind_skips_mcp=Signal::derive(move || {
                mode_choice.get() == ModeChoice::Blind
                    && arena.settings.with(|s| !s.mcp_servers.is_empty())
            })
        />
        <RunFiles panels=panels replay=replay shower=shower />
        <EmbedButton panels=panels question=question mode_choice=mode_choice />
        {move || {
            arena
                .pending
                .get()
                .map(|(origin, _)| {
                    show(Part::HostConfirm {
                        origin,
                        on_confirm,
                        on_cancel,
                    })
                })
        }}
        <ReceivedRun arena=arena />
        <AppAlert alert=alert />
        // Drawn once the panels show a run: before, there is nothing to vote on or compare.
        {show_once(has_run, move || show(Part::BlindVote(panels)).into_any())}
        // The tabs come with the parts; their place is kept, so nothing moves when they do.
        <nav id="mode-tabs-slot" class="mode-tabs-slot" aria-label="Modes" hidden=move || !tabs.tabbed()>
            {show_once(move || tabs.tabbed(), move || show(Part::ModeTabs(tabs)).into_any())}
        </nav>
        <main
            id="panels"
            class=move || if tabs.tabbed() { format!("{} tabbed", arena.layout()) } else { arena.layout().to_string() }
            data-runs=move || arena.runs_started.get()
            on:touchstart=move |ev| tabs.touch_down(ev)
            on:touchmove=move |ev| tabs.touch_move(ev)
            on:touchend=move |ev| tabs.touch_up(ev)
            on:touchcancel=move |_| tabs.touch_cancel()
        >
            <For
                each=move || panels.get().into_iter().enumerate()
                key=|(_, p)| (p.run_id, p.mode)
                children=move |(index, p)| {
                    let recording = replay.shows(p.run_id);
                    view! { <Panel run=p index=index tabs=tabs on_action=panel_action recording=recording /> }
                }
            />
            // A row of its own under the panels; on a phone, the last tab's panel.
            <div
                id=COMPARE_PANEL
                class="compare-panel"
                role=move || tabs.tabbed().then_some("tabpanel")
                aria-labelledby=move || labelled_by(tabs, compare_tab())
                hidden=move || tabs.hides(compare_tab())
            >
                {show_once(has_run, move || show(Part::Comparison(panels)).into_any())}
            </div>
        </main>
        // Runs are kept in IndexedDB as they stream; the latest is shown again after a reload.
        <KeptRuns arena=arena />
        <footer class="bottom">
            "Everything runs in your browser. Your token is sent only to the API base URL you set, in the Authorization header."
        </footer>
    }
}

/// The Arena / Evaluate switch.
#[component]
fn ViewSwitch(arena: Arena) -> impl IntoView {
    let evaluating = arena.evaluating;
    view! {
        <nav class="views" aria-label="Views">
            <button
                id="view-arena"
                aria-pressed=move || (!evaluating.get()).to_string()
                on:click=move |_| evaluating.set(false)
            >
                "Arena"
            </button>
            <button
                id="view-evaluate"
                aria-pressed=move || evaluating.get().to_string()
                on:click=move |_| evaluating.set(true)
            >
                "Evaluate"
            </button>
        </nav>
    }
}

/// Asks whether to show a run that arrived in the address while the panels were busy.
#[component]
fn ReceivedRun(arena: Arena) -> impl IntoView {
    let received = arena.received;
    move || {
        received.get().map(|params| {
            view! {
                <div id="received-run" class="received-run" role="alertdialog" aria-labelledby="received-run-text">
                    <p id="received-run-text">
                        "A run arrived in the page's address (from a link, or the page that opened this one). Showing it stops what the panels show now."
                    </p>
                    <button id="received-run-show" class="primary" on:click=move |_| {
                        received.set(None);
                        arena.show_received(&params);
                    }>
                        "Show it"
                    </button>
                    <button id="received-run-dismiss" on:click=move |_| received.set(None)>
                        "Not now"
                    </button>
                </div>
            }
        })
    }
}

/// The page's alert, until it is dismissed.
#[component]
fn AppAlert(alert: RwSignal<Option<String>>) -> impl IntoView {
    move || {
        alert.get().map(|text| {
            view! {
                <div id="app-alert" class="app-alert" role="alert">
                    <span>{text}</span>
                    <button class="dismiss" aria-label="Dismiss" on:click=move |_| alert.set(None)>
                        "×"
                    </button>
                </div>
            }
        })
    }
}
