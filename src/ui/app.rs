use leptos::prelude::*;
use web_sys::AbortController;

use super::from_address::{self, page_params, with_address_models};
use super::keep::KeepWiring;
use super::panel::Panel;
use super::panel_run::PanelRun;
use super::parts::{show, Part};
use super::question_bar::QuestionBar;
use super::replay_player::ReplayControl;
use super::runner::{continue_run, follow_up, start_runs};
use super::settings_panel::SettingsPanel;
use super::show_file::FileShow;
use super::welcome::Welcome;
use crate::agent::mode::ModeChoice;
use crate::agent::record::Status;
use crate::agent::Mode;
use crate::origin::Origin;
use crate::page_params::{hidden_note, PageParams};
use crate::settings::{cannot_call_model, host_to_confirm, missing_for_run};
use crate::web::evaluate_loader::open_evaluate;
use crate::web::parent_height::post_height_to_parent;
use crate::web::storage;

/// What waits for the user to confirm the host the token would go to.
#[derive(Clone, Copy, PartialEq)]
enum AfterConfirm {
    Run,
    Continue(u32, Mode),
}

/// A class on the root element, on or off: the embedded layout and the Evaluate view are
/// chosen in CSS.
fn mark_root_if(class: &str, on: bool) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.class_list().toggle_with_force(class, on);
    }
}

fn mark_root(class: &str) {
    mark_root_if(class, true);
}

#[component]
pub fn App() -> impl IntoView {
    // What the page's address asks for. Models named there are used on this visit only.
    let params = page_params();
    let address_models = params.model.is_some() || !params.mode_models.is_empty();
    let settings = RwSignal::new(with_address_models(&params, storage::load_settings()));
    let token = RwSignal::new(storage::load_token());
    let question = RwSignal::new(String::new());
    let question_note = RwSignal::new(hidden_note(params.question_hidden_removed));
    let mode_choice = RwSignal::new(ModeChoice::All);
    let panels = RwSignal::new(settings.with_untracked(|s| {
        Mode::ALL
            .iter()
            .map(|&m| PanelRun::idle(m, s))
            .collect::<Vec<_>>()
    }));
    // Runs own their panels' signals: a run started from a dialog that closes as it starts
    // must not have them disposed with the dialog.
    let owner = Owner::current().expect("the app is mounted under an owner");
    let controller = StoredValue::new_local(None::<AbortController>);
    let run_counter = StoredValue::new(0u32);
    // Runs and follow-ups started on this page, on the panels' element (`data-runs`): tests
    // read it to know a press of Run was taken.
    let runs_started = RwSignal::new(0u32);
    // Runs played back from a file (export / import).
    let replay = ReplayControl::new();
    let files_owner = owner.clone();
    // Storage failures and refused actions, said where the user is looking.
    let alert = RwSignal::new(None::<String>);
    // The host the token would go to, and what to do once the user confirms it.
    let pending = RwSignal::new(None::<(Origin, AfterConfirm)>);

    Effect::new(move || {
        let settings = settings.get();
        if address_models {
            return;
        }
        if let Err(e) = storage::save_settings(&settings) {
            alert.set(Some(e));
        }
    });

    let missing = Memo::new(move |_| {
        settings.with(|s| token.with(|t| question.with(|q| missing_for_run(s, t, q))))
    });
    // The panels a new question would follow up on: the same modes, all answered.
    let follow_up_to = Signal::derive(move || {
        let modes = mode_choice.get().modes();
        panels.with(|ps| {
            let same_modes = ps.iter().map(|p| p.mode).eq(modes.iter().copied());
            let answered = ps
                .iter()
                .all(|p| p.state.with(|r| r.status == Status::Done));
            // A recording is played back, not continued.
            let recorded = ps.first().is_some_and(|p| replay.is_recording(p.run_id));
            (same_modes && answered && !recorded && !ps.is_empty()).then(|| ps.clone())
        })
    });
    let turns = Signal::derive(move || {
        follow_up_to.with(|c| {
            c.as_ref()
                .and_then(|ps| ps.first())
                .map_or(0, |p| p.state.with(|r| r.turns.len()))
        })
    });
    let running = Signal::derive(move || {
        panels.with(|ps| ps.iter().any(|p| p.state.with(|s| s.status.is_active())))
    });

    let stop = Callback::new(move |()| {
        if let Some(c) = controller.get_value() {
            c.abort();
        }
        replay.stop(panels.with_untracked(|ps| ps.iter().map(|p| p.state).collect::<Vec<_>>()));
    });

    // Imported files, shipped recordings and runs in the address play back in the panels.
    let shower = FileShow {
        panels,
        replay,
        run_counter,
        owner: StoredValue::new_local(files_owner),
        on_stop: stop,
    };

    from_address::apply(&params, question, mode_choice, shower, alert);
    // The Evaluate view replaces the arena while it is open (by CSS, from a class on the root
    // element); its module is loaded the first time. It reads the settings and token from
    // storage, and opens a result's run here through the address (`#run=`).
    let evaluating = RwSignal::new(params.evaluate);
    Effect::new(move || {
        let open = evaluating.get();
        mark_root_if("evaluating", open);
        if open {
            open_evaluate();
        }
    });

    // A run that arrived in the address while the panels were busy: shown only if the user
    // says so.
    let received = RwSignal::new(None::<PageParams>);
    let show_received = move |params: &PageParams| {
        // A run opened from the Evaluate view (or pasted) is shown in the arena.
        evaluating.set(false);
        from_address::show_run(params, shower, alert);
    };
    window_event_listener_untyped("hashchange", move |_| {
        let params = page_params();
        if !params.problems.is_empty() {
            alert.set(Some(params.problems.join(" ")));
            return;
        }
        if params.run.is_none() {
            return;
        }
        // Any page that opened this one can change its address: it must not replace the run
        // the user is watching.
        if running.get_untracked() || replay.playing.get_untracked() {
            received.set(Some(params));
        } else {
            show_received(&params);
        }
    });
    if address_models && params.problems.is_empty() {
        alert.set(Some(
            "The models named in the page's address are used on this visit; settings changed here are not saved.".into(),
        ));
    }
    if params.embed {
        mark_root("embed");
        if params.show_settings {
            mark_root("show-settings");
        }
        if params.run.is_some() || params.recording.is_some() {
            mark_root("carries-run");
        }
    }
    post_height_to_parent();

    // Runs are kept in IndexedDB as they stream; the latest is shown again after a reload
    // (started with the history list, in the page's parts chunk).
    let keep = KeepWiring {
        panels,
        alert,
        mode_choice,
        run_counter,
        owner: owner.clone(),
        is_replay: Callback::new(move |run_id| replay.shows(run_id)),
    };

    let new_conversation = Callback::new({
        let owner = owner.clone();
        move |()| {
            stop.run(());
            let fresh: Vec<PanelRun> = owner.with(|| {
                settings.with_untracked(|s| {
                    mode_choice
                        .get_untracked()
                        .modes()
                        .iter()
                        .map(|&m| PanelRun::idle(m, s))
                        .collect()
                })
            });
            let old = panels.get_untracked();
            panels.set(fresh);
            old.into_iter().for_each(|p| p.state.dispose());
        }
    });
    // Asks the user first when the token would go to a host they have not confirmed.
    let confirmed = move |base_url: &str, then: AfterConfirm| -> bool {
        // Read from storage each time: the Evaluate view may have confirmed a host since.
        let hosts = storage::load_token_hosts();
        let ask = host_to_confirm(base_url, &token.get_untracked(), &hosts);
        match ask {
            Some(origin) => {
                pending.set(Some((origin, then)));
                false
            }
            None => true,
        }
    };

    let run = Callback::new(move |()| {
        if missing.get_untracked().is_some() {
            return;
        }
        if !confirmed(
            &settings.with_untracked(|s| s.base_url.clone()),
            AfterConfirm::Run,
        ) {
            return;
        }
        // A question after every mode answered is a follow-up in each mode's conversation,
        // with the run's own settings; "New conversation" starts afresh.
        if let Some(conversation) = follow_up_to.get_untracked() {
            let Some(first) = conversation.first() else {
                return;
            };
            if let Some(problem) = cannot_call_model(&first.settings, &token.get_untracked()) {
                alert.set(Some(format!("Cannot ask a follow-up: {problem}.")));
                return;
            }
            if !confirmed(&first.settings.base_url, AfterConfirm::Run) {
                return;
            }
            stop.run(());
            let Ok(fresh) = AbortController::new() else {
                return;
            };
            for panel in &conversation {
                follow_up(
                    &token.get_untracked(),
                    panel,
                    &question.get_untracked(),
                    &fresh,
                );
            }
            controller.set_value(Some(fresh));
            runs_started.update(|n| *n += 1);
            return;
        }
        stop.run(());
        let Ok(fresh) = AbortController::new() else {
            return;
        };
        run_counter.update_value(|n| *n += 1);
        let new_panels = owner.with(|| {
            settings.with_untracked(|s| {
                start_runs(
                    run_counter.get_value(),
                    s,
                    &token.get_untracked(),
                    &question.get_untracked(),
                    &mode_choice.get_untracked().modes(),
                    &fresh,
                )
            })
        });
        controller.set_value(Some(fresh));
        runs_started.update(|n| *n += 1);
        let old = panels.get_untracked();
        panels.set(new_panels);
        old.into_iter().for_each(|p| p.state.dispose());
    });

    // A panel whose stream broke mid-reply offers Continue: that step runs again, with the
    // run's own settings, after the same checks as Run.
    let continue_panel = Callback::new(move |(run_id, mode): (u32, Mode)| {
        let Some(panel) = panels.with_untracked(|ps| {
            ps.iter()
                .find(|p| p.run_id == run_id && p.mode == mode)
                .cloned()
        }) else {
            return;
        };
        if let Some(problem) = cannot_call_model(&panel.settings, &token.get_untracked()) {
            alert.set(Some(format!("Cannot continue: {problem}.")));
            return;
        }
        if !confirmed(
            &panel.settings.base_url,
            AfterConfirm::Continue(run_id, mode),
        ) {
            return;
        }
        let resumable = panel
            .state
            .with_untracked(|r| r.last_turn().is_some_and(|t| t.resumable.is_some()));
        if !resumable {
            return;
        }
        let live = controller
            .get_value()
            .filter(|c| !c.signal().aborted())
            .or_else(|| AbortController::new().ok());
        let Some(live) = live else {
            return;
        };
        controller.set_value(Some(live.clone()));
        continue_run(&token.get_untracked(), &panel, &live);
    });

    let on_confirm = Callback::new(move |()| {
        let Some((origin, then)) = pending.get_untracked() else {
            return;
        };
        pending.set(None);
        let mut hosts = storage::load_token_hosts();
        hosts.trust(&origin);
        if let Err(e) = storage::save_token_hosts(&hosts) {
            alert.set(Some(e));
        }
        match then {
            AfterConfirm::Run => run.run(()),
            AfterConfirm::Continue(run_id, mode) => continue_panel.run((run_id, mode)),
        }
    });
    let on_cancel = Callback::new(move |()| pending.set(None));

    let layout = move || {
        if panels.with(|p| p.len()) > 1 {
            "panels three"
        } else {
            "panels one"
        }
    };

    view! {
        <header class="top">
            <h1>"ReAct Arena"</h1>
            <p class="tagline">
                "Watch Think-only, Act-only and ReAct answer the same question, side by side, streaming live."
            </p>
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
        </header>
        <Welcome token=token shower=shower />
        <SettingsPanel settings=settings token=token alert=alert fold_on=runs_started />
        <QuestionBar
            question=question
            question_note=question_note
            mode_choice=mode_choice
            missing=missing
            running=running
            turns=turns
            on_run=run
            on_stop=stop
            on_new_conversation=new_conversation
        />
        {show(Part::RunFiles {
            panels,
            replay,
            alert,
            shower,
        })}
        {show(Part::EmbedCode {
            panels,
            question,
            mode_choice,
        })}
        {move || {
            pending
                .get()
                .map(|(origin, _)| {
                    show(Part::HostConfirm {
                        origin,
                        on_confirm,
                        on_cancel,
                    })
                })
        }}
        {move || {
            received
                .get()
                .map(|params| {
                    view! {
                        <div id="received-run" class="received-run" role="alertdialog" aria-labelledby="received-run-text">
                            <p id="received-run-text">
                                "A run arrived in the page's address (from a link, or the page that opened this one). Showing it stops what the panels show now."
                            </p>
                            <button id="received-run-show" class="primary" on:click=move |_| {
                                received.set(None);
                                show_received(&params);
                            }>
                                "Show it"
                            </button>
                            <button id="received-run-dismiss" on:click=move |_| received.set(None)>
                                "Not now"
                            </button>
                        </div>
                    }
                })
        }}
        {move || {
            alert
                .get()
                .map(|text| {
                    view! {
                        <div id="app-alert" class="app-alert" role="alert">
                            <span>{text}</span>
                            <button class="dismiss" aria-label="Dismiss" on:click=move |_| alert.set(None)>
                                "×"
                            </button>
                        </div>
                    }
                })
        }}
        <main id="panels" class=layout data-runs=move || runs_started.get()>
            <For each=move || panels.get() key=|p| (p.run_id, p.mode) let:p>
                <Panel run=p.clone() on_continue=continue_panel recording=replay.shows(p.run_id) />
            </For>
        </main>
        {show(Part::Comparison(panels))}
        {show(Part::History(keep))}
        <footer class="bottom">
            "Everything runs in your browser. Your token is sent only to the API base URL you set, in the Authorization header."
        </footer>
    }
}
