//! CodeAct's replies as models write them, run as smolagents' CodeAgent runs them or better
//! (issue 59, rows 3, 5 and 6), in the page's real Python sandbox (Pyodide, self-hosted by the
//! fixture server), the replies scripted: every Python block of a reply runs as one program; a
//! variable named `final_answer` does not hide the function; bare Python the sandbox compiles
//! runs; a fence closed by `</code>` runs without the stray line; a forced answer written as
//! code is run; `final_answer(print(x))` is an error the model reads; the conversation keeps
//! the answer itself; an assignment's value is shown.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Duration;

use react_arena::agent::Mode;
use serde_json::json;
use support::browser::{browser_test, PanelView, Rig};
use support::fixtures::FixtureServer;
use support::mock::Reply;

/// The first program fetches and loads Pyodide (several MB) into a fresh sandbox.
const PYTHON_SETTLE: Duration = Duration::from_secs(180);

async fn open(rig: &Rig, fixtures: &FixtureServer, max_steps: u32) {
    rig.open_app_overriding(json!({
        "tool_endpoints": fixtures.endpoints(),
        "max_steps": max_steps,
    }))
    .await;
}

/// Asks `question` in a conversation of its own (after the first), and waits for its end.
async fn ask_anew(rig: &Rig, question: &str, first: bool) -> PanelView {
    if !first {
        rig.click("#new-conversation").await;
    }
    rig.ask(question, "codeact").await;
    rig.wait_until_settled(PYTHON_SETTLE).await.remove(0)
}

fn scripted(rig: &Rig, question: &str, replies: impl IntoIterator<Item = Reply>) {
    rig.mock
        .script_all_of(&[Mode::CodeAct.prompt_heading(), question], replies);
}

#[test]
fn codeact_replies_as_models_write_them_run_whole() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        let two_blocks = "Two blocks: what is base plus one?";
        scripted(
            &rig,
            two_blocks,
            [Reply::text(
                "Thought: set base, then answer\n```python\nbase = 100\n```\nNow the answer:\n```python\nfinal_answer(base + 1)\n```",
            )],
        );
        let named = "A variable named final_answer: what is six sevens?";
        scripted(
            &rig,
            named,
            [Reply::text(
                "Thought: compute, then answer\n```python\nfinal_answer = 6*7; final_answer(final_answer)\n```",
            )],
        );
        let bare = "Bare code: what is 6 times 7?";
        scripted(
            &rig,
            bare,
            [Reply::text(
                "product = calculator(input='6*7')\nfinal_answer(f'six sevens are {product}')",
            )],
        );
        let prose = "Prose that names a call: what is 6 times 7?";
        scripted(
            &rig,
            prose,
            [
                Reply::text("I would use calculator(6*7) for this one."),
                Reply::text("Thought: now a program\n```python\nfinal_answer(6*7)\n```"),
            ],
        );
        let mixed = "A fence closed by a code tag: say closed.";
        scripted(
            &rig,
            mixed,
            [Reply::text(
                "Thought: answer\n```python\nfinal_answer('closed')\n</code>",
            )],
        );
        open(&rig, &fixtures, 3).await;

        let p = ask_anew(&rig, two_blocks, true).await;
        assert_eq!(
            (p.status.as_str(), p.answer_text()),
            ("done", "101"),
            "{p:#?}"
        );

        let p = ask_anew(&rig, named, false).await;
        assert_eq!(
            (p.status.as_str(), p.answer_text()),
            ("done", "42"),
            "{p:#?}"
        );
        assert!(
            p.text.contains("final_answer_variable = 6*7"),
            "the program that ran is shown: {p:#?}"
        );

        let p = ask_anew(&rig, bare, false).await;
        assert_eq!(
            (p.status.as_str(), p.answer_text()),
            ("done", "six sevens are 42"),
            "{p:#?}"
        );
        assert!(
            !p.text.contains("format reminder")
                && p.text.contains("product = calculator(input='6*7')"),
            "bare Python was run as the program, not reminded: {p:#?}"
        );

        // Prose is not Python: the sandbox's compile() says so, nothing runs, and the model is
        // reminded once, as before.
        let p = ask_anew(&rig, prose, false).await;
        assert_eq!(
            (p.status.as_str(), p.answer_text()),
            ("done", "42"),
            "{p:#?}"
        );
        assert!(p.text.contains("format reminder"), "{p:#?}");
        let programs = rig
            .js("return document.querySelectorAll('section.panel .program-code').length")
            .await;
        assert_eq!(programs, json!(1), "only the fenced program is shown");

        let p = ask_anew(&rig, mixed, false).await;
        assert_eq!(
            (p.status.as_str(), p.answer_text()),
            ("done", "closed"),
            "{p:#?}"
        );
        assert!(!p.text.contains("SyntaxError"), "{p:#?}");
    });
}

#[test]
fn codeact_answers_are_values() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        // At the step limit the forced reply is a program: it runs in the run's interpreter.
        let forced = "Forced: what is the total?";
        scripted(
            &rig,
            forced,
            [
                Reply::text("Thought: keep it\n```python\ntotal = 10 + 20\n```"),
                Reply::text("```python\nfinal_answer(total)\n```"),
            ],
        );
        // final_answer(print(x)) gives None: an error the model reads, then its answer.
        let printed = "Printed: what is the result?";
        scripted(
            &rig,
            printed,
            [
                Reply::text(
                    "Thought: answer\n```python\nresult = 7\nfinal_answer(print(result))\n```",
                ),
                Reply::text("Thought: pass the value\n```python\nfinal_answer(result)\n```"),
            ],
        );
        // A program that only answers: the conversation a follow-up reads keeps the answer.
        let answered = "Answered: what is one hundred and one?";
        let follow_up = "And one more than that?";
        scripted(
            &rig,
            answered,
            [Reply::text("```python\nx = 101\nfinal_answer(x)\n```")],
        );
        scripted(
            &rig,
            follow_up,
            // A follow-up starts a fresh interpreter (the sandbox ends with its turn): the
            // model reads the answer from the conversation.
            [Reply::text("```python\nfinal_answer(101 + 1)\n```")],
        );
        open(&rig, &fixtures, 1).await;

        let p = ask_anew(&rig, forced, true).await;
        assert_eq!(
            (p.status.as_str(), p.answer_text()),
            ("done", "30"),
            "{p:#?}"
        );
        assert!(p.answer_forced, "{p:#?}");
        // The first program's last line assigned: its value is shown.
        assert!(p.text.contains("Value: 30"), "{p:#?}");

        rig.open_app_overriding(json!({
            "tool_endpoints": fixtures.endpoints(),
            "max_steps": 3,
        }))
        .await;
        let p = ask_anew(&rig, printed, false).await;
        assert_eq!(
            (p.status.as_str(), p.answer_text()),
            ("done", "7"),
            "{p:#?}"
        );
        assert!(
            p.text
                .contains("final_answer() was given None, which is no answer"),
            "{p:#?}"
        );

        let p = ask_anew(&rig, answered, false).await;
        assert_eq!(
            (p.status.as_str(), p.answer_text()),
            ("done", "101"),
            "{p:#?}"
        );
        rig.ask(follow_up, "codeact").await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert!(p.answer_text().ends_with("102"), "{p:#?}");
        let sent = rig.mock.chat_requests_containing(follow_up);
        assert!(
            sent[0].body.contains("Observation: Final answer: 101"),
            "the follow-up read the answer: {}",
            sent[0].body
        );
        assert!(
            !sent[0].body.contains("printed nothing"),
            "{}",
            sent[0].body
        );
    });
}

/// Issue 59, row 4: the weather tool's result is a dict in a program (the prompt says
/// `-> dict` and its keys), indexed for a number and kept for the next program; the model
/// reads the sentence in every other mode. The fixture server answers as Open-Meteo does.
#[test]
fn codeact_a_structured_result_is_a_dict_the_program_indexes() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        let question = "Structured: how warm is Paris, one degree up?";
        scripted(
            &rig,
            question,
            [
                Reply::text(
                    "Thought: index the dict\n```python\nw = weather(location=\"Paris\")\nwarmer = w[\"temperature\"] + 1\nprint(round(warmer, 1), w[\"units\"][\"temperature\"], type(w).__name__)\n```",
                ),
                Reply::text("```python\nfinal_answer(f\"{w['conditions']}, {round(warmer, 1)}\")\n```"),
            ],
        );
        open(&rig, &fixtures, 3).await;
        let p = ask_anew(&rig, question, true).await;
        assert_eq!(
            (p.status.as_str(), p.answer_text()),
            ("done", "overcast, 13.3"),
            "{p:#?}"
        );
        // The program printed a number it computed from the dict, its unit, and the type.
        assert!(p.text.contains("13.3 °C dict"), "{p:#?}");
        // The panel shows the call's JSON.
        assert!(p.text.contains(r#""temperature":12.3"#), "{p:#?}");
        let sent = rig
            .mock
            .chat_requests_containing(Mode::CodeAct.prompt_heading());
        let prompt = &sent[0].body;
        assert!(
            prompt.contains(") -> dict:") && prompt.contains("Returns a dict with keys: place,"),
            "{prompt}"
        );
    });
}
