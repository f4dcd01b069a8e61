//! The leaderboard of this browser's own runs: for each mode and model, the blind votes
//! (wins, ties, losses, and a rating once there are enough), and the figures of its kept runs
//! and evaluation runs. Read off the kept runs' summaries and the kept evaluations; Clear
//! starts it over without deleting anything (it counts what comes after), and can be undone.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::agent::metrics::{format_ms, format_usd};
use crate::evaluation::kept;
use crate::evaluation::outcome::JobResult;
use crate::evaluation::plan::EvalSpec;
use crate::history::RunSummary;
use crate::leaderboard::{csv, gather, ranking_note, table, Row};
use crate::ui::app_context::AppContext;
use crate::web::clock::wall_ms;
use crate::web::{download, eval_store, storage};

/// Every kept evaluation with its results; one that cannot be read is left out.
pub async fn evaluations() -> Vec<(EvalSpec, Vec<JobResult>)> {
    let Ok(texts) = eval_store::specs().await else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for spec in kept::specs_of(&texts) {
        let results = kept::results_of(
            &spec,
            &eval_store::results(&spec.id).await.unwrap_or_default(),
        );
        out.push((spec, results));
    }
    out
}

fn rating(row: &Row) -> String {
    match (row.standing.rating, row.standing.interval) {
        (Some(r), Some((low, high))) => format!("{r:.0} ({low:.0}–{high:.0})"),
        (Some(r), None) => format!("{r:.0}"),
        _ => "–".into(),
    }
}

fn line(row: &Row) -> impl IntoView {
    let s = &row.standing;
    let votes = s.wins + s.ties + s.losses;
    let answered = row.answer_rate().map_or("–".into(), |r| {
        format!("{:.0}% of {}", r * 100.0, row.runs)
    });
    view! {
        <tr>
            <th scope="row">{s.contestant.mode.clone()}</th>
            <td class="leaderboard-model">{s.contestant.model.clone()}</td>
            <td>{if votes == 0 { "–".to_string() } else { format!("{} / {} / {}", s.wins, s.ties, s.losses) }}</td>
            <td>{rating(row)}</td>
            <td>{answered}</td>
            <td>{row.median_ms.map_or("–".into(), format_ms)}</td>
            <td>{row.median_tokens.map_or("–".into(), |t| t.to_string())}</td>
            <td>{row.cost_usd.map_or("–".into(), format_usd)}</td>
        </tr>
    }
}

#[component]
pub fn Leaderboard(
    /// The kept runs' summaries (the history list).
    runs: RwSignal<Vec<RunSummary>>,
    /// Drawn open (the summary that stood in for it was opened).
    #[prop(optional)]
    open: bool,
) -> impl IntoView {
    let alert = AppContext::get().alert;
    let since = RwSignal::new(storage::load_leaderboard_since());
    let undo_to = RwSignal::new(None::<f64>);
    let evals = RwSignal::new(Vec::<(EvalSpec, Vec<JobResult>)>::new());
    // Evaluations are read when the leaderboard is opened (they may be large).
    let on_toggle = move |ev: leptos::ev::Event| {
        if event_target::<web_sys::HtmlDetailsElement>(&ev).open() {
            spawn_local(async move { evals.set(evaluations().await) });
        }
    };
    let board = Memo::new(move |_| {
        let (votes, stats) = runs.with(|r| evals.with(|e| gather(r, e, since.get())));
        let rows = table(&votes, &stats);
        let note = ranking_note(&rows, votes.len());
        (rows, note, votes.len())
    });
    let set_since = move |value: f64| {
        since.set(value);
        if let Err(e) = storage::save_leaderboard_since(value) {
            alert.set(Some(e));
        }
    };
    let clear = move |_| {
        undo_to.set(Some(since.get_untracked()));
        set_since(wall_ms());
    };
    let undo = move |_| {
        if let Some(before) = undo_to.get_untracked() {
            set_since(before);
            undo_to.set(None);
        }
    };
    let export = move |_| {
        let text = board.with_untracked(|(rows, ..)| csv(rows));
        if download::download("react-arena-leaderboard.csv", "text/csv", &text).is_err() {
            alert.set(Some("The leaderboard could not be downloaded.".into()));
        }
    };
    view! {
        <section aria-label="Leaderboard">
            <details id="leaderboard" class="leaderboard" open=open on:toggle=on_toggle>
                <summary>"Leaderboard"</summary>
                <p class="hint">
                    "Your own blind votes and runs in this browser: each mode with its model. A blind vote counts the best answer as a win over each other panel; a tie or all bad, as ties. Ratings are Bradley-Terry on the Elo scale (1000 is average) with a 95% bootstrap interval."
                </p>
                {move || board.with(|(_, note, _)| note.clone()).map(|n| view! { <p id="leaderboard-note" class="leaderboard-note" role="status">{n}</p> })}
                <div class="leaderboard-scroll">
                    <table id="leaderboard-table">
                        <thead>
                            <tr>
                                <th scope="col">"Mode"</th>
                                <th scope="col">"Model"</th>
                                <th scope="col">"Votes (W / T / L)"</th>
                                <th scope="col">"Rating (95%)"</th>
                                <th scope="col">"Answered"</th>
                                <th scope="col">"Median time"</th>
                                <th scope="col">"Median tokens"</th>
                                <th scope="col">"Cost"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {move || board.with(|(rows, ..)| rows.iter().map(line).collect_view())}
                        </tbody>
                    </table>
                </div>
                <div class="leaderboard-actions">
                    <button id="leaderboard-csv" on:click=export disabled=move || board.with(|(rows, ..)| rows.is_empty())>
                        "Export CSV"
                    </button>
                    <button id="leaderboard-clear" on:click=clear disabled=move || board.with(|(rows, ..)| rows.is_empty())>
                        "Clear"
                    </button>
                    <Show when=move || undo_to.get().is_some()>
                        <span class="leaderboard-cleared" role="status">
                            "Cleared: runs and votes from now on count (nothing was deleted). "
                        </span>
                        <button id="leaderboard-undo" on:click=undo>"Undo"</button>
                    </Show>
                </div>
            </details>
        </section>
    }
}
