//! The vote of a blind run: once every panel has finished, which answer was best (or a tie,
//! or all bad). The vote goes into each panel's record, which names the panels from then on;
//! kept runs carry it to the leaderboard.

use leptos::prelude::*;

use crate::agent::record::{Blind, BlindVote};
use crate::ui::panel::panel_run::PanelRun;

/// What the user chose.
#[derive(Clone, PartialEq)]
enum Choice {
    Best(String),
    Tie,
    AllBad,
}

fn cast(panels: RwSignal<Vec<PanelRun>>, choice: &Choice) {
    panels.with_untracked(|ps| {
        for p in ps {
            p.state.update(|r| {
                if let Some(b) = r.blind.as_mut() {
                    b.vote = Some(match choice {
                        Choice::Best(label) if *label == b.label => BlindVote::Best,
                        Choice::Best(_) => BlindVote::NotBest,
                        Choice::Tie => BlindVote::Tie,
                        Choice::AllBad => BlindVote::AllBad,
                    });
                }
            });
        }
    });
}

#[component]
pub fn BlindVoting(panels: RwSignal<Vec<PanelRun>>) -> impl IntoView {
    // (letter, mode, model, vote) of each panel of a blind run, in panel order.
    let blind = Memo::new(move |_| {
        panels.with(|ps| {
            ps.iter()
                .filter_map(|p| {
                    p.state.try_with(|r| {
                        r.blind.clone().map(|Blind { label, vote }| {
                            (label, r.config.mode.label(), r.config.model.clone(), vote)
                        })
                    })?
                })
                .collect::<Vec<_>>()
        })
    });
    let settled = Memo::new(move |_| {
        panels.with(|ps| {
            ps.iter()
                .all(|p| p.state.try_with(|r| !r.status.is_active()).unwrap_or(true))
        })
    });
    let voted = Memo::new(move |_| blind.with(|b| b.iter().all(|(.., v)| v.is_some())));
    let choose = move |choice: Choice| move |_| cast(panels, &choice);
    let result = move || {
        blind.with(|b| {
            let said = match b.iter().find(|(.., v)| *v == Some(BlindVote::Best)) {
                Some((label, ..)) => format!("You voted {label} best."),
                None if b.iter().all(|(.., v)| *v == Some(BlindVote::Tie)) => {
                    "You voted a tie.".to_string()
                }
                None => "You voted all bad.".to_string(),
            };
            let names: Vec<String> = b
                .iter()
                .map(|(label, mode, model, _)| format!("{label}: {mode} ({model})"))
                .collect();
            format!("{said} {}.", names.join(", "))
        })
    };
    view! {
        <Show when=move || blind.with(|b| !b.is_empty())>
            <section id="blind-vote" class="blind-vote" aria-label="Blind vote">
                <Show
                    when=move || voted.get()
                    fallback=move || {
                        view! {
                            <p class="blind-ask">
                                {move || if settled.get() {
                                    "Which answer is best? The modes and models show once you vote."
                                } else {
                                    "Blind run: the modes and models are hidden. Vote once every panel has finished."
                                }}
                            </p>
                            <div class="vote-buttons" role="group" aria-label="Your vote">
                                {move || {
                                    blind
                                        .get()
                                        .into_iter()
                                        .map(|(label, ..)| {
                                            view! {
                                                <button
                                                    class="vote-best"
                                                    data-label=label.clone()
                                                    disabled=move || !settled.get()
                                                    on:click=choose(Choice::Best(label.clone()))
                                                >
                                                    {format!("{label} is best")}
                                                </button>
                                            }
                                        })
                                        .collect_view()
                                }}
                                <button id="vote-tie" disabled=move || !settled.get() on:click=choose(Choice::Tie)>
                                    "Tie"
                                </button>
                                <button id="vote-all-bad" disabled=move || !settled.get() on:click=choose(Choice::AllBad)>
                                    "All bad"
                                </button>
                            </div>
                        }
                    }
                >
                    <p id="blind-result" role="status">{result}</p>
                </Show>
            </section>
        </Show>
    }
}
