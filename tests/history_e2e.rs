//! Kept runs: saved in IndexedDB as they stream, shown again after a reload, listed in the
//! history to open, rename and delete; a refused write is said and the run goes on; the
//! token is never stored. Against the scripted mock endpoint.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::Locator;
use react_arena::agent::record::INTERRUPTED_NOTICE;
use react_arena::agent::Mode;
use serde::Deserialize;
use serde_json::{json, Value};
use support::browser::{browser_test, PanelView, Rig, MARKER_TOKEN};
use support::mock::Reply;

const SETTLE: Duration = Duration::from_secs(30);

/// Every database, store, key and value the page keeps in IndexedDB, as JSON text.
const DUMP_INDEXED_DB: &str = r#"
const done = arguments[arguments.length - 1];
const ask = (request) => new Promise((resolve, reject) => {
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});
(async () => {
  const out = {};
  for (const info of await indexedDB.databases()) {
    const db = await ask(indexedDB.open(info.name));
    for (const name of Array.from(db.objectStoreNames)) {
      const store = db.transaction(name, "readonly").objectStore(name);
      const [keys, values] = await Promise.all([ask(store.getAllKeys()), ask(store.getAll())]);
      out[info.name + "/" + name] = { keys, values };
    }
    db.close();
  }
  return JSON.stringify(out);
})().then(done, (e) => done("dump failed: " + e));
"#;

/// The history list as the user reads it.
const READ_HISTORY: &str = r#"
return Array.from(document.querySelectorAll('#history li.history-item')).map(li => ({
  id: li.dataset.id,
  title: li.querySelector('.history-title').value,
  when: li.querySelector('.history-when').innerText,
  shown: li.classList.contains('shown'),
  modes: Array.from(li.querySelectorAll('.history-modes li')).map(m => [m.dataset.mode, m.querySelector('.history-outcome').innerText]),
}));
"#;

#[derive(Debug, Deserialize)]
struct HistoryRow {
    id: String,
    title: String,
    when: String,
    shown: bool,
    modes: Vec<(String, String)>,
}

async fn dump_indexed_db(rig: &Rig) -> String {
    let dump = rig
        .client
        .execute_async(DUMP_INDEXED_DB, vec![])
        .await
        .expect("reading IndexedDB");
    let text = dump.as_str().unwrap_or_default().to_string();
    assert!(text.starts_with('{'), "{text}");
    text
}

/// The kept runs' ids, as stored.
async fn stored_run_ids(rig: &Rig) -> Vec<String> {
    let dump: Value = serde_json::from_str(&dump_indexed_db(rig).await).unwrap();
    serde_json::from_value(dump["react-arena/runs"]["keys"].clone()).unwrap()
}

async fn open_history(rig: &Rig) {
    rig.wait_for_history_list().await;
    if rig
        .js("return document.querySelector('#history').open")
        .await
        != Value::Bool(true)
    {
        rig.click("#history > summary").await;
    }
}

async fn history(rig: &Rig, rows: usize) -> Vec<HistoryRow> {
    rig.wait_for(
        &format!("{rows} runs in the history"),
        SETTLE,
        &format!("return document.querySelectorAll('#history li.history-item').length === {rows}"),
    )
    .await;
    serde_json::from_value(rig.js(READ_HISTORY).await).unwrap()
}

async fn reload(rig: &Rig) {
    rig.client.refresh().await.unwrap();
    rig.wait_for(
        "the app after the reload",
        SETTLE,
        "return !!document.querySelector('#run')",
    )
    .await;
}

fn find<'a>(panels: &'a [PanelView], mode: &str) -> &'a PanelView {
    panels.iter().find(|p| p.mode == mode).unwrap()
}

#[test]
fn a_reload_mid_run_keeps_everything_shown_and_marks_the_run_stopped() {
    browser_test(|rig: Rig| async move {
        let slow = "Thought: I will count the letters one at a time, carefully, \
                    and write each of them down before I give any answer at all.";
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(&format!("{slow}\nAnswer: 7")).with_chunk_delay(150)],
        );
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
                Reply::text("Thought: multiply first.\nAction: calculator\nAction Input: 6 * 7"),
                Reply::text(&format!("{slow}\nAnswer: 42")).with_chunk_delay(150),
            ],
        );
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [Reply::text(&format!("{slow}\nAnswer: 42")).with_chunk_delay(150)],
        );
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        rig.ask("How many letters, and what is 6 times 7?", "all")
            .await;
        rig.wait_for(
            "Act-only to answer while the others stream",
            SETTLE,
            "const p = m => document.querySelector(`section.panel[data-mode=${m}]`);\
             return p('act').dataset.status === 'done'\
               && p('think').querySelector('.live').innerText.includes('letters')\
               && p('react').querySelectorAll('li.step').length === 2\
               && p('react').querySelectorAll('.live')[1].innerText.includes('letters')\
               && p('codeact').querySelector('.live').innerText.includes('letters');",
        )
        .await;
        let before = rig.panels().await;
        assert_eq!(find(&before, "think").status, "streaming", "{before:#?}");
        assert_eq!(find(&before, "react").status, "streaming", "{before:#?}");
        assert_eq!(find(&before, "codeact").status, "streaming", "{before:#?}");

        reload(&rig).await;
        // Shown at once as plain text, then as Markdown once the Markdown parser's chunk is in again:
        // compared when it is.
        rig.wait_for(
            "the run to be shown again",
            SETTLE,
            "return document.querySelectorAll('section.panel[data-status=stopped]').length === 3 \
               && !!document.querySelector('section.panel[data-mode=act] .answer .md > *')",
        )
        .await;
        let after = rig.panels().await;
        assert_eq!(after.len(), 4, "{after:#?}");
        for (b, a) in before.iter().zip(&after) {
            assert_eq!(a.mode, b.mode);
            assert_eq!(a.counter, b.counter, "{a:#?}");
            assert_eq!(a.thoughts, b.thoughts, "{a:#?}");
            assert_eq!(a.actions, b.actions, "{a:#?}");
            assert_eq!(a.observations, b.observations, "{a:#?}");
            assert_eq!(a.answer, b.answer, "{a:#?}");
            assert!(
                a.live.starts_with(&b.live) && !b.live.is_empty() || b.mode == "act",
                "what streamed before the reload is all there:\nbefore {:?}\nafter  {:?}",
                b.live,
                a.live
            );
        }
        let act = find(&after, "act");
        assert_eq!(act.status, "done", "a finished mode stays finished");
        assert!(act.answer.contains("42"), "{act:#?}");
        assert!(!act.text.contains(INTERRUPTED_NOTICE), "{act:#?}");
        for mode in ["think", "react", "codeact"] {
            let p = find(&after, mode);
            assert_eq!(p.status, "stopped", "{p:#?}");
            assert!(p.text.contains(INTERRUPTED_NOTICE), "{p:#?}");
        }
        assert_eq!(
            rig.js("return document.querySelector('#mode').value").await,
            "all"
        );
        open_history(&rig).await;
        let rows = history(&rig, 1).await;
        assert_eq!(rows[0].title, "How many letters, and what is 6 times 7?");
        assert!(rows[0].shown);
        assert!(!dump_indexed_db(&rig).await.contains(MARKER_TOKEN));
    });
}

#[test]
fn the_history_lists_runs_to_open_rename_and_delete() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [
                Reply::text("Thought: well known.\nAnswer: Paris"),
                Reply::text("Thought: also known.\nAnswer: Rome"),
            ],
        );
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        rig.ask("What is the capital of France?", "think").await;
        rig.wait_until_settled(SETTLE).await;
        rig.click("#new-conversation").await;
        rig.ask("What is the capital of Italy?", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert!(p.answer.contains("Rome"), "{p:#?}");

        open_history(&rig).await;
        // Each run's outcome is kept a moment after its panel settles.
        let rows = rig
            .wait_until(
                "both runs listed with their answers",
                SETTLE,
                || history(&rig, 2),
                |rows| {
                    rows[0].modes == [("think".to_string(), "Rome".to_string())]
                        && rows[1].modes == [("think".to_string(), "Paris".to_string())]
                },
            )
            .await;
        let titles: Vec<&str> = rows.iter().map(|r| r.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "What is the capital of Italy?",
                "What is the capital of France?"
            ]
        );
        assert_eq!(rows[0].modes, [("think".to_string(), "Rome".to_string())]);
        assert_eq!(rows[1].modes, [("think".to_string(), "Paris".to_string())]);
        assert!(rows[0].shown && !rows[1].shown, "{rows:#?}");
        let when = &rows[1].when;
        assert!(when.len() == 16 && when.starts_with("20"), "{when}");
        let (italy, france) = (rows[0].id.clone(), rows[1].id.clone());
        let row = |id: &str, part: &str| format!("#history li.history-item[data-id='{id}'] {part}");

        // Open the older run: its answer is in the panel, and it is marked as shown.
        rig.click(&row(&france, ".history-open")).await;
        rig.wait_for(
            "the older run in the panel",
            SETTLE,
            "return document.querySelector('section.panel .answer')?.innerText.includes('Paris')",
        )
        .await;
        let p = rig.panel("think").await;
        assert_eq!(p.status, "done");
        assert!(
            p.thoughts.len() == 1 && p.thoughts[0].contains("well known."),
            "{p:#?}"
        );
        let rows = rig
            .wait_until(
                "the older run marked as shown",
                SETTLE,
                || history(&rig, 2),
                |rows| rows.iter().any(|r| r.id == france && r.shown),
            )
            .await;
        assert!(rows.iter().any(|r| r.id == france && r.shown), "{rows:#?}");

        // Rename it: the new title is kept across a reload.
        rig.click(&row(&france, ".history-rename")).await;
        let field = rig
            .client
            .find(Locator::Css(&row(&france, ".history-title")))
            .await
            .unwrap();
        field
            .send_keys(&format!(
                "{}a{}French capital{}",
                Key::Control,
                Key::Null,
                Key::Enter
            ))
            .await
            .unwrap();
        let rows = rig
            .wait_until(
                "the new title in the list",
                SETTLE,
                || history(&rig, 2),
                |rows| rows.iter().any(|r| r.title == "French capital"),
            )
            .await;
        assert!(
            rows.iter().any(|r| r.title == "French capital"),
            "{rows:#?}"
        );
        // Kept before the reload: the write lands a moment after the list shows it.
        rig.wait_until(
            "the new title to be kept",
            SETTLE,
            || dump_indexed_db(&rig),
            |dump| dump.contains("French capital"),
        )
        .await;
        reload(&rig).await;
        open_history(&rig).await;
        let rows = history(&rig, 2).await;
        let renamed = rows.iter().find(|r| r.id == france).unwrap();
        assert_eq!(renamed.title, "French capital", "{rows:#?}");
        assert!(rows
            .iter()
            .any(|r| r.id == italy && r.title == "What is the capital of Italy?"));

        // Delete the other one; Undo brings it back; deleted again, it is gone after a reload.
        rig.click(&row(&italy, ".history-delete")).await;
        let rows = history(&rig, 1).await;
        assert_eq!(rows[0].id, france);
        rig.click(".undo-delete").await;
        history(&rig, 2).await;
        let kept = rig
            .wait_until(
                "the run back in storage",
                SETTLE,
                || stored_run_ids(&rig),
                |ids| ids.len() == 2,
            )
            .await;
        assert_eq!(kept.len(), 2);
        rig.click(&row(&italy, ".history-delete")).await;
        history(&rig, 1).await;
        // Deleted from storage before the reload, which reads it.
        rig.wait_until(
            "the run gone from storage",
            SETTLE,
            || stored_run_ids(&rig),
            |ids| ids.len() == 1,
        )
        .await;
        reload(&rig).await;
        open_history(&rig).await;
        let rows = history(&rig, 1).await;
        assert_eq!(rows[0].title, "French capital");
        assert_eq!(stored_run_ids(&rig).await, [france]);
    });
}

#[test]
fn a_refused_write_is_reported_and_the_run_still_answers() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text("Thought: simple.\nAnswer: still here")],
        );
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        // What a full disk or an exhausted quota looks like to the page.
        rig.js("IDBObjectStore.prototype.put = function () {\
               throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');\
             };")
            .await;
        rig.ask("Is it kept?", "think").await;
        let p = rig.wait_until_settled(SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.answer.contains("still here"), "{p:#?}");
        // The refusal comes from the write, which ends after the panel has settled.
        let alert = rig.alert_saying("This run is not kept", SETTLE).await;
        assert!(
            alert.contains("This run is not kept: the browser refused to store it (QuotaExceededError: The quota has been exceeded.)"),
            "{alert}"
        );
        assert!(alert.contains("gone after a reload"), "{alert}");
        open_history(&rig).await;
        history(&rig, 0).await;
        assert!(stored_run_ids(&rig).await.is_empty());
    });
}

#[test]
fn the_token_is_never_stored_with_the_runs() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [
                Reply::text("Thought: six sevens.\nAnswer: 42"),
                Reply::text("Answer: 84"),
            ],
        );
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::text("Action: calculator\nAction Input: 6 * 7"),
                Reply::text("Answer: 42"),
                Reply::text("Answer: 84"),
            ],
        );
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                Reply::text("Thought: compute.\nAction: calculator\nAction Input: 6 * 7"),
                Reply::text("Thought: done.\nAnswer: 42"),
                Reply::text("Answer: 84"),
            ],
        );
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                Reply::text("Thought: six sevens.\nAnswer: 42"),
                Reply::text("Answer: 84"),
            ],
        );
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        rig.ask("What is 6 times 7?", "all").await;
        rig.wait_until_settled(SETTLE).await;
        rig.ask("And twice that?", "all").await;
        let panels = rig.wait_until_settled(SETTLE).await;
        assert!(
            panels.iter().all(|p| p.answer.contains("84")),
            "{panels:#?}"
        );
        // The follow-up is kept a moment after its panels settle.
        let dump = rig
            .wait_until(
                "the follow-up to be kept",
                SETTLE,
                || dump_indexed_db(&rig),
                |dump| dump.contains("What is 6 times 7?") && dump.contains("And twice that?"),
            )
            .await;
        // The dump is the run (its questions and answers are there), and holds no token.
        assert!(
            dump.contains("What is 6 times 7?") && dump.contains("And twice that?"),
            "{dump}"
        );
        assert!(!dump.contains(MARKER_TOKEN), "the token is in IndexedDB");
        assert_eq!(
            stored_run_ids(&rig).await.len(),
            1,
            "a follow-up is the same run"
        );
    });
}

/// After a reload the engine, which draws Markdown, is not loaded: a kept answer shows its
/// text at once, then as Markdown when the engine arrives, without anything being asked.
#[test]
fn a_kept_answer_is_drawn_as_markdown_again_after_a_reload() {
    browser_test(|rig: Rig| async move {
        rig.mock.script(
            Mode::Think.prompt_heading(),
            [Reply::text(
                "Answer: It is **bold** and `code`:\n\n```\nlet x = 1;\n```\n\n- one\n- two",
            )],
        );
        rig.open_app_overriding(json!({ "protocol": "text" })).await;
        rig.ask("Show me some Markdown.", "think").await;
        rig.wait_until_settled(SETTLE).await;
        let drawn = "const md = document.querySelector('section.panel .answer .md');\
             return !!md && !md.classList.contains('plain') && !!md.querySelector('strong')\
               && !!md.querySelector('code') && md.querySelectorAll('li').length === 2\
               && !!md.querySelector('.code-block button.copy-code');";
        rig.wait_for("the answer drawn as Markdown", SETTLE, drawn)
            .await;
        let requests = rig.mock.requests().len();

        reload(&rig).await;
        rig.wait_for("the kept answer drawn as Markdown again", SETTLE, drawn)
            .await;
        let answer = rig.panel("think").await.answer;
        assert!(
            answer.contains("It is bold and code") && answer.contains("let x = 1;"),
            "{answer}"
        );
        assert!(!answer.contains("**"), "Markdown marks left in: {answer}");
        assert_eq!(
            rig.mock.requests().len(),
            requests,
            "the reload asked the model"
        );
    });
}
