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
use serde::Deserialize;
use serde_json::{json, Value};
use support::browser::{browser_test, PanelView, Rig, CAPTURE_DOWNLOADS, READ_DOWNLOADS};
use support::mock::Reply;

const SETTLE: Duration = Duration::from_secs(30);
const QUESTION: &str = "What is 6 times 7?";

#[derive(Debug, Deserialize)]
struct Download {
    text: String,
}

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
    let downloads: Vec<Download> = serde_json::from_value(
        rig.client
            .execute_async(READ_DOWNLOADS, vec![])
            .await
            .unwrap(),
    )
    .expect("the downloads");
    assert_eq!(downloads.len(), 2);
    let file = RunFile::from_json(&downloads[0].text).expect("the JSON export reads back");
    (file, downloads[1].text.clone())
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

fn script_act_and_react(rig: &Rig) {
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
        script_act_and_react(&rig);
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
            json!([3, 0])
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
                "return document.querySelector('{} .live').innerText.includes('count')",
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
                "const p = document.querySelector('{}'); return p.dataset.status === 'done' && p.querySelector('.answer').innerText.includes('42')",
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
            .js("return JSON.parse(localStorage.getItem('react-arena.settings')).prompts")
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
        rig.click("#replay-speed option[value='instant']").await;
        let path = std::env::temp_dir().join(format!("edited-prompt-{}.json", std::process::id()));
        std::fs::write(&path, serde_json::to_string(&file).unwrap()).unwrap();
        rig.client
            .find(Locator::Css("#import-file"))
            .await
            .unwrap()
            .send_keys(path.to_str().unwrap())
            .await
            .unwrap();
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
            .js("return [document.querySelector('#prompt-react').value, JSON.parse(localStorage.getItem('react-arena.settings')).prompts]")
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
