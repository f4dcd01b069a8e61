//! After a run of several modes: one table to compare them (answer, steps, tool calls, time,
//! tokens, cost; the best of each column marked) and a timeline of model, waiting and tool
//! time per mode on a shared axis. Everything here is read off the runs' records.

use leptos::prelude::*;

use crate::agent::metrics::{
    best_of, format_ms, format_usd, run_metrics, time_split, timeline, RunMetrics, SegmentKind,
};
use crate::agent::record::{RunRecord, Status};
use crate::history::shortened;
use crate::ui::panel::panel_run::PanelRun;

const TIMELINE_WIDTH: f64 = 240.0;
const ANSWER_CHARS: usize = 280;

#[component]
pub fn Comparison(panels: RwSignal<Vec<PanelRun>>) -> impl IntoView {
    // The records of the run, once every mode has finished and there is more than one.
    // The statuses are read first: the records are copied only once all have finished, not on
    // every streamed token.
    let finished = Memo::new(move |_| {
        let done = panels.with(|ps| {
            ps.len() > 1
                && ps.iter().all(|p| {
                    p.state
                        .try_with(|r| !r.status.is_active() && r.status != Status::Idle)
                        .unwrap_or(false)
                })
        });
        done.then(|| {
            panels.with(|ps| {
                ps.iter()
                    .filter_map(|p| p.state.try_get())
                    .collect::<Vec<RunRecord>>()
            })
        })
    });
    move || {
        // A blind run is compared once the vote has named its panels.
        let blind = finished.with(|f| {
            f.as_ref().is_some_and(|rs| {
                rs.iter()
                    .any(|r| r.blind.as_ref().is_some_and(|b| b.hides()))
            })
        });
        finished.get().filter(|_| !blind).map(|records| {
            let metrics: Vec<RunMetrics> = records
                .iter()
                .map(|r| run_metrics(r, r.config.pricing))
                .collect();
            let best = best_of(&metrics);
            // The modes took turns on the model in this browser.
            let waited = metrics.iter().any(|m| m.wait_ms > 0.0);
            let origin = records
                .iter()
                .filter_map(|r| r.steps().first().map(|s| s.t_start))
                .fold(f64::INFINITY, f64::min);
            let span = records
                .iter()
                .flat_map(|r| timeline(r, origin))
                .map(|s| s.to_ms)
                .fold(1.0, f64::max);
            let rows = records
                .iter()
                .zip(&metrics)
                .zip(&best)
                .map(|((r, m), b)| {
                    let mode = r.config.mode;
                    let cell = |best: bool, text: String| {
                        view! { <td class:best=best>{text}{best.then_some(" ★")}</td> }
                    };
                    // A glance: the whole answer is in its panel, and a table cell holding a
                    // long one would take the browser long to lay out.
                    let answer = m.answer.as_deref().map(|a| shortened(a, ANSWER_CHARS)).unwrap_or_else(|| match r.status {
                        Status::Stopped => "(stopped)".into(),
                        _ => "(no answer)".into(),
                    });
                    let tokens = format!(
                        "{} in + {} out{}",
                        m.tokens_in,
                        m.tokens_out,
                        if m.estimated { " (est.)" } else { "" }
                    );
                    let segments = timeline(r, origin)
                        .into_iter()
                        .map(|s| {
                            let x = s.from_ms / span * TIMELINE_WIDTH;
                            let w = ((s.to_ms - s.from_ms) / span * TIMELINE_WIDTH).max(1.0);
                            let class = match s.kind {
                                SegmentKind::Model => "seg-model",
                                SegmentKind::Wait => "seg-wait",
                                SegmentKind::Tool => "seg-tool",
                            };
                            view! { <rect class=class x=format!("{x:.1}") y="2" width=format!("{w:.1}") height="12"></rect> }
                        })
                        .collect_view();
                    view! {
                        <tr data-mode=mode.id()>
                            <th scope="row">{mode.label()}</th>
                            <td class="answer-cell">{answer}</td>
                            {cell(b.steps, m.steps.to_string())}
                            {cell(b.tool_calls, m.tool_calls.to_string())}
                            {cell(b.time, m.total_ms.map(format_ms).unwrap_or_else(|| "–".into()))}
                            {cell(b.tokens, tokens)}
                            {cell(b.cost, m.cost_usd.map(format_usd).unwrap_or_else(|| "–".into()))}
                            <td>
                                <svg class="timeline" width=TIMELINE_WIDTH height="16" role="img"
                                    aria-label=format!("{}: {}", mode.label(), time_split(m))>
                                    {segments}
                                </svg>
                            </td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                // Focusable: on a narrow screen the table scrolls sideways, by keyboard too.
                <section id="comparison" class="comparison" aria-labelledby="comparison-title" tabindex="0">
                    <h2 id="comparison-title">"Comparison"</h2>
                    <table>
                        <thead>
                            <tr>
                                <th scope="col">"Mode"</th>
                                <th scope="col">"Answer"</th>
                                <th scope="col">"Steps"</th>
                                <th scope="col">"Tool calls"</th>
                                <th scope="col">"Time"</th>
                                <th scope="col">"Tokens"</th>
                                <th scope="col">"Cost"</th>
                                <th scope="col">"Timeline "<span class="key-model">"model"</span>" "
                                    {waited.then(|| view! { <span class="key-wait">"waiting for the model"</span>" " })}
                                    <span class="key-tool">"tools"</span></th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                    <p class="hint">"★ best of the modes that answered. Time from the first request to the last result; cost from the endpoint's price list."</p>
                </section>
            }
        })
    }
}
