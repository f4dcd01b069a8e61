//! The community leaderboard: every public dataset on the Hub tagged `react-arena`, its vote
//! files and evaluation rows read (no token: a private repository is never read), bounded (at
//! most `MAX_REPOS` repositories, `MAX_REPO_BYTES` of files each, each request a time
//! limit), with progress and Stop; the votes pooled (`hub::ranking`: a voter is an owner, whose
//! weight is bounded) and ranked by Bradley-Terry, the evaluations pooled per mode and model
//! beside the ReAct paper's figures. The user may leave repositories out. What is read is
//! someone else's: shown as text, never run.
//!
//! Nothing here holds the page: vote files are read a slice of lines at a time, and the
//! ranking is a job run in slices (`RankingJob`), each ended after `SLICE_MS`, with the page
//! free between them; its work is bounded by `WORK_BUDGET`, shown as it goes, and Stop ends
//! it. A ranking is kept for each set of repositories ranked, so ticking one back costs
//! nothing.

use std::collections::BTreeSet;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::hub::community::{
    pooled_evaluations, read_rows_file, read_vote_line, EvalRow, RepoVotes, MAX_REPOS,
    MAX_REPO_BYTES,
};
use crate::hub::publish::TAG;
use crate::hub::ranking::{
    CommunityTable, RankingJob, MAX_OWNER_WEIGHT, MIN_VOTERS, RESAMPLES, WORK_BUDGET,
};
use crate::hub::reply::{array_elements, failure, public_dataset, tree_files};
use crate::hub::repo::{HubUrls, RepoId};
use crate::web::hub_fetch::{hub_fetch, HubReply, HubRequest, HubStop};
use crate::web::timer::{now_ms, sleep};

use super::hub_url;

/// How long the page works before it lets the browser draw and answer: a task of the page
/// stays well under 50 ms.
const SLICE_MS: f64 = 12.0;
/// Units of ranking work between looks at the clock (well under a millisecond).
const UNITS_BETWEEN_LOOKS: u64 = 20_000;
/// Lines of a vote file read between looks at the clock.
const LINES_BETWEEN_LOOKS: usize = 32;
/// Rankings kept, each for the set of repositories it ranked.
const KEPT_RANKINGS: usize = 8;

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
    votes: Arc<RepoVotes>,
    rows: Arc<Vec<EvalRow>>,
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
    let mut votes = RepoVotes::default();
    let mut rows = Vec::new();
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
                    // A slice of lines at a time: a file of 5 MB does not hold the page.
                    let mut since = now_ms();
                    for (at, line) in text.lines().enumerate() {
                        read_vote_line(line, &mut votes);
                        if at % LINES_BETWEEN_LOOKS == 0 && now_ms() - since > SLICE_MS {
                            sleep(0).await;
                            if stop.stopped() {
                                break;
                            }
                            since = now_ms();
                        }
                    }
                } else {
                    read.skipped_rows += read_rows_file(text, &mut rows);
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
    read.votes = Arc::new(votes);
    read.rows = Arc::new(rows);
    read
}

/// What the ranking is doing.
#[derive(Clone, PartialEq)]
enum Ranking {
    /// Nothing read yet, or reading.
    Waiting,
    Working {
        work: u64,
        doing: String,
    },
    Stopped {
        work: u64,
    },
    Done {
        work: u64,
        kept: bool,
    },
}

/// The repositories a ranking covers: those not left out that gave votes, in the order read.
fn ranked_set(repos: &[RepoRead], excluded: &BTreeSet<RepoId>) -> Vec<(RepoId, Arc<RepoVotes>)> {
    repos
        .iter()
        .filter_map(|r| Some((r.repo.clone()?, Arc::clone(&r.votes))))
        .filter(|(r, v)| !excluded.contains(r) && !v.votes.is_empty())
        .collect()
}

fn key_of(set: &[(RepoId, Arc<RepoVotes>)]) -> Vec<RepoId> {
    set.iter().map(|(r, _)| r.clone()).collect()
}

/// `12,345,678`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What the page says of a finished ranking.
fn ranked_note(table: &CommunityTable, kept: bool) -> String {
    let fitted = &table.fitted;
    let intervals = if fitted.out_of_budget && fitted.resamples >= RESAMPLES / 2 {
        format!(
            " The work budget ran out after {} of {RESAMPLES} resamples: the 95% intervals rest on those.",
            fitted.resamples
        )
    } else if fitted.out_of_budget {
        format!(
            " The work budget ran out after {} resamples, fewer than {}: the 95% intervals are left out.",
            fitted.resamples,
            RESAMPLES / 2
        )
    } else if fitted.resamples > 0 {
        format!(" 95% intervals from {} resamples.", fitted.resamples)
    } else {
        String::new()
    };
    format!(
        "Ranked with {} units of work of at most {}{}.{intervals}",
        grouped(fitted.work),
        grouped(WORK_BUDGET),
        if kept {
            " (kept from before: nothing was worked out again)"
        } else {
            ""
        }
    )
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
    let table = RwSignal::new(CommunityTable::default());
    let ranking = RwSignal::new(Ranking::Waiting);
    // Each ranking started is a generation; a later one (or Stop) ends the one before.
    let generation = StoredValue::new(0u32);
    let kept = StoredValue::new(Vec::<(Vec<RepoId>, CommunityTable)>::new());

    let read_all = move |_| {
        let halt = HubStop::default();
        stop.set_value(halt.clone());
        generation.update_value(|g| *g += 1);
        repos.set(Vec::new());
        table.set(CommunityTable::default());
        ranking.set(Ranking::Waiting);
        kept.set_value(Vec::new());
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

    // Ranks what is read and not left out, once the reading has ended (or stopped), in
    // slices; a set ranked before is shown again as it was.
    let rank = move || {
        let set = repos.with_untracked(|rs| excluded.with_untracked(|ex| ranked_set(rs, ex)));
        let key = key_of(&set);
        generation.update_value(|g| *g += 1);
        let this = generation.get_value();
        if let Some((_, done)) = kept.with_value(|k| k.iter().find(|(k, _)| *k == key).cloned()) {
            let work = done.fitted.work;
            table.set(done);
            ranking.set(Ranking::Done { work, kept: true });
            return;
        }
        ranking.set(Ranking::Working {
            work: 0,
            doing: "pooling the votes".into(),
        });
        spawn_local(async move {
            let mut job = RankingJob::new(set, WORK_BUDGET);
            loop {
                // A slice, then the page is free to draw and answer.
                sleep(0).await;
                if generation.get_value() != this {
                    return;
                }
                let since = now_ms();
                let done = loop {
                    if let Some(done) = job.run(UNITS_BETWEEN_LOOKS) {
                        break Some(done);
                    }
                    if now_ms() - since > SLICE_MS {
                        break None;
                    }
                };
                match done {
                    Some(done) => {
                        let work = done.fitted.work;
                        kept.update_value(|k| {
                            k.retain(|(k, _)| *k != key);
                            k.push((key, done.clone()));
                            if k.len() > KEPT_RANKINGS {
                                k.remove(0);
                            }
                        });
                        table.set(done);
                        ranking.set(Ranking::Done { work, kept: false });
                        return;
                    }
                    None => ranking.set(Ranking::Working {
                        work: job.work(),
                        doing: job.doing(),
                    }),
                }
            }
        });
    };
    Effect::new(move |_| {
        let ready = !reading.get() && repos.with(|r| !r.is_empty());
        excluded.track();
        if ready {
            rank();
        }
    });
    let working = move || matches!(ranking.get(), Ranking::Working { .. });
    let stop_all = move |_| {
        stop.get_value().stop();
        if working() {
            let work = match ranking.get_untracked() {
                Ranking::Working { work, .. } => work,
                _ => 0,
            };
            generation.update_value(|g| *g += 1);
            ranking.set(Ranking::Stopped { work });
        }
    };

    let evaluations = Memo::new(move |_| {
        repos.with(|rs| {
            excluded.with(|ex| {
                let rows: Vec<(RepoId, Arc<Vec<EvalRow>>)> = rs
                    .iter()
                    .filter_map(|r| Some((r.repo.clone()?, Arc::clone(&r.rows))))
                    .collect();
                pooled_evaluations(&rows, ex)
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

    let fit_status = move || {
        match ranking.get() {
        Ranking::Waiting => None,
        Ranking::Working { work, doing } => Some(format!(
            "Ranking: {doing}; {} units of work of at most {}…",
            grouped(work),
            grouped(WORK_BUDGET)
        )),
        Ranking::Stopped { work } => Some(format!(
            "Ranking stopped after {} units of work: the table is not ranked. Press Rank to start again.",
            grouped(work)
        )),
        Ranking::Done { kept, .. } => Some(table.with(|t| ranked_note(t, kept))),
    }
    };
    let fit_state = move || match ranking.get() {
        Ranking::Waiting => "waiting",
        Ranking::Working { .. } => "working",
        Ranking::Stopped { .. } => "stopped",
        Ranking::Done { kept: false, .. } => "done",
        Ranking::Done { kept: true, .. } => "kept",
    };
    let fit_work = move || match ranking.get() {
        Ranking::Waiting => 0,
        Ranking::Working { work, .. } | Ranking::Stopped { work } | Ranking::Done { work, .. } => {
            work
        }
    };
    let weighed_down = move || {
        table.with(|t| {
            let heavy: Vec<String> = t
                .owners
                .iter()
                .filter(|o| o.each < 1.0)
                .map(|o| {
                    format!(
                        "{} ({} votes, weighing as {:.0})",
                        o.owner,
                        o.votes,
                        o.total()
                    )
                })
                .collect();
            (!heavy.is_empty()).then(|| format!("Weighed down: {}.", heavy.join(", ")))
        })
    };

    view! {
                <p class="hint">{format!("Everyone's published votes and evaluations: the public datasets on the Hub tagged react-arena, read without your token. A voter is a repository's owner: their identical votes on a question count once, and their votes together weigh at most as much as {MAX_OWNER_WEIGHT:.0} votes. A contestant is rated once at least {MIN_VOTERS} voters have voted on it. Untick a repository to leave it out.")}</p>
                <div class="dialog-actions">
                    <button id="community-read" type="button" on:click=read_all disabled=move || reading.get() || working()>"Read the community leaderboard"</button>
                    <Show when=move || reading.get() || working()>
                        <button id="community-stop" type="button" on:click=stop_all>"Stop"</button>
                    </Show>
                    <Show when=move || matches!(ranking.get(), Ranking::Stopped { .. })>
                        <button id="community-rank" type="button" on:click=move |_| rank()>"Rank"</button>
                    </Show>
                </div>
                {move || status.get().map(|s| view! { <p id="community-status" role="status">{s}</p> })}
                <ul id="community-repos">{move || repos.get().into_iter().map(repo_line).collect_view()}</ul>
                {move || fit_status().map(|s| view! {
                    <p id="community-fit-status" role="status" data-state=fit_state() data-work=fit_work().to_string()>{s}</p>
                })}
                <Show when=working>
                    <progress id="community-fit-progress" max=WORK_BUDGET.to_string() value=move || fit_work().to_string()></progress>
                </Show>
                <p id="community-votes">{move || table.with(|t| format!("{} votes counted.", t.votes))}</p>
                <p id="community-voters" class="hint">{move || table.with(|t| {
                    let capped = if t.capped > 0 { format!(" {} votes named contestants past the limits (16 a voter, 64 in all) and were left out.", t.capped) } else { String::new() };
                    format!("From {} voters.{capped}", t.voters)
                })} {move || weighed_down().map(|w| format!(" {w}"))}</p>
                <div class="leaderboard-scroll">
                    <table id="community-table">
                        <thead><tr>
                            <th scope="col">"Mode"</th><th scope="col">"Model"</th>
                            <th scope="col">"Votes (W / T / L)"</th><th scope="col">"Rating (95%)"</th>
                        </tr></thead>
                        <tbody>
                            {move || table.with(|t| t.standings.iter().map(|s| view! {
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
                            {move || evaluations.with(|evals| evals.iter().map(|e| view! {
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
