//! Judging the modes in the browser, against the scripted mock: a panel's own Stop, Retry and
//! "Go on" past the step limit leave the other panels alone and keep every attempt in the
//! record and its exports; an edited system prompt is what the endpoint receives, and it goes
//! with the run into its export and its replay.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use fantoccini::Locator;
use react_arena::agent::Mode;
use react_arena::run_file::RunFile;
use serde_json::{json, Value};
use support::browser::{browser_test, PanelView, Rig, CAPTURE_DOWNLOADS};
use support::mock::Reply;

const SETTLE: Duration = Duration::from_secs(30);
const QUESTION: &str = "What is 6 times 7?";

/// What a user reads in a panel.
fn seen(p: &PanelView) -> Value {
    json!({
        "status": p.status, "counter": p.counter, "thoughts": p.thoughts,
        "actions": p.actions, "observations": p.observations, "answer": p.answer,
        "error": p.error, "usage": p.usage,
    })
}

fn panel(mode: &str) -> String {
    format!("section.panel[data-mode={mode}]")
}

/// Exports the shown run as JSON and as Markdown.
async fn export(rig: &Rig) -> (RunFile, String) {
    rig.js(CAPTURE_DOWNLOADS).await;
    rig.click("#export-json").await;
    rig.click("#export-markdown").await;
    let downloads = rig.wait_for_downloads(2, SETTLE).await;
    assert_eq!(downloads.len(), 2);
    let file = RunFile::from_json(&downloads[0].text).expect("the JSON export reads back");
    (file, downloads[1].text.clone())
}

/// Opens the history and waits for its one run.
async fn open_history_of_one_run(rig: &Rig) {
    rig.wait_for_history_list().await;
    rig.click("#history > summary").await;
    rig.wait_for(
        "the run in the history",
        SETTLE,
        "return document.querySelectorAll('#history li.history-item').length === 1",
    )
    .await;
}

async fn wait_for_status(rig: &Rig, mode: &str, status: &str) {
    rig.wait_for(
        &format!("the {mode} panel to be {status}"),
        SETTLE,
        &format!(
            "return document.querySelector('{}').dataset.status === '{status}'",
            panel(mode)
        ),
    )
    .await;
}

/// The tool modes answer 42 (CodeAct with no program: this is about the panels, not Python).
fn script_tool_modes(rig: &Rig) {
    rig.mock.script(
        Mode::Act.prompt_heading(),
        [
            Reply::text("Action: calculator\nAction Input: 6 * 7"),
            Reply::text("Answer: 42"),
        ],
    );
    rig.mock.script(
        Mode::ReAct.prompt_heading(),
        [
            Reply::text("Thought: multiply.\nAction: calculator\nAction Input: 6 * 7"),
            Reply::text("Thought: the calculator says 42.\nAnswer: 42"),
        ],
    );
    rig.mock.script(
        Mode::CodeAct.prompt_heading(),
        [Reply::text("Thought: six sevens.\nAnswer: 42")],
    );
}

#[test]
fn retry_of_one_mode_leaves_the_others_and_both_attempts_are_exported() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [
                Reply::text("Thought: six sevens, minus one.\nAnswer: 41"),
                Reply::text("Thought: six sevens.\nAnswer: 42"),
            ],
        );
        script_tool_modes(&rig);
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        rig.ask(QUESTION, "all").await;
        let before = rig.wait_until_settled(SETTLE).await;
        assert!(before.iter().all(|p| p.status == "done"), "{before:#?}");
        assert_eq!(before[0].answer_text(), "41");
        let calls_before = rig.mock.chat_requests().len();

        rig.click(&format!("{} .panel-retry", panel("think"))).await;
        rig.wait_for(
            "the retried answer",
            SETTLE,
            &format!(
                "const p = document.querySelector('{}'); return p.dataset.status === 'done' && p.querySelector('.answer') && p.querySelector('.answer').innerText.includes('42')",
                panel("think")
            ),
        )
        .await;
        let after = rig.panels().await;
        assert_eq!(after[0].answer_text(), "42");
        for (was, now) in before.iter().zip(&after).skip(1) {
            assert_eq!(seen(now), seen(was), "the {} panel changed", now.mode);
        }
        assert_eq!(
            rig.mock.chat_requests().len(),
            calls_before + 1,
            "one call, of Think-only only"
        );
        let retried = rig
            .mock
            .chat_requests()
            .last()
            .map(|r| r.body.clone())
            .unwrap();
        assert!(retried.contains(Mode::Think.prompt_heading()));
        assert!(
            !retried.contains("minus one"),
            "the first attempt is not sent again"
        );
        let attempt = rig
            .js(&format!(
                "return document.querySelector('{} .earlier-attempt summary').innerText",
                panel("think")
            ))
            .await;
        assert_eq!(attempt, json!("Attempt 1 of 2: answer: 41"));
        // The other panels offer Retry, and no panel offers Stop now.
        assert_eq!(
            rig.js("return [document.querySelectorAll('.panel-retry').length, document.querySelectorAll('.panel-stop').length]").await,
            json!([4, 0])
        );

        let (file, md) = export(&rig).await;
        let think = &file.records[0].turns[0];
        assert_eq!(think.answer.as_ref().unwrap().text, "42");
        assert_eq!(think.earlier.len(), 1);
        assert_eq!(think.earlier[0].answer.as_ref().unwrap().text, "41");
        assert!(file.records[1].turns[0].earlier.is_empty());
        for expected in [
            "#### Attempt 1 of 2 (not sent to the model again)",
            "> 41\n",
            "#### Attempt 2 of 2",
            "> 42\n",
        ] {
            assert!(md.contains(expected), "missing {expected:?} in\n{md}");
        }
    });
}

#[test]
fn a_panel_s_own_stop_stops_it_alone_and_go_on_passes_the_step_limit() {
    browser_test(|rig: Rig| async move {
        // Think-only streams slowly enough to be stopped halfway.
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(
                "Thought: let me count the sevens one by one, slowly, carefully, and twice over to be sure of every one of them.\nAnswer: 42",
            )
            .with_chunk_delay(150)],
        );
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("Action: calculator\nAction Input: 6 * 7").with_latency(800),
                Reply::text("Answer: 42"),
            ],
        );
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text("Thought: add first.\nAction: calculator\nAction Input: 6 + 7")
                    .with_latency(800),
                Reply::text("Thought: I ran out of steps.\nAnswer: 13?"),
                Reply::text("Thought: 6 times 7 is 42, not 6 + 7.\nAnswer: 42"),
            ],
        );
        rig.open_app_overriding(json!({ "protocol": "text", "max_steps": 1 }))
            .await;
        rig.ask(QUESTION, "all").await;
        rig.wait_for(
            "Think-only to stream a few words",
            SETTLE,
            &format!(
                "return (document.querySelector('{} .live') || {{textContent: ''}}).textContent.includes('count')",
                panel("think")
            ),
        )
        .await;
        rig.click(&format!("{} .panel-stop", panel("think"))).await;
        wait_for_status(&rig, "think", "stopped").await;
        // The others were still going, and go on to their answers.
        let now = rig.panels().await;
        assert!(
            now[1..].iter().all(|p| p.status != "stopped"),
            "only Think-only stopped: {now:#?}"
        );
        let settled = rig.wait_until_settled(SETTLE).await;
        assert_eq!(settled[0].status, "stopped");
        assert_eq!(settled[1].answer_text(), "42");
        assert_eq!(settled[2].status, "done");
        assert!(settled[2].answer_forced, "{:#?}", settled[2]);
        assert_eq!(settled[2].answer_text(), "13?");
        assert_eq!(settled[2].counter, "Step 1 / 1 + final answer");

        let more = format!("{} .panel-more", panel("react"));
        let label = rig
            .js(&format!(
                "return document.querySelector('{more}').innerText"
            ))
            .await;
        assert_eq!(label, json!("Go on for 1 more step"));
        // Act-only also hit its limit of one step; the stopped Think-only did not.
        assert!(settled[1].answer_forced);
        assert_eq!(
            rig.js("return Array.from(document.querySelectorAll('.panel-more')).map(b => b.closest('section.panel').dataset.mode)")
                .await,
            json!(["act", "react"]),
            "only a run the limit cut short offers to go on"
        );
        rig.click(&more).await;
        rig.wait_for(
            "ReAct to go on to its answer",
            SETTLE,
            &format!(
                "const p = document.querySelector('{}'); return p.dataset.status === 'done' && !!p.querySelector('.answer') && p.querySelector('.answer').innerText.includes('42')",
                panel("react")
            ),
        )
        .await;
        let react = rig.panel("react").await;
        assert!(!react.answer_forced);
        assert_eq!(react.counter, "Step 2 / 2");
        assert_eq!(react.actions.len(), 1, "{react:#?}");
        // What went on: the conversation up to the limit, without the forced call.
        let last = rig
            .mock
            .chat_requests_containing(Mode::ReAct.prompt_heading());
        let body: Value = serde_json::from_str(&last[2].body).unwrap();
        let contents: Vec<&str> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap())
            .collect();
        assert_eq!(
            contents[1..],
            [
                QUESTION,
                "Thought: add first.\nAction: calculator\nAction Input: 6 + 7",
                "Observation: 13"
            ]
        );
        let attempt = rig
            .js(&format!(
                "return document.querySelector('{} .earlier-attempt summary').innerText",
                panel("react")
            ))
            .await;
        assert_eq!(attempt, json!("Attempt 1 of 2: forced answer: 13?"));
        // Think-only, stopped, kept what streamed and offers Retry.
        assert!(
            settled[0].live.contains("let me count") && settled[0].text.contains("Retry"),
            "{:#?}",
            settled[0]
        );
    });
}

#[test]
fn an_edited_prompt_is_what_the_endpoint_receives_and_goes_with_the_run() {
    const EDITED: &str = "You are a terse pirate.\nAnswer with:\nAnswer: <number>, arr";
    browser_test(|rig: Rig| async move {
        rig.mock
            .script("You are a terse pirate.", [Reply::text("Answer: 42, arr")]);
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        rig.open_settings().await;
        let react = "details.prompt-edit[data-mode=react]";
        rig.wait_for(
            "the prompt editor",
            SETTLE,
            &format!("return !!document.querySelector('{react}')"),
        )
        .await;
        let default = rig
            .js("return document.querySelector('#prompt-react').value")
            .await;
        assert!(
            default
                .as_str()
                .unwrap()
                .starts_with(Mode::ReAct.prompt_heading()),
            "the default is shown to start from: {default}"
        );
        assert_eq!(
            rig.js(&format!(
                "return document.querySelector('{react} .edited-mark').hidden"
            ))
            .await,
            json!(true)
        );
        rig.click(&format!("{react} > summary")).await;
        let field = rig
            .client
            .find(Locator::Css("#prompt-react"))
            .await
            .unwrap();
        field.clear().await.unwrap();
        field.send_keys(EDITED).await.unwrap();
        rig.click(&format!("{react} > summary")).await; // leaves the field: the edit is kept
        rig.wait_for(
            "the edited mark",
            SETTLE,
            &format!("return document.querySelector('{react} .edited-mark').hidden === false"),
        )
        .await;
        let stored = rig
            .wait_for_value(
                "the edit to be kept",
                SETTLE,
                "return JSON.parse(localStorage.getItem('react-arena.settings')).prompts",
                |p| *p == json!({ "react": EDITED }),
            )
            .await;
        assert_eq!(stored, json!({ "react": EDITED }));

        rig.ask(QUESTION, "react").await;
        let done = rig.wait_until_settled(SETTLE).await;
        assert_eq!(done[0].answer_text(), "42, arr");
        let sent = rig.mock.chat_requests_containing("terse pirate");
        assert_eq!(sent.len(), 1);
        let body: Value = serde_json::from_str(&sent[0].body).unwrap();
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(
            body["messages"][0]["content"], EDITED,
            "sent exactly as written"
        );

        let (file, md) = export(&rig).await;
        let config = &file.records[0].config;
        assert_eq!(config.edited_prompt.as_deref(), Some(EDITED));
        assert_eq!(config.system_prompt, EDITED);
        assert!(
            md.contains(&format!(
                "*System prompt (edited in Settings, sent as written):*\n\n```text\n{EDITED}\n```"
            )),
            "{md}"
        );

        // Replayed from its file on a page with the default prompts: Inspect shows the
        // edited prompt as the one sent.
        rig.open_app_with(json!({}), "", false).await;
        rig.choose_speed("instant").await;
        let name = format!("edited-prompt-{}.json", std::process::id());
        let path = rig
            .choose_file(
                "#import-file",
                &name,
                &serde_json::to_string(&file).unwrap(),
            )
            .await;
        rig.wait_for(
            "the recording",
            SETTLE,
            "const b = document.querySelector('#recording-banner'); return !!b && b.dataset.playing === 'false' && !!document.querySelector('section.panel .inspect')",
        )
        .await;
        let react_panel = panel("react");
        rig.click(&format!("{react_panel} .inspect > summary"))
            .await;
        rig.wait_for(
            "the replayed call",
            SETTLE,
            &format!("return document.querySelectorAll('{react_panel} .model-call').length === 1"),
        )
        .await;
        rig.click(&format!("{react_panel} .model-call summary"))
            .await;
        rig.wait_for(
            "the call's messages",
            SETTLE,
            &format!("return !!document.querySelector('{react_panel} .model-call .sent .message .content')"),
        )
        .await;
        let shown = rig
            .js(&format!(
                "return [document.querySelector('{react_panel} .model-call .sent .message .content').textContent, document.querySelector('{react_panel} .inspect-setup').textContent]"
            ))
            .await;
        assert_eq!(shown[0], EDITED);
        assert!(
            shown[1]
                .as_str()
                .unwrap()
                .contains("system prompt edited in Settings"),
            "{shown}"
        );
        let _ = std::fs::remove_file(&path);

        // Reset brings the mode's own prompt back.
        rig.open_app_overriding(json!({ "protocol": "text", "prompts": { "react": EDITED } }))
            .await;
        rig.open_settings().await;
        rig.wait_for(
            "the prompt editor",
            SETTLE,
            &format!("return !!document.querySelector('{react}') && document.querySelector('{react} .edited-mark').hidden === false"),
        )
        .await;
        rig.click(&format!("{react} > summary")).await;
        rig.click("#prompt-react-reset").await;
        let after = rig
            .wait_for_value(
                "the mode's own prompt back, and kept",
                SETTLE,
                "return [document.querySelector('#prompt-react').value, JSON.parse(localStorage.getItem('react-arena.settings')).prompts]",
                |after| {
                    after[0]
                        .as_str()
                        .is_some_and(|p| p.starts_with(Mode::ReAct.prompt_heading()))
                        && after[1] == json!({})
                },
            )
            .await;
        assert!(
            after[0]
                .as_str()
                .unwrap()
                .starts_with(Mode::ReAct.prompt_heading()),
            "{after}"
        );
        assert_eq!(after[1], json!({}));
    });
}

/// Each mode answers so that its panel can be told apart by its answer (the test must find
/// the mode it votes for without reading a name the page hides).
fn script_distinct_answers(rig: &Rig, runs: usize) {
    script_distinct_answers_after(rig, runs, 0);
}

/// The same, each answer sent `latency_ms` after its request (a run still going when the page
/// has drawn what it draws once a run is shown).
fn script_distinct_answers_after(rig: &Rig, runs: usize, latency_ms: u64) {
    let reply = |text: &str| Reply::text(text).with_latency(latency_ms);
    for _ in 0..runs {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [reply("Thought: sevens.\nAnswer: 42 by thinking")],
        );
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                reply("Action: calculator\nAction Input: 6 * 7"),
                reply("Answer: 42 by acting"),
            ],
        );
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                reply("Thought: multiply.\nAction: calculator\nAction Input: 6 * 7"),
                reply("Thought: done.\nAnswer: 42 by reasoning and acting"),
            ],
        );
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [reply(
                "Thought: no program needed.\nAnswer: 42 by writing no code",
            )],
        );
    }
}

/// The letter of the panel whose answer ends with `words`.
async fn letter_answering(rig: &Rig, words: &str) -> String {
    rig.js(&format!(
        "return Array.from(document.querySelectorAll('section.panel')).find(p => (p.querySelector('.answer') || {{innerText: ''}}).innerText.trim().endsWith('{words}')).dataset.label"
    ))
    .await
    .as_str()
    .unwrap()
    .to_string()
}

/// Everything a blind run must not name before the vote: the panels, the vote bar, the
/// comparison and the kept run's line in the history, with their attributes (titles, aria
/// labels, data attributes). (The page's own title names the three modes, as the app.)
const NAMES_SHOWN: &str = r#"
const parts = ['#panels', '#blind-vote', '#comparison', '#history .history-list']
  .map(s => document.querySelector(s)).filter(Boolean);
const text = parts.map(p => p.outerHTML).join('\n');
const names = arguments[0];
const modeAttrs = Array.from(document.querySelectorAll('#panels [data-mode], #history .history-list [data-mode]'))
  .map(e => e.dataset.mode).filter(m => m !== 'blind');
return names.filter(n => text.includes(n)).map(n => n + ' in …' + text.slice(Math.max(0, text.indexOf(n) - 80), text.indexOf(n) + 40)).concat(modeAttrs);
"#;

#[test]
fn blind_mode_names_no_mode_or_model_until_the_vote_and_the_vote_is_kept() {
    browser_test(|rig: Rig| async move {
        // Slow enough that the run still goes when the vote bar (a part, fetched once the
        // run's first request has left) is drawn.
        script_distinct_answers_after(&rig, 1, 1_500);
        rig.open_app_overriding(json!({
            "protocol": "text",
            "mode_models": { "think": "lab/thinker-7b", "act": "lab/actor-8b", "react": "lab/reactor-9b" },
        }))
        .await;
        let names = json!([
            "Think-only",
            "Act-only",
            "ReAct",
            "lab/thinker-7b",
            "lab/actor-8b",
            "lab/reactor-9b"
        ]);
        let shown = |rig: &Rig| {
            let names = names.clone();
            let client = rig.client.clone();
            async move { client.execute(NAMES_SHOWN, vec![names]).await.unwrap() }
        };
        rig.ask(QUESTION, "blind").await;
        // While it runs: letters only, and no vote yet.
        let labels = rig
            .js("return Array.from(document.querySelectorAll('section.panel')).map(p => [p.dataset.label, p.querySelector('h2').innerText])")
            .await;
        assert_eq!(
            labels,
            json!([
                ["A", "Answer A"],
                ["B", "Answer B"],
                ["C", "Answer C"],
                ["D", "Answer D"]
            ])
        );
        assert_eq!(
            shown(&rig).await,
            json!([]),
            "a name shows while the run goes"
        );
        rig.wait_for(
            "the vote bar",
            SETTLE,
            "return document.querySelectorAll('.vote-best').length === 4",
        )
        .await;
        assert_eq!(
            rig.js("return document.querySelectorAll('.vote-best:disabled').length")
                .await,
            json!(4),
            "no vote before every panel has finished"
        );
        rig.wait_until_settled(SETTLE).await;
        open_history_of_one_run(&rig).await;
        assert_eq!(shown(&rig).await, json!([]), "a name shows before the vote");
        assert_eq!(
            rig.js("return [document.querySelectorAll('section.panel .inspect').length, !!document.querySelector('#comparison table')]").await,
            json!([0, false]),
            "Inspect and the comparison name the models: they wait for the vote"
        );
        let violations = support::axe::axe(&rig).await;
        support::axe::assert_no_serious("a blind run before the vote", &violations);
        assert!(violations.is_empty(), "{violations:#?}");
        let shot = rig.screenshot("blind-before-vote.png").await;
        support::browser::keep_for_docs(&shot, "blind-before-vote.png");

        let react = letter_answering(&rig, "by reasoning and acting").await;
        rig.click(&format!(".vote-best[data-label='{react}']"))
            .await;
        rig.wait_for(
            "the names",
            SETTLE,
            "return !!document.querySelector('#blind-result')",
        )
        .await;
        let result = rig
            .js("return document.querySelector('#blind-result').innerText")
            .await;
        let result = result.as_str().unwrap();
        assert!(
            result.starts_with(&format!("You voted {react} best. ")),
            "{result}"
        );
        assert!(
            result.contains(&format!("{react}: ReAct (lab/reactor-9b)")),
            "{result}"
        );
        let heads = rig
            .js("return Array.from(document.querySelectorAll('section.panel')).map(p => [p.dataset.mode, p.querySelector('h2').innerText, (p.querySelector('.vote-badge') || {innerText: ''}).innerText])")
            .await;
        let react_head = heads
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h[0] == "react")
            .unwrap()
            .clone();
        assert_eq!(
            react_head,
            json!([
                "react",
                format!("{react} · ReAct · lab/reactor-9b"),
                "Voted best"
            ])
        );
        assert_eq!(
            rig.wait_for_value(
                "Inspect and the comparison after the vote",
                SETTLE,
                "return [document.querySelectorAll('section.panel .inspect').length, document.querySelectorAll('#comparison tbody tr').length]",
                |shown| *shown == json!([4, 4]),
            )
            .await,
            json!([4, 4]),
            "named after the vote"
        );
        let shot = rig.screenshot("blind-after-vote.png").await;
        support::browser::keep_for_docs(&shot, "blind-after-vote.png");

        // The vote is in each record, in the export and in the kept run after a reload.
        let (file, md) = export(&rig).await;
        let votes: Vec<(String, String, String)> = file
            .records
            .iter()
            .map(|r| {
                let b = r.blind.as_ref().expect("a blind record");
                (
                    b.label.clone(),
                    r.config.mode.id().to_string(),
                    serde_json::to_value(b.vote)
                        .unwrap()
                        .as_str()
                        .unwrap()
                        .to_string(),
                )
            })
            .collect();
        assert_eq!(votes.iter().filter(|v| v.2 == "best").count(), 1);
        assert!(
            votes.contains(&(react.clone(), "react".into(), "best".into())),
            "{votes:?}"
        );
        assert_eq!(votes.iter().filter(|v| v.2 == "not-best").count(), 3);
        assert!(!md.is_empty());
        rig.client.refresh().await.unwrap();
        rig.wait_for(
            "the kept run",
            SETTLE,
            "return document.querySelectorAll('section.panel .vote-badge').length === 4",
        )
        .await;
        let named = format!("{react}: ReAct");
        assert!(rig
            .wait_for_value(
                "the kept vote's result",
                SETTLE,
                "return document.querySelector('#blind-result')?.innerText ?? ''",
                |r| r.as_str().is_some_and(|r| r.contains(&named)),
            )
            .await
            .as_str()
            .unwrap()
            .contains(&format!("{react}: ReAct")));
    });
}

/// Each panel as an attacker reads it: its visible text, and every element's tag and
/// attributes (classes, ids, aria, data-*, titles), with the panel's own letter put as `?`.
const PANEL_FACES: &str = r#"
return Array.from(document.querySelectorAll('section.panel')).map(p => {
  const letter = p.dataset.label;
  // A panel's letter and its place (the ids its phone tab uses) are not tells: A is first.
  const blank = s => s.replace(new RegExp('Answer ' + letter + '\\b', 'g'), 'Answer ?')
    .replace(/\bmode-(panel|tab)-\d+\b/g, 'mode-$1-?');
  const attrs = [p, ...p.querySelectorAll('*')].map(e => e.tagName.toLowerCase() + ' ' +
    Array.from(e.attributes)
      .map(a => a.name + '=' + (a.name === 'data-label' ? '?' : blank(a.value)))
      .sort().join(' '));
  return { text: blank(p.innerText), attrs };
});
"#;

/// What tells the faces apart: the texts if they differ, and each element line not in all
/// three.
fn differences(faces: &Value) -> Vec<String> {
    let faces = faces.as_array().expect("the panels' faces");
    let mut found = Vec::new();
    let texts: Vec<&Value> = faces.iter().map(|f| &f["text"]).collect();
    if texts.iter().any(|t| *t != texts[0]) {
        found.push(format!("the panels' texts differ: {texts:#?}"));
    }
    let lines: Vec<Vec<&str>> = faces
        .iter()
        .map(|f| {
            f["attrs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect()
        })
        .collect();
    for (i, own) in lines.iter().enumerate() {
        for line in own {
            if lines.iter().any(|other| !other.contains(line)) {
                found.push(format!(
                    "only some panels (panel {i} among them) have <{line}>"
                ));
            }
        }
    }
    found
}

#[test]
fn blind_panels_of_the_same_output_look_the_same_and_nothing_shares_them_until_the_vote() {
    browser_test(|rig: Rig| async move {
        // The attack: every mode writes the same reply, Thought line included; anything that
        // still tells the panels apart is the page's, not the model's.
        let same = "Thought: six sevens are forty-two.\nAnswer: 42";
        for mode in Mode::ALL {
            rig.mock.script(mode.prompt_heading(), [Reply::text(same)]);
        }
        let models = [
            "lab/thinker-7b",
            "lab/actor-8b",
            "lab/reactor-9b",
            "lab/coder-3b",
        ];
        rig.open_app_overriding(json!({
            "protocol": "text",
            "mode_models": {
                "think": models[0],
                "act": models[1],
                "react": models[2],
                "codeact": models[3],
            },
        }))
        .await;
        rig.ask(QUESTION, "blind").await;
        rig.wait_until_settled(SETTLE).await;

        let mut tells = differences(&rig.js(PANEL_FACES).await);
        let thoughts = rig
            .js("return Array.from(document.querySelectorAll('section.panel')).map(p => p.querySelectorAll('.thought').length)")
            .await;
        if thoughts != json!([1, 1, 1, 1]) {
            tells.push(format!("the Thought line is not shown alike: {thoughts}"));
        }
        // Inspect shows the system prompt, which names the mode.
        let prompts = rig
            .client
            .execute(
                "const html = document.querySelector('#panels').outerHTML; return [document.querySelectorAll('section.panel .inspect').length, arguments[0].filter(h => html.includes(h))];",
                vec![json!(Mode::ALL.map(Mode::prompt_heading))],
            )
            .await
            .unwrap();
        if prompts != json!([0, []]) {
            tells.push(format!("Inspect or a prompt shows: {prompts}"));
        }
        // The files name the modes and models: not before the vote.
        let exports = rig
            .js("return ['#export-json', '#export-markdown'].map(s => document.querySelector(s).disabled)")
            .await;
        if exports != json!([true, true]) {
            tells.push(format!("Export JSON / Markdown can be pressed: {exports}"));
        }
        rig.click("#embed-open").await;
        rig.wait_for(
            "the embed code",
            SETTLE,
            "return !!(document.querySelector('#embed-url') || {dataset: {}}).dataset.url",
        )
        .await;
        // Give a deflated run, if any, the time to arrive in the snippet.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let snippet = rig
            .js("return document.querySelector('#embed-snippet').value")
            .await;
        let snippet = snippet.as_str().unwrap();
        let named: Vec<&str> = ["#run=", "Think-only", "Act-only", "ReAct ("]
            .into_iter()
            .chain(models)
            .chain(Mode::ALL.map(Mode::prompt_heading))
            .filter(|n| snippet.contains(n))
            .collect();
        if !named.is_empty() {
            let start: String = snippet.chars().take(200).collect();
            tells.push(format!("the embed code carries {named:?}: {start}…"));
        }
        if rig
            .js("return document.querySelector('#embed-with-run').disabled")
            .await
            != json!(true)
        {
            tells.push("the embed code can carry the run".into());
        }
        rig.click("#embed-close").await;
        assert!(tells.is_empty(), "before the vote: {tells:#?}");

        // After the vote, everything comes back.
        rig.click("#vote-tie").await;
        rig.wait_for(
            "the names",
            SETTLE,
            "return !!document.querySelector('#blind-result')",
        )
        .await;
        let panels = rig.panels().await;
        let mut modes: Vec<&str> = panels.iter().map(|p| p.mode.as_str()).collect();
        modes.sort_unstable();
        assert_eq!(modes, ["act", "codeact", "react", "think"]);
        for p in &panels {
            assert!(p.usage.contains("completion tokens"), "{p:#?}");
            assert_eq!(p.thoughts.len(), 1, "{p:#?}");
        }
        let think = panels.iter().find(|p| p.mode == "think").unwrap();
        assert_eq!(think.counter, "Step 1 / 1");
        assert_eq!(
            rig.js("return document.querySelectorAll('section.panel .inspect').length")
                .await,
            json!(4)
        );
        let (file, md) = export(&rig).await;
        assert_eq!(file.records.len(), 4);
        for (mode, model) in Mode::ALL.iter().zip(models) {
            assert!(
                md.contains(mode.label()) && md.contains(model),
                "{mode:?}: {md}"
            );
        }
        assert!(rig.embed_address().await.contains("#run="));
    });
}

#[test]
fn a_blind_run_s_errors_name_no_model_until_the_vote() {
    browser_test(|rig: Rig| async move {
        // An endpoint's error often names the model it could not serve.
        let models = [
            "lab/thinker-7b",
            "lab/actor-8b",
            "lab/reactor-9b",
            "lab/coder-3b",
        ];
        for (mode, model) in Mode::ALL.into_iter().zip(models) {
            rig.mock.script(
                mode.prompt_heading(),
                [Reply::status(404, &format!("{model} does not exist"))],
            );
        }
        rig.open_app_overriding(json!({
            "protocol": "text",
            "mode_models": {
                "think": models[0],
                "act": models[1],
                "react": models[2],
                "codeact": models[3],
            },
        }))
        .await;
        rig.ask(QUESTION, "blind").await;
        let panels = rig.wait_until_settled(SETTLE).await;
        for p in &panels {
            assert!(p.error.ends_with("the model does not exist"), "{p:#?}");
        }
        open_history_of_one_run(&rig).await;
        let shown = rig
            .client
            .execute(NAMES_SHOWN, vec![json!(models)])
            .await
            .unwrap();
        assert_eq!(shown, json!([]), "a model shows before the vote");

        rig.click("#vote-all-bad").await;
        rig.wait_for(
            "the names",
            SETTLE,
            "return !!document.querySelector('#blind-result')",
        )
        .await;
        for p in rig.panels().await {
            let model = models[["think", "act", "react", "codeact"]
                .iter()
                .position(|m| *m == p.mode)
                .unwrap()];
            assert!(
                p.error.ends_with(&format!("{model} does not exist")),
                "{p:#?}"
            );
        }
    });
}

#[test]
fn the_leaderboard_of_scripted_votes_is_the_one_worked_out_by_hand() {
    browser_test(|rig: Rig| async move {
        script_distinct_answers(&rig, 4);
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        rig.click("#leaderboard > summary").await;
        let empty = json!("No votes yet: run All in blind mode and vote to rank the modes.");
        assert_eq!(
            rig.wait_for_value(
                "the leaderboard's note",
                SETTLE,
                "return document.querySelector('#leaderboard-note')?.innerText ?? null",
                |n| *n == empty,
            )
            .await,
            json!("No votes yet: run All in blind mode and vote to rank the modes.")
        );
        // Three votes: ReAct best, a tie, all bad.
        for vote in ["react", "tie", "all-bad"] {
            rig.ask(QUESTION, "blind").await;
            rig.wait_until_settled(SETTLE).await;
            match vote {
                "react" => {
                    let letter = letter_answering(&rig, "by reasoning and acting").await;
                    rig.click(&format!(".vote-best[data-label='{letter}']"))
                        .await;
                }
                other => rig.click(&format!("#vote-{other}")).await,
            }
            rig.wait_for(
                "the vote",
                SETTLE,
                "return !!document.querySelector('#blind-result')",
            )
            .await;
        }
        // A fourth run, not blind: figures, no vote.
        rig.ask(QUESTION, "all").await;
        rig.wait_until_settled(SETTLE).await;
        rig.wait_for(
            "four kept runs",
            SETTLE,
            "return document.querySelectorAll('#history li.history-item').length === 4",
        )
        .await;
        // Ranked from the kept votes, once the last is in.
        let rows = rig
            .wait_for_value(
                "the leaderboard of the three votes",
                SETTLE,
                "return Array.from(document.querySelectorAll('#leaderboard-table tbody tr')).map(tr => Array.from(tr.children).map(c => c.innerText))",
                |rows| rows.as_array().is_some_and(|r| r.len() == 4) && rows[0][2] == "3 / 6 / 0",
            )
            .await;
        // By hand: ReAct beat the three others once and tied each twice (3 / 6 / 0); each
        // other mode lost once to it and tied the rest (0 / 6 / 1). Bradley-Terry: ReAct wins
        // 2 of its 3 games with each, so its strength is twice theirs (2y/(x+y)·3 = 4 gives
        // y = 2x); with the four's geometric mean at 1, x³·2x = 1, x = 2^(-1/4): Elo
        // 1000 + 400·log10 x = 969.9 for the three, and 969.9 + 400·log10 2 = 1090.3 for ReAct.
        let rows = rows.as_array().unwrap();
        assert_eq!(rows.len(), 4, "{rows:#?}");
        let cells = |i: usize, j: usize| rows[i][j].as_str().unwrap().to_string();
        assert_eq!(
            (cells(0, 0), cells(0, 1), cells(0, 2)),
            ("ReAct".into(), "mock/model".into(), "3 / 6 / 0".into())
        );
        assert!(cells(0, 3).starts_with("1090 ("), "{rows:#?}");
        for i in [1, 2, 3] {
            assert_eq!(cells(i, 2), "0 / 6 / 1");
            assert!(cells(i, 3).starts_with("970 ("), "{rows:#?}");
            assert_eq!(cells(i, 4), "100% of 4");
        }
        assert_eq!(cells(0, 4), "100% of 4");
        assert_eq!(
            rig.js("return !!document.querySelector('#leaderboard-note')")
                .await,
            json!(false),
            "ranked: no note"
        );
        let violations = support::axe::axe(&rig).await;
        support::axe::assert_no_serious("the leaderboard", &violations);
        assert!(violations.is_empty(), "{violations:#?}");
        rig.js("document.querySelector('#leaderboard').scrollIntoView(); return true;")
            .await;
        let shot = rig.screenshot("leaderboard.png").await;
        support::browser::keep_for_docs(&shot, "leaderboard.png");

        // CSV: the same numbers.
        rig.js(CAPTURE_DOWNLOADS).await;
        rig.click("#leaderboard-csv").await;
        let downloads = rig.wait_for_downloads(1, SETTLE).await;
        let csv = &downloads[0].text;
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 5, "{csv}");
        assert!(
            lines[1].starts_with("ReAct,mock/model,3,6,0,1090.3,"),
            "{csv}"
        );
        assert!(lines[2].contains(",0,6,1,969.9,"), "{csv}");

        // Clear starts over, and Undo brings it back; nothing is deleted.
        rig.click("#leaderboard-clear").await;
        rig.wait_for(
            "an empty leaderboard",
            SETTLE,
            "return document.querySelectorAll('#leaderboard-table tbody tr').length === 0",
        )
        .await;
        assert_eq!(
            rig.js("return document.querySelectorAll('#history li.history-item').length")
                .await,
            json!(4)
        );
        rig.click("#leaderboard-undo").await;
        rig.wait_for(
            "the leaderboard back",
            SETTLE,
            "return document.querySelectorAll('#leaderboard-table tbody tr').length === 4",
        )
        .await;
    });
}
