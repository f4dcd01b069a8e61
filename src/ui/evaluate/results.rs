//! An evaluation's results: progress while it runs, the table beside the paper's figures, a
//! bar chart of the same figures, every question's answers (each opens its run in the
//! arena's panels) and the exports.

use leptos::prelude::*;

use super::batch::{EvalState, Phase};
use crate::agent::metrics::{format_ms, format_usd};
use crate::agent::Mode;
use crate::evaluation::outcome::JobResult;
use crate::evaluation::plan::{eta_ms, EvalSpec, SetKind};
use crate::evaluation::summary::{summarize, table_header, table_rows, RowSummary};
use crate::web::clock::wall_ms;

/// The line under the progress bar: runs done, time left, cost so far.
fn progress_line(state: EvalState) -> String {
    let (done, failed) = state
        .results
        .with(|rs| (rs.len(), rs.iter().filter(|r| r.failed()).count()));
    let remaining = state.remaining.get();
    let total = done + remaining;
    let (started, finished_here) = state.session.get();
    let mut parts = vec![format!("{done} of {total} runs")];
    if failed > 0 {
        parts.push(format!("{failed} failed"));
    }
    if state.phase.get() == Phase::Running {
        let elapsed = wall_ms() - started;
        if let Some(eta) = eta_ms(finished_here, remaining, elapsed) {
            parts.push(format!("about {} left", format_ms(eta)));
        }
        parts.push(format!("{} in flight", state.in_flight.get()));
        let held = state.held_until.get() - wall_ms();
        if held > 0.0 {
            parts.push(format!("rate-limited: waiting {}", format_ms(held)));
        }
    }
    let cost: f64 = state
        .results
        .with(|rs| rs.iter().filter_map(|r| r.cost_usd).sum());
    if cost > 0.0 {
        parts.push(format!("cost so far {}", format_usd(cost)));
    }
    parts.join(" · ")
}

#[component]
pub fn Progress(state: EvalState) -> impl IntoView {
    let value = move || state.results.with(|rs| rs.len());
    let max = move || value() + state.remaining.get();
    view! {
        <div class="eval-progress">
            <progress id="eval-progress" max=move || max().max(1) value=value></progress>
            <span id="eval-progress-text" role="status">{move || progress_line(state)}</span>
        </div>
    }
}

/// The table of the figures, with the paper's beside them (and the judge's, when there is one).
#[component]
pub fn ResultsTable(rows: Signal<Vec<RowSummary>>) -> impl IntoView {
    // On a narrow screen the table scrolls in its own box, not the page.
    view! {
        <div class="eval-table-scroll" tabindex="0" role="region" aria-label="Results per mode">
        <table id="eval-table" class="eval-table">
            <caption>"Per mode, over the questions with a result so far"</caption>
            <thead>
                <tr>
                    {move || rows.with(|r| table_header(r).into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view())}
                </tr>
            </thead>
            <tbody>
                {move || {
                    rows.with(|r| table_rows(r))
                        .into_iter()
                        .map(|cells| {
                            view! {
                                <tr>
                                    <th scope="row">{cells[0].clone()}</th>
                                    {cells[1..].iter().map(|c| view! { <td>{c.clone()}</td> }).collect_view()}
                                </tr>
                            }
                        })
                        .collect_view()
                }}
            </tbody>
        </table>
        </div>
    }
}

const CHART_LABEL_WIDTH: f64 = 110.0;
const CHART_BAR_WIDTH: f64 = 300.0;
const CHART_ROW_HEIGHT: f64 = 34.0;

/// EM and F1 per row as bars on a 0–100 scale, the paper's EM as a mark.
#[component]
pub fn ResultsChart(rows: Signal<Vec<RowSummary>>) -> impl IntoView {
    let height = move || rows.with(|r| r.len() as f64 * CHART_ROW_HEIGHT + 24.0);
    let description = move || {
        rows.with(|rs| {
            rs.iter()
                .map(|r| format!("{}: EM {:.1}, F1 {:.1}", r.row.label(), r.em, r.f1))
                .collect::<Vec<_>>()
                .join("; ")
        })
    };
    let x = |pct: f64| CHART_LABEL_WIDTH + CHART_BAR_WIDTH * pct.clamp(0.0, 100.0) / 100.0;
    view! {
        <svg
            id="eval-chart"
            class="eval-chart"
            role="img"
            aria-label=move || format!("Exact match and F1 per mode. {}", description())
            viewBox=move || format!("0 0 {} {}", CHART_LABEL_WIDTH + CHART_BAR_WIDTH + 60.0, height())
        >
            {move || {
                rows.get()
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let y = 8.0 + i as f64 * CHART_ROW_HEIGHT;
                        let paper = r.paper_em.map(|p| {
                            view! {
                                <line class="paper" x1=x(p) x2=x(p) y1=y - 2.0 y2=y + 26.0>
                                    <title>{format!("Paper: {p:.1}")}</title>
                                </line>
                            }
                        });
                        view! {
                            <g>
                                <text x="0" y=y + 17.0>{r.row.label()}</text>
                                <rect class="em" x=CHART_LABEL_WIDTH y=y width=x(r.em) - CHART_LABEL_WIDTH height="11"></rect>
                                <rect class="f1" x=CHART_LABEL_WIDTH y=y + 13.0 width=x(r.f1) - CHART_LABEL_WIDTH height="11"></rect>
                                <text class="value" x=x(r.em) + 4.0 y=y + 10.0>{format!("EM {:.1}", r.em)}</text>
                                <text class="value" x=x(r.f1) + 4.0 y=y + 23.0>{format!("F1 {:.1}", r.f1)}</text>
                                {paper}
                            </g>
                        }
                    })
                    .collect_view()
            }}
        </svg>
    }
}

/// The cell of one run in the answers table: plain text lines (the answer; exact match and
/// F1; the judge's grade and words), then Open, each on its own line so nothing overlaps at
/// any width.
fn answer_cell(result: Option<&JobResult>, mode: Mode, open: Callback<(usize, Mode)>) -> AnyView {
    let Some(r) = result else {
        return view! { <td class="pending" data-label=mode.label()>"—"</td> }.into_any();
    };
    let (question, mode) = (r.job.question, r.job.mode);
    let right = r.score.em >= 1.0;
    let text = match (&r.answer, &r.error) {
        (Some(a), _) => a.clone(),
        (None, Some(e)) => format!("failed: {e}"),
        (None, None) => "no answer".into(),
    };
    let scores = format!(
        "{} EM · F1 {:.2}",
        if right { "✓" } else { "✗" },
        r.score.f1
    );
    let judge = r.judge.as_ref().map(|j| {
        let grade = j.grade.map(|g| g.label());
        view! {
            <span class="cell-judge" data-grade=grade.unwrap_or("none")>
                {match grade {
                    Some(g) => format!("Judge: {g}"),
                    None => j.verdict(),
                }}
            </span>
            {(!j.words.is_empty() && j.grade.is_some()).then(|| view! { <span class="cell-judge-words">{j.words.clone()}</span> })}
        }
    });
    view! {
        <td class="eval-cell" class:right=right class:wrong=!right data-label=mode.label()>
            <span class="cell-answer">{text}</span>
            <span class="cell-scores">{scores}</span>
            {judge}
            <button class="open-run" on:click=move |_| open.run((question, mode))>
                "Open"
            </button>
        </td>
    }
    .into_any()
}

/// Every question with its gold answer and each mode's answer.
#[component]
pub fn Answers(state: EvalState, open: Callback<(usize, Mode)>) -> impl IntoView {
    // Drawn only while open: 500 questions in three modes are 1,500 cells to redo per result.
    let shown = RwSignal::new(false);
    let details = NodeRef::<leptos::html::Details>::new();
    let spec = move || shown.get().then(|| state.spec.get()).flatten();
    view! {
        <details
            class="eval-answers"
            id="eval-answers"
            node_ref=details
            on:toggle=move |_| shown.set(details.get_untracked().is_some_and(|d| d.open()))
        >
            <summary>"Every question's answers"</summary>
            {move || {
                spec()
                    .map(|spec: EvalSpec| {
                        let results = state.results.get();
                        view! {
                            <table class="eval-table eval-answers-table">
                                <thead>
                                    <tr>
                                        <th scope="col">"#"</th>
                                        <th scope="col">"Question"</th>
                                        <th scope="col">"Gold"</th>
                                        {spec
                                            .modes
                                            .iter()
                                            .map(|m| view! { <th scope="col">{m.label()}</th> })
                                            .collect_view()}
                                    </tr>
                                </thead>
                                <tbody>
                                    {spec
                                        .questions
                                        .iter()
                                        .enumerate()
                                        .map(|(i, q)| {
                                            let cells = spec
                                                .modes
                                                .iter()
                                                .map(|&m| {
                                                    let r = results
                                                        .iter()
                                                        .find(|r| r.job.question == i && r.job.mode == m);
                                                    answer_cell(r, m, open)
                                                })
                                                .collect_view();
                                            view! {
                                                <tr>
                                                    <td class="eval-number" data-label="#">{i + 1}</td>
                                                    <td data-label="Question">{q.question.clone()}</td>
                                                    <td data-label="Gold">{q.answer.clone()}</td>
                                                    {cells}
                                                </tr>
                                            }
                                        })
                                        .collect_view()}
                                </tbody>
                            </table>
                        }
                    })
            }}
        </details>
    }
}

/// The rows of the table for what the view holds.
pub fn rows_of(state: EvalState) -> Signal<Vec<RowSummary>> {
    Signal::derive(move || {
        state.spec.with(|s| {
            s.as_ref()
                .map(|spec| state.results.with(|rs| summarize(spec, rs)))
                .unwrap_or_default()
        })
    })
}

/// A line saying what the evaluation is.
pub fn describe(spec: &EvalSpec) -> String {
    let models: Vec<String> = spec
        .modes
        .iter()
        .zip(&spec.models)
        .map(|(m, model)| format!("{} {}", m.label(), model))
        .collect();
    format!(
        "{}: {} questions · {} · max {} steps · {} at once{}",
        spec.set_name,
        spec.questions.len(),
        models.join(", "),
        spec.max_steps,
        spec.concurrency,
        if spec.fallback {
            " · ReAct → CoT"
        } else {
            ""
        }
    )
}

pub fn shows_paper(spec: &EvalSpec) -> bool {
    spec.set == SetKind::HotpotQa
}
