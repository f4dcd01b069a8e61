//! The publish side: a kept run's vote as a line and back, what a line may not say, the
//! evaluation's files read back into the pooled table, the card and the commit body.

use std::collections::BTreeSet;

use super::community::*;
use super::publish::*;
use super::repo::RepoId;
use super::votes::*;
use super::*;
use crate::agent::events::AgentEvent;
use crate::agent::record::{Blind, BlindVote, RunConfig, RunRecord};
use crate::agent::Mode;
use crate::leaderboard::Verdict;
use crate::run_file::RunFile;
use crate::settings::Settings;

fn record(mode: Mode, model: &str, answer: &str, vote: Option<BlindVote>) -> RunRecord {
    let config = RunConfig {
        mode,
        model: model.into(),
        ..RunConfig::default()
    };
    let mut r = RunRecord::new(mode.id(), 1.0, config);
    r.apply(
        1.0,
        &AgentEvent::TurnStarted {
            question: "  What is 6 × 7? ".into(),
        },
    );
    r.apply(
        2.0,
        &AgentEvent::Answer {
            text: answer.into(),
            forced: false,
            step: 1,
        },
    );
    r.blind = Some(Blind {
        label: "A".into(),
        vote,
    });
    r
}

fn voted_run(votes: [BlindVote; 3]) -> RunFile {
    let records = vec![
        record(Mode::Think, "m", "41", Some(votes[0])),
        record(Mode::ReAct, "m", "42", Some(votes[1])),
        record(Mode::CodeAct, "m", "42.0", Some(votes[2])),
    ];
    RunFile::new(
        "run/1 x".into(),
        1_795_000_000_000.0,
        Settings::default(),
        records,
    )
}

#[test]
fn a_voted_run_becomes_a_line_without_answers_or_question_unless_asked() {
    let file = voted_run([BlindVote::NotBest, BlindVote::Best, BlindVote::NotBest]);
    let line = vote_line(&file, VoteDetail::default()).unwrap();
    let text = vote_file(std::slice::from_ref(&line));
    assert!(
        !text.contains("6 × 7") && !text.contains("\"answer\""),
        "{text}"
    );
    // The hash is of the question as asked, trimmed.
    assert_eq!(
        line.question_sha256,
        sha256_hex("What is 6 × 7?".as_bytes())
    );
    assert_eq!(line.winner, Winner::Panel(1));
    assert_eq!(line.protocol, "text");
    let (hash, vote) = read_vote(text.trim_end()).unwrap();
    assert_eq!(hash, line.question_sha256);
    assert_eq!(vote.verdict, Verdict::Best(1));
    assert_eq!(vote.contestants[2].mode, "CodeAct");

    let full = vote_line(
        &file,
        VoteDetail {
            question_text: true,
            answers: true,
        },
    )
    .unwrap();
    let text = vote_file(&[full]);
    assert!(
        text.contains("\"question\":\"  What is 6 × 7? \""),
        "{text}"
    );
    assert!(text.contains("\"answer\":\"42.0\""), "{text}");
}

#[test]
fn a_run_without_a_vote_gives_no_line_and_a_tie_says_tie() {
    let mut file = voted_run([BlindVote::Tie; 3]);
    assert_eq!(
        vote_line(&file, VoteDetail::default()).unwrap().winner,
        Winner::Word("tie".into())
    );
    for r in &mut file.records {
        r.blind.as_mut().unwrap().vote = None;
    }
    assert!(vote_line(&file, VoteDetail::default()).is_none());
    // Nor is a blind run awaiting its vote ever a run file to publish.
    assert!(run_file(&file, Default::default()).is_none());
}

#[test]
fn lines_that_are_not_well_formed_votes_are_not_counted() {
    let good = vote_file(&[vote_line(
        &voted_run([BlindVote::Best, BlindVote::NotBest, BlindVote::NotBest]),
        VoteDetail::default(),
    )
    .unwrap()]);
    let good = good.trim_end();
    assert!(read_vote(good).is_some());
    let bad = [
        good.replace("\"winner\":0", "\"winner\":3"),
        good.replace("\"winner\":0", "\"winner\":\"everyone\""),
        good.replace("\"winner\":0", "\"winner\":-1"),
        good.replace("\"mode\":\"think\"", "\"mode\":\"oracle\""),
        good.replace("react-arena/vote", "other"),
        good.replace("\"version\":1", "\"version\":2"),
        good.replace("\"model\":\"m\"", "\"model\":\"\""),
        good.replace("\"question_sha256\":\"", "\"question_sha256\":\"zz"),
        // Two panels of one contestant.
        good.replace("\"mode\":\"react\"", "\"mode\":\"think\""),
        format!("{}{}", good, " ".repeat(MAX_LINE_BYTES)),
        "[]".into(),
    ];
    for line in bad {
        assert!(
            read_vote(&line).is_none(),
            "{}",
            &line[..line.len().min(300)]
        );
    }
    // A model's name is someone's text: plain, short, markup kept as text.
    let hostile = good.replace(
        "\"model\":\"m\"",
        &format!("\"model\":\"<b>x</b>\\u202e{}\"", "y".repeat(500)),
    );
    let (_, vote) = read_vote(&hostile).unwrap();
    let name = &vote.contestants[0].model;
    assert!(
        name.starts_with("<b>x</b>y") && name.chars().count() <= 120,
        "{name}"
    );
}

fn arc(read: RepoVotes) -> std::sync::Arc<RepoVotes> {
    std::sync::Arc::new(read)
}

#[test]
fn a_voters_repeats_count_once_across_their_repositories() {
    let line = vote_file(&[vote_line(
        &voted_run([BlindVote::Best, BlindVote::NotBest, BlindVote::NotBest]),
        VoteDetail::default(),
    )
    .unwrap()]);
    let mut one = RepoVotes::default();
    read_vote_file(&line.repeat(5), &mut one);
    assert_eq!((one.votes.len(), one.skipped), (1, 0));
    // The same vote with its panels in another order is the same vote.
    let swapped = line.replace("\"winner\":0", "\"winner\":1");
    let mut panels: serde_json::Value = serde_json::from_str(swapped.trim_end()).unwrap();
    let first = panels["panels"][0].clone();
    panels["panels"][0] = panels["panels"][1].clone();
    panels["panels"][1] = first;
    read_vote_file(&panels.to_string(), &mut one);
    assert_eq!(one.votes.len(), 1, "{panels}");
    let counted = |repos: &[(&str, &RepoVotes)], excluded: &[&str]| {
        let repos: Vec<_> = repos
            .iter()
            .map(|(id, read)| (RepoId::parse(id).unwrap(), arc((*read).clone())))
            .collect();
        let excluded = excluded.iter().map(|r| RepoId::parse(r).unwrap()).collect();
        super::ranking::pooled_table(&repos, &excluded).votes
    };
    // Two voters: once each. One voter's two repositories: once.
    assert_eq!(counted(&[("a/x", &one), ("b/x", &one)], &[]), 2);
    assert_eq!(counted(&[("a/x", &one), ("b/x", &one)], &["a/x"]), 1);
    assert_eq!(counted(&[("a/x", &one), ("a/y", &one)], &[]), 1);
    // A different winner on the same question is another vote.
    let other = line.replace("\"winner\":0", "\"winner\":2");
    let mut two = RepoVotes::default();
    read_vote_file(&(line + &other), &mut two);
    assert_eq!(counted(&[("b/x", &two)], &[]), 2);
}

fn spec_and_results() -> (
    crate::evaluation::plan::EvalSpec,
    Vec<crate::evaluation::outcome::JobResult>,
) {
    use crate::evaluation::outcome::JobResult;
    use crate::evaluation::plan::{EvalSpec, Job, SetKind};
    use crate::evaluation::questions::Question;
    use crate::evaluation::score::Score;
    let questions = (0..3)
        .map(|i| Question {
            id: format!("q{i}"),
            question: format!("=HYPERLINK(\"x\") question {i}"),
            answer: "42".into(),
            check: Default::default(),
        })
        .collect();
    let spec = EvalSpec {
        id: "e/1".into(),
        created: 1.0,
        set: SetKind::Own,
        set_name: "Mine, \"quoted\"".into(),
        questions,
        modes: vec![Mode::Think, Mode::ReAct],
        models: vec!["m1".into(), "m2".into()],
        max_steps: 5,
        concurrency: 1,
        fallback: false,
        judge_model: String::new(),
    };
    let result = |question: usize, mode: Mode, em: f64| JobResult {
        job: Job { question, mode },
        answer: Some("42".into()),
        forced: false,
        score: Score { em, f1: em },
        steps: 1,
        tool_calls: 0,
        tokens_in: 1,
        tokens_out: 1,
        cost_usd: None,
        ms: 1.0,
        error: None,
        judge: None,
    };
    let results = vec![
        result(0, Mode::Think, 1.0),
        result(1, Mode::Think, 0.0),
        result(2, Mode::Think, 0.0),
        result(0, Mode::ReAct, 1.0),
        result(1, Mode::ReAct, 1.0),
        result(2, Mode::ReAct, 0.0),
    ];
    (spec, results)
}

#[test]
fn an_evaluations_rows_read_back_into_the_pooled_table() {
    let (spec, results) = spec_and_results();
    let [table, rows] = evaluation_files(&spec, &results, false);
    assert_eq!(table.path, "evaluations/e-1/table.csv");
    assert_eq!(rows.path, "evaluations/e-1/rows.csv");
    assert!(
        !rows.text.contains("HYPERLINK"),
        "no questions unless asked"
    );
    let mut read = Vec::new();
    assert_eq!(read_rows_file(&rows.text, &mut read), 0);
    assert_eq!(read.len(), 6);
    let a = RepoId::parse("a/x").unwrap();
    // The same rows twice in one repository count once; in another, again.
    let repos = vec![
        (a.clone(), [read.clone(), read.clone()].concat()),
        (RepoId::parse("b/x").unwrap(), read),
    ];
    let pooled = pooled_evaluations(&repos, &BTreeSet::new());
    let think = pooled
        .iter()
        .find(|p| p.contestant.mode == "Think-only")
        .unwrap();
    assert_eq!(think.contestant.model, "m1");
    assert_eq!(think.questions, 6);
    assert!((think.em - 100.0 / 3.0).abs() < 1e-12);
    assert_eq!(think.paper_em, Some(29.4));
    let react = pooled
        .iter()
        .find(|p| p.contestant.mode == "ReAct")
        .unwrap();
    assert_eq!(
        (react.contestant.model.as_str(), react.questions),
        ("m2", 6)
    );
    assert!((react.em - 200.0 / 3.0).abs() < 1e-12);
    // With answers asked for, the question's text is there, kept from running as a formula.
    let [_, rows] = evaluation_files(&spec, &results, true);
    assert!(rows.text.contains("'=HYPERLINK"), "{}", rows.text);
    let mut again = Vec::new();
    assert_eq!(read_rows_file(&rows.text, &mut again), 0);
    assert_eq!(again.len(), 6);
}

#[test]
fn rows_that_do_not_fit_are_skipped() {
    let text = "set_name,set_sha256,question_id,mode,model,em,f1,answered,judge\r\n\
                s,h,q1,oracle,m,1,1,true,\r\n\
                s,h,q2,react,m,7,1,true,\r\n\
                s,h,q3,react,,1,1,true,\r\n\
                s,h,q4,react,m,NaN,1,true,\r\n\
                s,h,q5,react,m,1,0.5,true,\r\n";
    let mut read = Vec::new();
    assert_eq!(read_rows_file(text, &mut read), 4);
    assert_eq!(read.len(), 1);
    assert_eq!(read_rows_file("a,b\r\n1,2\r\n", &mut read), 1);
}

#[test]
fn the_card_carries_the_tag_the_licence_and_what_the_repository_holds() {
    let adding = [
        HubFileText {
            path: "votes/a.jsonl".into(),
            text: "x".repeat(10),
        },
        HubFileText {
            path: "runs/r.json".into(),
            text: "y".repeat(5),
        },
    ];
    let existing = [
        ExistingFile {
            path: "votes/old.jsonl".into(),
            size: 100,
        },
        ExistingFile {
            path: "README.md".into(),
            size: 9,
        },
    ];
    let card = card("mit", &existing, &adding);
    assert_eq!(card.path, "README.md");
    assert!(
        card.text.starts_with(
            "---\nlicense: mit\npretty_name: ReAct Arena results\ntags:\n- react-arena\n"
        ),
        "{}",
        card.text
    );
    assert!(
        card.text.contains("| `votes/` | 2 | 110 |"),
        "{}",
        card.text
    );
    assert!(card.text.contains("| `runs/` | 1 | 5 |"), "{}", card.text);
    assert!(
        card.text.contains("| `evaluations/` | 0 | 0 |"),
        "{}",
        card.text
    );
    // Only a licence from the list: anything else is the default.
    assert!(super::publish::card("mit\ntags: [x]", &[], &[])
        .text
        .starts_with("---\nlicense: cc-by-4.0\n"));
}

// The reference base64 is a host-only dev-dependency.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_commit_body_is_a_header_then_each_file_in_base64() {
    let files = [HubFileText {
        path: "votes/a.jsonl".into(),
        text: "é\n".into(),
    }];
    let summary = commit_summary(2, 1, 0);
    assert_eq!(
        summary,
        "Publish 2 blind votes and 1 evaluation from ReAct Arena"
    );
    assert_eq!(
        commit_summary(1, 0, 3),
        "Publish 1 blind vote and 3 runs from ReAct Arena"
    );
    assert_eq!(
        commit_summary(1, 1, 1),
        "Publish 1 blind vote, 1 evaluation and 1 run from ReAct Arena"
    );
    let body = commit_body(&summary, &files);
    let lines: Vec<serde_json::Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["key"], "header");
    assert_eq!(lines[0]["value"]["summary"], summary.as_str());
    assert_eq!(lines[1]["value"]["path"], "votes/a.jsonl");
    assert_eq!(lines[1]["value"]["encoding"], "base64");
    use base64::Engine;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(lines[1]["value"]["content"].as_str().unwrap())
        .unwrap();
    assert_eq!(decoded, "é\n".as_bytes());
    for n in 0..40 {
        let bytes: Vec<u8> = (0..n).map(|i| (i * 37 % 256) as u8).collect();
        assert_eq!(
            super::publish::base64(&bytes),
            base64::engine::general_purpose::STANDARD.encode(&bytes)
        );
    }
    assert!(body.ends_with('\n'));
}

#[test]
fn the_upload_check_names_files_the_hub_wants_through_lfs() {
    assert!(
        lfs_paths(r#"{"files":[{"path":"a","uploadMode":"regular"}]}"#)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        lfs_paths(r#"{"files":[{"path":"big.jsonl","uploadMode":"lfs"}]}"#).unwrap(),
        vec!["big.jsonl"]
    );
    assert!(lfs_paths("<html>").is_err());
}

#[test]
fn a_sha256_is_the_standard_one() {
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

/// A vote line: `panels` as (mode, model), `winner` a panel or a word, on question `q`.
fn line(q: u64, panels: &[(&str, &str)], winner: &str) -> String {
    let panels: Vec<String> = panels
        .iter()
        .map(|(mode, model)| format!(r#"{{"mode":"{mode}","model":"{model}"}}"#))
        .collect();
    format!(
        r#"{{"format":"react-arena/vote","version":1,"app_version":"x","created":1,"question_sha256":"{q:064x}","protocol":"text","panels":[{}],"winner":{winner}}}"#,
        panels.join(",")
    ) + "\n"
}

fn repo_of(lines: impl IntoIterator<Item = String>) -> std::sync::Arc<RepoVotes> {
    let mut read = RepoVotes::default();
    read_vote_file(&lines.into_iter().collect::<String>(), &mut read);
    arc(read)
}

fn ratings(table: &super::ranking::CommunityTable) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = table
        .standings
        .iter()
        .filter_map(|s| Some((s.contestant.model.clone(), s.rating?)))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Three honest voters on models a, b and c, on questions from `from` on.
fn honest(from: u64) -> Vec<(RepoId, std::sync::Arc<RepoVotes>)> {
    ["alice", "bob", "carol"]
        .iter()
        .enumerate()
        .map(|(v, owner)| {
            let lines = (0..12).map(|i| {
                let q = from + v as u64 * 100 + i;
                let (x, y, w) = [
                    ("a", "b", "0"),
                    ("b", "c", "0"),
                    ("a", "c", "1"),
                    ("c", "a", "\"tie\""),
                ][(i % 4) as usize];
                line(q, &[("react", x), ("react", y)], w)
            });
            (
                RepoId::parse(&format!("{owner}/votes")).unwrap(),
                repo_of(lines),
            )
        })
        .collect()
}

#[test]
fn an_owners_20_000_votes_weigh_as_20_of_theirs() {
    use super::ranking::{pooled_table, MAX_OWNER_WEIGHT};
    // Mallory: c beats a, each vote on a new question; 20,000 of them, or 20.
    let mallory = |n: u64| {
        let lines = (0..n).map(|q| line(1_000_000 + q, &[("react", "c"), ("react", "a")], "0"));
        (RepoId::parse("mallory/flood").unwrap(), repo_of(lines))
    };
    let mut flood = honest(0);
    flood.push(mallory(20_000));
    let mut twenty = honest(0);
    twenty.push(mallory(20));
    let (flood, twenty) = (
        pooled_table(&flood, &BTreeSet::new()),
        pooled_table(&twenty, &BTreeSet::new()),
    );
    let (x, y) = (ratings(&flood), ratings(&twenty));
    assert_eq!(x.len(), 3, "{x:?}");
    for ((who, r), (_, s)) in x.iter().zip(&y) {
        assert!(
            (r - s).abs() < 1e-9,
            "{who}: {r} with 20,000 votes, {s} with 20"
        );
    }
    let weight = flood.owners.iter().find(|o| o.owner == "mallory").unwrap();
    assert_eq!(weight.votes, 20_000);
    assert!((weight.total() - MAX_OWNER_WEIGHT).abs() < 1e-9);
    // An honest owner's 12 votes weigh in full.
    assert!(flood
        .owners
        .iter()
        .filter(|o| o.owner != "mallory")
        .all(|o| o.each == 1.0));
    // Without the weight, the 20,000 would have made c the best by far.
    assert_eq!(flood.votes, 36 + 20_000);
}

#[test]
fn a_model_only_its_owner_voted_on_goes_unrated_however_many_votes() {
    use super::ranking::pooled_table;
    let lines = |owner_q: u64, n: u64| {
        (0..n).map(move |q| {
            let w = if q % 20 == 0 { "1" } else { "0" };
            line(owner_q + q, &[("react", "mallory/mega"), ("react", "a")], w)
        })
    };
    let mut repos = honest(0);
    repos.push((
        RepoId::parse("mallory/x").unwrap(),
        repo_of(lines(1_000_000, 20_000)),
    ));
    let table = pooled_table(&repos, &BTreeSet::new());
    let mega = table
        .standings
        .iter()
        .find(|s| s.contestant.model == "mallory/mega")
        .unwrap();
    assert_eq!(mega.rating, None, "{:?}", table.standings);
    assert_eq!((mega.wins, mega.losses), (19_000, 1_000));
    // Its votes move nobody else: the honest ratings are as without them.
    let alone = pooled_table(&honest(0), &BTreeSet::new());
    for ((who, r), (_, s)) in ratings(&table).iter().zip(&ratings(&alone)) {
        assert!((r - s).abs() < 1e-9, "{who}");
    }
    // A second voter's votes on it: rated.
    repos.push((
        RepoId::parse("trent/x").unwrap(),
        repo_of(lines(2_000_000, 6)),
    ));
    let table = pooled_table(&repos, &BTreeSet::new());
    assert!(ratings(&table).iter().any(|(who, _)| who == "mallory/mega"));
}

#[test]
fn a_repository_naming_too_many_contestants_has_its_extra_votes_skipped() {
    let made_up = |i: u64| {
        line(
            i,
            &[("react", "m"), ("think", &format!("made-up/{i}"))],
            "0",
        )
    };
    let mut read = RepoVotes::default();
    read_vote_file(&(0..40).map(made_up).collect::<String>(), &mut read);
    // "react m" and 15 made-up models: 16 contestants; the other 25 votes are skipped.
    assert_eq!((read.votes.len(), read.skipped), (15, 25));
    assert_eq!(read.contestants.len(), 16);
}

#[test]
fn the_64_contestants_are_chosen_by_votes_not_by_the_order_repositories_are_listed() {
    use super::ranking::{pooled_table, MAX_CONTESTANTS};
    // Listed first: four repositories of one account, 16 made-up contestants each, 5,000
    // votes of 8 panels apiece; then the honest ones.
    let mut repos: Vec<(RepoId, std::sync::Arc<RepoVotes>)> = (0..4u64)
        .map(|r| {
            let lines = (0..5_000u64).map(move |q| {
                let models: Vec<String> = (0..8)
                    .map(|p| format!("zed/fake-{}", r * 16 + (q + p) % 16))
                    .collect();
                let panels: Vec<(&str, &str)> =
                    models.iter().map(|m| ("react", m.as_str())).collect();
                line(r * 1_000_000 + q, &panels, "\"tie\"")
            });
            (RepoId::parse(&format!("zed/r{r}")).unwrap(), repo_of(lines))
        })
        .collect();
    repos.extend(honest(0));
    // And a fourth honest voter whose one vote names two contestants no one else did.
    repos.push((
        RepoId::parse("dan/one").unwrap(),
        repo_of([line(7, &[("think", "x"), ("think", "y")], "0")]),
    ));
    let table = pooled_table(&repos, &BTreeSet::new());
    let named = table.standings.len();
    // Every honest vote counted: the three voters' 36 and dan's one.
    let honest_named = ["a", "b", "c", "x", "y"];
    assert!(honest_named
        .iter()
        .all(|m| table.standings.iter().any(|s| s.contestant.model == *m)));
    let honest_results: u32 = table
        .standings
        .iter()
        .filter(|s| honest_named.contains(&s.contestant.model.as_str()))
        .map(|s| s.wins + s.ties + s.losses)
        .sum();
    assert_eq!(honest_results, 2 * 37);
    assert_eq!(ratings(&table).len(), 3, "only the honest three are rated");
    // One account fills at most 16 places (here none: each of zed's votes names 8 of 64
    // equally voted contestants, and few name only the 16 first by name).
    assert!(named <= 16 + 5, "{named}");
    assert!(table.capped > 0);

    // Four accounts of made-up contestants, 64 places: those more voters named come first,
    // so the honest three (three voters each) stay, with every vote among them; dan's one
    // vote, on two contestants no one else named, gives way to better-voted ones.
    let mut repos: Vec<(RepoId, std::sync::Arc<RepoVotes>)> = (0..4u64)
        .map(|r| {
            let lines = (0..5_000u64).map(move |q| {
                let models: Vec<String> = (0..8)
                    .map(|p| format!("zed{r}/fake-{}", (q + p) % 16))
                    .collect();
                let panels: Vec<(&str, &str)> =
                    models.iter().map(|m| ("react", m.as_str())).collect();
                line(r * 1_000_000 + q, &panels, "\"tie\"")
            });
            (RepoId::parse(&format!("zed{r}/r")).unwrap(), repo_of(lines))
        })
        .collect();
    repos.extend(honest(0));
    let table = pooled_table(&repos, &BTreeSet::new());
    assert_eq!(table.standings.len(), MAX_CONTESTANTS);
    let abc: u32 = table
        .standings
        .iter()
        .filter(|s| ["a", "b", "c"].contains(&s.contestant.model.as_str()))
        .map(|s| s.wins + s.ties + s.losses)
        .sum();
    assert_eq!(abc, 2 * 36);
}

#[test]
fn the_ranking_in_slices_is_the_ranking_whole_and_its_work_is_bounded() {
    use super::ranking::{pooled_table, RankingJob};
    let repos = honest(0);
    let whole = pooled_table(&repos, &BTreeSet::new());
    let mut job = RankingJob::new(repos.clone(), crate::bradley_terry::WORK_BUDGET);
    let mut slices = 0;
    let sliced = loop {
        slices += 1;
        if let Some(table) = job.run(500) {
            break table;
        }
    };
    assert_eq!(sliced, whole);
    assert!(slices > 10, "{slices}");
    assert!(whole.fitted.work > 0 && whole.fitted.resamples == crate::bradley_terry::RESAMPLES);
    // A budget too small for the intervals: ratings without them, and the table says so.
    let small = RankingJob::new(repos, 2_000).run_to_end();
    assert!(small.fitted.out_of_budget);
    assert!(small.fitted.work <= 2_000, "{}", small.fitted.work);
    assert!(small.standings.iter().all(|s| s.interval.is_none()));
}
