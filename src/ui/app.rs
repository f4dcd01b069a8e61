use leptos::prelude::*;
use web_sys::AbortController;

use super::panel::Panel;
use super::question_bar::QuestionBar;
use super::runner::{continue_run, start_runs, PanelRun};
use super::settings_panel::SettingsPanel;
use super::storage;
use crate::agent::mode::ModeChoice;
use crate::agent::Mode;
use crate::settings::{insecure_token_warning, missing_for_run};

#[component]
pub fn App() -> impl IntoView {
    let settings = RwSignal::new(storage::load_settings());
    let token = RwSignal::new(storage::load_token());
    let question = RwSignal::new(String::new());
    let mode_choice = RwSignal::new(ModeChoice::All);
    let max_steps = settings.get_untracked().max_steps;
    let panels = RwSignal::new(
        Mode::ALL
            .iter()
            .map(|&m| PanelRun::idle(m, max_steps))
            .collect::<Vec<_>>(),
    );
    let controller = StoredValue::new_local(None::<AbortController>);
    let run_counter = StoredValue::new(0u32);

    Effect::new(move || storage::save_settings(&settings.get()));

    let missing = Memo::new(move |_| {
        settings.with(|s| {
            token.with(|t| question.with(|q| missing_for_run(s, t, q).map(str::to_string)))
        })
    });
    // Plain http to a remote host: the first press of Run asks, the second sends.
    let confirmed_insecure = RwSignal::new(None::<String>);
    let confirm = Memo::new(move |_| {
        settings.with(|s| {
            token.with(|t| {
                insecure_token_warning(s, t)
                    .filter(|_| {
                        confirmed_insecure.with(|c| c.as_deref() != Some(s.base_url.as_str()))
                    })
                    .map(str::to_string)
            })
        })
    });
    let running = Signal::derive(move || {
        panels.with(|ps| ps.iter().any(|p| p.state.with(|s| s.status.is_active())))
    });

    let stop = Callback::new(move |()| {
        if let Some(c) = controller.get_value() {
            c.abort();
        }
    });
    let run = Callback::new(move |()| {
        if missing.get_untracked().is_some() {
            return;
        }
        if confirm.get_untracked().is_some() {
            confirmed_insecure.set(Some(settings.with_untracked(|s| s.base_url.clone())));
            return;
        }
        stop.run(());
        let Ok(fresh) = AbortController::new() else {
            return;
        };
        run_counter.update_value(|n| *n += 1);
        let new_panels = settings.with_untracked(|s| {
            start_runs(
                run_counter.get_value(),
                s,
                &token.get_untracked(),
                &question.get_untracked(),
                &mode_choice.get_untracked().modes(),
                &fresh,
            )
        });
        controller.set_value(Some(fresh));
        let old = panels.get_untracked();
        panels.set(new_panels);
        old.into_iter().for_each(|p| p.state.dispose());
    });

    // A panel whose stream broke mid-reply offers Continue: that step runs again.
    let continue_panel = Callback::new(move |(run_id, mode): (u32, Mode)| {
        let Some(panel) = panels.with_untracked(|ps| {
            ps.iter()
                .find(|p| p.run_id == run_id && p.mode == mode)
                .cloned()
        }) else {
            return;
        };
        let Some(from) = panel.state.try_update(|s| s.resume.take()).flatten() else {
            return;
        };
        let live = controller
            .get_value()
            .filter(|c| !c.signal().aborted())
            .or_else(|| AbortController::new().ok());
        let Some(live) = live else {
            return;
        };
        controller.set_value(Some(live.clone()));
        settings.with_untracked(|s| {
            continue_run(s, &token.get_untracked(), &panel, from, &live);
        });
    });

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
        </header>
        <SettingsPanel settings=settings token=token />
        <QuestionBar
            question=question
            mode_choice=mode_choice
            missing=missing
            confirm=confirm
            running=running
            on_run=run
            on_stop=stop
        />
        <main id="panels" class=layout>
            <For each=move || panels.get() key=|p| (p.run_id, p.mode) let:p>
                <Panel run=p on_continue=continue_panel />
            </For>
        </main>
        <footer class="bottom">
            "Everything runs in your browser. Your token is sent only to the API base URL you set, in the Authorization header."
        </footer>
    }
}
