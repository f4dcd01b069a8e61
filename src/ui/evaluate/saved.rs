//! Evaluations kept in this browser: the list, and opening one (its spec and results) to see
//! it or resume it.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::batch::{done_jobs, EvalState, Phase};
use crate::dates::{utc_date_time, UNKNOWN};
use crate::evaluation::kept;
use crate::evaluation::outcome::JobResult;
use crate::evaluation::plan::{EvalSpec, Scheduler};
use crate::history::format_when;
use crate::web::eval_store;

/// A line of the list.
#[derive(Clone, PartialEq)]
pub struct Saved {
    pub id: String,
    pub created: f64,
    pub label: String,
}

fn saved_line(spec: &EvalSpec) -> Saved {
    let when = utc_date_time(spec.created).map_or(UNKNOWN.into(), |(y, mo, d, h, mi)| {
        format_when(y as u32, mo, d, h, mi)
    });
    let modes: Vec<&str> = spec.modes.iter().map(|m| m.label()).collect();
    Saved {
        id: spec.id.clone(),
        created: spec.created,
        label: format!(
            "{} · {} · {} questions · {}",
            when,
            spec.set_name,
            spec.questions.len(),
            modes.join(", ")
        ),
    }
}

async fn read_specs() -> Result<Vec<EvalSpec>, String> {
    let texts = eval_store::specs().await.map_err(|r| {
        format!(
            "Kept evaluations could not be read ({}: {}).",
            r.name, r.message
        )
    })?;
    Ok(kept::specs_of(&texts))
}

/// Refreshes the list; with `open_latest`, shows the newest evaluation (after a reload, the
/// one to resume).
pub fn load_saved(state: EvalState, saved: RwSignal<Vec<Saved>>, open_latest: bool) {
    spawn_local(async move {
        match read_specs().await {
            Ok(mut specs) => {
                specs.sort_by(|a, b| b.created.total_cmp(&a.created));
                saved.set(specs.iter().map(saved_line).collect());
                if open_latest && state.spec.with_untracked(|s| s.is_none()) {
                    if let Some(latest) = specs.into_iter().next() {
                        show(state, latest).await;
                    }
                }
            }
            Err(e) => state.alert.set(Some(e)),
        }
    });
}

/// Shows `spec` with its kept results.
async fn show(state: EvalState, spec: EvalSpec) {
    let results: Vec<JobResult> = match eval_store::results(&spec.id).await {
        Ok(texts) => kept::results_of(&spec, &texts),
        Err(r) => {
            state.alert.set(Some(format!(
                "The results could not be read ({}: {}).",
                r.name, r.message
            )));
            Vec::new()
        }
    };
    // Failed runs count as finished here; Resume runs them again.
    let remaining = Scheduler::new(&spec, results.iter().map(|r| r.job)).remaining();
    let failed = results.len() - done_jobs(&results).len();
    state.remaining.set(remaining);
    state.in_flight.set(0);
    state.results.set(results);
    state.spec.set(Some(spec));
    state.phase.set(if remaining + failed == 0 {
        Phase::Done
    } else {
        Phase::Idle
    });
}

/// Opens the kept evaluation `id`.
pub fn open_saved(state: EvalState, id: String) {
    if state.is_busy() {
        return;
    }
    spawn_local(async move {
        match read_specs().await {
            Ok(specs) => match specs.into_iter().find(|s| s.id == id) {
                Some(spec) => show(state, spec).await,
                None => state
                    .alert
                    .set(Some("That evaluation is no longer kept.".into())),
            },
            Err(e) => state.alert.set(Some(e)),
        }
    });
}

#[component]
pub fn SavedList(
    saved: RwSignal<Vec<Saved>>,
    busy: Signal<bool>,
    on_open: Callback<String>,
    on_delete: Callback<String>,
) -> impl IntoView {
    view! {
        <details class="eval-saved" id="eval-saved" hidden=move || saved.with(|s| s.is_empty())>
            <summary>{move || format!("Kept evaluations ({})", saved.with(|s| s.len()))}</summary>
            <ul>
                <For each=move || saved.get() key=|s| (s.id.clone(), s.created.to_bits()) let:line>
                    <li>
                        <span>{line.label.clone()}</span>
                        " "
                        <button
                            class="open-eval"
                            disabled=move || busy.get()
                            on:click={
                                let id = line.id.clone();
                                move |_| on_open.run(id.clone())
                            }
                        >
                            "Open"
                        </button>
                        <button
                            class="delete-eval"
                            disabled=move || busy.get()
                            on:click={
                                let id = line.id.clone();
                                move |_| on_delete.run(id.clone())
                            }
                        >
                            "Delete"
                        </button>
                    </li>
                </For>
            </ul>
        </details>
    }
}
