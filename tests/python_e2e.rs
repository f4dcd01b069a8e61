//! The python tool as an attacker would use it, in the browser: programs that try every way
//! out to the network, results of a gigabyte, and two calls in one step. Pyodide is
//! self-hosted by the fixture server, which logs every request; so does the app's own server
//! here, as programs also try the app's origin.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use react_arena::agent::Mode;
// PYODIDE_FILES: the files the page fetches for the sandbox, once (the page's own list).
use react_arena::tools::python::{NO_NETWORK, PYODIDE_FILES};
use serde_json::{json, Value};
use support::browser::{browser_test, dist_dir, PanelView, Rig};
use support::fixtures::FixtureServer;
use support::mock::Reply;
use tower_http::services::ServeDir;

/// The first python call fetches and loads Pyodide (several MB) into a fresh sandbox.
const PYTHON_SETTLE: Duration = Duration::from_secs(180);
/// Every URL a program tries carries this, so any request it caused is easy to find.
const MARKER: &str = "pyleak";

type UriLog = Arc<Mutex<Vec<String>>>;

/// Serves the built app like `support::browser`, and logs every path asked for.
async fn serve_logged_app() -> (SocketAddr, UriLog) {
    let log = UriLog::default();
    let app = axum::Router::new()
        .fallback_service(ServeDir::new(dist_dir()))
        .layer(axum::middleware::from_fn_with_state(log.clone(), log_uri));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, log)
}

async fn log_uri(
    State(log): State<UriLog>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    log.lock().unwrap().push(request.uri().to_string());
    next.run(request).await
}

/// The rig's browser and model endpoint, with the app served by a logging server.
async fn rig_with_logged_app(rig: &Rig) -> (Rig, UriLog) {
    let (addr, log) = serve_logged_app().await;
    let rig = Rig {
        mock: rig.mock.clone(),
        app_url: format!("http://{addr}/"),
        client: rig.client.clone(),
    };
    (rig, log)
}

async fn open_with_tools(rig: &Rig, fixtures: &FixtureServer, mut extra: Value) {
    extra["tool_endpoints"] = fixtures.endpoints();
    rig.open_app_overriding(extra).await;
}

fn python(code: &str) -> Reply {
    Reply::text(&format!(
        "Thought: I will run Python.\nAction: python\nAction Input: {code}"
    ))
}

async fn run_react(rig: &Rig, question: &str) -> PanelView {
    rig.ask(question, "react").await;
    rig.wait_until_settled(PYTHON_SETTLE).await.remove(0)
}

/// Each program tries one way out, to the fixture server (which also hosts Pyodide) or to
/// the app's own origin, with the marker and its own name in the URL.
fn attacks(tools: &str, app: &str) -> Vec<(&'static str, String)> {
    let url = |host: &str, name: &str| format!("{host}/{MARKER}-{name}");
    let ws = tools.replace("http://", "ws://");
    vec![
        (
            "js.fetch",
            format!("import js\nawait js.fetch('{}')", url(tools, "fetch")),
        ),
        (
            "fetch from the global scope's prototype",
            format!(
                "import js\nf = js.Object.getPrototypeOf(js.self).fetch\nawait f.call(js.self, '{}')",
                url(tools, "proto-fetch")
            ),
        ),
        (
            "fetch to the app's origin",
            format!(
                "import js\nf = js.Object.getPrototypeOf(js.self).fetch\nawait f.call(js.self, '{}')",
                url(app, "app-fetch")
            ),
        ),
        (
            "fetch to the Pyodide host",
            format!(
                "import js\nf = js.Object.getPrototypeOf(js.self).fetch\nawait f.call(js.self, '{tools}/pyodide/{MARKER}-pyodide-host')"
            ),
        ),
        (
            "pyodide.http.pyfetch",
            format!(
                "from pyodide.http import pyfetch\nr = await pyfetch('{}')\nawait r.string()",
                url(tools, "pyfetch")
            ),
        ),
        (
            "pyodide.http.open_url",
            format!(
                "from pyodide.http import open_url\nopen_url('{}').read()",
                url(app, "open-url")
            ),
        ),
        (
            "js.XMLHttpRequest",
            format!(
                "import js\nx = js.XMLHttpRequest.new()\nx.open('GET', '{}', False)\nx.send()\nx.responseText",
                url(tools, "xhr")
            ),
        ),
        (
            "js.WebSocket",
            format!(
                "import js\nsocket = js.WebSocket.new('{}')",
                url(&ws, "websocket")
            ),
        ),
        (
            "js.EventSource",
            format!(
                "import js\nevents = js.EventSource.new('{}')",
                url(tools, "eventsource")
            ),
        ),
        (
            "js.caches",
            format!(
                "import js\ncache = await js.caches.open('c')\nawait cache.add('{}')",
                url(tools, "caches")
            ),
        ),
        (
            "a nested js.Worker",
            format!(
                "import js\nworker = js.Worker.new('{}')",
                url(tools, "worker.js")
            ),
        ),
        (
            "import() through js.eval",
            format!(
                "import js\nawait js.eval(\"import('{}')\")",
                url(tools, "eval-import.js")
            ),
        ),
        (
            "import() through the Function constructor",
            format!(
                "import js\nawait js.Function(\"return import('{}')\")()",
                url(tools, "function-import.js")
            ),
        ),
        (
            "import() through Object.constructor",
            format!(
                "import js\nawait js.Object.constructor(\"return import('{}')\")()",
                url(app, "object-constructor.js")
            ),
        ),
        (
            "importScripts from the global scope's prototype",
            format!(
                "import js\nf = js.Object.getPrototypeOf(js.self).importScripts\nf.call(js.self, '{}')",
                url(tools, "import-scripts.js")
            ),
        ),
    ]
}

#[test]
fn python_programs_reach_no_host_by_any_way_out() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        let (rig, app_log) = rig_with_logged_app(&rig).await;
        let app = rig.app_url.trim_end_matches('/').to_string();
        let attacks = attacks(&fixtures.base, &app);
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            std::iter::once(python("print(6 * 7)"))
                .chain(attacks.iter().map(|(_, code)| python(code)))
                .chain([Reply::text("Thought: all refused.\nAnswer: no network")]),
        );
        open_with_tools(
            &rig,
            &fixtures,
            json!({ "max_steps": 20, "protocol": "text", "python_timeout_secs": 30 }),
        )
        .await;
        let started = Instant::now();
        let p = run_react(&rig, "Try to reach the network from Python.").await;
        println!(
            "{} python calls (Pyodide fetched and loaded at the first) in {:?}",
            attacks.len() + 1,
            started.elapsed()
        );

        let to_tools = fixtures.paths_requested();
        let to_app = app_log.lock().unwrap().clone();
        for uri in to_tools.iter().chain(&to_app) {
            assert!(!uri.contains(MARKER), "a program reached a host: {uri}");
        }
        // The log works: it saw the page fetch Pyodide's files, each once.
        for file in PYODIDE_FILES {
            let path = format!("/pyodide/{file}");
            let times = to_tools.iter().filter(|u| **u == path).count();
            assert_eq!(times, 1, "{path} in {to_tools:?}");
        }
        assert!(
            to_app.iter().any(|u| u == "/python-frame.html"),
            "{to_app:?}"
        );

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.observations.len(), attacks.len() + 1, "{p:#?}");
        assert!(
            p.observations[0].contains("Printed:\n42"),
            "the sandbox runs programs: {p:#?}"
        );
        for ((name, _), observation) in attacks.iter().zip(&p.observations[1..]) {
            println!("{name}: {observation}");
            assert!(
                observation.contains("Python raised an error") && observation.contains(NO_NETWORK),
                "{name}: not a readable refusal: {observation}"
            );
        }
        assert_eq!(p.error_observations, attacks.len(), "{p:#?}");
    });
}

/// How many characters an observation says it shows and cut: `[…N more characters cut]`.
fn shown_and_cut(observation: &str, body_start: &str) -> (usize, usize) {
    let body = observation
        .split_once(body_start)
        .unwrap_or_else(|| panic!("no {body_start:?} in {observation}"))
        .1;
    let shown = body.chars().take_while(|c| *c == 'x').count();
    let cut = body
        .split_once("[…")
        .and_then(|(_, rest)| rest.split_once(" more characters cut]"))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of cut characters in {observation}"));
    (shown, cut)
}

#[test]
fn a_gigabyte_result_is_capped_and_the_page_stays_alive() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                python("'x' * 10**9"),
                python("print('x' * 10**9)"),
                python("print('still here', 6 * 7)"),
                Reply::text("Thought: done.\nAnswer: capped"),
            ],
        );
        open_with_tools(
            &rig,
            &fixtures,
            json!({ "protocol": "text", "python_timeout_secs": 60 }),
        )
        .await;
        let started = Instant::now();
        let p = run_react(&rig, "Make a huge string.").await;
        println!("three calls, two of a gigabyte, in {:?}", started.elapsed());

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.error_observations, 0, "{p:#?}");
        let (shown, cut) = shown_and_cut(&p.observations[0], "Value: ");
        assert!(
            shown > 100 && p.observations[0].chars().count() < 1600,
            "{p:#?}"
        );
        assert_eq!(shown + cut, 1_000_000_000, "{}", p.observations[0]);
        // print adds a newline to the billion x's.
        let (shown, cut) = shown_and_cut(&p.observations[1], "Printed:\n");
        assert!(
            shown > 100 && p.observations[1].chars().count() < 1600,
            "{p:#?}"
        );
        assert_eq!(shown + cut, 1_000_000_001, "{}", p.observations[1]);
        assert!(
            p.observations[2].contains("Printed:\nstill here 42"),
            "{p:#?}"
        );
        // The page still answers and still holds the answer.
        assert_eq!(rig.js("return 1 + 1").await, json!(2));
        assert!(p.answer.contains("capped"), "{p:#?}");
    });
}

#[test]
fn two_python_calls_in_one_step_each_get_their_own_output() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        // Each program waits, so two that ran at once would interleave their printing; the
        // two together outlast one time limit, which each must meet alone; and they share
        // the run's interpreter, so the one that runs second sees what the first left.
        let program = |name: &str, value: &str| {
            format!(
                "import asyncio\nseen = globals().setdefault('seen', [])\nprint('{name} begins')\n\
                 await asyncio.sleep(1.5)\nseen.append('{value}')\nprint('{name} ends', sorted(seen))\n'{value}'"
            )
        };
        rig.mock.script(
            Mode::Act.prompt_heading(),
            [
                Reply::tool_calls(&[
                    (
                        "python",
                        &json!({ "input": program("first", "A") }).to_string(),
                    ),
                    (
                        "python",
                        &json!({ "input": program("second", "B") }).to_string(),
                    ),
                ]),
                Reply::text("Answer: A and B"),
            ],
        );
        open_with_tools(
            &rig,
            &fixtures,
            json!({ "protocol": "native", "python_timeout_secs": 3 }),
        )
        .await;
        rig.ask("Run two programs at once.", "act").await;
        let p = rig.wait_until_settled(PYTHON_SETTLE).await.remove(0);

        assert_eq!(p.status, "done", "{p:#?}");
        assert_eq!(p.observations.len(), 2, "{p:#?}");
        assert_eq!(p.error_observations, 0, "{p:#?}");
        let (first, second) = (&p.observations[0], &p.observations[1]);
        assert!(
            first.contains("Printed:\nfirst begins\nfirst ends [") && first.contains("Value: A"),
            "{p:#?}"
        );
        assert!(
            second.contains("Printed:\nsecond begins\nsecond ends [")
                && second.contains("Value: B"),
            "{p:#?}"
        );
        let ran_first_alone = (first.contains("['A']") && second.contains("['A', 'B']"))
            || (second.contains("['B']") && first.contains("['A', 'B']"));
        assert!(
            ran_first_alone,
            "one after the other, in one interpreter: {p:#?}"
        );
    });
}

#[test]
fn a_restarted_sandbox_starts_fresh_without_fetching_pyodide_again() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                python("kept = 1\nprint('kept' in globals())"),
                python("print('kept' in globals())\nwhile True: pass"),
                python("print('kept' in globals())"),
                Reply::text("Thought: done.\nAnswer: restarted"),
            ],
        );
        open_with_tools(
            &rig,
            &fixtures,
            json!({ "protocol": "text", "python_timeout_secs": 3 }),
        )
        .await;
        let p = run_react(&rig, "Loop forever.").await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.observations[0].contains("Printed:\nTrue"), "{p:#?}");
        assert!(p.observations[1].contains("longer than 3 s"), "{p:#?}");
        assert!(
            p.observations[2].contains("Printed:\nFalse"),
            "a fresh interpreter: {p:#?}"
        );
        let frames = rig
            .js("return document.querySelectorAll('iframe.python-frame').length")
            .await;
        assert_eq!(frames, json!(1), "the stopped sandbox's frame is gone");
        let requested = fixtures.paths_requested();
        for file in PYODIDE_FILES {
            let path = format!("/pyodide/{file}");
            let times = requested.iter().filter(|u| **u == path).count();
            assert_eq!(times, 1, "{path} fetched again: {requested:?}");
        }
    });
}

#[test]
fn the_python_frame_starts_nothing_unless_sandboxed() {
    browser_test(|rig: Rig| async move {
        rig.client.goto(&rig.app_url).await.unwrap();
        // The same file twice: in a sandbox (opaque origin), and as a same-origin frame,
        // which could reach the app's storage and must therefore do nothing.
        rig.js("window.frameNews = [];\
             const open = (name, sandboxed) => {\
               const f = document.createElement('iframe');\
               if (sandboxed) f.setAttribute('sandbox', 'allow-scripts');\
               f.src = 'python-frame.html';\
               f.addEventListener('load', () => frameNews.push(name + ':loaded'));\
               document.body.appendChild(f);\
               window.addEventListener('message', (e) => {\
                 if (e.source === f.contentWindow) frameNews.push(name + ':' + e.data.kind);\
               });\
             };\
             open('sandboxed', true);\
             open('same-origin', false);")
            .await;
        rig.wait_for(
            "both frames to load and the sandboxed one to say it is ready",
            Duration::from_secs(10),
            "return ['sandboxed:ready', 'same-origin:loaded'].every(n => frameNews.includes(n))",
        )
        .await;
        // Give the same-origin frame time to speak, if it would.
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(
            rig.js("return frameNews.filter(n => n.endsWith(':ready'))")
                .await,
            json!(["sandboxed:ready"])
        );
    });
}

/// A program that posts a "done" of its own and then spins (attack review 6, row 8: the page
/// took it for the program's end, the time limit never applied, and the worker burned a core
/// after the run). The page takes no message without the key it gave the program: it stops the
/// program at once, with a sentence that says why, and ends its sandbox (its frame is removed,
/// and the worker with it); the next call gets a fresh interpreter that answers.
#[test]
fn a_forged_done_stops_the_program_at_once_and_ends_its_worker() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                python("import js\nm = js.Object.new()\nm.kind = 'done'\nm.id = 1\nm.stdout = 'FORGED'\njs.postMessage(m)\nwhile True: pass"),
                python("print('after', 6 * 7)"),
                Reply::text("Thought: done.\nAnswer: 42"),
            ],
        );
        open_with_tools(
            &rig,
            &fixtures,
            json!({ "protocol": "text", "python_timeout_secs": 60 }),
        )
        .await;
        let p = run_react(&rig, "Forge a result.").await;

        assert_eq!(p.status, "done", "{p:#?}");
        assert!(!p.observations[0].contains("FORGED"), "{p:#?}");
        // Stopped for the forgery, not at the 60 s limit.
        assert!(
            p.observations[0].contains(
                "The program was stopped: its sandbox sent a \"done\" message without the program's key, which only the sandbox's runner has."
            ),
            "{p:#?}"
        );
        assert!(p.observations[1].contains("Printed:\nafter 42"), "{p:#?}");
        // The spinning sandbox's frame is gone: only the second call's is left.
        let frames = rig
            .js("return document.querySelectorAll('iframe.python-frame').length")
            .await;
        assert_eq!(frames, json!(1), "the forger's frame is still there");
    });
}

/// A program that leaves work which starts spinning after the program ended (attack review 6,
/// row 8: a worker burned 90–97 % of a core after the run). The page watches a sandbox
/// between programs: after the run, no worker is left busy. Either its frame is gone, or the
/// worker runs a probe's one-line program.
#[test]
fn no_worker_is_left_busy_after_the_run() {
    browser_test(|rig: Rig| async move {
        let fixtures = FixtureServer::start().await;
        rig.mock.script(
            Mode::ReAct.prompt_heading(),
            [
                // No timer: a chain of the event loop's own callbacks, which spins once a
                // second has passed.
                python("import asyncio, time\nloop = asyncio.get_event_loop()\nt0 = time.time()\ndef step():\n    if time.time() - t0 < 1:\n        loop.call_soon(step)\n        return\n    while True:\n        pass\nloop.call_soon(step)\nprint('left a task')"),
                Reply::text("Thought: done.\nAnswer: left"),
            ],
        );
        open_with_tools(
            &rig,
            &fixtures,
            json!({ "protocol": "text", "python_timeout_secs": 30 }),
        )
        .await;
        let p = run_react(&rig, "Leave a task.").await;
        assert_eq!(p.status, "done", "{p:#?}");
        assert!(p.observations[0].contains("left a task"), "{p:#?}");
        // The chain spins from a second after its program ended.
        tokio::time::sleep(Duration::from_secs(3)).await;
        // The probe: a one-line program sent to the frame as the page sends one; a busy
        // worker never runs it.
        rig.js(
            "window.__probe = { sent: 0, answered: 0, at: 0 };\
             window.addEventListener('message', (e) => {\
               if (e.data && e.data.kind === 'done' && e.data.id > 424242) window.__probe.answered = e.data.id - 424242;\
             });",
        )
        .await;
        rig.wait_for(
            "no busy worker: its frame gone, or its latest probe run",
            Duration::from_secs(30),
            "const f = document.querySelector('iframe.python-frame');\
             if (!f) return true;\
             const p = window.__probe;\
             if (p.sent > 0 && p.answered === p.sent) return true;\
             if (p.sent === 0 || performance.now() - p.at > 1000) {\
               p.sent += 1; p.at = performance.now();\
               f.contentWindow.postMessage({ kind: 'run', id: 424242 + p.sent, key: 'probe', code: '1', maxOutput: 10 }, '*');\
             }\
             return false;",
        )
        .await;
    });
}
