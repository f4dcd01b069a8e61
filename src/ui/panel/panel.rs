//! A mode's panel as the first screen draws it: its heading, state and buttons, and a blurb
//! until it shows a run, whose body (`run_body.rs`) comes with a chunk of its own.

use leptos::prelude::*;

use crate::agent::record::{BlindVote, Status};
use crate::agent::Mode;
use crate::panel_lines::step_counter;
use crate::ui::panel::panel_run::{PanelAction, PanelRun, RunBody};
use crate::ui::parts::show_run;
use crate::ui::phone_tabs::{labelled_by, panel_id, PhoneTabs};

fn blurb(mode: Mode) -> &'static str {
    match mode {
        Mode::Think => "Chain of thought: one model call, reasoning step by step, no tools.",
        Mode::Act => "Tool calls only: action, observation, action… no written thoughts.",
        Mode::ReAct => "Thought → Action → Observation, repeated until the answer.",
        Mode::CodeAct => "Thought → Python calling the tools → its output, until final_answer.",
    }
}

#[component]
pub fn Panel(
    run: PanelRun,
    /// Its place among the run's panels: on a phone, its tab's.
    index: usize,
    tabs: PhoneTabs,
    on_action: Callback<(u32, Mode, PanelAction)>,
    /// The panel plays back a run from a file: nothing in it calls the model.
    #[prop(optional)]
    recording: bool,
) -> impl IntoView {
    let run_id = run.run_id;
    let state = run.state;
    let mode = run.mode;
    let status = Memo::new(move |_| state.with(|s| s.status));
    let started = Memo::new(move |_| status.get() != Status::Idle);
    // The run's body comes with a chunk of its own: until it is shown the panel says it is
    // waiting, never "Done" over an empty body.
    let drawn = RwSignal::new(false);
    let shown = Memo::new(move |_| match status.get() {
        Status::Idle => Status::Idle,
        _ if !drawn.get() => Status::Waiting,
        s => s,
    });
    let more_steps = run.more_steps();
    let counter = move || state.with(|r| step_counter(r, more_steps));
    // A blind run's panel goes by its letter until the vote names it.
    let blind = Memo::new(move |_| state.with(|r| r.blind.clone()));
    let hidden = Memo::new(move |_| blind.with(|b| b.as_ref().is_some_and(|b| b.hides())));
    let title = move || match blind.get() {
        Some(b) if b.hides() => b.hidden_name(),
        Some(b) => format!(
            "{} · {} · {}",
            b.label,
            mode.label(),
            state.with(|r| r.config.model.clone())
        ),
        None => mode.label().to_string(),
    };
    let vote_badge = move || {
        blind.get().and_then(|b| b.vote).map(|v| match v {
            BlindVote::Best => "Voted best",
            BlindVote::NotBest => "Not chosen",
            BlindVote::Tie => "Tie",
            BlindVote::AllBad => "All bad",
        })
    };

    view! {
        <section
            class="panel"
            id=panel_id(index)
            role=move || tabs.tabbed().then_some("tabpanel")
            aria-labelledby=move || labelled_by(tabs, index)
            hidden=move || tabs.hides(index)
            data-mode=move || if hidden.get() { "blind" } else { mode.id() }
            data-label=move || blind.get().map(|b| b.label)
            data-status=move || shown.get().id()
            aria-busy=move || (started.get() && !drawn.get()).then_some("true")
        >
            <header class="panel-head">
                <h2>{title}</h2>
                {move || vote_badge().map(|v| view! { <span class="vote-badge">{v}</span> })}
                {recording
                    .then(|| {
                        view! {
                            <span class="recording-badge" title="Played back from a file: no model or tool is called">
                                "Recording"
                            </span>
                        }
                    })}
                <span class="panel-status">{move || shown.get().label()}</span>
                <span class="step-counter">{counter}</span>
            </header>
            {move || {
                if started.get() {
                    show_run(RunBody {
                            state,
                            mode,
                            run_id,
                            recording,
                            on_action,
                            more_steps,
                        }, drawn)
                        .into_any()
                } else {
                    // An idle panel, drawn without the parts chunk: the first screen.
                    view! {
                        <div class="panel-scroll">
                            <div class="panel-body">
                                <p class="blurb">{blurb(mode)}</p>
                            </div>
                        </div>
                        <footer class="usage"></footer>
                    }
                        .into_any()
                }
            }}
        </section>
    }
}
