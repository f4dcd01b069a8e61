//! The Evaluate view: the ReAct paper's comparison in the page. The same questions go through
//! the chosen modes, are scored as the paper scored HotpotQA, and the results are kept in
//! IndexedDB as they arrive, so a stopped or reloaded evaluation resumes where it was.
//!
//! It is its own wasm module (`src/bin/evaluate.rs`), mounted into the arena page when the
//! view first opens (arena-web's `evaluate_loader.js`). It shares the arena's storage: the
//! settings, the token and the confirmed hosts are read from there when an evaluation starts,
//! and a result's run opens in the arena's panels through the address (`#run=`).

mod batch;
mod judge_call;
mod open_run;
mod results;
mod run_job;
mod saved;
mod setup;

use leptos::prelude::*;
use leptos::task::spawn_local;

use self::batch::{EvalState, Phase};
use self::open_run::open_in_arena;
use self::results::{
    describe, rows_of, shows_paper, Answers, Progress, ResultsChart, ResultsTable,
};
use self::saved::{load_saved, open_saved, Saved, SavedList};
use self::setup::{Form, HotpotQaCredit, Setup};
use super::host_confirm::HostConfirm;
use crate::agent::Mode;
use crate::evaluation::context::EvalContext;
use crate::evaluation::plan::{EvalSpec, Job};
use crate::evaluation::summary::{answers_csv, evaluation_json, summarize, table_csv};
use crate::export::file_stem;
use crate::mcp::server_tools::skip_notice;
use crate::origin::Origin;
use crate::settings::{cannot_call_model, host_to_confirm};
use crate::web::download::download;
use crate::web::{eval_store, storage};

/// The exports of an evaluation.
#[derive(Clone, Copy)]
enum Export {
    /// The results table, as shown.
    Table,
    /// A line per run: the answer and its score.
    Answers,
    /// The set-up, every result and the table.
    Json,
}

/// The view's own stylesheet, beside the page: loaded with the module, not with the page.
const STYLESHEET: &str = "evaluate.css";

fn add_stylesheet() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(link) = document.create_element("link") else {
        return;
    };
    let _ = link.set_attribute("rel", "stylesheet");
    let _ = link.set_attribute("href", STYLESHEET);
    if let Some(head) = document.head() {
        let _ = head.append_child(&link);
    }
}

/// Mounts the view into `root`.
pub fn mount(root: web_sys::HtmlElement) {
    add_stylesheet();
    let handle = leptos::mount::mount_to(root, || view! { <EvaluateView /> });
    // The view lives as long as the page.
    handle.forget();
}

/// The arena's settings and token as stored now, or why an evaluation cannot use them.
fn usable_context() -> Result<EvalContext, String> {
    let context = EvalContext {
        settings: storage::load_settings(),
        token: storage::load_token(),
    };
    if let Some(problem) = cannot_call_model(&context.settings, &context.token) {
        return Err(format!(
            "{problem} (in the Arena's Settings), then start again."
        ));
    }
    Ok(context)
}

/// The user confirmed that the token may go to `origin`: kept where the arena reads it.
fn trust(origin: &Origin) -> Result<(), String> {
    let mut hosts = storage::load_token_hosts();
    hosts.trust(origin);
    storage::save_token_hosts(&hosts)
}

#[component]
fn EvaluateView() -> impl IntoView {
    let state = EvalState::new();
    let form = Form::new();
    let saved = RwSignal::new(Vec::<Saved>::new());
    // The origin to confirm before the token goes there, and the evaluation waiting on it.
    let confirm = RwSignal::new(None::<(Origin, EvalSpec)>);
    load_saved(state, saved, true);

    let begin = move |spec: EvalSpec| {
        let context = match usable_context() {
            Ok(c) => c,
            Err(e) => return state.alert.set(Some(e)),
        };
        let hosts = storage::load_token_hosts();
        if let Some(origin) =
            host_to_confirm(context.settings.endpoint_url(), &context.token, &hosts)
        {
            return confirm.set(Some((origin, spec)));
        }
        state.alert.set(None);
        batch::start(state, spec, context);
    };
    let begin = StoredValue::new_local(begin);

    let on_start = Callback::new(move |()| {
        if state.is_busy() {
            return;
        }
        let settings = storage::load_settings();
        let spec = match form.spec(|m| settings.model_for(m).to_string()) {
            Ok(spec) => spec,
            Err(e) => return state.alert.set(Some(e)),
        };
        state.results.set(Vec::new());
        state.spec.set(Some(spec.clone()));
        spawn_local(async move {
            let json = serde_json::to_string(&spec).unwrap_or_default();
            if let Err(r) = eval_store::put_spec(&spec.id, &json).await {
                state.alert.set(Some(format!(
                    "This evaluation is not kept ({}: {}): it runs, but cannot be resumed after a reload.",
                    r.name, r.message
                )));
            }
            load_saved(state, saved, false);
            begin.with_value(|b| b(spec));
        });
    });
    let on_resume = move |_| {
        if let Some(spec) = state.spec.get_untracked() {
            if !state.is_busy() {
                begin.with_value(|b| b(spec));
            }
        }
    };
    let on_stop = move |_| batch::stop(state);
    let on_confirm = Callback::new(move |()| {
        let Some((origin, spec)) = confirm.get_untracked() else {
            return;
        };
        confirm.set(None);
        if let Err(e) = trust(&origin) {
            return state.alert.set(Some(e));
        }
        begin.with_value(|b| b(spec));
    });
    let on_cancel = Callback::new(move |()| confirm.set(None));

    let open_run = Callback::new(move |(question, mode): (usize, Mode)| {
        if let Some(spec) = state.spec.get_untracked() {
            spawn_local(async move {
                if let Err(e) = open_in_arena(&spec, Job { question, mode }).await {
                    state.alert.set(Some(e));
                }
            });
        }
    });

    let export = move |kind: Export| {
        let Some(spec) = state.spec.get_untracked() else {
            return;
        };
        let results = state.results.get_untracked();
        let stem = file_stem(spec.created, &format!("evaluation {}", spec.set_name));
        let done = match kind {
            Export::Table => download(
                &format!("{stem}-table.csv"),
                "text/csv",
                &table_csv(&summarize(&spec, &results)),
            ),
            Export::Answers => download(
                &format!("{stem}-answers.csv"),
                "text/csv",
                &answers_csv(&spec, &results),
            ),
            Export::Json => download(
                &format!("{stem}.json"),
                "application/json",
                &evaluation_json(&spec, &results),
            ),
        };
        if done.is_err() {
            state
                .alert
                .set(Some("The browser refused the download.".into()));
        }
    };

    let busy =
        Signal::derive(move || matches!(state.phase.get(), Phase::Running | Phase::Stopping));
    let failed = Signal::derive(move || {
        state
            .results
            .with(|rs| rs.iter().filter(|r| r.failed()).count())
    });
    // Resume runs what is left and what failed.
    let unfinished = Signal::derive(move || {
        !busy.get()
            && state.spec.with(|s| s.is_some())
            && (state.remaining.get() > 0 || failed.get() > 0)
    });
    let rows = rows_of(state);

    view! {
        <div class="evaluate-view">
            <h2>"Evaluate"</h2>
            <p class="lede">
                "Run the same questions through Think-only, Act-only and ReAct and score them as the ReAct paper did: exact match and token F1 after normalising both answers. Results are kept in this browser as they arrive."
            </p>
            {move || {
                state
                    .alert
                    .get()
                    .map(|text| {
                        view! {
                            <div id="eval-alert" class="app-alert" role="alert">
                                <span>{text}</span>
                                <button class="dismiss" aria-label="Dismiss" on:click=move |_| state.alert.set(None)>
                                    "×"
                                </button>
                            </div>
                        }
                    })
            }}
            {move || {
                confirm
                    .get()
                    .map(|(origin, _)| {
                        view! { <HostConfirm origin=origin on_confirm=on_confirm on_cancel=on_cancel /> }
                    })
            }}
            <Setup form=form busy=busy on_start=on_start skip_note=skip_notice(&storage::load_settings().mcp_servers.servers(), "An evaluation") />
            <SavedList saved=saved busy=busy on_open=Callback::new(move |id: String| open_saved(state, id)) on_delete=Callback::new(move |id: String| {
                spawn_local(async move {
                    if let Err(r) = eval_store::delete_evaluation(&id).await {
                        state.alert.set(Some(format!("It could not be deleted ({}: {}).", r.name, r.message)));
                    }
                    if state.spec.with_untracked(|s| s.as_ref().is_some_and(|s| s.id == id)) {
                        state.spec.set(None);
                        state.results.set(Vec::new());
                        state.remaining.set(0);
                    }
                    load_saved(state, saved, false);
                });
            }) />
            {move || {
                state
                    .spec
                    .get()
                    .map(|spec| {
                        view! {
                            <section class="eval-results" id="eval-results" aria-label="Results">
                                <h3>"Results"</h3>
                                <p class="eval-describe" id="eval-describe">{describe(&spec)}</p>
                                {shows_paper(&spec).then(|| view! { <HotpotQaCredit /> })}
                                <Progress state=state />
                                <div class="eval-actions">
                                    <button id="eval-stop" on:click=on_stop hidden=move || state.phase.get() != Phase::Running>
                                        "Stop"
                                    </button>
                                    <button id="eval-resume" class="primary" on:click=on_resume hidden=move || !unfinished.get()>
                                        {move || if state.remaining.get() > 0 { "Resume" } else { "Run the failed again" }}
                                    </button>
                                    <button id="eval-export-table" on:click=move |_| export(Export::Table)>"Table CSV"</button>
                                    <button id="eval-export-answers" on:click=move |_| export(Export::Answers)>"Answers CSV"</button>
                                    <button id="eval-export-json" on:click=move |_| export(Export::Json)>"JSON"</button>
                                </div>
                                <ResultsTable rows=rows />
                                {shows_paper(&spec)
                                    .then(|| {
                                        view! {
                                            <p class="paper-note">
                                                "Paper EM: PaLM-540B on these 500 questions (Yao et al., 2023, table 1); ReAct → CoT there falls back on CoT with self-consistency (21 samples), here on one chain of thought."
                                            </p>
                                        }
                                    })}
                                <ResultsChart rows=rows />
                                <Answers state=state open=open_run />
                            </section>
                        }
                    })
            }}
        </div>
    }
}
