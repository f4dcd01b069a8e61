//! The Hub's rows of the sixth attack review (issue 58), in headless Chromium against the Hub
//! stand-in: a run published without its question, answers or tool results carries none of
//! them, and addresses only as origins (row 3); one account's 20,000 votes weigh as 20 and
//! cannot rate its own model (row 4); repositories listed first cannot push the honest votes
//! out of the 64-contestant pool (row 5); a 5 MB repository of 8-panel ties, and four of them,
//! are ranked without holding the page, within a stated work budget, with progress, Stop and
//! no work done again for a set of repositories ranked before (row 6).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use react_arena::agent::Mode;
use react_arena::hub::ranking::WORK_BUDGET;
use serde_json::{json, Value};
use support::browser::{browser_test, Rig};
use support::hub::{pooled_reference, start_hub, HubStandIn, BOB_TOKEN};
use support::mcp::{Behaviour, HostileMcp, INJECTION};
use support::mock::Reply;

const SETTLE: Duration = Duration::from_secs(90);
/// The longest a task of the page may hold it. Wall time on a busy machine: only far past
/// what a slice should take counts as holding the page (before: 14.5 s for one repository).
const HOLDS_THE_PAGE_MS: f64 = 1_000.0;

const TAGGED_CARD: &str = "---\nlicense: mit\ntags:\n- react-arena\n---\n# x\n";

/// Sets an input's value as typing would.
async fn type_into(rig: &Rig, css: &str, value: &str) {
    rig.js(&format!(
        "const e = document.querySelector({css:?}); e.value = {value:?}; e.dispatchEvent(new Event('input')); return true;"
    ))
    .await;
}

/// The files a commit body carries, decoded: path → text.
fn files_of_body(body: &str) -> BTreeMap<String, String> {
    use base64::Engine;
    body.lines()
        .skip(1)
        .map(|l| {
            let l: Value = serde_json::from_str(l).unwrap();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(l["value"]["content"].as_str().unwrap())
                .unwrap();
            (
                l["value"]["path"].as_str().unwrap().to_string(),
                String::from_utf8(bytes).unwrap(),
            )
        })
        .collect()
}

/// Presses Review and returns the commit's body as the page shows it.
async fn review(rig: &Rig) -> String {
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
    shown
}

/// The one run file of a commit body.
fn run_file_of(body: &str) -> String {
    let files = files_of_body(body);
    let runs: Vec<&String> = files
        .iter()
        .filter(|(p, _)| p.starts_with("runs/"))
        .map(|(_, t)| t)
        .collect();
    assert_eq!(runs.len(), 1, "{:?}", files.keys());
    runs[0].clone()
}

const QUESTION: &str = "Which city hosts the QUESTION-SENTINEL games this year?";
const ANSWER: &str = "ANSWER-SENTINEL: Lyon hosts them";
/// What the MCP server's `daily_news` gives: recognisable by this part.
const MCP_RESULT_PART: &str = "SYSTEM NOTICE TO THE ASSISTANT";

#[test]
fn a_run_published_without_its_question_answers_or_tool_results_carries_none_of_them() {
    browser_test(|rig: Rig| async move {
        let hub = start_hub();
        hub.fault(json!({ "clear": true })).await;
        let hostile = HostileMcp::start().await;
        let news = hostile.url(Behaviour::Injecting);
        rig.mock.script_all_of(
            &[Mode::Act.prompt_heading(), QUESTION],
            [
                Reply::text("Action: daily_news\nAction Input: {}"),
                Reply::text(&format!("Answer: {ANSWER}")),
            ],
        );
        rig.open_app_with(
            json!({
                "model": "mock/model", "base_url": rig.mock.base_url(), "protocol": "text",
                "max_steps": 3, "max_tokens": 512,
            }),
            BOB_TOKEN,
            false,
        )
        .await;
        // An MCP server whose read-only tool the run calls.
        rig.open_settings().await;
        rig.wait_for(
            "the MCP servers section",
            Duration::from_secs(20),
            "return !!document.querySelector('#mcp-servers')",
        )
        .await;
        rig.js("document.querySelector('#mcp-servers').open = true; return true;")
            .await;
        type_into(&rig, "#mcp-url", &news).await;
        type_into(&rig, "#mcp-name", "News").await;
        rig.click("#mcp-connect").await;
        rig.wait_for(
            "the server to be connected",
            Duration::from_secs(30),
            "const s = document.querySelector('#mcp-status'); return !!s && s.textContent.startsWith('Connected');",
        )
        .await;
        rig.open_settings().await;
        rig.js("const s = document.querySelector('#settings'); if (s.open) { s.open = false; } return true;")
            .await;

        rig.ask(QUESTION, "act").await;
        rig.wait_until_settled(SETTLE).await;
        let panel = rig.panel("act").await;
        assert!(
            panel.answer_text().contains("ANSWER-SENTINEL"),
            "{panel:#?}"
        );
        assert_eq!(
            hostile
                .requests_to(Behaviour::Injecting)
                .iter()
                .filter(|r| r.body.contains("tools/call"))
                .count(),
            1,
            "the run called the MCP tool once"
        );

        // Publish the run with the defaults: no question text, no answers, no tool results.
        rig.wait_for(
            "the publish section",
            SETTLE,
            "return !!document.querySelector('#hub-publish-section')",
        )
        .await;
        rig.click("#hub-publish-section > summary").await;
        rig.wait_for(
            "the run to choose",
            Duration::from_secs(20),
            "return document.querySelectorAll('.hub-run').length >= 1",
        )
        .await;
        type_into(&rig, "#hub-url", &hub.base_url).await;
        type_into(&rig, "#hub-repo", "bob/row-three").await;
        rig.click(".hub-run").await;
        let shown = review(&rig).await;
        let run = run_file_of(&shown);
        let base = rig.mock.base_url();
        let base_origin = base.trim_end_matches("/v1");
        let mcp_origin = news.trim_end_matches("/injecting/mcp");
        for (what, text) in [
            ("the question", "QUESTION-SENTINEL"),
            ("the answer", "ANSWER-SENTINEL"),
            ("the MCP result", MCP_RESULT_PART),
            ("the base URL", base.as_str()),
            ("the MCP address", news.as_str()),
            ("the MCP address's path", "/injecting/mcp"),
        ] {
            assert!(!run.contains(text), "{what} is in the run file: {run}");
        }
        assert!(INJECTION.contains(MCP_RESULT_PART));
        // What stays: the run's shape, the addresses' origins, the question's hash.
        for kept in [
            format!("\"{base_origin}\""),
            format!("\"{mcp_origin}\""),
            "\"daily_news\"".into(),
            "\"mock/model\"".into(),
            "question left out; SHA-256".into(),
        ] {
            assert!(run.contains(&kept), "{kept} is not in the run file: {run}");
        }
        println!(
            "run file published with nothing ticked: {} bytes",
            run.len()
        );

        // Ticked, each comes back (the addresses stay origins).
        rig.click("#hub-back").await;
        for tick in ["#hub-question-text", "#hub-answers", "#hub-tool-results"] {
            rig.click(tick).await;
        }
        let shown = review(&rig).await;
        let run = run_file_of(&shown);
        for text in ["QUESTION-SENTINEL", "ANSWER-SENTINEL", MCP_RESULT_PART] {
            assert!(run.contains(text), "{text} is not in the ticked run file");
        }
        assert!(!run.contains(&base) && !run.contains("/injecting/mcp"));

        // Publish: the body sent is the one shown, byte for byte.
        hub.clear_log().await;
        rig.click("#hub-publish").await;
        rig.wait_for(
            "the commit",
            SETTLE,
            "return !!document.querySelector('#hub-done') || !!document.querySelector('#hub-problem')",
        )
        .await;
        let sent = hub
            .log()
            .await
            .into_iter()
            .rfind(|r| r.method == "POST" && r.path.contains("/commit/"))
            .expect("a commit");
        assert_eq!(sent.body.as_deref(), Some(shown.as_str()));
    });
}

/// Opens the community section with the stand-in as the Hub.
async fn open_community(rig: &Rig, hub: &HubStandIn) {
    rig.js(&format!(
        "localStorage.setItem('react-arena.hub-url', {:?}); return true;",
        hub.base_url
    ))
    .await;
    // A first visit keeps nothing: the Hub's sections come with the leaderboard, once opened.
    rig.js("if (!document.querySelector('#community')) { const l = document.querySelector('#leaderboard'); if (l && !l.open) { l.open = true; } } return true;")
        .await;
    rig.wait_for(
        "the community section",
        SETTLE,
        "return !!document.querySelector('#community')",
    )
    .await;
    rig.click("#community > summary").await;
    rig.wait_for(
        "the community view",
        SETTLE,
        "return !!document.querySelector('#community-read')",
    )
    .await;
}

/// The table is ranked: on this page, its ranking says so; on a page that ranks as it reads
/// (before), the table is there once the reading is.
const RANKED: &str = "return (() => { const f = document.querySelector('#community-fit-status'); \
    if (f) return f.dataset.state === 'done' || f.dataset.state === 'kept'; \
    const s = document.querySelector('#community-status'); \
    return !!s && s.innerText.startsWith('Read ') && document.querySelectorAll('#community-table tbody tr').length > 0; })()";

/// [`RANKED`], and `condition` (a JavaScript expression) holds.
fn ranked_and(condition: &str) -> String {
    format!(
        "return ({condition}) && {}",
        RANKED.trim_start_matches("return ")
    )
}

/// Reads the community leaderboard and waits for its ranking.
async fn read_and_rank(rig: &Rig) {
    rig.click("#community-read").await;
    rig.wait_for(
        "the community leaderboard to be read",
        SETTLE,
        "const s = document.querySelector('#community-status'); return !!s && /^(Read \\d|Stopped|Listing)/.test(s.innerText);",
    )
    .await;
    rig.wait_for("the ranking", SETTLE, RANKED).await;
}

/// The community table's rows: "mode | model" → [rating or null, "W / T / L"].
async fn table_rows(rig: &Rig) -> BTreeMap<String, (Option<f64>, String)> {
    let rows = rig
        .js("return Array.from(document.querySelectorAll('#community-table tbody tr')).map(tr => [tr.children[0].innerText + ' | ' + tr.children[1].innerText, tr.dataset.rating || '', tr.children[2].innerText])")
        .await;
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_string(),
                (
                    r[1].as_str().unwrap().parse().ok(),
                    r[2].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect()
}

async fn text_of(rig: &Rig, css: &str) -> String {
    rig.js(&format!(
        "const e = document.querySelector({css:?}); return e ? e.innerText : '';"
    ))
    .await
    .as_str()
    .unwrap()
    .to_string()
}

/// A vote line: `panels` (mode, model), `winner` a panel's index or a word, on question `q`.
fn vote_line(q: u64, panels: &[(&str, &str)], winner: Value) -> String {
    let panels: Vec<Value> = panels
        .iter()
        .map(|(mode, model)| json!({ "mode": mode, "model": model }))
        .collect();
    json!({
        "format": "react-arena/vote", "version": 1, "app_version": "0.1.0",
        "created": 1795000000000.0, "question_sha256": format!("{q:064x}"),
        "protocol": "text", "panels": panels, "winner": winner,
    })
    .to_string()
        + "\n"
}

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/hub/community.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The honest best of the fixture, and mallory's model.
const HONEST_BEST: &str = "ReAct | meta-llama/Llama-3.1-8B-Instruct";
const MALLORY_MODEL: &str = "ReAct | mallory/mega-7b";

#[test]
fn one_account_s_20_000_votes_weigh_as_20_and_cannot_rate_its_own_model() {
    browser_test(|rig: Rig| async move {
        let hub = start_hub();
        hub.fault(json!({ "clear": true })).await;
        hub.reset().await;
        hub.seed_community_fixture().await;
        // Mallory: 20,000 votes in two repositories, each on a new question, her model
        // beating the honest best 19 times in 20.
        for part in 0..2u64 {
            let votes: String = (0..10_000u64)
                .map(|i| {
                    let q = part * 10_000 + i;
                    vote_line(
                        1_000_000 + q,
                        &[
                            ("react", "mallory/mega-7b"),
                            ("react", "meta-llama/Llama-3.1-8B-Instruct"),
                        ],
                        json!(usize::from(q % 20 == 0)),
                    )
                })
                .collect();
            hub.seed(
                "mallory",
                &format!("flood-{part}"),
                false,
                &[("README.md", TAGGED_CARD), ("votes/a.jsonl", &votes)],
            )
            .await;
        }
        rig.open_app_overriding(json!({})).await;
        open_community(&rig, hub).await;
        read_and_rank(&rig).await;
        let rows = table_rows(&rig).await;
        let mallory = rows
            .get(MALLORY_MODEL)
            .cloned()
            .expect("mallory's model listed");
        let best = rows[HONEST_BEST].0;
        println!(
            "row 4: mallory's model {:?} ({}), the honest best {best:?}",
            mallory.0, mallory.1
        );
        assert_eq!(
            mallory.0, None,
            "one account rated its own model: {mallory:?} against the honest best's {best:?}"
        );
        assert_eq!(mallory.1, "19000 / 0 / 1000");
        // Her votes move no honest rating (her model is unrated, so her votes' pairs are not
        // in the fit): the table is the reference's, with and without her.
        let (_, expected) = pooled_reference(&fixture(), &[]);
        let rated: BTreeMap<&String, f64> = rows
            .iter()
            .filter_map(|(k, (r, _))| Some((k, (*r)?)))
            .collect();
        assert_eq!(rated.len(), expected.len(), "{rated:?}");
        for (who, rating) in &rated {
            assert!(
                (rating - expected[*who]).abs() < 1e-9,
                "{who}: {rating} against {}",
                expected[*who]
            );
        }
        let voters = text_of(&rig, "#community-voters").await;
        assert!(
            voters.contains("mallory (20012 votes, weighing as 20)"),
            "{voters}"
        );
        hub.reset().await;
    });
}

#[test]
fn repositories_listed_first_cannot_push_the_honest_votes_out_of_the_pool() {
    browser_test(|rig: Rig| async move {
        let hub = start_hub();
        hub.fault(json!({ "clear": true })).await;
        hub.reset().await;
        hub.seed_community_fixture().await;
        // The vote a visit publishes (bob's): 60 honest votes with the fixture's 59.
        let page_vote = vote_line(
            42,
            &[
                ("think", "mock/model"),
                ("act", "mock/model"),
                ("react", "mock/model"),
                ("codeact", "mock/model"),
            ],
            json!(2),
        );
        hub.seed(
            "bob",
            "react-arena-results",
            false,
            &[("README.md", TAGGED_CARD), ("votes/v.jsonl", &page_vote)],
        )
        .await;
        // Zed's four repositories, the most liked (listed first): 64 made-up contestants.
        for r in 0..4u64 {
            let votes: String = (0..8u64)
                .map(|i| {
                    let a = format!("zed/fake-{:02}", r * 16 + 2 * i);
                    let b = format!("zed/fake-{:02}", r * 16 + 2 * i + 1);
                    vote_line(r * 100 + i, &[("react", &a), ("react", &b)], json!(0))
                })
                .collect();
            hub.seed_liked(
                "zed",
                &format!("fakes-{r}"),
                1_000 - r,
                &[("README.md", TAGGED_CARD), ("votes/a.jsonl", &votes)],
            )
            .await;
        }
        rig.open_app_overriding(json!({})).await;
        open_community(&rig, hub).await;
        read_and_rank(&rig).await;
        let listed = rig
            .js("return Array.from(document.querySelectorAll('.community-repo')).map(li => li.dataset.repo).slice(0, 4)")
            .await;
        assert_eq!(
            listed,
            json!(["zed/fakes-0", "zed/fakes-1", "zed/fakes-2", "zed/fakes-3"]),
            "the stand-in lists by likes"
        );
        let with_zed = table_rows(&rig).await;
        // Zed's repositories left out: the honest table.
        for r in 0..4 {
            rig.click(&format!(
                ".community-repo[data-repo='zed/fakes-{r}'] .community-include"
            ))
            .await;
        }
        rig.wait_for(
            "the ranking without zed",
            SETTLE,
            &ranked_and("!Array.from(document.querySelectorAll('#community-table tbody tr')).some(tr => tr.children[1].innerText.startsWith('zed/'))"),
        )
        .await;
        let honest = table_rows(&rig).await;
        let honest_votes = text_of(&rig, "#community-votes").await;
        assert_eq!(honest_votes, "60 votes counted.");
        // Every honest contestant is in the table with zed's repositories too, with every
        // honest vote counted (the same wins, ties and losses), and rated as without them.
        let kept: Vec<&String> = honest
            .keys()
            .filter(|k| with_zed.get(*k).map(|r| &r.1) == Some(&honest[*k].1))
            .collect();
        println!(
            "row 5: {} of {} honest contestants keep all their votes with zed's repositories",
            kept.len(),
            honest.len()
        );
        assert_eq!(kept.len(), honest.len(), "with zed: {with_zed:#?}");
        for (who, (rating, _)) in &honest {
            let (x, y) = (
                with_zed[who].0.unwrap_or(f64::NAN),
                rating.unwrap_or(f64::NAN),
            );
            assert!(
                (x - y).abs() < 1e-9 || (x.is_nan() && y.is_nan()),
                "{who}: {x} with zed, {y} without"
            );
        }
        let zed_listed = with_zed.keys().filter(|k| k.contains("zed/")).count();
        assert!(
            zed_listed <= 16,
            "one account named {zed_listed} contestants"
        );
        let mut repos = fixture();
        repos["bob/react-arena-results"] =
            json!({ "private": false, "files": { "votes/v.jsonl": page_vote } });
        let (votes, _) = pooled_reference(&repos, &[]);
        assert_eq!(votes, 60);
        hub.reset().await;
    });
}

/// A vote file of 8-panel ties among 16 models, about `bytes` long: each vote a different 8,
/// drawn by a small generator seeded with `seed`, on a question of its own.
fn ties(seed: u64, bytes: usize) -> String {
    let mut state = seed;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut out = String::new();
    let mut q = seed << 32;
    while out.len() < bytes {
        let mut models: Vec<usize> = (0..16).collect();
        for i in 0..8 {
            let j = i + next() % (16 - i);
            models.swap(i, j);
        }
        let names: Vec<String> = models[..8]
            .iter()
            .map(|m| format!("lab/model-{m:02}"))
            .collect();
        let panels: Vec<(&str, &str)> = names.iter().map(|n| ("react", n.as_str())).collect();
        let line = vote_line(q, &panels, json!("tie"));
        if out.len() + line.len() > bytes {
            break;
        }
        out.push_str(&line);
        q += 1;
    }
    out
}

/// The ranking's state and its work counter.
async fn fit_state(rig: &Rig) -> (String, u64) {
    let v = rig
        .js("const f = document.querySelector('#community-fit-status'); return f ? [f.dataset.state, f.dataset.work] : ['', '0'];")
        .await;
    (
        v[0].as_str().unwrap().to_string(),
        v[1].as_str().unwrap().parse().unwrap_or(0),
    )
}

#[test]
fn the_ranking_of_large_repositories_never_holds_the_page_and_stops_on_stop() {
    browser_test(|rig: Rig| async move {
        let hub = start_hub();
        hub.fault(json!({ "clear": true })).await;
        hub.reset().await;
        const FIVE_MB: usize = 5 * 1024 * 1024 - 4096;
        let one = ties(1, FIVE_MB);
        hub.seed(
            "tie",
            "flood-0",
            false,
            &[("README.md", TAGGED_CARD), ("votes/a.jsonl", &one)],
        )
        .await;
        rig.open_app_overriding(json!({})).await;
        open_community(&rig, hub).await;

        // One 5 MB repository of 8-panel ties.
        rig.watch_long_tasks().await;
        let started = Instant::now();
        read_and_rank(&rig).await;
        let one_repo = rig.longest_task().await;
        let (state, work) = fit_state(&rig).await;
        println!(
            "row 6: one 5 MB repository ({} votes): longest task {one_repo:.0} ms, ranked in {:.1} s with {work} units",
            one.lines().count(),
            started.elapsed().as_secs_f64()
        );
        assert!(
            one_repo < HOLDS_THE_PAGE_MS,
            "the page was held {one_repo:.0} ms"
        );
        assert_eq!(state, "done");
        assert!(work > 0 && work <= WORK_BUDGET, "{work}");
        assert_eq!(
            text_of(&rig, "#community-votes").await,
            format!("{} votes counted.", one.lines().count())
        );
        assert!(text_of(&rig, "#community-fit-status")
            .await
            .contains(" units of work of at most 150,000,000"));

        // Four overlapping ones (the same 16 models, four owners).
        for r in 1..4u64 {
            let text = ties(r + 1, FIVE_MB);
            hub.seed(
                &format!("tie{r}"),
                "flood",
                false,
                &[("README.md", TAGGED_CARD), ("votes/a.jsonl", &text)],
            )
            .await;
        }
        // Reading, then ranking with its progress shown; Stop while it ranks.
        rig.click("#community-read").await;
        rig.wait_for(
            "the ranking to start",
            SETTLE,
            "const f = document.querySelector('#community-fit-status'); return !!f && f.dataset.state === 'working' && Number(f.dataset.work) > 0 && !!document.querySelector('#community-fit-progress');",
        )
        .await;
        rig.click("#community-stop").await;
        rig.wait_for(
            "the ranking to stop",
            Duration::from_secs(10),
            "const f = document.querySelector('#community-fit-status'); return !!f && f.dataset.state === 'stopped';",
        )
        .await;
        let (_, stopped_at) = fit_state(&rig).await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(
            fit_state(&rig).await,
            ("stopped".to_string(), stopped_at),
            "work went on after Stop"
        );
        assert!(text_of(&rig, "#community-fit-status")
            .await
            .starts_with("Ranking stopped after"));
        // Rank: to the end, within the budget, the page never held.
        rig.watch_long_tasks().await;
        let started = Instant::now();
        rig.click("#community-rank").await;
        rig.wait_for("the ranking", SETTLE, RANKED).await;
        let four = rig.longest_task().await;
        let (_, four_work) = fit_state(&rig).await;
        println!(
            "row 6: four overlapping repositories: longest task {four:.0} ms, ranked in {:.1} s with {four_work} units; {}",
            started.elapsed().as_secs_f64(),
            text_of(&rig, "#community-fit-status").await
        );
        assert!(four < HOLDS_THE_PAGE_MS, "the page was held {four:.0} ms");
        assert!(four_work <= WORK_BUDGET, "{four_work}");

        // Untick one: ranked again (other votes), in slices, within the budget.
        rig.watch_long_tasks().await;
        let before = text_of(&rig, "#community-votes").await;
        let started = Instant::now();
        rig.click(".community-repo[data-repo='tie3/flood'] .community-include")
            .await;
        rig.wait_for(
            "the ranking without tie3",
            SETTLE,
            &ranked_and(&format!(
                "document.querySelector('#community-votes').innerText !== {before:?}"
            )),
        )
        .await;
        let untick = rig.longest_task().await;
        let (state, untick_work) = fit_state(&rig).await;
        println!(
            "row 6: untick: longest task {untick:.0} ms, {:.1} s, {untick_work} units",
            started.elapsed().as_secs_f64()
        );
        assert_eq!(state, "done");
        assert!(
            untick < HOLDS_THE_PAGE_MS,
            "the page was held {untick:.0} ms"
        );
        assert!(untick_work <= WORK_BUDGET);
        // Tick it back: the ranking of those four is kept, no work is done again.
        rig.click(".community-repo[data-repo='tie3/flood'] .community-include")
            .await;
        rig.wait_for(
            "the kept ranking",
            Duration::from_secs(10),
            "const f = document.querySelector('#community-fit-status'); return !!f && f.dataset.state === 'kept';",
        )
        .await;
        assert_eq!(fit_state(&rig).await.1, four_work);
        assert!(text_of(&rig, "#community-fit-status")
            .await
            .contains("nothing was worked out again"));
        hub.reset().await;
    });
}
