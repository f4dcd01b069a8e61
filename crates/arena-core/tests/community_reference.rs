//! The community leaderboard's pooled ranking, held to a reference computation in Python
//! (`bt_reference.py`, written apart from the Rust from the rules the view states) on the
//! fixture of several repositories the browser test also publishes from
//! (`tests/fixtures/hub/community.json`): the same votes counted, the same ratings within 1e-9.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use arena_core::hub::community::{pooled_standings, pooled_votes, read_vote_file, RepoVotes};
use arena_core::hub::repo::RepoId;
use serde_json::Value;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/hub/community.json"
);

/// The fixture's public repositories read as the page reads them: vote files in path order.
fn read_repos() -> Vec<(RepoId, RepoVotes)> {
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
    let mut out = Vec::new();
    for (id, repo) in fixture.as_object().unwrap() {
        if repo["private"].as_bool() != Some(false) {
            continue;
        }
        let files: BTreeMap<&String, &Value> = repo["files"].as_object().unwrap().iter().collect();
        let mut read = RepoVotes::default();
        for (path, text) in files {
            if path.starts_with("votes/") && path.ends_with(".jsonl") {
                read_vote_file(text.as_str().unwrap(), &mut read);
            }
        }
        out.push((RepoId::parse(id).unwrap(), read));
    }
    out
}

fn reference(excluded: &[&str]) -> (usize, BTreeMap<String, f64>) {
    let out = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/bt_reference.py"
        ))
        .arg(FIXTURE)
        .args(excluded)
        .output()
        .expect("python3 runs the reference");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ratings = value["ratings"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_f64().unwrap()))
        .collect();
    (value["votes"].as_u64().unwrap() as usize, ratings)
}

fn check(excluded: &[&str]) {
    let repos = read_repos();
    let left_out: BTreeSet<RepoId> = excluded.iter().map(|r| RepoId::parse(r).unwrap()).collect();
    let (votes, expected) = reference(excluded);
    assert_eq!(pooled_votes(&repos, &left_out).len(), votes);
    let rated: BTreeMap<String, f64> = pooled_standings(&repos, &left_out)
        .into_iter()
        .filter_map(|s| {
            Some((
                format!("{} | {}", s.contestant.mode, s.contestant.model),
                s.rating?,
            ))
        })
        .collect();
    assert_eq!(
        rated.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (who, rating) in &rated {
        let diff = (rating - expected[who]).abs();
        assert!(
            diff < 1e-9,
            "{who}: {rating} against {} ({diff:e})",
            expected[who]
        );
    }
}

#[test]
fn the_pooled_ranking_equals_the_python_reference_within_1e_9() {
    let repos = read_repos();
    // The private repository is not among them; carol's four bad lines are skipped; bob's
    // three repeats of one vote count once.
    assert!(!repos.iter().any(|(r, _)| r.owner == "erin"));
    let carol = &repos.iter().find(|(r, _)| r.owner == "carol").unwrap().1;
    assert_eq!(carol.skipped, 4);
    let bob = &repos.iter().find(|(r, _)| r.owner == "bob").unwrap().1;
    assert_eq!(bob.votes.len(), 15);
    check(&[]);
    // A repository that cannot move the others: a model that only lost, and two that only
    // met each other, are left unrated, and everyone else rates as without it.
    let (_, with) = reference(&[]);
    let (_, without) = reference(&["mallory/skew-attempt"]);
    assert_eq!(with, without);
    assert!(!with.keys().any(|k| k.contains("mallory/")));
}

#[test]
fn leaving_a_repository_out_equals_the_reference_without_it() {
    check(&["bob/arena-votes"]);
}
