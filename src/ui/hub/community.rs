//! The community leaderboard: every public dataset on the Hub tagged `react-arena`, its vote
//! files and evaluation rows read (no token: a private repository is never read), bounded (at
//! most `MAX_REPOS` repositories, `MAX_REPO_BYTES` of files each, each request a time
//! limit), with progress and Stop; the votes pooled and ranked by Bradley-Terry, the
//! evaluations pooled per mode and model beside the ReAct paper's figures. The user may leave
//! repositories out. What is read is someone else's: shown as text, never run.

use std::collections::BTreeSet;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::hub::community::{
    pooled_evaluations, pooled_standings, read_rows_file, read_vote_file, EvalRow, RepoVotes,
    MAX_REPOS, MAX_REPO_BYTES,
};
use crate::hub::publish::TAG;
use crate::hub::reply::{array_elements, failure, public_dataset, tree_files};
use crate::hub::repo::{HubUrls, RepoId};
use crate::web::hub_fetch::{hub_fetch, HubReply, HubRequest, HubStop};

use super::hub_url;

/// How long one request of the community view may take.
const READ_MS: u32 = 10_000;
/// Most bytes of the dataset list or a tree read.
const LIST_CAP: usize = 1024 * 1024;
/// Most files read of one repository.
const MAX_FILES: usize = 64;

/// What one repository gave.
#[derive(Clone, Default)]
struct RepoRead {
    repo: Option<RepoId>,
    votes: RepoVotes,
    rows: Vec<EvalRow>,
    skipped_rows: usize,
    bytes: usize,
    /// What was left unread, or went wrong.
    note: Option<String>,
}

async fn get(url: &str, cap: usize, stop: &HubStop) -> Result<HubReply, String> {
    hub_fetch(
        HubRequest {
            method: "GET",
            url,
            token: None,
            body: None,
            cap,
            timeout_ms: READ_MS,
        },
        stop,
    )
    .await
}

/// The whole lines of a body that may have been cut.
fn whole_lines(reply: &HubReply) -> &str {
    if reply.cut {
        reply.body.rfind('\n').map_or("", |end| &reply.body[..=end])
    } else {
        &reply.body
    }
}

async fn read_repo(base: &str, repo: RepoId, stop: &HubStop) -> RepoRead {
    let urls = HubUrls { base };
    let mut read = RepoRead {
        repo: Some(repo.clone()),
        ..RepoRead::default()
    };
    let tree = match get(&urls.tree(&repo), LIST_CAP, stop).await {
        Ok(reply) if reply.ok() => tree_files(&reply.body),
        Ok(reply) => {
            read.note = Some(failure(
                "Listing its files",
                reply.status,
                &reply.body,
                None,
            ));
            return read;
        }
        Err(why) => {
            read.note = Some(format!("Not read: {why}."));
            return read;
        }
    };
    let mut wanted: Vec<_> = tree
        .iter()
        .filter(|f| {
            (f.path.starts_with("votes/") && f.path.ends_with(".jsonl"))
                || (f.path.starts_with("evaluations/") && f.path.ends_with("/rows.csv"))
        })
        .collect();
    // Newest first (the arena names files by time): the cap leaves out the oldest.
    wanted.sort_by(|a, b| b.path.cmp(&a.path));
    if wanted.len() > MAX_FILES {
        read.note = Some(format!(
            "{} files; the newest {MAX_FILES} were read.",
            wanted.len()
        ));
        wanted.truncate(MAX_FILES);
    }
    for file in wanted {
        let left = MAX_REPO_BYTES.saturating_sub(read.bytes);
        if left == 0 {
            read.note = Some(format!(
                "Read up to {} MB; the rest was left unread.",
                MAX_REPO_BYTES / (1024 * 1024)
            ));
            break;
        }
        match get(&urls.file(&repo, &file.path), left, stop).await {
            Ok(reply) if reply.ok() => {
                read.bytes += reply.bytes;
                if reply.cut {
                    read.note = Some(format!(
                        "{} is larger than the {} MB read from a repository: its first {} KB were read.",
                        file.path,
                        MAX_REPO_BYTES / (1024 * 1024),
                        reply.bytes / 1024
                    ));
                }
                let text = whole_lines(&reply);
                if file.path.starts_with("votes/") {
                    read_vote_file(text, &mut read.votes);
                } else {
                    read.skipped_rows += read_rows_file(text, &mut read.rows);
                }
            }
            Ok(reply) => {
                read.note = Some(failure(
                    &format!("Reading {}", file.path),
                    reply.status,
                    &reply.body,
                    reply.retry_after.as_deref(),
                ));
                // Asked to slow down: not the rest of this repository.
                if reply.status == 429 {
                    break;
                }
            }
            Err(why) => {
                read.note = Some(format!("{}: {why}.", file.path));
                break;
            }
        }
    }
    read
}

fn rating_cell(rating: Option<f64>, interval: Option<(f64, f64)>) -> String {
    match (rating, interval) {
        (Some(r), Some((low, high))) => format!("{r:.0} ({low:.0}–{high:.0})"),
        (Some(r), None) => format!("{r:.0}"),
        _ => "–".into(),
    }
}

#[component]
pub fn CommunityBoard() -> impl IntoView {
    let repos = RwSignal::new(Vec::<RepoRead>::new());
    let excluded = RwSignal::new(BTreeSet::<RepoId>::new());
    let status = RwSignal::new(None::<String>);
    let reading = RwSignal::new(false);
    let stop = StoredValue::new_local(HubStop::default());

    let read_all = move |_| {
        let halt = HubStop::default();
        stop.set_value(halt.clone());
        repos.set(Vec::new());
        reading.set(true);
        let base = hub_url();
        status.set(Some(format!(
            "Asking {base} for datasets tagged react-arena…"
        )));
        spawn_local(async move {
            let urls = HubUrls { base: &base };
            let listed = match get(&urls.datasets_tagged(TAG, MAX_REPOS + 1), LIST_CAP, &halt).await
            {
                Ok(reply) if reply.ok() => reply,
                Ok(reply) => {
                    status.set(Some(failure(
                        "Listing the datasets",
                        reply.status,
                        &reply.body,
                        reply.retry_after.as_deref(),
                    )));
                    reading.set(false);
                    return;
                }
                Err(why) => {
                    status.set(Some(format!("Listing the datasets failed: {why}.")));
                    reading.set(false);
                    return;
                }
            };
            let (elements, more) = array_elements(&listed.body, MAX_REPOS);
            let found: Vec<RepoId> = elements.iter().filter_map(|e| public_dataset(e)).collect();
            let more_note = if more {
                format!(" The Hub lists more; the first {MAX_REPOS} entries were read.")
            } else {
                String::new()
            };
            let total = found.len();
            let mut bytes = 0;
            for (at, repo) in found.into_iter().enumerate() {
                if halt.stopped() {
                    break;
                }
                status.set(Some(format!(
                    "Reading {} of {total} repositories ({} KB so far)…{more_note}",
                    at + 1,
                    bytes / 1024
                )));
                let read = read_repo(&base, repo, &halt).await;
                bytes += read.bytes;
                repos.update(|r| r.push(read));
            }
            let read_count = repos.with_untracked(Vec::len);
            status.set(Some(if halt.stopped() {
                format!(
                    "Stopped: {read_count} of {total} repositories read ({} KB).{more_note}",
                    bytes / 1024
                )
            } else {
                format!(
                    "Read {read_count} repositories ({} KB).{more_note}",
                    bytes / 1024
                )
            }));
            reading.set(false);
        });
    };
    let stop_reading = move |_| stop.get_value().stop();

    // Ranked once the reading has ended (or stopped), not again with each repository.
    let pooled = Memo::new(move |_| {
        if reading.get() {
            return Default::default();
        }
        repos.with(|rs| {
            excluded.with(|ex| {
                let votes: Vec<(RepoId, RepoVotes)> = rs
                    .iter()
                    .filter_map(|r| Some((r.repo.clone()?, r.votes.clone())))
                    .collect();
                let rows: Vec<(RepoId, Vec<EvalRow>)> = rs
                    .iter()
                    .filter_map(|r| Some((r.repo.clone()?, r.rows.clone())))
                    .collect();
                let counted = crate::hub::community::pooled_votes(&votes, ex).len();
                (
                    pooled_standings(&votes, ex),
                    pooled_evaluations(&rows, ex),
                    counted,
                )
            })
        })
    });

    let repo_line = move |read: RepoRead| {
        let repo = read.repo.clone().unwrap_or_else(|| RepoId {
            owner: "?".into(),
            name: "?".into(),
        });
        let name = repo.to_string();
        let shown_name = name.clone();
        let key = repo.clone();
        view! {
            <li class="community-repo" data-repo=name>
                <label class="inline">
                    <input type="checkbox" class="community-include" prop:checked=move || excluded.with(|e| !e.contains(&key))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            let repo = repo.clone();
                            excluded.update(|e| { if on { e.remove(&repo); } else { e.insert(repo); } });
                        } />
                    <span class="community-repo-name">{shown_name}</span>
                </label>
                {format!(" · {} votes, {} lines skipped, {} evaluation rows, {} KB",
                    read.votes.votes.len(), read.votes.skipped + read.skipped_rows, read.rows.len(), read.bytes / 1024)}
                {read.note.map(|n| view! { <span class="community-note">{format!(" · {n}")}</span> })}
            </li>
        }
    };

    view! {
                <p class="hint">"Everyone's published votes and evaluations: the public datasets on the Hub tagged react-arena, read without your token. A voter's repeated identical vote on a question counts once. Untick a repository to leave it out."</p>
                <div class="dialog-actions">
                    <button id="community-read" type="button" on:click=read_all disabled=move || reading.get()>"Read the community leaderboard"</button>
                    <Show when=move || reading.get()>
                        <button id="community-stop" type="button" on:click=stop_reading>"Stop"</button>
                    </Show>
                </div>
                {move || status.get().map(|s| view! { <p id="community-status" role="status">{s}</p> })}
                <ul id="community-repos">{move || repos.get().into_iter().map(repo_line).collect_view()}</ul>
                <p id="community-votes">{move || pooled.with(|(_, _, n)| format!("{n} votes counted."))}</p>
                <div class="leaderboard-scroll">
                    <table id="community-table">
                        <thead><tr>
                            <th scope="col">"Mode"</th><th scope="col">"Model"</th>
                            <th scope="col">"Votes (W / T / L)"</th><th scope="col">"Rating (95%)"</th>
                        </tr></thead>
                        <tbody>
                            {move || pooled.with(|(standings, ..)| standings.iter().map(|s| view! {
                                <tr data-rating=s.rating.map(|r| format!("{r:.12}")).unwrap_or_default()>
                                    <th scope="row">{s.contestant.mode.clone()}</th>
                                    <td class="leaderboard-model">{s.contestant.model.clone()}</td>
                                    <td>{format!("{} / {} / {}", s.wins, s.ties, s.losses)}</td>
                                    <td>{rating_cell(s.rating, s.interval)}</td>
                                </tr>
                            }).collect_view())}
                        </tbody>
                    </table>
                </div>
                <div class="leaderboard-scroll">
                    <table id="community-evaluations">
                        <thead><tr>
                            <th scope="col">"Mode"</th><th scope="col">"Model"</th><th scope="col">"Questions"</th>
                            <th scope="col">"EM"</th><th scope="col">"F1"</th><th scope="col">"Paper EM (PaLM-540B, HotpotQA)"</th>
                        </tr></thead>
                        <tbody>
                            {move || pooled.with(|(_, evals, _)| evals.iter().map(|e| view! {
                                <tr>
                                    <th scope="row">{e.contestant.mode.clone()}</th>
                                    <td class="leaderboard-model">{e.contestant.model.clone()}</td>
                                    <td>{e.questions.to_string()}</td>
                                    <td>{format!("{:.1}", e.em)}</td>
                                    <td>{format!("{:.1}", e.f1)}</td>
                                    <td>{e.paper_em.map_or("—".into(), |p| format!("{p:.1}"))}</td>
                                </tr>
                            }).collect_view())}
                        </tbody>
                    </table>
                </div>

    }
}
