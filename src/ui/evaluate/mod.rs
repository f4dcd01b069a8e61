//! The Evaluate view: the ReAct paper's comparison in the page. The same questions go through
//! the chosen modes, are scored as the paper scored HotpotQA, and the results are kept in
//! IndexedDB as they arrive, so a stopped or reloaded evaluation resumes where it was.
//!
//! It is its own wasm module (`src/bin/evaluate.rs`), mounted into the arena page when the
//! view first opens; see `ui/evaluate_host.rs`.

mod batch;
mod bridge;
mod results;
mod run_job;
mod saved;
mod setup;

use leptos::prelude::*;
use leptos::task::spawn_local;

use self::batch::{EvalState, Phase};
use self::bridge::Bridge;
use self::results::{
    describe, rows_of, shows_paper, Answers, Progress, ResultsChart, ResultsTable,
};
use self::saved::{load_saved, open_saved, Saved, SavedList};
use self::setup::{Form, HotpotQaCredit, Setup};
use super::host_confirm::HostConfirm;
use crate::agent::Mode;
use crate::evaluation::context::EvalContext;
use crate::evaluation::plan::EvalSpec;
use crate::evaluation::summary::{answers_csv, evaluation_json, summarize, table_csv};
use crate::export::file_stem;
use crate::origin::Origin;
use crate::run_file::RunFile;
use crate::settings::cannot_call_model;
use crate::web::download::download;
use crate::web::eval_store;

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

/// Mounts the view into `root`; `bridge` is the arena page's object (see `Bridge`).
pub fn mount(root: web_sys::HtmlElement, bridge: wasm_bindgen::JsValue) {
    add_stylesheet();
    let bridge = Bridge::new(bridge);
    let handle = leptos::mount::mount_to(
        root,
        move || view! { <EvaluateView bridge=bridge.clone() /> },
    );
    // The view lives as long as the page.
    handle.forget();
}

/// The arena's settings and token, or why an evaluation cannot use them.
fn usable_context(bridge: &Bridge) -> Result<EvalContext, String> {
    let context = bridge.context()?;
    if let Some(problem) = cannot_call_model(&context.settings, &context.token) {
        return Err(format!(
            "{problem} (in the Arena's Settings), then start again."
        ));
    }
    Ok(context)
}

#[component]
fn EvaluateView(bridge: Bridge) -> impl IntoView {
    let state = EvalState::new();
    let form = Form::new();
    let saved = RwSignal::new(Vec::<Saved>::new());
    // The origin to confirm before the token goes there, and the evaluation waiting on it.
    let confirm = RwSignal::new(None::<(Origin, EvalSpec)>);
    load_saved(state, saved, true);

    let begin = {
        let bridge = bridge.clone();
        move |spec: EvalSpec| {
            let context = match usable_context(&bridge) {
                Ok(c) => c,
                Err(e) => return state.alert.set(Some(e)),
            };
            if let Some(host) = &context.unconfirmed_host {
                match Origin::of(host) {
                    Some(origin) => confirm.set(Some((origin, spec))),
                    None => state
                        .alert
                        .set(Some(format!("The API base URL {host} is not valid."))),
                }
                return;
            }
            state.alert.set(None);
            batch::start(state, spec, context);
        }
    };
    let begin = StoredValue::new_local(begin);

    let on_start = Callback::new({
        let bridge = bridge.clone();
        move |()| {
            if state.is_busy() {
                return;
            }
            let settings = bridge.context().map(|c| c.settings).unwrap_or_default();
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
        }
    });
    let on_resume = move |_| {
        if let Some(spec) = state.spec.get_untracked() {
            if !state.is_busy() {
                begin.with_value(|b| b(spec));
            }
        }
    };
    let on_stop = move |_| batch::stop(state);
    let on_confirm = Callback::new({
        let bridge = bridge.clone();
        move |()| {
            let Some((origin, spec)) = confirm.get_untracked() else {
                return;
            };
            confirm.set(None);
            if let Err(e) = bridge.trust_host(&origin.to_string()) {
                return state.alert.set(Some(e));
            }
            begin.with_value(|b| b(spec));
        }
    });
    let on_cancel = Callback::new(move |()| confirm.set(None));

    let open_run = Callback::new({
        let bridge = bridge.clone();
        move |(question, mode): (usize, Mode)| {
            let Some(spec) = state.spec.get_untracked() else {
                return;
            };
            let bridge = bridge.clone();
            spawn_local(async move {
                let job = crate::evaluation::plan::Job { question, mode };
                let opened = async {
                    let json = eval_store::record(&spec.id, &job.key())
                        .await
                        .map_err(|r| {
                            format!("The run could not be read ({}: {}).", r.name, r.message)
                        })?
                        .ok_or("This run was not kept.")?;
                    let record: crate::agent::record::RunRecord = serde_json::from_str(&json)
                        .map_err(|e| format!("The kept run is damaged: {e}"))?;
                    let settings = bridge.context().map(|c| c.settings).unwrap_or_default();
                    let file =
                        RunFile::new(record.id.clone(), record.created, settings, vec![record]);
                    let title = format!("Evaluation, question {} ({})", question + 1, mode.label());
                    bridge.open_run(&title, &file.to_json())
                };
                if let Err(e) = opened.await {
                    state.alert.set(Some(e));
                }
            });
        }
    });

    let export = move |kind: &'static str| {
        let Some(spec) = state.spec.get_untracked() else {
            return;
        };
        let results = state.results.get_untracked();
        let stem = file_stem(spec.created, &format!("evaluation {}", spec.set_name));
        let done = match kind {
            "table" => download(
                &format!("{stem}-table.csv"),
                "text/csv",
                &table_csv(&summarize(&spec, &results)),
            ),
            "answers" => download(
                &format!("{stem}-answers.csv"),
                "text/csv",
                &answers_csv(&spec, &results),
            ),
            _ => download(
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
    let unfinished = Signal::derive(move || {
        state.phase.get() == Phase::Idle
            && state.spec.with(|s| s.is_some())
            && state.remaining.get() > 0
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
            <Setup form=form busy=busy on_start=on_start />
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
                                        "Resume"
                                    </button>
                                    <button id="eval-export-table" on:click=move |_| export("table")>"Table CSV"</button>
                                    <button id="eval-export-answers" on:click=move |_| export("answers")>"Answers CSV"</button>
                                    <button id="eval-export-json" on:click=move |_| export("json")>"JSON"</button>
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
