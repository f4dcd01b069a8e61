//! Publishing to the Hub and the community leaderboard, in headless Chromium, against the Hub
//! stand-in (`tests/hub_standin.py`, proven against the Hub's two official clients in
//! `hub_rig.rs`). One visit publishes a blind vote, an evaluation and a kept run; the
//! official Python client reads them back and they must be exactly what the page showed
//! before sending; the community view pools them with a fixture of other repositories, and
//! its ranking is held to the Python reference (`crates/arena-core/tests/bt_reference.py`)
//! within 1e-9; the published run opens by its address with no request but the file.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use react_arena::agent::Mode;
use react_arena::run_file::RunFile;
use serde_json::{json, Value};
use support::browser::{browser_test, Rig};
use support::hub::{hub_python, start_hub, HubStandIn, BOB_TOKEN};
use support::mock::Reply;

const SETTLE: Duration = Duration::from_secs(90);
const QUESTION: &str = "What is 6 times 7?";
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/hub/community.json"
);
/// Where the page publishes with Bob's token when the repository field is left empty.
const PUBLISHED: &str = "bob/react-arena-results";

fn fixture() -> serde_json::Map<String, Value> {
    serde_json::from_str::<Value>(&std::fs::read_to_string(FIXTURE).unwrap())
        .unwrap()
        .as_object()
        .unwrap()
        .clone()
}

/// The fixture's repositories, (re)made on the stand-in.
async fn seed_fixture(hub: &HubStandIn) {
    for (id, repo) in fixture() {
        let (owner, name) = id.split_once('/').unwrap();
        let files: Vec<(String, String)> = repo["files"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(p, t)| (p.clone(), t.as_str().unwrap().to_string()))
            .collect();
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        hub.seed(owner, name, repo["private"].as_bool().unwrap(), &files)
            .await;
    }
}

/// Two evaluation questions every mode answers at once, and a blind run whose panels answer
/// so that each can be told by its answer.
fn script(rig: &Rig) {
    for mode in Mode::ALL {
        let heading = mode.prompt_heading();
        rig.mock
            .script_always(&["Q-E1 ", heading], Reply::text("Answer: 42"));
        rig.mock
            .script_always(&["Q-E2 ", heading], Reply::text("Answer: 41"));
    }
    for (mode, answer) in [
        (Mode::Think, "42 by thinking"),
        (Mode::Act, "42 by acting"),
        (Mode::ReAct, "42 by reasoning and acting"),
        (Mode::CodeAct, "42 by writing no code"),
    ] {
        rig.mock.script_always(
            &[QUESTION, mode.prompt_heading()],
            Reply::text(&format!("Answer: {answer}")),
        );
    }
}

/// Runs a two-question evaluation of the four modes in the Evaluate view, then goes back.
async fn evaluate_two_questions(rig: &Rig) {
    rig.show_evaluate().await;
    rig.choose_own_questions(
        "hub-questions.json",
        &[
            ("Q-E1 What is six times seven?", "42"),
            ("Q-E2 What is six times seven, again?", "42"),
        ],
    )
    .await;
    rig.js("const s = document.querySelector('#eval-sample'); s.value = 'all'; s.dispatchEvent(new Event('change'));")
        .await;
    rig.click("#eval-start").await;
    rig.wait_for(
        "the evaluation's 8 runs",
        SETTLE,
        "const t = document.querySelector('#eval-progress-text'); return !!t && t.innerText.startsWith('8 of 8 runs') && document.querySelector('#eval-stop').hidden;",
    )
    .await;
    rig.click("#view-arena").await;
}

/// A blind run of the four modes, ReAct voted best.
async fn vote_react_best(rig: &Rig) {
    rig.ask(QUESTION, "blind").await;
    rig.wait_until_settled(SETTLE).await;
    let letter = rig
        .js("return Array.from(document.querySelectorAll('section.panel')).find(p => (p.querySelector('.answer') || {innerText: ''}).innerText.trim().endsWith('by reasoning and acting')).dataset.label")
        .await;
    rig.click(&format!(
        ".vote-best[data-label='{}']",
        letter.as_str().unwrap()
    ))
    .await;
    rig.wait_for(
        "the vote",
        SETTLE,
        "return !!document.querySelector('#blind-result')",
    )
    .await;
}

/// Sets an input's value as typing would.
async fn type_into(rig: &Rig, css: &str, value: &str) {
    rig.js(&format!(
        "const e = document.querySelector({css:?}); e.value = {value:?}; e.dispatchEvent(new Event('input')); return true;"
    ))
    .await;
}

/// Opens the publish section with the stand-in as the Hub, once the kept runs and the
/// evaluations are listed.
async fn open_publish(rig: &Rig, hub: &HubStandIn, evaluations: usize) {
    rig.wait_for(
        "the publish section",
        SETTLE,
        "return !!document.querySelector('#hub-publish-section')",
    )
    .await;
    rig.click("#hub-publish-section > summary").await;
    rig.wait_for(
        "the evaluations and runs to choose from",
        Duration::from_secs(20),
        &format!("return document.querySelectorAll('.hub-eval').length === {evaluations} && document.querySelectorAll('.hub-run').length >= 1"),
    )
    .await;
    type_into(rig, "#hub-url", &hub.base_url).await;
}

/// The files a commit body carries, decoded: (path, text), and its summary.
fn files_of_body(body: &str) -> (String, BTreeMap<String, String>) {
    use base64::Engine;
    let mut lines = body
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap());
    let header = lines.next().unwrap();
    assert_eq!(header["key"], "header");
    let files = lines
        .map(|l| {
            assert_eq!(l["key"], "file");
            assert_eq!(l["value"]["encoding"], "base64");
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(l["value"]["content"].as_str().unwrap())
                .unwrap();
            (
                l["value"]["path"].as_str().unwrap().to_string(),
                String::from_utf8(bytes).unwrap(),
            )
        })
        .collect();
    (
        header["value"]["summary"].as_str().unwrap().to_string(),
        files,
    )
}

/// What the official Python client reads of `repo`.
fn read_back(hub: &HubStandIn, repo: &str) -> Value {
    let mut python = Command::new(hub_python());
    python.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/hub/read_back.py"
    ));
    read_back_with(python, hub, repo)
}

/// What the official JavaScript client reads of `repo`.
fn read_back_js(hub: &HubStandIn, repo: &str) -> Value {
    let mut node = Command::new("node");
    node.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/hub/read_back.mjs"
    ));
    read_back_with(node, hub, repo)
}

fn read_back_with(mut command: Command, hub: &HubStandIn, repo: &str) -> Value {
    let out = command.args([&hub.base_url, repo]).output().unwrap();
    assert!(
        out.status.success(),
        "read back: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The Python reference's ratings over `repos` (the fixture's form), leaving out `excluded`.
fn reference(repos: &Value, excluded: &[&str]) -> (u64, BTreeMap<String, f64>) {
    let path = std::env::temp_dir().join(format!("hub-pooled-{}.json", std::process::id()));
    std::fs::write(&path, repos.to_string()).unwrap();
    let out = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/crates/arena-core/tests/bt_reference.py"
        ))
        .arg(&path)
        .args(excluded)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ratings = v["ratings"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, r)| (k.clone(), r.as_f64().unwrap()))
        .collect();
    (v["votes"].as_u64().unwrap(), ratings)
}

/// The community table's rated rows: "mode | model" → the rating the row carries.
async fn community_ratings(rig: &Rig) -> BTreeMap<String, f64> {
    let rows = rig
        .js("return Array.from(document.querySelectorAll('#community-table tbody tr')).filter(tr => tr.dataset.rating).map(tr => [tr.children[0].innerText + ' | ' + tr.children[1].innerText, tr.dataset.rating])")
        .await;
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_string(),
                r[1].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect()
}

fn assert_same_ratings(page: &BTreeMap<String, f64>, expected: &BTreeMap<String, f64>) {
    assert_eq!(
        page.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (who, rating) in page {
        let diff = (rating - expected[who]).abs();
        assert!(
            diff < 1e-9,
            "{who}: page {rating}, reference {}",
            expected[who]
        );
    }
}

/// Whether the page's ratings are the expected ones, as [`assert_same_ratings`] holds them.
fn same_ratings(page: &BTreeMap<String, f64>, expected: &BTreeMap<String, f64>) -> bool {
    page.keys().eq(expected.keys())
        && page
            .iter()
            .all(|(who, rating)| (rating - expected[who]).abs() < 1e-9)
}

async fn read_community(rig: &Rig) {
    rig.click("#community-read").await;
    rig.wait_for(
        "the community leaderboard to be read",
        SETTLE,
        "const s = document.querySelector('#community-status'); return !!s && /^(Read \\d|Stopped|Listing)/.test(s.innerText);",
    )
    .await;
}

#[test]
fn a_vote_an_evaluation_and_a_run_published_in_one_visit_are_read_back_pooled_and_opened_by_address(
) {
    browser_test(|rig: Rig| async move {
        let hub = start_hub();
        hub.fault(json!({ "clear": true })).await;
        seed_fixture(hub).await;
        script(&rig);
        let settings = json!({
            "model": "mock/model",
            "base_url": rig.mock.base_url(),
            "temperature": 0.0,
            "max_tokens": 512,
            "max_steps": 3,
            "protocol": "text",
        });
        rig.open_app_with(settings, BOB_TOKEN, false).await;
        evaluate_two_questions(&rig).await;
        vote_react_best(&rig).await;
        hub.clear_log().await;

        // The Hub's views are a chunk of their own: not fetched until a section is opened.
        let hub_chunk = "return performance.getEntriesByType('resource').some(e => /\\/split_hub-[0-9a-f]+\\.wasm$/.test(e.name))";
        rig.wait_for(
            "the publish section's stand-in",
            SETTLE,
            "return !!document.querySelector('#hub-publish-section')",
        )
        .await;
        assert_eq!(
            rig.js(hub_chunk).await,
            json!(false),
            "the Hub's chunk came unasked"
        );

        // Choose: the vote (ticked by default), the evaluation and the run; review.
        open_publish(&rig, hub, 1).await;
        assert_eq!(rig.js(hub_chunk).await, json!(true));
        rig.click(".hub-eval").await;
        rig.click(".hub-run").await;
        assert!(
            hub.log().await.is_empty(),
            "the Hub was asked something before Review"
        );
        rig.click("#hub-review").await;
        rig.wait_for(
            "the review",
            SETTLE,
            "return !!document.querySelector('#hub-commit-body') || !!document.querySelector('#hub-problem')",
        )
        .await;
        let shown = rig
            .js("const e = document.querySelector('#hub-commit-body'); return e ? e.textContent : document.querySelector('#hub-problem').innerText")
            .await;
        let shown = shown.as_str().unwrap().to_string();
        assert!(shown.starts_with("{\"key\":\"header\""), "{shown}");
        // Review asked who the token is and what the repository holds, and wrote nothing.
        let asked: Vec<String> = hub
            .log()
            .await
            .iter()
            .filter(|r| r.method != "OPTIONS")
            .map(|r| format!("{} {}", r.method, r.path))
            .collect();
        assert_eq!(
            asked,
            [
                "GET /api/whoami-v2".to_string(),
                format!("GET /api/datasets/{PUBLISHED}"),
            ],
            "a new repository has no files to list"
        );
        assert!(rig
            .js("return document.querySelector('#hub-review-what').innerText")
            .await
            .as_str()
            .unwrap()
            .starts_with(&format!("To a new public repository {PUBLISHED} (")));
        rig.js("document.querySelector('#hub-publish-section').scrollIntoView(); return true;")
            .await;
        let shot = rig.screenshot("hub-review.png").await;
        support::browser::keep_for_docs(&shot, "hub-review.png");
        let (summary, files) = files_of_body(&shown);
        assert_eq!(
            summary,
            "Publish 1 blind vote, 1 evaluation and 1 run from ReAct Arena"
        );
        let paths: Vec<&str> = files.keys().map(String::as_str).collect();
        assert_eq!(paths.len(), 5, "{paths:?}");
        assert!(paths.contains(&"README.md"));
        let vote_path = *paths.iter().find(|p| p.starts_with("votes/")).unwrap();
        let run_path = *paths.iter().find(|p| p.starts_with("runs/")).unwrap();
        assert!(paths.iter().any(|p| p.ends_with("/rows.csv")));
        assert!(paths.iter().any(|p| p.ends_with("/table.csv")));
        // The vote: four panels, ReAct's the best; no question text and no answers.
        let vote: Value = serde_json::from_str(files[vote_path].trim_end()).unwrap();
        let winner = vote["winner"].as_u64().unwrap() as usize;
        assert_eq!(vote["panels"][winner]["mode"], "react");
        assert_eq!(vote["panels"].as_array().unwrap().len(), 4);
        assert!(vote.get("question").is_none() && !files[vote_path].contains("\"answer\""));
        assert!(!files[vote_path].contains(QUESTION));

        // Publish: create (or find) the repository, the upload check, one commit.
        rig.click("#hub-publish").await;
        rig.wait_for(
            "the commit",
            SETTLE,
            "return !!document.querySelector('#hub-done') || !!document.querySelector('#hub-problem')",
        )
        .await;
        let commit_link = rig
            .js("const a = document.querySelector('#hub-commit-url'); return a ? a.href : document.querySelector('#hub-problem').innerText")
            .await;
        let commit_link = commit_link.as_str().unwrap();
        assert!(
            commit_link.starts_with(&format!("{}/datasets/{PUBLISHED}/commit/", hub.base_url)),
            "{commit_link}"
        );
        let log = hub.log().await;
        // Preflights carry no token; every other request is the publish's own.
        assert!(log
            .iter()
            .all(|r| r.method != "OPTIONS" || !r.has_authorization));
        let log: Vec<_> = log.into_iter().filter(|r| r.method != "OPTIONS").collect();
        let sent: Vec<String> = log
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect();
        assert_eq!(
            sent[2..],
            [
                "POST /api/repos/create".to_string(),
                format!("POST /api/datasets/{PUBLISHED}/preupload/main"),
                format!("POST /api/datasets/{PUBLISHED}/commit/main"),
            ]
        );
        for r in &log {
            assert_eq!(
                r.authorization.as_deref(),
                Some(format!("Bearer {BOB_TOKEN}").as_str()),
                "{} {}",
                r.method,
                r.path
            );
        }
        let commit = log.last().unwrap();
        assert_eq!(commit.content_type.as_deref(), Some("application/x-ndjson"));
        assert_eq!(
            commit.body.as_deref(),
            Some(shown.as_str()),
            "the body sent is not the one shown"
        );

        // The official client reads back exactly what the page showed.
        let back = read_back(hub, PUBLISHED);
        let read: BTreeMap<String, String> = serde_json::from_value(back["files"].clone()).unwrap();
        assert_eq!(read, files);
        assert_eq!(back["card"]["license"], "cc-by-4.0");
        assert!(back["card"]["tags"]
            .as_array()
            .unwrap()
            .contains(&json!("react-arena")));
        assert!(back["tags"]
            .as_array()
            .unwrap()
            .contains(&json!("react-arena")));
        assert_eq!(back["listed"], true);
        assert!(
            read["README.md"].contains("| `votes/` | 1 |"),
            "{}",
            read["README.md"]
        );
        // And so does the JavaScript client.
        let back_js = read_back_js(hub, PUBLISHED);
        let read_js: BTreeMap<String, String> =
            serde_json::from_value(back_js["files"].clone()).unwrap();
        assert_eq!(read_js, files);
        assert_eq!(back_js["card"]["license"], "cc-by-4.0");
        assert!(back_js["tags"]
            .as_array()
            .unwrap()
            .contains(&json!("react-arena")));
        assert_eq!(back_js["listed"], true);
        let run = RunFile::from_json(&read[run_path]).unwrap();
        assert_eq!(run.records.len(), 4);
        let rows = &read[*paths.iter().find(|p| p.ends_with("/rows.csv")).unwrap()];
        assert_eq!(rows.lines().count(), 1 + 8, "{rows}");
        // For the closing note: the body's header and files, and what the client read.
        println!(
            "commit body sent: {} bytes; header {}; files {:?}",
            shown.len(),
            shown.lines().next().unwrap(),
            files.iter().map(|(p, t)| (p, t.len())).collect::<Vec<_>>()
        );
        println!("vote line: {}", files[vote_path].trim_end());
        println!("rows.csv:\n{rows}");
        println!(
            "@huggingface/hub read back: card {}, tags {}, listed {}, files {:?}",
            back_js["card"],
            back_js["tags"],
            back_js["listed"],
            read_js
                .iter()
                .map(|(p, t)| (p, t.len()))
                .collect::<Vec<_>>()
        );
        println!(
            "huggingface_hub read back: card {}, tags {}, listed {}, files {:?}",
            back["card"],
            back["tags"],
            back["listed"],
            read.iter().map(|(p, t)| (p, t.len())).collect::<Vec<_>>()
        );

        // The community view: the fixture's public repositories and this one, pooled.
        hub.clear_log().await;
        rig.click("#community > summary").await;
        let title = rig.js("return document.title").await;
        read_community(&rig).await;
        let status = rig
            .js("return document.querySelector('#community-status').innerText")
            .await;
        assert!(status.as_str().unwrap().starts_with("Read "), "{status}");
        let listed = rig
            .js("return Array.from(document.querySelectorAll('.community-repo')).map(li => li.dataset.repo)")
            .await;
        for repo in [
            "alice/react-arena-results",
            "bob/arena-votes",
            PUBLISHED,
            "carol/arena",
            "dave/markup-models",
            "mallory/skew-attempt",
        ] {
            assert!(
                listed.as_array().unwrap().contains(&json!(repo)),
                "{repo} not in {listed}"
            );
        }
        assert!(
            !listed.to_string().contains("erin/"),
            "the private repository is read: {listed}"
        );
        for r in hub.log().await {
            assert!(
                !r.has_authorization,
                "the token went with {} {}",
                r.method, r.path
            );
            assert!(!r.path.contains("erin"), "{}", r.path);
            assert!(
                !r.path.ends_with("README.md"),
                "a card was read: {}",
                r.path
            );
        }
        let mut pooled = Value::Object(fixture());
        pooled[PUBLISHED] = json!({ "private": false, "files": back["files"] });
        let (votes, expected) = reference(&pooled, &[]);
        // Ranked once the reading has ended: a moment after the status says so.
        let counted = json!(format!("{votes} votes counted."));
        assert_eq!(
            rig.wait_for_value(
                "the votes counted",
                SETTLE,
                "return document.querySelector('#community-votes')?.innerText ?? null",
                |v| *v == counted,
            )
            .await,
            json!(format!("{votes} votes counted."))
        );
        let ratings = rig
            .wait_until(
                "the pooled ratings",
                SETTLE,
                || community_ratings(&rig),
                |r| same_ratings(r, &expected),
            )
            .await;
        assert_same_ratings(&ratings, &expected);
        println!("pooled ratings (page = reference within 1e-9): {expected:#?}");
        // Markup in a model's name is text; the card with a script was never read.
        let markup = rig
            .js("return Array.from(document.querySelectorAll('#community-table .leaderboard-model')).map(td => td.innerText).filter(t => t.includes('onerror'))")
            .await;
        assert_eq!(markup, json!(["<img src=x onerror=alert(1)>"]));
        assert_eq!(
            rig.js("return document.querySelectorAll('#community img').length")
                .await,
            json!(0)
        );
        assert_eq!(rig.js("return document.title").await, title);
        // The pooled evaluations: ReAct on Qwen rests on alice's 10 and bob's 12 questions;
        // this visit's evaluation gives mock/model 2 questions a mode, EM 50.
        let evals = rig
            .js("return Array.from(document.querySelectorAll('#community-evaluations tbody tr')).map(tr => Array.from(tr.children).map(c => c.innerText))")
            .await;
        let row = |mode: &str, model: &str| {
            evals
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r[0] == mode && r[1] == model)
                .unwrap_or_else(|| panic!("no {mode} {model} in {evals:#}"))
                .clone()
        };
        assert_eq!(row("ReAct", "Qwen/Qwen2.5-7B-Instruct")[2], "22");
        assert_eq!(row("ReAct", "Qwen/Qwen2.5-7B-Instruct")[5], "27.4");
        assert_eq!(
            row("CodeAct", "mock/model").as_array().unwrap()[2..5],
            [json!("2"), json!("50.0"), json!("50.0")]
        );
        assert_eq!(row("CodeAct", "mock/model")[5], "—");
        rig.js("document.querySelector('#community').scrollIntoView(); return true;")
            .await;
        let shot = rig.screenshot("community-leaderboard.png").await;
        support::browser::keep_for_docs(&shot, "community-leaderboard.png");
        // Leaving bob's votes out ranks without them, still as the reference does.
        rig.click(".community-repo[data-repo='bob/arena-votes'] .community-include")
            .await;
        let (_, without) = reference(&pooled, &["bob/arena-votes"]);
        rig.wait_for(
            "the ranking without bob's votes",
            Duration::from_secs(10),
            &format!(
                "return document.querySelector('#community-votes').innerText !== {:?}",
                format!("{votes} votes counted.")
            ),
        )
        .await;
        let ratings = rig
            .wait_until(
                "the ratings without bob's votes",
                SETTLE,
                || community_ratings(&rig),
                |r| same_ratings(r, &without),
            )
            .await;
        assert_same_ratings(&ratings, &without);

        // The published run opens by its address: one request, the file, with no token.
        let link = rig
            .js("return document.querySelector('.hub-run-link').href")
            .await;
        let link = link.as_str().unwrap().to_string();
        assert!(
            link.contains(&format!("?hub={PUBLISHED}/{run_path}")),
            "{link}"
        );
        let model_calls = rig.mock.requests().len();
        hub.clear_log().await;
        rig.client.goto(&link).await.unwrap();
        rig.wait_for(
            "the published run",
            SETTLE,
            "return document.querySelectorAll('section.panel .answer').length === 4",
        )
        .await;
        let fetched: Vec<String> = hub
            .log()
            .await
            .iter()
            .map(|r| format!("{} {} {}", r.method, r.path, r.has_authorization))
            .collect();
        assert_eq!(
            fetched,
            [format!(
                "GET /datasets/{PUBLISHED}/resolve/main/{run_path} false"
            )]
        );
        assert_eq!(rig.mock.requests().len(), model_calls, "a model was called");
        let elsewhere = rig
            .js("return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))")
            .await;
        assert_eq!(
            elsewhere,
            json!([format!(
                "{}/datasets/{PUBLISHED}/resolve/main/{run_path}",
                hub.base_url
            )])
        );
        // Published with answers unticked: each panel's answer says it was left out.
        let answers = rig
            .js("return Array.from(document.querySelectorAll('section.panel .answer')).map(a => a.innerText.trim()).sort()")
            .await;
        assert!(
            answers.as_array().unwrap().iter().all(|a| a
                .as_str()
                .unwrap()
                .contains("left out: answers were not published")),
            "{answers}"
        );
        assert!(!answers.to_string().contains("42 by"), "{answers}");

        // An address naming anything but a run file in a repository is said, and not fetched.
        hub.clear_log().await;
        rig.client
            .goto(&format!(
                "{}?hub=https%3A%2F%2Fevil.example%2Fa%2Fruns%2Fx.json",
                rig.app_url
            ))
            .await
            .unwrap();
        let alert = rig.alert_text(SETTLE).await;
        assert!(
            alert.starts_with("Cannot show the run published on the Hub: "),
            "{alert}"
        );
        assert!(hub.log().await.is_empty());
        let elsewhere = rig
            .js("return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))")
            .await;
        assert_eq!(elsewhere, json!([]));
    });
}

/// What the community view says of one repository.
async fn repo_line(rig: &Rig, repo: &str) -> String {
    rig.js(&format!(
        "const li = document.querySelector(\".community-repo[data-repo='{repo}']\"); return li ? li.innerText : 'not listed';"
    ))
    .await
    .as_str()
    .unwrap()
    .to_string()
}

async fn community_status(rig: &Rig) -> String {
    rig.js("return document.querySelector('#community-status').innerText")
        .await
        .as_str()
        .unwrap()
        .to_string()
}

const TAGGED_CARD: &str = "---\nlicense: mit\ntags:\n- react-arena\n---\n# x\n";

#[test]
fn hostile_hub_replies_are_bounded_said_and_stop_without_losing_the_form() {
    browser_test(|rig: Rig| async move {
        let hub = start_hub();
        hub.fault(json!({ "clear": true })).await;
        rig.mock
            .script_always(&[QUESTION], Reply::text("Answer: 42"));
        rig.open_app_with(
            json!({ "model": "mock/model", "base_url": rig.mock.base_url(), "protocol": "text" }),
            BOB_TOKEN,
            false,
        )
        .await;
        rig.ask(QUESTION, "all").await;
        rig.wait_until_settled(SETTLE).await;
        open_publish(&rig, hub, 0).await;

        // A list of 10,000 datasets in one reply: its first 50 are read, and the view says so.
        hub.fault(json!({ "many_datasets": 10000 })).await;
        rig.click("#community > summary").await;
        read_community(&rig).await;
        let status = community_status(&rig).await;
        assert!(
            status.contains("The Hub lists more; the first 50 entries were read."),
            "{status}"
        );
        let listed = rig
            .js("return document.querySelectorAll('.community-repo').length")
            .await;
        assert_eq!(listed, json!(50), "{status}");
        hub.fault(json!({ "clear": true })).await;

        // A vote file of 200 MB that its listing calls 100 bytes: read to the cap, no further;
        // a repository that answers slowly: its time limit, and the others are read.
        hub.seed(
            "mallory",
            "huge-votes",
            false,
            &[("README.md", TAGGED_CARD)],
        )
        .await;
        hub.fault(json!({ "huge_file": {
            "repo": "mallory/huge-votes", "path": "votes/big.jsonl",
            "bytes": 209_715_200u64, "declared_size": 100 } }))
            .await;
        hub.seed(
            "slow",
            "arena",
            false,
            &[("README.md", TAGGED_CARD), ("votes/a.jsonl", "")],
        )
        .await;
        hub.fault(json!({ "slow": { "repo": "slow/arena", "seconds": 30 } }))
            .await;
        read_community(&rig).await;
        let huge = repo_line(&rig, "mallory/huge-votes").await;
        assert!(
            huge.contains("votes/big.jsonl is larger than the 5 MB read from a repository: its first 5120 KB were read."),
            "{huge}"
        );
        assert!(huge.contains(", 5120 KB"), "{huge}");
        let slow = repo_line(&rig, "slow/arena").await;
        assert!(
            slow.contains("the Hub did not answer within 10 s"),
            "{slow}"
        );
        assert!(community_status(&rig).await.starts_with("Read "));

        // Stop while the slow one is read: the view stops at once and says what it has.
        read_community_stopping(&rig).await;

        // 429 on the list: the Hub's words and its wait.
        hub.fault(json!({ "clear": true })).await;
        hub.fault(json!({ "status": { "path_prefix": "/api/datasets", "code": 429, "times": 1 } }))
            .await;
        read_community(&rig).await;
        let status = community_status(&rig).await;
        assert!(
            status.contains("(HTTP 429)") && status.contains("try again in 55 s"),
            "{status}"
        );

        // Publishing: 401, 403 and 429 are said, and the choices and the review stay.
        type_into(&rig, "#hub-repo", "bob/hostile-errors").await;
        rig.click(".hub-run").await;
        hub.fault(json!({ "status": {
            "path_prefix": "/api/datasets/bob/hostile-errors", "code": 401, "times": 1 } }))
            .await;
        rig.click("#hub-review").await;
        let problem = wait_problem(&rig).await;
        assert!(
            problem.contains("(HTTP 401)") && problem.contains("Check the token in Settings"),
            "{problem}"
        );
        assert_eq!(
            rig.js("return [document.querySelector('#hub-repo').value, document.querySelector('.hub-run').checked]")
                .await,
            json!(["bob/hostile-errors", true]),
            "the form lost what the user chose"
        );
        hub.fault(json!({ "status": {
            "path_prefix": "/api/datasets/bob/hostile-errors/commit", "code": 403 } }))
            .await;
        rig.click("#hub-review").await;
        rig.wait_for(
            "the review",
            SETTLE,
            "return !!document.querySelector('#hub-publish')",
        )
        .await;
        let body = rig
            .js("return document.querySelector('#hub-commit-body').textContent")
            .await;
        rig.click("#hub-publish").await;
        let problem = wait_problem(&rig).await;
        assert!(
            problem.contains("Committing to bob/hostile-errors failed (HTTP 403)")
                && problem.contains("write access"),
            "{problem}"
        );
        assert_eq!(
            rig.js("return document.querySelector('#hub-commit-body').textContent")
                .await,
            body,
            "the review is gone after the refusal"
        );
        rig.click("#hub-back").await;
        type_into(&rig, "#hub-repo", "").await;
        hub.fault(json!({ "status": { "path_prefix": "/api/whoami-v2", "code": 429 } }))
            .await;
        rig.click("#hub-review").await;
        let problem = wait_problem(&rig).await;
        assert!(
            problem.contains("Asking the Hub who your token is failed (HTTP 429)")
                && problem.contains("try again in 55 s"),
            "{problem}"
        );
        // Private ticked for a repository that is public: refused before anything is written.
        hub.fault(json!({ "clear": true })).await;
        hub.seed("bob", "public-one", false, &[("README.md", TAGGED_CARD)])
            .await;
        type_into(&rig, "#hub-repo", "bob/public-one").await;
        rig.click("#hub-private").await;
        rig.click("#hub-review").await;
        let problem = wait_problem(&rig).await;
        assert!(
            problem.starts_with("bob/public-one is public: what you publish there is public."),
            "{problem}"
        );
    });
}

async fn wait_problem(rig: &Rig) -> String {
    rig.wait_for(
        "the problem to be said",
        SETTLE,
        "return !!document.querySelector('#hub-problem') && !document.querySelector('#hub-working')",
    )
    .await;
    rig.js("return document.querySelector('#hub-problem').innerText")
        .await
        .as_str()
        .unwrap()
        .to_string()
}

/// Starts reading, presses Stop while the slow repository holds it, and checks the view.
async fn read_community_stopping(rig: &Rig) {
    rig.click("#community-read").await;
    rig.wait_for(
        "the slow repository to be asked",
        SETTLE,
        "const s = document.querySelector('#community-status'); return !!s && s.innerText.startsWith('Reading') && !!document.querySelector('#community-stop');",
    )
    .await;
    rig.click("#community-stop").await;
    rig.wait_for(
        "the view to stop",
        Duration::from_secs(5),
        "return document.querySelector('#community-status').innerText.startsWith('Stopped:')",
    )
    .await;
}
