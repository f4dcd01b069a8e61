//! CodeAct's Python sandbox ends with its run, in the browser: what a program leaves running
//! (a timer) ends with the program, a sandbox that floods the page with messages is stopped
//! with a sentence that says why, and the sandbox (its frame and worker) is gone once the run
//! has ended. Each attack is bounded by the test itself, so that a page without these defences
//! is shown failing, not crashed, and the machine running the suite is not put at risk.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::collections::HashMap;
use std::time::Duration;

use react_arena::agent::Mode;
use react_arena::tools::python::{MAX_UNANSWERED_MESSAGES, SANDBOX_PROCESS_ENDED};
use serde::Deserialize;
use serde_json::json;
use support::browser::{browser_test, browser_test_with_flags, Rig};
use support::cdp::cdp;
use support::fixtures::FixtureServer;
use support::mock::Reply;

/// The first program fetches and loads Pyodide (several MB) into a fresh sandbox.
const PYTHON_SETTLE: Duration = Duration::from_secs(180);
/// How long the page may take to end a sandbox once its run has ended.
const ENDS_WITHIN: Duration = Duration::from_secs(20);

fn program(thought: &str, code: &str) -> Reply {
    Reply::text(&format!("Thought: {thought}\n```python\n{code}\n```"))
}

async fn open(rig: &Rig, fixtures: &FixtureServer) {
    // Settings' Python time limit holds for CodeAct's programs too: these attacks are given
    // 60 s, so that what ends each is the attack's own bound (the memory bomb's process is
    // found lost 10 s after it ends), not the time limit.
    rig.open_app_overriding(json!({ "tool_endpoints": fixtures.endpoints(), "max_steps": 4, "python_timeout_secs": 60 }))
        .await;
}

/// Counts, on the page, every message that reaches it from a sandboxed frame (an opaque
/// origin), by kind, and when the first of each kind came.
const COUNT_SANDBOX_MESSAGES: &str = r#"
window.__sandbox = { kinds: {}, first: {} };
window.addEventListener("message", (event) => {
  if (event.origin !== "null") return;
  const s = window.__sandbox;
  const kind = String((event.data && event.data.kind) || "");
  s.kinds[kind] = (s.kinds[kind] || 0) + 1;
  if (!(kind in s.first)) s.first[kind] = performance.now();
}, true);
"#;

#[derive(Debug, Deserialize)]
struct SandboxMessages {
    kinds: HashMap<String, u64>,
    first: HashMap<String, f64>,
}

impl SandboxMessages {
    fn of(&self, kind: &str) -> u64 {
        self.kinds.get(kind).copied().unwrap_or(0)
    }

    /// Messages that came through the frame from its worker: all but the frame's own answers
    /// to the page's "alive?".
    fn sent_by_sandboxes(&self) -> u64 {
        self.kinds.values().sum::<u64>() - self.of("alive")
    }

    /// Milliseconds from the first message of kind `from` to the first of kind `to`.
    fn between(&self, from: &str, to: &str) -> f64 {
        self.first.get(to).copied().unwrap_or(f64::NAN)
            - self.first.get(from).copied().unwrap_or(f64::NAN)
    }
}

async fn sandbox_messages(rig: &Rig) -> SandboxMessages {
    serde_json::from_value(rig.js("return window.__sandbox").await).expect("the message count")
}

/// The page's JavaScript heap in use, in MB (Chromium runs with precise memory info).
async fn page_heap_mb(rig: &Rig) -> f64 {
    let bytes = rig.js("return performance.memory.usedJSHeapSize").await;
    bytes.as_f64().unwrap_or(0.0) / 1e6
}

/// Waits until no Python sandbox frame is left on the page.
async fn wait_for_sandbox_gone(rig: &Rig) {
    rig.wait_for(
        "the Python sandbox to end with its run",
        ENDS_WITHIN,
        "return document.querySelectorAll('iframe.python-frame').length === 0",
    )
    .await;
}

/// Attack review 6, row 8: a leftover `setInterval` forged tool calls under later programs
/// (it reached the run's own call function) and burned a core after the run. The program's
/// timer ends with it: under the next program, which waits 1.5 s for it, it never fires and
/// no call is made; once the run has ended its sandbox is gone, so nothing burns after it.
#[test]
fn a_program_s_timer_ends_with_it_and_forges_no_call_under_the_next() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program(
                    "leave a timer behind that calls a tool through the run's own call function",
                    "import js\nfrom pyodide.ffi import create_proxy\nticks = [0]\ntry:\n    cells = dict(zip(calculator.__code__.co_freevars, calculator.__closure__))\n    call = cells['call'].cell_contents\nexcept Exception:\n    call = None\ndef tick():\n    ticks[0] += 1\n    if call is not None and ticks[0] <= 5:\n        call('calculator', '{\"input\": \"6*7\"}')\njs.setInterval(create_proxy(tick), 20)\nprint('armed', call is not None)",
                ),
                program(
                    "wait, giving the timer every chance to run",
                    "import asyncio\nbefore = ticks[0]\nawait asyncio.sleep(1.5)\nfinal_answer(f'ticks under the next program: {ticks[0] - before}')",
                ),
            ],
        );
        open(&rig, &fixtures).await;
        rig.ask("Leave a timer running.", "codeact").await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.answer_text(), "ticks under the next program: 0", "{p:#?}");
        // No call was made for either program: the timer's forged ones never reached the page.
        let calls = rig
            .js("return document.querySelectorAll('section.panel .program-call').length")
            .await;
        assert_eq!(calls, json!(0), "{p:#?}");
        wait_for_sandbox_gone(&rig).await;
    });
}

/// Attack review 6, row 7: after `final_answer`, a program's timer posted 100 KB messages to
/// the page, which kept them in an unbounded queue read only while a program ran, and the
/// sandbox outlived the run (3.5 GB and a crash 25 s later). Here the timer posts at most 300
/// (30 MB): none reaches the page, as the timer ends with the program and the sandbox with the
/// run.
#[test]
fn a_timer_flooding_the_page_after_final_answer_ends_with_the_program_and_the_run() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [program(
                "answer, and leave a timer posting 100 KB messages to the page",
                "import js\nfrom pyodide.ffi import create_proxy\nbig = 'x' * 100_000\nsent = [0]\ndef flood():\n    if sent[0] < 300:\n        sent[0] += 1\n        js.postMessage(js.JSON.parse('{\"kind\": \"noise\"}'))\n        js.postMessage(js.JSON.parse('{\"kind\": \"noise\", \"kwargs\": \"' + big + '\"}'))\njs.setInterval(create_proxy(flood), 1)\nfinal_answer('flooding')",
            )],
        );
        open(&rig, &fixtures).await;
        rig.js(COUNT_SANDBOX_MESSAGES).await;
        let heap_before = page_heap_mb(&rig).await;
        rig.ask("Flood the page after answering.", "codeact").await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.answer_text(), "flooding", "{p:#?}");
        wait_for_sandbox_gone(&rig).await;
        // The sandbox is gone: whatever it sent has arrived.
        let seen = sandbox_messages(&rig).await;
        eprintln!(
            "after the run: {} messages from the sandbox ({:?}), page heap {heap_before:.1} -> {:.1} MB",
            seen.sent_by_sandboxes(),
            seen.kinds,
            page_heap_mb(&rig).await
        );
        assert_eq!(seen.of("noise"), 0, "{seen:?}");
        assert_eq!(seen.of("final"), 1, "{seen:?}");
    });
}

/// Attack review 6, row 8: 300,000 messages made the page unresponsive for 20 s. A program
/// queues 300,000 timers that each post a message, then calls a tool (the fixture answers after
/// a second, so the timers fire while the page runs the call). The frame relays no more than
/// the bound without an answer, ends the worker and says so; the page stops the program with a
/// sentence that says why, and the next program runs in a fresh sandbox.
#[test]
fn a_flood_of_messages_stops_the_program_with_a_sentence_and_the_page_gets_only_the_bound() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        fixtures.set_delay(1000);
        rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program(
                    "queue a flood of messages, then call a tool",
                    "import js\nnote = js.JSON.parse('{\"kind\": \"noise\"}')\nfor _ in range(300_000):\n    js.setTimeout(js.postMessage, 0, note)\nprint(wikipedia('Canberra')[:20])\nfinal_answer('not stopped')",
                ),
                program("answer", "final_answer('answered after the flood')"),
            ],
        );
        open(&rig, &fixtures).await;
        rig.js(COUNT_SANDBOX_MESSAGES).await;
        rig.ask("Flood the page.", "codeact").await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(
            p.text.contains(&format!(
                "The program was stopped: its sandbox sent more than {MAX_UNANSWERED_MESSAGES} messages without waiting for an answer"
            )),
            "{p:#?}"
        );
        assert_eq!(p.answer_text(), "answered after the flood", "{p:#?}");
        wait_for_sandbox_gone(&rig).await;
        let seen = sandbox_messages(&rig).await;
        eprintln!(
            "messages from the sandboxes: {} ({:?}); the flood was stopped {:.0} ms after its first message reached the page",
            seen.sent_by_sandboxes(),
            seen.kinds,
            seen.between("noise", "flood")
        );
        // Each of the two sandboxes: ready, loaded, started, a ping's answer and at most the
        // bound more; the first one's flood notice besides.
        let bound = 2 * (4 + u64::from(MAX_UNANSWERED_MESSAGES)) + 1;
        assert!(seen.sent_by_sandboxes() <= bound, "{seen:?}");
        assert_eq!(seen.of("flood"), 1, "{seen:?}");
    });
}

/// Attack review 6, row 9: 8 × 1 GiB of ArrayBuffers from a program crashed the page. The
/// sandbox's frame runs in a process of its own (Chromium gives a sandboxed frame one), so
/// what a program allocates outside Pyodide's heap can take down only that process: the page
/// notices that its frame no longer answers, stops the program with a sentence that says why,
/// and the next program runs in a fresh sandbox. Here V8's heap limit is 256 MB in every
/// process of the browser (the page needs far less), so the program's memory bomb (256 MB of
/// ArrayBuffers kept, then JavaScript arrays until the limit) ends its process at about half
/// a gigabyte, not at the machine's memory.
#[test]
fn a_program_that_exhausts_memory_takes_down_only_its_sandbox_and_the_page_says_why() {
    browser_test_with_flags(
        &["--js-flags=--max-old-space-size=256"],
        |rig: Rig| async move {
            let fixtures = FixtureServer::start().await;
            rig.mock.script(
            Mode::CodeAct.prompt_heading(),
            [
                program(
                    "allocate outside Pyodide's heap until the sandbox runs out of memory",
                    "import js\nkeep = [js.ArrayBuffer.new(64 << 20) for _ in range(4)]\nwhile True:\n    keep.append(js.Array.new(1_000_000).fill(0.5))",
                ),
                program("answer", "final_answer('answered after the crash')"),
            ],
        );
            open(&rig, &fixtures).await;
            rig.ask("Exhaust the memory.", "codeact").await;
            // The sandbox's frame is out of the page's process: the browser lists it as a target
            // of its own.
            let targets = rig
                .wait_until(
                    "the sandbox's frame to be listed as a process of its own",
                    PYTHON_SETTLE,
                    || cdp(&rig.client, "Target.getTargets", json!({})),
                    |t| {
                        t["targetInfos"].as_array().is_some_and(|all| {
                            all.iter().any(|t| {
                                t["type"] == "iframe"
                                    && t["url"]
                                        .as_str()
                                        .is_some_and(|u| u.ends_with("/python-frame.html"))
                            })
                        })
                    },
                )
                .await;
            eprintln!("targets: {}", targets["targetInfos"]);
            let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);
            assert_eq!(p.status, "done", "{p:#?}");
            assert!(p.text.contains(SANDBOX_PROCESS_ENDED), "{p:#?}");
            assert_eq!(p.answer_text(), "answered after the crash", "{p:#?}");
            wait_for_sandbox_gone(&rig).await;
        },
    );
}
