//! Publish to the Hub: the user's blind votes, evaluations and kept runs, to a dataset
//! repository of theirs, in one commit. Three steps, each the user's: Review (asks the Hub
//! who the token is and what the repository holds, with the token, and writes nothing), then
//! the exact body is shown, byte for byte, then Publish sends it (create the repository if
//! missing, the upload check, the commit). The token goes only to the Hub's address shown.

use std::collections::BTreeSet;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::evaluation::outcome::JobResult;
use crate::evaluation::plan::EvalSpec;
use crate::history::RunSummary;
use crate::hub::publish::{
    card, commit_body, commit_summary, create_repo_body, evaluation_files, lfs_paths,
    preupload_body, run_file, votes_file, HubFileText, DEFAULT_REPO_NAME, LICENCES,
};
use crate::hub::published_run::RunDetail;
use crate::hub::reply::{commit_url, failure, is_private, tree_files, user_name};
use crate::hub::repo::{hub_base, token_may_go_to, HubUrls, RepoId, DEFAULT_HUB_URL};
use crate::hub::votes::{vote_line, VoteDetail};
use crate::leaderboard::vote_of;
use crate::origin::Origin;
use crate::run_file::RunFile;
use crate::ui::app_context::AppContext;
use crate::ui::embed_code::page_base;
use crate::ui::leaderboard::evaluations;
use crate::web::clock::wall_ms;
use crate::web::hub_fetch::{hub_fetch, HubReply, HubRequest, HubStop};
use crate::web::{run_store, storage};

use super::REQUEST_MS;

/// Most bytes read of an answer to a publish's requests (a tree of many files fits).
const ANSWER_CAP: usize = 2 * 1024 * 1024;

/// What the user chose to publish and how.
#[derive(Clone)]
struct Choice {
    hub: String,
    repo: String,
    private: bool,
    licence: String,
    votes: bool,
    detail: VoteDetail,
    /// What a published run keeps beyond its shape.
    run_detail: RunDetail,
    evaluations: BTreeSet<String>,
    runs: BTreeSet<String>,
}

/// A publish, reviewed and ready to send.
#[derive(Clone)]
struct Prepared {
    base: String,
    repo: RepoId,
    private: bool,
    /// The repository is not there yet: Publish creates it.
    new: bool,
    files: Vec<HubFileText>,
    summary: String,
    body: String,
    /// The published runs' paths, for their `?hub=` links.
    run_paths: Vec<String>,
}

enum Step {
    Choosing,
    Working(String),
    Review(Prepared),
    Done { commit: String, links: Vec<String> },
}

async fn send(
    stop: &HubStop,
    url: &str,
    token: &str,
    body: Option<(&str, &str)>,
) -> Result<HubReply, String> {
    hub_fetch(
        HubRequest {
            method: if body.is_some() { "POST" } else { "GET" },
            url,
            token: Some(token),
            body,
            cap: ANSWER_CAP,
            timeout_ms: REQUEST_MS,
        },
        stop,
    )
    .await
    .map_err(|e| format!("{}.", e.trim_end_matches('.')))
}

fn failed(doing: &str, reply: &HubReply) -> String {
    failure(
        doing,
        reply.status,
        &reply.body,
        reply.retry_after.as_deref(),
    )
}

/// The files of a publish, read from this browser's kept runs and evaluations.
async fn files_of(
    choice: &Choice,
    summaries: &[RunSummary],
    evals: &[(EvalSpec, Vec<JobResult>)],
) -> Result<(Vec<HubFileText>, usize, usize, Vec<String>), String> {
    let mut files = Vec::new();
    let mut lines = Vec::new();
    let wanted = |s: &&RunSummary| {
        (choice.votes && vote_of(&s.modes).is_some()) || choice.runs.contains(&s.id)
    };
    let mut run_paths = Vec::new();
    for summary in summaries.iter().filter(wanted) {
        let text = run_store::get_run(&summary.id)
            .await
            .ok()
            .flatten()
            .ok_or_else(|| format!("The kept run “{}” could not be read.", summary.title))?;
        let file = RunFile::from_json(&text)?;
        if choice.votes {
            lines.extend(vote_line(&file, choice.detail));
        }
        if choice.runs.contains(&summary.id) {
            let published = run_file(&file, choice.run_detail).ok_or_else(|| {
                format!(
                    "“{}” waits for its vote: vote first, then publish it.",
                    summary.title
                )
            })?;
            run_paths.push(published.path.clone());
            files.push(published);
        }
    }
    if !lines.is_empty() {
        files.insert(0, votes_file(&lines, wall_ms()));
    }
    let mut published_evals = 0;
    for (spec, results) in evals
        .iter()
        .filter(|(s, _)| choice.evaluations.contains(&s.id))
    {
        files.extend(evaluation_files(spec, results, choice.detail.answers));
        published_evals += 1;
    }
    Ok((files, lines.len(), published_evals, run_paths))
}

async fn prepare(
    choice: Choice,
    token: String,
    summaries: Vec<RunSummary>,
    evals: Vec<(EvalSpec, Vec<JobResult>)>,
    stop: &HubStop,
) -> Result<Prepared, String> {
    if token.trim().is_empty() {
        return Err("Paste your Hugging Face token in Settings first: publishing writes to a repository of yours with it.".into());
    }
    let base = hub_base(&choice.hub);
    token_may_go_to(&base)?;
    let urls = HubUrls { base: &base };
    let (files, votes, evaluations, run_paths) = files_of(&choice, &summaries, &evals).await?;
    if files.is_empty() {
        return Err("Nothing to publish: choose votes, an evaluation or a run.".into());
    }
    let repo = if choice.repo.trim().is_empty() {
        let reply = send(stop, &urls.whoami(), &token, None).await?;
        if !reply.ok() {
            return Err(failed("Asking the Hub who your token is", &reply));
        }
        RepoId::parse(&format!("{}/{DEFAULT_REPO_NAME}", user_name(&reply.body)?))?
    } else {
        RepoId::parse(&choice.repo)?
    };
    // Whether it is there, and private: its visibility stays as it is.
    let reply = send(stop, &urls.info(&repo), &token, None).await?;
    let exists = match reply.status {
        404 => None,
        _ if reply.ok() => Some(is_private(&reply.body).unwrap_or(true)),
        _ => return Err(failed(&format!("Asking the Hub about {repo}"), &reply)),
    };
    if choice.private && exists == Some(false) {
        return Err(format!(
            "{repo} is public: what you publish there is public. Untick Private, or name another repository."
        ));
    }
    let existing = if exists.is_some() {
        let reply = send(stop, &urls.tree(&repo), &token, None).await?;
        if !reply.ok() {
            return Err(failed(&format!("Reading what {repo} holds"), &reply));
        }
        tree_files(&reply.body)
    } else {
        Vec::new()
    };
    let mut all = files;
    all.insert(0, card(&choice.licence, &existing, &all));
    let summary = commit_summary(votes, evaluations, run_paths.len());
    let body = commit_body(&summary, &all);
    Ok(Prepared {
        base,
        repo,
        private: exists.unwrap_or(choice.private),
        new: exists.is_none(),
        files: all,
        summary,
        body,
        run_paths,
    })
}

async fn publish(p: &Prepared, token: &str, stop: &HubStop) -> Result<String, String> {
    let urls = HubUrls { base: &p.base };
    let create = create_repo_body(&p.repo.name, Some(&p.repo.owner), p.private);
    let reply = send(
        stop,
        &urls.create_repo(),
        token,
        Some(("application/json", &create)),
    )
    .await?;
    // 409: it is there already, as it was (its visibility too).
    if !reply.ok() && reply.status != 409 {
        return Err(failed(&format!("Creating {}", p.repo), &reply));
    }
    let check = preupload_body(&p.files);
    let reply = send(
        stop,
        &urls.preupload(&p.repo),
        token,
        Some(("application/json", &check)),
    )
    .await?;
    if !reply.ok() {
        return Err(failed("The upload check", &reply));
    }
    let lfs = lfs_paths(&reply.body)?;
    if !lfs.is_empty() {
        return Err(format!(
            "The Hub wants {} through its large-file storage, which the page does not use: publish fewer runs at once.",
            lfs.join(", ")
        ));
    }
    let reply = send(
        stop,
        &urls.commit(&p.repo),
        token,
        Some(("application/x-ndjson", &p.body)),
    )
    .await?;
    if !reply.ok() {
        return Err(failed(&format!("Committing to {}", p.repo), &reply));
    }
    Ok(commit_url(&reply.body, &p.base).unwrap_or_else(|| urls.repo_page(&p.repo)))
}

#[component]
pub fn HubPublish(
    /// The kept runs' summaries (the history list).
    runs: RwSignal<Vec<RunSummary>>,
) -> impl IntoView {
    let ctx = AppContext::get();
    let hub = RwSignal::new(storage::load_hub_url());
    let repo = RwSignal::new(String::new());
    let private = RwSignal::new(false);
    let licence = RwSignal::new(LICENCES[0].0.to_string());
    let votes = RwSignal::new(true);
    let question_text = RwSignal::new(false);
    let answers = RwSignal::new(false);
    let tool_results = RwSignal::new(false);
    let chosen_evals = RwSignal::new(BTreeSet::<String>::new());
    let chosen_runs = RwSignal::new(BTreeSet::<String>::new());
    let evals = RwSignal::new(Vec::<(EvalSpec, Vec<JobResult>)>::new());
    let step = RwSignal::new(Step::Choosing);
    let problem = RwSignal::new(None::<String>);
    let stop = StoredValue::new_local(HubStop::default());
    // Each Review or Publish is an attempt; a stopped one's late result is dropped.
    let attempt = StoredValue::new(0u32);
    let next_attempt = move || {
        attempt.update_value(|a| *a += 1);
        attempt.get_value()
    };

    // Drawn when its section is first opened: the kept evaluations are read then.
    spawn_local(async move { evals.set(evaluations().await) });
    let voted = Memo::new(move |_| {
        runs.with(|rs| rs.iter().filter(|r| vote_of(&r.modes).is_some()).count())
    });
    let destination = move || {
        let base = hub_base(&hub.get());
        Origin::of(&base).map_or(base, |o| o.to_string())
    };
    let review = move |_| {
        problem.set(None);
        let choice = Choice {
            hub: hub.get_untracked(),
            repo: repo.get_untracked(),
            private: private.get_untracked(),
            licence: licence.get_untracked(),
            votes: votes.get_untracked(),
            detail: VoteDetail {
                question_text: question_text.get_untracked(),
                answers: answers.get_untracked(),
            },
            run_detail: RunDetail {
                question_text: question_text.get_untracked(),
                answers: answers.get_untracked(),
                tool_results: tool_results.get_untracked(),
            },
            evaluations: chosen_evals.get_untracked(),
            runs: chosen_runs.get_untracked(),
        };
        let token = ctx.token.get_untracked();
        let summaries = runs.get_untracked();
        let evals = evals.get_untracked();
        let halt = HubStop::default();
        stop.set_value(halt.clone());
        step.set(Step::Working(
            "Asking the Hub who your token is and what the repository holds…".into(),
        ));
        let this = next_attempt();
        spawn_local(async move {
            let prepared = prepare(choice, token, summaries, evals, &halt).await;
            if attempt.get_value() != this {
                return;
            }
            match prepared {
                Ok(prepared) => step.set(Step::Review(prepared)),
                Err(why) => {
                    problem.set(Some(why));
                    step.set(Step::Choosing);
                }
            }
        });
    };
    let send_it = move |_| {
        // Cloned out of the step before it is set again (a read guard held across `set`
        // would panic).
        let prepared = match &*step.read_untracked() {
            Step::Review(prepared) => prepared.clone(),
            _ => return,
        };
        let token = ctx.token.get_untracked();
        let halt = HubStop::default();
        stop.set_value(halt.clone());
        problem.set(None);
        step.set(Step::Working(format!("Publishing to {}…", prepared.repo)));
        let this = next_attempt();
        spawn_local(async move {
            let published = publish(&prepared, &token, &halt).await;
            if attempt.get_value() != this {
                return;
            }
            match published {
                Ok(commit) => {
                    let links = prepared
                        .run_paths
                        .iter()
                        .map(|path| format!("{}?hub={}/{path}", page_base(), prepared.repo))
                        .collect();
                    step.set(Step::Done { commit, links });
                }
                Err(why) => {
                    problem.set(Some(why));
                    step.set(Step::Review(prepared));
                }
            }
        });
    };
    let cancel = move |_| {
        stop.get_value().stop();
        next_attempt();
        let publishing =
            matches!(&*step.read_untracked(), Step::Working(w) if w.starts_with("Publishing"));
        problem.set(Some(if publishing {
            "Stopped. A commit the Hub had already received may still have been made: look at the repository before publishing again.".into()
        } else {
            "Stopped: nothing was written.".into()
        }));
        step.set(Step::Choosing);
    };
    let back = move |_| step.set(Step::Choosing);

    let form = move || {
        view! {
            <div class="hub-form">
                <div class="settings-grid">
                    <label for="hub-url">"Hub address"</label>
                    <input id="hub-url" type="url" placeholder=DEFAULT_HUB_URL prop:value=move || hub.get()
                        on:input=move |ev| {
                            // Kept as it is typed: the community view reads from the same Hub.
                            let url = event_target_value(&ev);
                            if let Err(e) = storage::save_hub_url(url.trim()) {
                                problem.set(Some(e));
                            }
                            hub.set(url);
                        } />
                    <label for="hub-repo">"Repository"</label>
                    <input id="hub-repo" type="text" placeholder=format!("you/{DEFAULT_REPO_NAME}") prop:value=move || repo.get()
                        on:input=move |ev| repo.set(event_target_value(&ev)) />
                    <label for="hub-licence">"Licence"</label>
                    <select id="hub-licence" on:change=move |ev| licence.set(event_target_value(&ev))>
                        {LICENCES.iter().map(|(id, name)| view! {
                            <option value=*id selected=move || licence.get() == *id>{*name}</option>
                        }).collect_view()}
                    </select>
                </div>
                <div>
                    <label class="inline">
                        <input id="hub-private" type="checkbox" prop:checked=move || private.get()
                            on:change=move |ev| private.set(event_target_checked(&ev)) />
                        "Private (when the repository is new; the community leaderboard never reads a private one)"
                    </label>
                </div>
                <fieldset>
                    <legend>"What to publish"</legend>
                    <label class="inline hub-choice">
                        <input id="hub-votes" type="checkbox" prop:checked=move || votes.get()
                            on:change=move |ev| votes.set(event_target_checked(&ev)) />
                        {move || format!("Blind votes ({})", voted.get())}
                    </label>
                    <label class="inline hub-choice">
                        <input id="hub-question-text" type="checkbox" prop:checked=move || question_text.get()
                            on:change=move |ev| question_text.set(event_target_checked(&ev)) />
                        "Include each question's text (votes, evaluations and runs; else its SHA-256, which anyone who knows the question can match)"
                    </label>
                    <label class="inline hub-choice">
                        <input id="hub-answers" type="checkbox" prop:checked=move || answers.get()
                            on:change=move |ev| answers.set(event_target_checked(&ev)) />
                        "Include the answers (votes and evaluations; in runs, everything the models wrote)"
                    </label>
                    <label class="inline hub-choice">
                        <input id="hub-tool-results" type="checkbox" prop:checked=move || tool_results.get()
                            on:change=move |ev| tool_results.set(event_target_checked(&ev)) />
                        "Include what tools gave back (in runs). Without it a run keeps its calls, not their results; the model's and MCP servers' addresses go as their origin only"
                    </label>
                    {move || evals.with(|es| es.iter().map(|(spec, results)| {
                        let id = spec.id.clone();
                        let key = id.clone();
                        view! {
                            <label class="inline hub-choice">
                                <input type="checkbox" class="hub-eval" data-id=id.clone()
                                    prop:checked=move || chosen_evals.with(|c| c.contains(&key))
                                    on:change=move |ev| {
                                        let on = event_target_checked(&ev);
                                        let id = id.clone();
                                        chosen_evals.update(|c| { if on { c.insert(id); } else { c.remove(&id); } });
                                    } />
                                {format!("Evaluation: {} ({} results)", spec.set_name, results.len())}
                            </label>
                        }
                    }).collect_view())}
                    {move || runs.with(|rs| rs.iter().map(|r| {
                        let id = r.id.clone();
                        let key = id.clone();
                        // Its file names every mode and model: it goes once voted.
                        let awaits_vote = r.modes.iter().any(|m| m.hidden());
                        view! {
                            <label class="inline hub-choice">
                                <input type="checkbox" class="hub-run" data-id=id.clone() disabled=awaits_vote
                                    prop:checked=move || chosen_runs.with(|c| c.contains(&key))
                                    on:change=move |ev| {
                                        let on = event_target_checked(&ev);
                                        let id = id.clone();
                                        chosen_runs.update(|c| { if on { c.insert(id); } else { c.remove(&id); } });
                                    } />
                                {if awaits_vote { format!("Run: {} (vote first)", r.title) } else { format!("Run: {}", r.title) }}
                            </label>
                        }
                    }).collect_view())}
                </fieldset>
                <p class="hint">
                    {move || format!("Review asks {} who your token belongs to and what the repository holds (with your token); nothing is written until you press Publish. Each publish rewrites the repository's card (README.md).", destination())}
                </p>
                <button id="hub-review" type="button" on:click=review>"Review what will be sent"</button>
            </div>
        }
    };

    let shown = move || {
        match &*step.read() {
        Step::Choosing => form().into_any(),
        Step::Working(what) => view! {
            <p id="hub-working" role="status">{what.clone()}</p>
            <button id="hub-stop" type="button" on:click=cancel>"Stop"</button>
        }
        .into_any(),
        Step::Review(p) => {
            let files = p.files.iter().map(|f| view! {
                <details class="hub-file">
                    <summary>{format!("{} ({} bytes)", f.path, f.text.len())}</summary>
                    <pre class="hub-file-text">{f.text.clone()}</pre>
                </details>
            }).collect_view();
            view! {
                <div id="hub-review-step">
                    <p id="hub-review-what">
                        {format!("To {} {} repository {} ({}), one commit: “{}”. Your token goes to {} only.",
                            if p.new { "a new" } else { "the" },
                            if p.private { "private" } else { "public" },
                            p.repo, p.base, p.summary,
                            Origin::of(&p.base).map_or(p.base.clone(), |o| o.to_string()))}
                    </p>
                    {files}
                    <details class="hub-body">
                        <summary>{format!("The commit's body, exactly as sent ({} bytes)", p.body.len())}</summary>
                        <pre id="hub-commit-body">{p.body.clone()}</pre>
                    </details>
                    <div class="dialog-actions">
                        <button id="hub-publish" type="button" on:click=send_it>"Publish"</button>
                        <button id="hub-back" type="button" on:click=back>"Back"</button>
                    </div>
                </div>
            }
            .into_any()
        }
        Step::Done { commit, links } => view! {
            <p id="hub-done" role="status">
                "Published: " <a id="hub-commit-url" href=commit.clone() target="_blank" rel="noopener noreferrer">{commit.clone()}</a>
            </p>
            <ul class="hub-run-links">
                {links.iter().map(|l| view! { <li><a class="hub-run-link" href=l.clone()>{l.clone()}</a></li> }).collect_view()}
            </ul>
            <button id="hub-again" type="button" on:click=back>"Publish more"</button>
        }
        .into_any(),
    }
    };

    view! {
        <p class="hint">"Share your blind votes, evaluations and runs in a dataset repository of yours on the Hugging Face Hub, where the community leaderboard can read them. You see every byte before it is sent."</p>
                {move || problem.get().map(|p| view! { <p id="hub-problem" class="welcome-error" role="alert">{p}</p> })}
                {shown}
    }
}
