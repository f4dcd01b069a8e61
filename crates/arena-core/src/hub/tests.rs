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
    assert!(run_file(&file).is_none());
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

#[test]
fn a_voters_repeats_count_once_per_repository_and_question() {
    let line = vote_file(&[vote_line(
        &voted_run([BlindVote::Best, BlindVote::NotBest, BlindVote::NotBest]),
        VoteDetail::default(),
    )
    .unwrap()]);
    let mut one = RepoVotes::default();
    read_vote_file(&line.repeat(5), &mut one);
    assert_eq!((one.votes.len(), one.skipped), (1, 0));
    // The same vote with its panels in another order is the same vote.
    let (_, mut vote) = read_vote(line.trim_end()).unwrap();
    vote.contestants.swap(0, 1);
    let swapped = line.replace("\"winner\":0", "\"winner\":1");
    let mut panels: serde_json::Value = serde_json::from_str(swapped.trim_end()).unwrap();
    let first = panels["panels"][0].clone();
    panels["panels"][0] = panels["panels"][1].clone();
    panels["panels"][1] = first;
    read_vote_file(&panels.to_string(), &mut one);
    assert_eq!(one.votes.len(), 1, "{panels}");
    let a = RepoId::parse("a/x").unwrap();
    let b = RepoId::parse("b/x").unwrap();
    let repos = vec![(a.clone(), one.clone()), (b.clone(), one)];
    // Once per repository.
    assert_eq!(pooled_votes(&repos, &BTreeSet::new()).len(), 2);
    assert_eq!(pooled_votes(&repos, &BTreeSet::from([a])).len(), 1);
    // A different winner on the same question is another vote.
    let other = line.replace("\"winner\":0", "\"winner\":2");
    let mut two = RepoVotes::default();
    read_vote_file(&(line + &other), &mut two);
    assert_eq!(pooled_votes(&[(b, two)], &BTreeSet::new()).len(), 2);
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

#[test]
fn a_repository_naming_too_many_contestants_has_its_extra_votes_skipped() {
    let line = |i: usize| {
        format!(
            r#"{{"format":"react-arena/vote","version":1,"app_version":"x","created":1,"question_sha256":"{}","protocol":"text","panels":[{{"mode":"react","model":"m"}},{{"mode":"think","model":"made-up/{i}"}}],"winner":0}}"#,
            sha256_hex(format!("q{i}").as_bytes())
        )
    };
    let text: String = (0..40).map(|i| line(i) + "\n").collect();
    let mut read = RepoVotes::default();
    read_vote_file(&text, &mut read);
    // "react m" and 15 made-up models: 16 contestants; the other 25 votes are skipped.
    assert_eq!((read.votes.len(), read.skipped), (15, 25));
    // Pooled, at most 64 contestants: 5 repositories of 15 made-up models each give 4 whole.
    let repos: Vec<(RepoId, RepoVotes)> = (0..5)
        .map(|r| {
            let text: String = (0..15).map(|i| line(r * 100 + i) + "\n").collect();
            let mut read = RepoVotes::default();
            read_vote_file(&text, &mut read);
            (RepoId::parse(&format!("o{r}/x")).unwrap(), read)
        })
        .collect();
    let pooled = pooled_votes(&repos, &BTreeSet::new());
    assert_eq!(pooled.len(), 63, "1 shared contestant and 63 made-up ones");
}
