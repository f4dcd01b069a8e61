//! The history of kept runs: a collapsible list to open, rename and delete them. In the parts
//! chunk; what stands in for it on the first screen is `kept_runs.rs`.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::history::{format_when, RunSummary, KEEP_RUNS};
use crate::ui::runs::keep::Keeper;
use crate::web::clock::local_time;

/// When a run was started, in local time.
fn when(ms: f64) -> String {
    if !crate::dates::is_plausible_time(ms) {
        return crate::dates::UNKNOWN.into();
    }
    let t = local_time(ms);
    format_when(t.year, t.month, t.day, t.hour, t.minute)
}

#[component]
pub fn History(
    keeper: Keeper,
    /// Drawn open (the summary that stood in for it was opened).
    #[prop(optional)]
    open: bool,
) -> impl IntoView {
    // A row is drawn again only when what it shows changes (not on every save of a run).
    let rows = move || {
        let shown = keeper.shown.get();
        keeper.runs.with(|rs| {
            rs.iter()
                .map(|r| (r.clone(), shown.as_deref() == Some(r.id.as_str())))
                .collect::<Vec<_>>()
        })
    };
    view! {
        <section aria-label="History">
        <details id="history" class="history" open=open>
            <summary>{move || format!("History ({})", keeper.runs.with(Vec::len))}</summary>
            <p class="hint">
                {move || {
                    if keeper.unavailable.get() {
                        "This browser does not let the page keep runs: they are gone after a reload."
                            .to_string()
                    } else {
                        format!(
                            "Runs are kept in this browser as they stream, the {KEEP_RUNS} most recent; older ones are deleted."
                        )
                    }
                }}
            </p>
            {move || {
                keeper
                    .deleted
                    .get()
                    .map(|(summary, _)| {
                        view! {
                            <div class="history-undo" role="status">
                                <span>{format!("Deleted “{}”.", summary.title)}</span>
                                <button class="undo-delete" on:click=move |_| keeper.undo_delete()>
                                    "Undo"
                                </button>
                            </div>
                        }
                    })
            }}
            <ul class="history-list">
                <For
                    each=rows
                    key=|(r, shown)| {
                        let outcomes: Vec<&str> = r.modes.iter().map(|m| m.outcome.as_str()).collect();
                        let hidden = r.modes.iter().any(|m| m.hidden());
                        format!("{}\u{1}{}\u{1}{}\u{1}{}\u{1}{}\u{1}{hidden}", r.id, r.title, r.turns, shown, outcomes.join("\u{1}"))
                    }
                    let:((run, shown))
                >
                    {row(keeper, run, shown)}
                </For>
            </ul>
        </details>
        </section>
    }
}

fn row(keeper: Keeper, run: RunSummary, shown: bool) -> impl IntoView {
    let field = NodeRef::<leptos::html::Input>::new();
    let title = run.title.clone();
    let on_key = move |ev: KeyboardEvent| {
        if ev.key() == "Escape" {
            if let Some(input) = field.get_untracked() {
                input.set_value(&title);
                let _ = input.blur();
            }
        } else if ev.key() == "Enter" {
            if let Some(input) = field.get_untracked() {
                let _ = input.blur();
            }
        }
    };
    let (rename_id, open_id, delete_id) = (run.id.clone(), run.id.clone(), run.id.clone());
    let modes = run
        .modes
        .iter()
        .map(|m| {
            // A blind run's line names its panels by letter until the vote.
            let (id, name) = match &m.blind {
                Some(b) if b.hides() => ("blind", b.hidden_name()),
                _ => (m.mode.id(), m.mode.label().to_string()),
            };
            view! {
                <li data-mode=id>
                    <span class="history-mode">{name}</span>
                    " "
                    <span class="history-outcome">{m.outcome.clone()}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <li class="history-item" class:shown=shown data-id=run.id.clone()>
            <div class="history-head">
                <input
                    class="history-title"
                    aria-label="Title"
                    node_ref=field
                    value=run.title.clone()
                    on:keydown=on_key
                    on:change=move |ev| keeper.rename(rename_id.clone(), event_target_value(&ev))
                />
                <time class="history-when">{when(run.created)}</time>
                {(run.turns > 1).then(|| view! { <span class="history-turns">{format!("{} turns", run.turns)}</span> })}
            </div>
            <ul class="history-modes">{modes}</ul>
            <div class="history-actions">
                <button class="history-open" on:click=move |_| keeper.open(open_id.clone())>
                    "Open"
                </button>
                <button
                    class="history-rename"
                    on:click=move |_| {
                        if let Some(input) = field.get_untracked() {
                            let _ = input.focus();
                            input.select();
                        }
                    }
                >
                    "Rename"
                </button>
                <button class="history-delete" on:click=move |_| keeper.delete(delete_id.clone())>
                    "Delete"
                </button>
            </div>
        </li>
    }
}
