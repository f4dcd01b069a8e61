//! The Evaluate view in the browser, against the scripted mock and the Wikipedia fixtures:
//! a 10-question evaluation across the four modes gives the table worked out by hand below;
//! the CSV export is that table; a stopped evaluation resumes after a reload without redoing
//! what it had finished; the view and its question set load only when it is opened.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::collections::HashSet;
use std::time::Duration;

use fantoccini::Locator;
use react_arena::agent::mode::FORCE_ANSWER_PROMPT;
use react_arena::agent::Mode;
use react_arena::evaluation::csv::parse_csv;
use serde_json::{json, Value};
use support::axe::{assert_no_serious, axe};
use support::browser::{browser_test, Rig, CAPTURE_DOWNLOADS};
use support::fixtures::FixtureServer;
use support::hidden_style::QUESTIONS;
use support::mock::{MockEndpoint, Reply};

const SETTLE: Duration = Duration::from_secs(90);

/// Think-only's answers: Q01–Q05 right (Q01 only after normalising), Q07 says "no" to a
/// "yes", Q09 half right ("a short novel" → F1 2/3), the rest wrong.
const THINK: [&str; 10] = [
    "chinua achebe.",
    "1958",
    "Okonkwo",
    "Umuofia",
    "Nigeria",
    "I do not know",
    "no",
    "I do not know",
    "a short novel",
    "I do not know",
];
/// Act-only's answers: the odd questions right, the even wrong; Q10 fails with HTTP 400.
const ACT: [&str; 10] = [
    "Chinua Achebe",
    "Unknown",
    "Okonkwo",
    "Unknown",
    "Nigeria",
    "Unknown",
    "yes",
    "Unknown",
    "novel",
    "",
];
/// ReAct's answers: Q01–Q07 right, Q08 half right ("Igbo people" → F1 2/3), Q09 wrong; on
/// Q10 it runs out of its 2 steps and is asked for an answer (right, but forced).
const REACT: [&str; 10] = [
    "Chinua Achebe",
    "1958",
    "Okonkwo",
    "Umuofia",
    "Nigeria",
    "Arrow of God",
    "yes",
    "Igbo people",
    "a play",
    "Chinua Achebe",
];

/// CodeAct's answers: Q05 wrong ("Nigerian"), the rest right (Q08 after normalising "the").
/// Q01's program calls Wikipedia and `final_answer` in one step, Q02's only `final_answer`;
/// the others answer without a program. One step each, one tool call in all.
const CODEACT: [&str; 10] = [
    "Chinua Achebe",
    "1958",
    "Okonkwo",
    "Umuofia",
    "Nigerian",
    "Arrow of God",
    "yes",
    "the Igbo",
    "novel",
    "Chinua Achebe",
];

/// What the observation of the Wikipedia search fixture says: a second step's request holds it.
const OBSERVED: &str = "Nigerian writer Chinua Achebe, first published";

fn tag(i: usize) -> String {
    format!("Q{:02}:", i + 1)
}

/// Every reply reports 100 prompt and 10 completion tokens, so the token and cost columns
/// are exact. `delay_ms` paces the chunks.
fn script(mock: &MockEndpoint, delay_ms: u64) {
    let reply = |text: &str| {
        Reply::text(text)
            .with_usage(100, 10)
            .with_chunk_delay(delay_ms)
    };
    let (think, act, react, codeact) = (
        Mode::Think.prompt_heading(),
        Mode::Act.prompt_heading(),
        Mode::ReAct.prompt_heading(),
        Mode::CodeAct.prompt_heading(),
    );
    let forced = &FORCE_ANSWER_PROMPT[..30];
    for i in 0..QUESTIONS.len() {
        let q = tag(i);
        mock.script_always(
            &[&q, think],
            reply(&format!("Thought: I recall it.\nAnswer: {}", THINK[i])),
        );
        let program = match i {
            0 => "page = wikipedia('Things Fall Apart')\nfinal_answer('Chinua Achebe' if 'Achebe' in page else 'unknown')".to_string(),
            1 => "final_answer(1958)".to_string(),
            _ => String::new(),
        };
        mock.script_always(
            &[&q, codeact],
            reply(&if program.is_empty() {
                format!("Thought: I know it.\nAnswer: {}", CODEACT[i])
            } else {
                format!("Thought: Let the program say it.\n```python\n{program}\n```")
            }),
        );
        if i == 9 {
            mock.script_always(
                &[&q, act],
                Reply::status(400, "The model is not available."),
            );
            mock.script_always(
                &[&q, react, forced],
                reply(&format!("Answer: {}", REACT[i])),
            );
            mock.script_always(
                &[&q, react, OBSERVED],
                reply("Thought: Let me look again.\nAction: wikipedia\nAction Input: search: Chinua Achebe"),
            );
        } else {
            mock.script_always(&[&q, act, OBSERVED], reply(&format!("Answer: {}", ACT[i])));
            mock.script_always(
                &[&q, react, OBSERVED],
                reply(&format!("Thought: The page says so.\nAnswer: {}", REACT[i])),
            );
        }
        mock.script_always(
            &[&q, act],
            reply("Action: wikipedia\nAction Input: search: Things Fall Apart"),
        );
        mock.script_always(
            &[&q, react],
            reply("Thought: I should look it up.\nAction: wikipedia\nAction Input: search: Things Fall Apart"),
        );
    }
}

/// The table worked out by hand from the replies above (every reply 100 + 10 tokens; prices
/// per million tokens from the mock's model list: mock/think $1 in, $2 out; mock/act $0.5,
/// $1; mock/model unpriced). The "Mean time" column is left out: it is measured.
fn expected_rows(with_fallback: bool) -> Vec<Vec<&'static str>> {
    let mut rows = vec![
        // 5 right; Q09 F1 2/3: (5 + 0.667) / 10. One call each: 10 × 110 tokens, 10 × $0.00012.
        vec![
            "Think-only",
            "10",
            "50.0",
            "56.7",
            "100.0%",
            "1.00",
            "0",
            "1100",
            "$0.001200",
            "—",
        ],
        // 5 right of 9 answered (Q10 failed). 9 runs of 2 calls, and Q10's failed step.
        vec![
            "Act-only",
            "10",
            "50.0",
            "50.0",
            "90.0%",
            "1.90",
            "9",
            "1980",
            "$0.001080",
            "—",
        ],
        // 7 right (Q10's forced answer is right too: 8), Q08 F1 2/3. Q10: 2 steps + the
        // forced answer: (9 × 2 + 3) / 10 steps, 11 searches, 9 × 220 + 330 tokens.
        vec![
            "ReAct", "10", "80.0", "86.7", "100.0%", "2.10", "11", "2310", "—", "—",
        ],
        // 9 right, Q05 wrong. One step each; Q01's program made the one tool call. Unpriced.
        vec![
            "CodeAct", "10", "90.0", "90.0", "100.0%", "1.00", "1", "1100", "—", "—",
        ],
    ];
    if with_fallback {
        // Q10 falls back on Think-only's wrong answer: 7 right, Q08 2/3. Steps: ReAct's 21 and
        // Think-only's one on Q10; tokens 2310 + 110; only that Think-only run is priced.
        rows.push(vec![
            "ReAct → CoT",
            "10",
            "70.0",
            "76.7",
            "100.0%",
            "2.20",
            "11",
            "2420",
            "$0.000120",
            "—",
        ]);
    }
    rows
}

/// The table's rows as shown, without the measured "Mean time" column.
async fn table(rig: &Rig) -> Vec<Vec<String>> {
    let rows = rig
        .js("return Array.from(document.querySelectorAll('#eval-table tbody tr')).map(r => Array.from(r.children).map(c => c.innerText.trim()));")
        .await;
    serde_json::from_value::<Vec<Vec<String>>>(rows)
        .unwrap()
        .into_iter()
        .map(|mut r| {
            r.remove(9);
            r
        })
        .collect()
}

/// Opens the arena on the mock and the fixtures, then the Evaluate view.
async fn open_evaluate(rig: &Rig, fixtures: &FixtureServer) {
    rig.open_app_overriding(json!({ "tool_endpoints": fixtures.endpoints() }))
        .await;
    rig.show_evaluate().await;
}

/// Sets up the 10 questions as the user's own JSON file, all four modes with their models,
/// 2 steps and 3 runs at once, and starts.
async fn start_evaluation(rig: &Rig, fallback: bool) {
    rig.choose_own_questions("questions.json", &QUESTIONS).await;
    for (id, value) in [
        ("#eval-model-think", "mock/think"),
        ("#eval-model-act", "mock/act"),
        ("#eval-model-react", "mock/model"),
        ("#eval-model-codeact", "mock/model"),
    ] {
        rig.client
            .find(Locator::Css(id))
            .await
            .unwrap()
            .send_keys(value)
            .await
            .unwrap();
    }
    rig.js(
        "const set = (id, v) => { const e = document.querySelector(id); e.value = v; e.dispatchEvent(new Event('change')); };\
         set('#eval-max-steps', '2'); set('#eval-concurrency', '3');\
         document.querySelector('#eval-sample').value = 'all';\
         document.querySelector('#eval-sample').dispatchEvent(new Event('change'));",
    )
    .await;
    if fallback {
        rig.click("#eval-fallback").await;
    }
    rig.click("#eval-start").await;
}

/// What the view says: progress, alert and table, for a failure message.
async fn view_state(rig: &Rig) -> Value {
    rig.js("const t = (s) => { const e = document.querySelector(s); return e ? e.innerText : null; };\
            return { progress: t('#eval-progress-text'), alert: t('#eval-alert'), table: t('#eval-table'), setup: t('.eval-setup') };")
        .await
}

/// Waits until `runs` runs are done and none is in flight.
async fn wait_done(rig: &Rig, runs: usize) {
    let done = format!(
        "const t = document.querySelector('#eval-progress-text'); return !!t && t.innerText.startsWith('{runs} of {runs} runs') && document.querySelector('#eval-stop').hidden;"
    );
    let deadline = std::time::Instant::now() + SETTLE;
    while rig.js(&done).await != Value::Bool(true) {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {runs} runs: {:#}",
            view_state(rig).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[test]
fn ten_questions_in_four_modes_give_the_expected_table_and_csv() {
    browser_test(|rig| async move {
        let fixtures = FixtureServer::start().await;
        script(&rig.mock, 0);
        open_evaluate(&rig, &fixtures).await;
        rig.js(CAPTURE_DOWNLOADS).await;
        start_evaluation(&rig, true).await;
        // 40 runs and Think-only is among the modes, so the fallback needs no run of its own.
        wait_done(&rig, 40).await;

        let expected: Vec<Vec<String>> = expected_rows(true)
            .into_iter()
            .map(|r| r.into_iter().map(String::from).collect())
            .collect();
        let shown = rig
            .wait_until(
                "the table's figures",
                SETTLE,
                || table(&rig),
                |t| *t == expected,
            )
            .await;
        assert_eq!(shown, expected);
        let answered: Vec<String> = serde_json::from_value(
            rig.js("return Array.from(document.querySelectorAll('#eval-table tbody tr td:nth-child(11)')).map(c => c.innerText)").await,
        )
        .unwrap();
        assert_eq!(answered.len(), 5);

        // The table CSV is the table, cell for cell (the measured column included).
        rig.click("#eval-export-table").await;
        rig.click("#eval-export-answers").await;
        let files = rig.wait_for_downloads(2, SETTLE).await;
        assert_eq!(files.len(), 2, "{files:?}");
        assert!(files[0].name.ends_with("-table.csv"), "{}", files[0].name);
        let csv = parse_csv(&files[0].text).unwrap();
        let shown: Vec<Vec<String>> = serde_json::from_value(
            rig.js("return Array.from(document.querySelectorAll('#eval-table tr')).map(r => Array.from(r.children).map(c => c.innerText.trim()));").await,
        )
        .unwrap();
        assert_eq!(csv, shown, "the CSV is the table");
        // The answers CSV: a line per run, the model's answer and its score.
        let answers = parse_csv(&files[1].text).unwrap();
        assert_eq!(answers.len(), 1 + 40);
        let q09_think = answers
            .iter()
            .find(|r| r[0] == "own-9" && r[3] == "think")
            .unwrap();
        assert_eq!(
            (
                q09_think[4].as_str(),
                q09_think[5].as_str(),
                q09_think[6].as_str()
            ),
            ("a short novel", "0", "0.6667")
        );
        let q10_act = answers
            .iter()
            .find(|r| r[0] == "own-10" && r[3] == "act")
            .unwrap();
        assert!(q10_act[14].contains("400"), "{q10_act:?}");

        // A question's run opens in the arena's panels.
        rig.click("#eval-answers > summary").await;
        assert_no_serious("the Evaluate view with results", &axe(&rig).await);
        rig.js("document.querySelector('#eval-results').scrollIntoView(); return true;")
            .await;
        let shot = rig.screenshot("evaluate-results.png").await;
        support::browser::keep_for_docs(&shot, "evaluate-results.png");
        // Q08's ReAct cell (the columns: #, question, gold, then the modes).
        rig.wait_for(
            "the answers",
            Duration::from_secs(10),
            "return !!document.querySelector('#eval-answers tbody tr:nth-child(8) td:nth-child(6) .open-run')",
        )
        .await;
        rig.click("#eval-answers tbody tr:nth-child(8) td:nth-child(6) .open-run")
            .await;
        rig.wait_for(
            "the run in the panels",
            Duration::from_secs(20),
            "const a = document.querySelector('section.panel .answer'); return !document.documentElement.classList.contains('evaluating') && !!a && a.innerText.includes('Igbo people');",
        )
        .await;
    });
}

/// The runs a request belongs to: the question's tag and the mode's heading.
fn job_of(body: &str) -> Option<(usize, Mode)> {
    let q = (0..QUESTIONS.len()).find(|&i| body.contains(&tag(i)))?;
    let mode = Mode::ALL
        .into_iter()
        .find(|m| body.contains(m.prompt_heading()))?;
    Some((q, mode))
}

#[test]
fn a_stopped_evaluation_resumes_after_a_reload_without_redoing_its_results() {
    browser_test(|rig| async move {
        let fixtures = FixtureServer::start().await;
        script(&rig.mock, 40);
        open_evaluate(&rig, &fixtures).await;
        start_evaluation(&rig, false).await;
        rig.wait_for(
            "4 results",
            SETTLE,
            "const p = document.querySelector('#eval-progress'); return !!p && p.value >= 4;",
        )
        .await;
        rig.click("#eval-stop").await;
        rig.wait_for(
            "the stop",
            Duration::from_secs(20),
            "const r = document.querySelector('#eval-resume'); return !!r && !r.hidden;",
        )
        .await;
        let requests_at_stop = rig.mock.chat_requests().len();

        // A reload: the view opens on the stopped evaluation, with what it had finished.
        rig.client
            .goto(&format!("{}?view=evaluate", rig.app_url))
            .await
            .unwrap();
        rig.wait_for(
            "the kept evaluation",
            Duration::from_secs(30),
            "const r = document.querySelector('#eval-resume'); return !!r && !r.hidden;",
        )
        .await;
        rig.js(CAPTURE_DOWNLOADS).await;
        rig.click("#eval-export-answers").await;
        let kept = parse_csv(&rig.wait_for_downloads(1, SETTLE).await[0].text).unwrap();
        let done: HashSet<(usize, Mode)> = kept[1..]
            .iter()
            .filter(|r| r[14].is_empty())
            .map(|r| {
                let q: usize = r[0].trim_start_matches("own-").parse().unwrap();
                let mode = Mode::ALL.into_iter().find(|m| m.id() == r[3]).unwrap();
                (q - 1, mode)
            })
            .collect();
        assert!(
            done.len() >= 4 && done.len() < 40,
            "{} finished before the stop",
            done.len()
        );
        let progress: String = serde_json::from_value(
            rig.js("return document.querySelector('#eval-progress-text').innerText")
                .await,
        )
        .unwrap();
        assert!(
            progress.starts_with(&format!("{} of 40 runs", done.len())),
            "{progress}"
        );

        rig.click("#eval-resume").await;
        wait_done(&rig, 40).await;
        let redone: Vec<(usize, Mode)> = rig.mock.chat_requests()[requests_at_stop..]
            .iter()
            .filter_map(|r| job_of(&r.body))
            .filter(|j| done.contains(j))
            .collect();
        assert!(
            redone.is_empty(),
            "runs finished before the stop were run again: {redone:?}"
        );
        let expected: Vec<Vec<String>> = expected_rows(false)
            .into_iter()
            .map(|r| r.into_iter().map(String::from).collect())
            .collect();
        let shown = rig
            .wait_until(
                "the table's figures",
                SETTLE,
                || table(&rig),
                |t| *t == expected,
            )
            .await;
        assert_eq!(shown, expected, "the resumed evaluation has the full table");
    });
}

/// What the page has fetched so far, by file name.
const FETCHED: &str = "return performance.getEntriesByType('resource').map(e => e.name.split('/').pop().split('?')[0]);";

#[test]
fn the_view_and_hotpotqa_load_only_when_opened_and_show_the_paper() {
    browser_test(|rig| async move {
        let fixtures = FixtureServer::start().await;
        // Every HotpotQA question gets the answer of its second one.
        rig.mock.script_always(
            &[Mode::Think.prompt_heading()],
            Reply::text("Thought: I recall it.\nAnswer: Seth MacFarlane").with_usage(100, 10),
        );
        rig.open_app_overriding(json!({ "tool_endpoints": fixtures.endpoints() }))
            .await;
        let fetched: Vec<String> = serde_json::from_value(rig.js(FETCHED).await).unwrap();
        assert!(
            fetched
                .iter()
                .all(|f| !f.starts_with("evaluate-") && !f.starts_with("hotpotqa")),
            "the first load fetched {fetched:?}"
        );
        rig.click("#view-evaluate").await;
        rig.wait_for(
            "the HotpotQA questions",
            Duration::from_secs(30),
            "const s = document.querySelector('#eval-set-size'); return !!s && s.innerText === '500 questions';",
        )
        .await;
        let fetched: Vec<String> = serde_json::from_value(rig.js(FETCHED).await).unwrap();
        assert!(
            fetched
                .iter()
                .any(|f| f.starts_with("evaluate-") && f.ends_with(".wasm")),
            "{fetched:?}"
        );
        assert!(
            fetched.iter().any(|f| f == "hotpotqa_dev_react500.json"),
            "{fetched:?}"
        );
        let credit: String = serde_json::from_value(
            rig.js("return document.querySelector('.evaluate-view .credit').innerText")
                .await,
        )
        .unwrap();
        assert!(
            credit.contains("HotpotQA") && credit.contains("CC BY-SA 4.0"),
            "{credit}"
        );

        // The first 20, Think-only: one right (the second question's answer is Seth MacFarlane).
        rig.click("#eval-mode-act").await;
        rig.click("#eval-mode-react").await;
        rig.click("#eval-mode-codeact").await;
        rig.click("#eval-start").await;
        wait_done(&rig, 20).await;
        let rows = rig
            .wait_until(
                "the table's figures",
                SETTLE,
                || table(&rig),
                |rows| {
                    rows.len() == 1 && rows[0][..5] == ["Think-only", "20", "5.0", "5.0", "100.0%"]
                },
            )
            .await;
        assert_eq!(rows.len(), 1);
        assert_eq!(&rows[0][..5], ["Think-only", "20", "5.0", "5.0", "100.0%"]);
        assert_eq!(rows[0][9], "29.4", "the paper's CoT figure");
    });
}

/// Chooses `text` as the user's question file, named `name`.
async fn choose_file(rig: &Rig, name: &str, text: &str) {
    let name = format!("{}-{name}", std::process::id());
    rig.choose_file("#eval-file", &name, text).await;
}

/// Chooses a question file and waits until the view has read it: `size` is what it then says
/// ("4 questions").
async fn choose_questions(rig: &Rig, name: &str, text: &str, size: &str) {
    choose_file(rig, name, text).await;
    rig.wait_for(
        "the file to be read",
        Duration::from_secs(10),
        &format!("return document.querySelector('#eval-set-size').innerText === {size:?}"),
    )
    .await;
}

#[test]
fn hostile_question_files_are_refused_or_shown_as_text_and_damaged_storage_is_skipped() {
    browser_test(|rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script_always(
            &[Mode::Think.prompt_heading()],
            Reply::text("Answer: <img src=x onerror=\"window.__pwned=1\">"),
        );
        // A kept evaluation that is not JSON, stored by someone else under the view's name.
        rig.open_app_overriding(json!({ "tool_endpoints": fixtures.endpoints() }))
            .await;
        rig.js(
            "const done = arguments[arguments.length - 1];\
             const r = indexedDB.open('react-arena-evaluations', 1);\
             r.onupgradeneeded = () => ['specs', 'results', 'records'].forEach(n => r.result.createObjectStore(n));\
             r.onsuccess = () => { const tx = r.result.transaction('specs', 'readwrite');\
               tx.objectStore('specs').put('{not json', 'eval-1'); tx.oncomplete = () => { r.result.close(); done(true); }; };",
        )
        .await;
        rig.show_evaluate().await;
        rig.click("#eval-set-own").await;

        // A CSV without an answer column, then one with an empty answer: each says why.
        let error = "const e = document.querySelector('.eval-setup .field-error'); return e ? e.innerText : '';";
        choose_file(&rig, "no-answers.csv", "question,notes\nWhat?,x\n").await;
        rig.wait_for(
            "the error",
            Duration::from_secs(10),
            &format!("return (() => {{ {error} }})().includes('header with question and answer');"),
        )
        .await;
        choose_file(&rig, "gap.csv", "question,answer\nA?,a\nB?,\n").await;
        rig.wait_for(
            "the error",
            Duration::from_secs(10),
            &format!("return (() => {{ {error} }})().includes('Row 2 has no answer');"),
        )
        .await;
        // Start with no usable file: a clear message, nothing sent.
        let before = rig.mock.chat_requests().len();
        rig.click("#eval-start").await;
        rig.wait_for(
            "the refusal",
            Duration::from_secs(10),
            "const a = document.querySelector('#eval-alert'); return !!a && a.innerText.includes('Choose a JSON or CSV file');",
        )
        .await;
        assert_eq!(rig.mock.chat_requests().len(), before);

        // Markup in a question and in the model's answer is shown as text.
        let file =
            json!([{ "question": "<img src=x onerror=\"window.__pwned=1\">Q?", "answer": "a" }]);
        choose_questions(&rig, "markup.json", &file.to_string(), "1 question").await;
        rig.click("#eval-mode-act").await;
        rig.click("#eval-mode-react").await;
        rig.click("#eval-mode-codeact").await;
        rig.click("#eval-start").await;
        wait_done(&rig, 1).await;
        rig.click("#eval-answers > summary").await;
        rig.wait_for(
            "the answers",
            Duration::from_secs(10),
            "return !!document.querySelector('#eval-answers tbody td .cell-answer')",
        )
        .await;
        let shown = rig
            .js("return { imgs: document.querySelectorAll('#evaluate img').length, pwned: !!window.__pwned, text: document.querySelector('#eval-answers tbody').innerText };")
            .await;
        assert_eq!(shown["imgs"], 0, "{shown}");
        assert_eq!(shown["pwned"], false);
        assert!(
            shown["text"].as_str().unwrap().contains("<img src=x"),
            "{shown}"
        );
        // The damaged entry is skipped: the list holds the evaluation just made.
        // Listed from storage, once the evaluation is kept.
        let saved: String = serde_json::from_value(
            rig.wait_for_value(
                "the kept evaluations",
                SETTLE,
                "return document.querySelector('#eval-saved summary').innerText",
                |s| s == "Kept evaluations (1)",
            )
            .await,
        )
        .unwrap();
        assert_eq!(saved, "Kept evaluations (1)");
    });
}

#[test]
fn a_rate_limit_holds_new_runs_for_the_wait_it_asks() {
    browser_test(|rig| async move {
        let fixtures = FixtureServer::start().await;
        // Q01 is refused once with "retry after 2 s"; everything else answers at once.
        rig.mock.script(
            &tag(0),
            [
                Reply::status(429, "Too many requests.").retry_after(2),
                Reply::text("Answer: Chinua Achebe"),
            ],
        );
        rig.mock
            .script_always(&[Mode::Think.prompt_heading()], Reply::text("Answer: 1958"));
        open_evaluate(&rig, &fixtures).await;
        let file: Vec<Value> = QUESTIONS[..4]
            .iter()
            .map(|(q, a)| json!({ "question": q, "answer": a }))
            .collect();
        rig.click("#eval-set-own").await;
        choose_questions(
            &rig,
            "four.json",
            &serde_json::to_string(&file).unwrap(),
            "4 questions",
        )
        .await;
        rig.click("#eval-mode-act").await;
        rig.click("#eval-mode-react").await;
        rig.click("#eval-mode-codeact").await;
        rig.js("const e = document.querySelector('#eval-concurrency'); e.value = '2'; e.dispatchEvent(new Event('change')); return true;").await;
        rig.click("#eval-start").await;
        wait_done(&rig, 4).await;

        let chats = rig.mock.chat_requests();
        let first = |q: usize| {
            chats
                .iter()
                .find(|r| r.body.contains(&tag(q)))
                .unwrap_or_else(|| panic!("no request for {}", tag(q)))
                .received
        };
        let refused = first(0);
        // Q02 ran beside Q01; Q03 waited out the 2 s the endpoint asked for.
        assert!(first(1) < refused + Duration::from_millis(1_000));
        let held = first(2).duration_since(refused);
        assert!(
            held >= Duration::from_millis(1_900),
            "Q03 started {held:?} after the 429"
        );
        assert_eq!(chats.iter().filter(|r| r.body.contains(&tag(0))).count(), 2);
        let table = rig
            .wait_until(
                "the table's figures",
                SETTLE,
                || table(&rig),
                |t| !t.is_empty() && t[0][..5] == ["Think-only", "4", "50.0", "50.0", "100.0%"],
            )
            .await;
        assert_eq!(
            &table[0][..5],
            ["Think-only", "4", "50.0", "50.0", "100.0%"]
        );
    });
}

/// Five questions for the judge, each answered by Think-only so the judge has something to
/// say: right but wordy, wrong, a refusal, right (the judge out of format) and right (the
/// judge's call refused).
const JUDGED: [(&str, &str, &str, &str); 5] = [
    (
        "J1: Who wrote the novel Things Fall Apart?",
        "Chinua Achebe",
        "It was written by the Nigerian author Chinua Achebe.",
        "Grade: CORRECT\nReason: It names Chinua Achebe; the rest is detail.",
    ),
    (
        "J2: In which year was Things Fall Apart published?",
        "1958",
        "1959",
        "Grade: INCORRECT\nReason: 1959 is not 1958.",
    ),
    (
        "J3: Who is the protagonist of Things Fall Apart?",
        "Okonkwo",
        "I do not know.",
        "Grade: NOT_ATTEMPTED\nReason: It gives no name.",
    ),
    (
        "J4: In which village is Things Fall Apart set?",
        "Umuofia",
        "Umuofia",
        "The answer looks right to me.",
    ),
    (
        "J5: Which river runs through Nigeria?",
        "Niger",
        "Niger",
        "",
    ),
];

#[test]
fn a_judge_grades_each_answer_beside_em_and_its_cost_counts() {
    browser_test(|rig| async move {
        let fixtures = FixtureServer::start().await;
        let think = Mode::Think.prompt_heading();
        for (i, (question, _, answer, verdict)) in JUDGED.iter().enumerate() {
            let tag = &question[..3];
            rig.mock.script_always(
                &[tag, think],
                Reply::text(&format!("Thought: I recall it.\nAnswer: {answer}"))
                    .with_usage(100, 10),
            );
            let judged = if i == 4 {
                Reply::status(400, "The judge model is not available.")
            } else {
                Reply::text(verdict).with_usage(200, 5)
            };
            rig.mock.script_always(&["You grade answers", tag], judged);
        }
        open_evaluate(&rig, &fixtures).await;
        let file: Vec<Value> = JUDGED
            .iter()
            .map(|(q, a, ..)| json!({ "question": q, "answer": a }))
            .collect();
        rig.click("#eval-set-own").await;
        choose_questions(
            &rig,
            "judged.json",
            &serde_json::to_string(&file).unwrap(),
            "5 questions",
        )
        .await;
        rig.click("#eval-mode-act").await;
        rig.click("#eval-mode-react").await;
        rig.click("#eval-mode-codeact").await;
        rig.client
            .find(Locator::Css("#eval-model-think"))
            .await
            .unwrap()
            .send_keys("mock/think")
            .await
            .unwrap();
        rig.click("#eval-judge").await;
        rig.client
            .find(Locator::Css("#eval-judge-model"))
            .await
            .unwrap()
            .send_keys("mock/act")
            .await
            .unwrap();
        rig.js("const s = document.querySelector('#eval-sample'); s.value = 'all'; s.dispatchEvent(new Event('change'));")
            .await;
        rig.click("#eval-start").await;
        wait_done(&rig, 5).await;

        // The judge's calls: one per answer, with the question, the gold and the answer.
        let calls = rig.mock.chat_requests_containing("You grade answers");
        assert_eq!(calls.len(), 5);
        let first: Value =
            serde_json::from_str(&calls.iter().find(|c| c.body.contains("J1:")).unwrap().body)
                .unwrap();
        assert_eq!(first["model"], "mock/act");
        assert_eq!(
            first["messages"][1]["content"],
            format!(
                "Question: {}\nGold target: Chinua Achebe\nPredicted answer:\n<answer>\n| {}\n</answer>",
                JUDGED[0].0, JUDGED[0].2
            )
        );

        // The table: judged 3 of 5 (J4 out of format, J5 failed), 1 of them correct; EM 2
        // of 5. Cost by hand: five runs at 100 + 10 tokens on mock/think ($1 and $2 per
        // million): 5 × $0.00012; four judge calls at 200 + 5 on mock/act ($0.5 and $1):
        // 4 × $0.000105. Total $0.001020.
        let header: Vec<String> = serde_json::from_value(
            rig.js("return Array.from(document.querySelectorAll('#eval-table thead th')).map(c => c.innerText.trim())").await,
        )
        .unwrap();
        assert_eq!(
            header[2..5],
            ["EM", "F1", "Judge: correct"].map(String::from)
        );
        let row: Vec<String> = serde_json::from_value(
            rig.wait_for_value(
                "the judged figures",
                SETTLE,
                "return Array.from(document.querySelector('#eval-table tbody tr').children).map(c => c.innerText.trim())",
                |row| row[0] == "Think-only" && row[2] == "40.0" && row[4] == "33.3% (2 not judged)" && row[9] == "$0.001020",
            )
            .await,
        )
        .unwrap();
        assert_eq!(row[0], "Think-only");
        assert_eq!(row[2], "40.0");
        assert_eq!(row[4], "33.3% (2 not judged)");
        assert_eq!(row[9], "$0.001020", "{row:?}");

        // Per question: the grade and the judge's words, or what went wrong.
        rig.click("#eval-answers > summary").await;
        rig.wait_for(
            "the answers",
            Duration::from_secs(10),
            "return document.querySelectorAll('#eval-answers tbody tr').length === 5",
        )
        .await;
        let cells: Vec<Vec<String>> = serde_json::from_value(
            rig.js("return Array.from(document.querySelectorAll('#eval-answers tbody tr td.eval-cell')).map(c => Array.from(c.querySelectorAll('span')).map(s => s.innerText.trim()))").await,
        )
        .unwrap();
        assert_eq!(
            cells[0],
            [
                JUDGED[0].2,
                "✗ EM · F1 0.40",
                "Judge: correct",
                "It names Chinua Achebe; the rest is detail."
            ]
        );
        assert_eq!(cells[1][2..], ["Judge: incorrect", "1959 is not 1958."]);
        assert_eq!(cells[2][2..], ["Judge: not attempted", "It gives no name."]);
        assert_eq!(cells[3][1], "✓ EM · F1 1.00");
        assert!(
            cells[3][2].starts_with("The judge answered out of format")
                && cells[3][2].contains("looks right to me"),
            "{:?}",
            cells[3]
        );
        assert!(
            cells[4][2].starts_with("The judge failed:") && cells[4][2].contains("not available"),
            "{:?}",
            cells[4]
        );

        // The answers CSV carries the judge's grade and words.
        rig.js(CAPTURE_DOWNLOADS).await;
        rig.click("#eval-export-answers").await;
        let files = rig.wait_for_downloads(1, SETTLE).await;
        let answers = parse_csv(&files[0].text).unwrap();
        assert_eq!(answers[0][15..], ["judge", "judge_words"].map(String::from));
        assert_eq!(
            answers[2][15..],
            ["incorrect", "1959 is not 1958."].map(String::from)
        );

        let violations = axe(&rig).await;
        assert_no_serious("the judged results", &violations);
        assert!(violations.is_empty(), "{violations:#?}");
        rig.js("document.querySelector('#eval-answers').scrollIntoView(); return true;")
            .await;
        let shot = rig.screenshot("evaluate-judged-1280.png").await;
        support::browser::keep_for_docs(&shot, "evaluate-judged-1280.png");
        support::cdp::cdp(
            &rig.client,
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": true }),
        )
        .await;
        rig.js("document.querySelector('#eval-answers').scrollIntoView(); return true;")
            .await;
        // At 360 px each question is a card: nothing runs off the page, and no two lines of
        // a cell overlap.
        let narrow = rig
            .js("const d = document.documentElement; const spans = Array.from(document.querySelectorAll('#eval-answers td.eval-cell > *'));\
                 let overlaps = 0; for (let i = 1; i < spans.length; i++) { const a = spans[i - 1].getBoundingClientRect(), b = spans[i].getBoundingClientRect(); if (a.bottom > b.top + 1 && a.parentNode === b.parentNode) overlaps++; }\
                 return [d.scrollWidth <= d.clientWidth, overlaps, getComputedStyle(document.querySelector('#eval-answers thead')).position];")
            .await;
        let wide = rig
            .js("const w = document.documentElement.clientWidth; return Array.from(document.querySelectorAll('body *')).filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > w + 1; }).slice(0, 12).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));")
            .await;
        assert_eq!(
            narrow,
            json!([true, 0, "absolute"]),
            "at 360 px: too wide: {wide:#}"
        );
        let shot = rig.screenshot("evaluate-judged-360.png").await;
        support::browser::keep_for_docs(&shot, "evaluate-judged-360.png");
    });
}

/// An evaluation runs unattended: with an MCP server whose calls may need consent, its setup
/// says before Start that such calls are skipped; with every server trusted, it says nothing.
#[test]
fn an_evaluation_says_before_it_starts_that_calls_needing_consent_are_skipped() {
    browser_test(|rig| async move {
        let fixtures = FixtureServer::start().await;
        let servers = |ask: &str| {
            json!([{ "name": "Notes", "url": "http://127.0.0.1:9/mcp", "ask": ask,
                     "tools": [{ "name": "send_email", "offered": "send_email" }] }])
            .to_string()
        };
        for (ask, said) in [("unless_read_only", true), ("never", false)] {
            rig.open_app_overriding(json!({
                "tool_endpoints": fixtures.endpoints(),
                "mcp_servers": servers(ask),
            }))
            .await;
            rig.show_evaluate().await;
            let note = rig
                .js("const n = document.querySelector('#eval-mcp-note'); return n && n.textContent")
                .await;
            if said {
                assert!(
                    note.as_str()
                        .is_some_and(|n| n.starts_with("An evaluation cannot stop to ask you")),
                    "{ask}: {note}"
                );
            } else {
                assert_eq!(note, Value::Null, "{ask}: every server is trusted");
            }
        }
    });
}
