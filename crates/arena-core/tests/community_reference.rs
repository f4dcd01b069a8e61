//! The community leaderboard's pooled ranking, held to a reference computation in Python
//! (`bt_reference.py`, written apart from the Rust from the rules the view states) on the
//! fixture of several repositories the browser test also publishes from
//! (`tests/fixtures/hub/community.json`), and on that fixture with an attacker's repository
//! beside it: the same votes counted, the same owners' weights, the same ratings within 1e-9.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::Arc;

use arena_core::hub::community::{read_vote_file, RepoVotes};
use arena_core::hub::ranking::pooled_table;
use arena_core::hub::repo::RepoId;
use serde_json::{json, Value};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/hub/community.json"
);

fn fixture() -> Value {
    serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap()
}

/// The public repositories of `fixture` read as the page reads them: vote files newest first.
fn read_repos(fixture: &Value) -> Vec<(RepoId, Arc<RepoVotes>)> {
    let mut out = Vec::new();
    for (id, repo) in fixture.as_object().unwrap() {
        if repo["private"].as_bool() != Some(false) {
            continue;
        }
        let files: BTreeMap<&String, &Value> = repo["files"].as_object().unwrap().iter().collect();
        let mut read = RepoVotes::default();
        for (path, text) in files.into_iter().rev() {
            if path.starts_with("votes/") && path.ends_with(".jsonl") {
                read_vote_file(text.as_str().unwrap(), &mut read);
            }
        }
        out.push((RepoId::parse(id).unwrap(), Arc::new(read)));
    }
    out
}

/// The reference's count, ratings and owners' weights for `fixture` less `excluded`.
fn reference(fixture: &Value, excluded: &[&str]) -> (usize, BTreeMap<String, f64>, Value) {
    // One file per call: the tests run on threads of one process, each with its own fixture.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let path = std::env::temp_dir().join(format!(
        "community-reference-{}-{call}-{}.json",
        std::process::id(),
        excluded.join("+").replace('/', "_")
    ));
    std::fs::write(&path, fixture.to_string()).unwrap();
    let out = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/bt_reference.py"
        ))
        .arg(&path)
        .args(excluded)
        .output()
        .expect("python3 runs the reference");
    let _ = std::fs::remove_file(&path);
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
    (
        value["votes"].as_u64().unwrap() as usize,
        ratings,
        value["weights"].clone(),
    )
}

/// The page's pooled ratings for `fixture` less `excluded`, held to the reference's.
fn check(fixture: &Value, excluded: &[&str]) -> BTreeMap<String, f64> {
    let repos = read_repos(fixture);
    let left_out: BTreeSet<RepoId> = excluded.iter().map(|r| RepoId::parse(r).unwrap()).collect();
    let (votes, expected, weights) = reference(fixture, excluded);
    let table = pooled_table(&repos, &left_out);
    assert_eq!(table.votes, votes);
    let page_weights: BTreeMap<String, f64> = table
        .owners
        .iter()
        .map(|o| (o.owner.clone(), o.total()))
        .collect();
    for (owner, weight) in weights.as_object().unwrap() {
        let weight = weight.as_f64().unwrap();
        assert!(
            (page_weights[owner] - weight).abs() < 1e-9,
            "{owner}: {} against {weight}",
            page_weights[owner]
        );
    }
    let rated: BTreeMap<String, f64> = table
        .standings
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
    rated
}

#[test]
fn the_pooled_ranking_equals_the_python_reference_within_1e_9() {
    let fixture = fixture();
    let repos = read_repos(&fixture);
    // The private repository is not among them; carol's four bad lines are skipped; bob's
    // three repeats of one vote count once.
    assert!(!repos.iter().any(|(r, _)| r.owner == "erin"));
    let carol = &repos.iter().find(|(r, _)| r.owner == "carol").unwrap().1;
    assert_eq!(carol.skipped, 4);
    let bob = &repos.iter().find(|(r, _)| r.owner == "bob").unwrap().1;
    assert_eq!(bob.votes.len(), 15);
    let rated = check(&fixture, &[]);
    // A repository that cannot move the others: a model that only lost, and two that only
    // met each other, are left unrated, and everyone else rates as without it.
    let (_, with, _) = reference(&fixture, &[]);
    let (_, without, _) = reference(&fixture, &["mallory/skew-attempt"]);
    assert_eq!(with, without);
    assert!(!with.keys().any(|k| k.contains("mallory/")));
    // dave's model is voted on by dave alone: unrated.
    assert!(!rated.keys().any(|k| k.contains("onerror")), "{rated:?}");
}

#[test]
fn leaving_a_repository_out_equals_the_reference_without_it() {
    check(&fixture(), &["bob/arena-votes"]);
}

/// A vote line of `panels` (mode, model) with `winner`, on question `q`.
fn line(q: usize, panels: &[(&str, &str)], winner: Value) -> String {
    let panels: Vec<Value> = panels
        .iter()
        .map(|(mode, model)| json!({ "mode": mode, "model": model }))
        .collect();
    json!({
        "format": "react-arena/vote", "version": 1, "app_version": "0.1.0", "created": 1.0,
        "question_sha256": format!("{q:064x}"), "protocol": "text",
        "panels": panels, "winner": winner,
    })
    .to_string()
}

#[test]
fn an_owner_of_20_000_votes_weighs_as_20_and_its_own_model_goes_unrated_as_the_reference_says() {
    // Mallory, in a second repository: 20,000 votes, each on a new question, her model beating
    // the honest best 19 times in 20, and Think-only on Qwen (honestly the worst) beating
    // ReAct on Llama (honestly the best) every time.
    let honest_fixture = fixture();
    let mut fixture = honest_fixture.clone();
    let votes: String = (0..20_000)
        .map(|q| {
            let text = if q % 2 == 0 {
                line(
                    q,
                    &[
                        ("react", "mallory/mega-7b"),
                        ("react", "meta-llama/Llama-3.1-8B-Instruct"),
                    ],
                    json!(usize::from(q % 40 == 0)),
                )
            } else {
                line(
                    q,
                    &[
                        ("think", "Qwen/Qwen2.5-7B-Instruct"),
                        ("react", "meta-llama/Llama-3.1-8B-Instruct"),
                    ],
                    json!(0),
                )
            };
            text + "\n"
        })
        .collect();
    fixture["mallory/flood"] = json!({ "private": false, "files": { "votes/a.jsonl": votes } });
    let rated = check(&fixture, &[]);
    let (_, honest, _) = reference(&honest_fixture, &[]);
    assert!(!rated.keys().any(|k| k.contains("mega-7b")), "{rated:?}");
    // Mallory's votes together weigh as 20 of anyone's (hers in skew-attempt included): the
    // contestant she pushes gains as one voter's 20 votes would move it.
    let think_qwen = "Think-only | Qwen/Qwen2.5-7B-Instruct";
    assert!(rated[think_qwen] > honest[think_qwen]);
    println!("honest: {honest:#?}\nwith mallory's 20,000 votes: {rated:#?}");
    let table = pooled_table(&read_repos(&fixture), &BTreeSet::new());
    let mallory = table.owners.iter().find(|o| o.owner == "mallory").unwrap();
    assert_eq!(mallory.votes, 20_012);
    assert!((mallory.total() - 20.0).abs() < 1e-9);
}
