//! `PythonRunner` for the browser: Pyodide in a worker that has no network.
//!
//! The worker is started by a hidden `<iframe sandbox="allow-scripts">`
//! (`public/python-frame.html`, opaque origin) from a blob: URL, so it inherits the frame's
//! Content-Security-Policy, which allows no connection, script or worker from any host. The
//! page fetches Pyodide's files itself (once per page, at the first python call, kept as
//! Blobs) and hands them to the frame; the worker loads Pyodide from memory.
//!
//! Calls to one runner take turns: two python calls of one step run one after the other in
//! the same interpreter, each within its own time limit from the moment its program is sent.
//! A program past its limit (or a call abandoned mid-run) ends the frame and its worker; the
//! next call starts a fresh one. A CodeAct program past its limit is interrupted instead where
//! the frame can (a cross-origin isolated page, whose frame shares Pyodide's interrupt buffer
//! with its worker): it gets a KeyboardInterrupt, and its interpreter stays for the next
//! program. Where it cannot, or the program does not stop, the sandbox is ended and the
//! program's Observation names the variables that were lost.
//!
//! A program reaches its worker and can post messages of its own, so the page gives each
//! program a key only the worker's runner knows and reads its messages in the order a real
//! program sends them (`arena_core::tools::sandbox_order`): anything else stops the program
//! and ends the sandbox, whatever it says. After each program the page asks the worker
//! whether it is idle; one still busy, or talking, is ended. A runner an earlier program
//! changed says so instead of running the next program, which then runs in a fresh sandbox.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use futures::channel::mpsc;
use futures::future::{select, Either, LocalBoxFuture, Shared};
use futures::lock::Mutex;
use futures::{FutureExt, StreamExt};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlIFrameElement, MessageEvent};

use super::counted_fetch::fetch_counted;
use super::sandbox_frame::{attach, is_from, sandboxed_frame};
use crate::timer::sleep;
use arena_core::progress::Download;
use arena_core::tools::program::{
    limit_error, restarted_note, ProgramLimits, ProgramRun, ProgramStop, PythonTool,
};
use arena_core::tools::python::{
    PythonFailure, PythonOutput, PythonRunner, WorkerReply, MAX_OUTPUT_CHARS,
    MAX_UNANSWERED_MESSAGES, NO_NETWORK, PYODIDE_FILES, SANDBOX_PROCESS_ENDED,
};
use arena_core::tools::sandbox_order::{OutOfOrder, ProgramMessages, Step};
use arena_core::tools::{ProgramCallError, ProgramCalls};

/// Fetching and starting Pyodide (a few MB) is not the program's time: it has its own,
/// generous limit.
const LOAD_LIMIT_SECS: u32 = 120;
/// The worker's script, one of the app's own files.
const WORKER_SCRIPT: &str = "python-worker.js";

pub struct WorkerPython {
    index_url: String,
    live: RefCell<Option<Rc<Sandbox>>>,
    /// One call at a time: the interpreter, its globals and its output are shared. The idle
    /// watch takes it too, so that it never reads a program's messages.
    turn: Rc<Mutex<()>>,
    next_id: Cell<u32>,
    /// Set when the idle watch ended a sandbox that was busy between programs: the next
    /// program is told it starts without earlier variables.
    ended_while_idle: Rc<Cell<bool>>,
    /// CodeAct: the variables the sandbox held when its last program ended, named if a
    /// restart at the time limit loses them.
    variables: RefCell<Vec<String>>,
}

impl WorkerPython {
    pub fn new(index_url: String) -> Self {
        Self {
            index_url,
            live: RefCell::new(None),
            turn: Rc::new(Mutex::new(())),
            next_id: Cell::new(0),
            ended_while_idle: Rc::new(Cell::new(false)),
            variables: RefCell::new(Vec::new()),
        }
    }

    fn kill(&self) {
        if let Some(sandbox) = self.live.borrow_mut().take() {
            sandbox.close();
        }
    }

    /// Ends the sandbox now (its frame, its worker, whatever a program left running there);
    /// the next call starts a fresh one.
    pub fn end(&self) {
        self.kill();
    }

    /// The running sandbox, or a new one with Pyodide loaded.
    async fn sandbox(&self) -> Result<Rc<Sandbox>, PythonFailure> {
        if let Some(sandbox) = self.live.borrow().as_ref().filter(|s| s.is_open()) {
            return Ok(sandbox.clone());
        }
        // One that flooded between calls is gone: its replacement starts afresh.
        self.kill();
        self.variables.borrow_mut().clear();
        let start = Box::pin(start_sandbox(&self.index_url));
        let limit = Box::pin(sleep(LOAD_LIMIT_SECS * 1000));
        let sandbox = match select(start, limit).await {
            Either::Left((started, _)) => started.map_err(PythonFailure::Unavailable)?,
            Either::Right(_) => {
                return Err(PythonFailure::Unavailable(format!(
                    "Pyodide did not load within {LOAD_LIMIT_SECS} s (check the Pyodide base URL in Settings)"
                )))
            }
        };
        let sandbox = Rc::new(sandbox);
        *self.live.borrow_mut() = Some(sandbox.clone());
        watch_idle(
            Rc::downgrade(&sandbox),
            self.turn.clone(),
            self.ended_while_idle.clone(),
        );
        Ok(sandbox)
    }

    async fn run_in_turn(
        &self,
        code: &str,
        timeout_secs: u32,
    ) -> Result<PythonOutput, PythonFailure> {
        // If this call is dropped (the run was stopped) while its program runs, nothing else
        // would stop the program: the guard ends the sandbox.
        let mut guard = EndUnlessFinished {
            python: self,
            finished: false,
        };
        let limit_ms = f64::from(timeout_secs.saturating_mul(1000));
        let (ran, note) = self
            .run_checked(limit_ms, None::<&NoCalls>, |id, key| {
                run_message(id, key, code)
            })
            .await;
        let outcome = match ran {
            Ran::Ended(reply) => reply.outcome().map(|out| PythonOutput { note, ..out }),
            // The python tool's programs are not interrupted: a fresh interpreter follows.
            Ran::TimedOut { .. } | Ran::Interrupted(_) => Err(PythonFailure::TimedOut {
                seconds: timeout_secs,
            }),
            Ran::Refused(why) => Err(PythonFailure::Refused(why)),
            Ran::Lost(why) => Err(PythonFailure::Unavailable(why)),
            Ran::Tampered(what) => Err(PythonFailure::Unavailable(tampered_twice(&what))),
        };
        guard.finished = true;
        outcome
    }

    /// Runs one program (the message `program` makes from its id and key) in the sandbox,
    /// within `limit_ms` of its own time, reading its messages in their order and answering
    /// its calls with `calls`. Anything that stops it early, or a sandbox busy or talking after
    /// its end, ends the sandbox. A sandbox whose runner an earlier program changed, or that
    /// spoke between programs, is replaced before the program runs; the note says so.
    async fn run_checked<C: ProgramCalls>(
        &self,
        limit_ms: f64,
        calls: Option<&C>,
        program: impl Fn(u32, &str) -> JsValue,
    ) -> (Ran, Option<String>) {
        let mut note = self
            .ended_while_idle
            .replace(false)
            .then(|| BUSY_BETWEEN_PROGRAMS.to_string());
        for attempt in 0..2 {
            let sandbox = match self.sandbox().await {
                Ok(sandbox) => sandbox,
                Err(PythonFailure::Unavailable(why)) => return (Ran::Lost(why), note),
                Err(other) => return (Ran::Lost(format!("{other:?}")), note),
            };
            // Nothing comes from an idle sandbox: what did came from what an earlier program
            // left running, and would be taken for this one's.
            if sandbox.next(|_| true, 0).await.is_some() {
                self.kill();
                note = Some(SPOKE_BETWEEN_PROGRAMS.to_string());
                continue;
            }
            let id = self.next_id.get() + 1;
            self.next_id.set(id);
            let key = program_key();
            if let Err(why) = sandbox.post(&program(id, &key)) {
                self.kill();
                return (Ran::Lost(why), note);
            }
            let ran = drive(&sandbox, &key, limit_ms, calls).await;
            match &ran {
                Ran::Tampered(what) if attempt == 0 => {
                    self.kill();
                    note = Some(format!(
                        "An earlier program changed the sandbox's own code ({what}), so this \
                         program ran in a fresh sandbox, without earlier variables."
                    ));
                    continue;
                }
                Ran::Ended(reply) | Ran::Interrupted(reply)
                    if !matches!(reply.kind.as_str(), "unavailable" | "flood") =>
                {
                    if !idle_after(&sandbox).await {
                        self.kill();
                        note = Some(BUSY_AFTER_ITS_END.to_string());
                    }
                }
                // The only way to stop a running program: end its worker.
                _ => self.kill(),
            }
            return (ran, note);
        }
        (Ran::Lost(SPOKE_BETWEEN_PROGRAMS.to_string()), note)
    }
}

impl WorkerPython {
    /// CodeAct: runs `code` in this interpreter (one per run: its variables stay for the run's
    /// next program), each tool call it makes answered by `calls`, the run's gate (a call it
    /// refuses at the step's limit raises `CallLimitError` in the program, which runs on). The
    /// program's own time, not its calls' (a consent question may wait for the user), is
    /// limited to `limits.step_secs`; past it the program is interrupted where the frame can,
    /// and otherwise its sandbox is ended and the next program starts afresh.
    pub async fn run_program<C: ProgramCalls>(
        &self,
        code: &str,
        tools: &[PythonTool],
        limits: ProgramLimits,
        calls: &C,
    ) -> ProgramRun {
        let _turn = self.turn.lock().await;
        let mut guard = EndUnlessFinished {
            python: self,
            finished: false,
        };
        let limit_ms = f64::from(limits.step_secs.saturating_mul(1000));
        let (ran, note) = self
            .run_checked(limit_ms, Some(calls), |id, key| {
                program_message(id, key, code, tools)
            })
            .await;
        let time_limit = ProgramStop::TimeLimit {
            secs: limits.step_secs,
        };
        let mut note = note;
        let run = match ran {
            Ran::Ended(reply) => {
                self.keep_variables(&reply);
                reply.program_run()
            }
            Ran::Interrupted(reply) => {
                self.keep_variables(&reply);
                reply.interrupted_run(time_limit)
            }
            Ran::TimedOut { interrupted } => {
                let lost = self.variables.take();
                let restarted = restarted_note(interrupted, &lost);
                note = Some(match note {
                    Some(earlier) => format!("{earlier} {restarted}"),
                    None => restarted,
                });
                ProgramRun {
                    stopped: Some(time_limit),
                    ..ProgramRun::default()
                }
            }
            Ran::Refused(why) => ProgramRun {
                error: Some(format!(
                    "RuntimeError: the program was stopped: its sandbox sent {why}. A program \
                     may not message the page itself; the sandbox was ended, and the next \
                     program starts without earlier variables."
                )),
                ..ProgramRun::default()
            },
            Ran::Lost(why) => ProgramRun {
                error: Some(format!("RuntimeError: {why}")),
                ..ProgramRun::default()
            },
            Ran::Tampered(what) => ProgramRun {
                error: Some(format!("RuntimeError: {}", tampered_twice(&what))),
                ..ProgramRun::default()
            },
        };
        guard.finished = true;
        ProgramRun { note, ..run }
    }

    /// The variables a program left, from its end's message (a failed sandbox says none).
    fn keep_variables(&self, reply: &WorkerReply) {
        if matches!(reply.kind.as_str(), "done" | "raised" | "final") {
            *self.variables.borrow_mut() = reply.names.clone();
        }
    }
}

/// How one program went, as its messages said.
enum Ran {
    /// It ended: its last message (`done`, `raised`, `final`, or the sandbox failing).
    Ended(WorkerReply),
    /// Its own time ran out, and it was ended with its sandbox (`interrupted`: an interrupt
    /// was tried first and did not stop it).
    TimedOut { interrupted: bool },
    /// Its own time ran out and the interrupt stopped it: its last message, its sandbox kept.
    Interrupted(WorkerReply),
    /// An earlier program changed the runner (what changed): this one was not run.
    Tampered(String),
    /// A message no real program sends at that point (which, and why): it was stopped.
    Refused(String),
    /// The sandbox could not be started or reached.
    Lost(String),
}

/// A fresh sandbox said its runner was changed too: no program of this run did that.
fn tampered_twice(what: &str) -> String {
    format!("the Python sandbox's own code was changed ({what}), even in a fresh sandbox")
}

/// Told when a sandbox had to be replaced between two programs.
const SPOKE_BETWEEN_PROGRAMS: &str = "The sandbox sent messages after its last program had \
     ended (something that program left running), so this program ran in a fresh sandbox, \
     without earlier variables.";
const BUSY_AFTER_ITS_END: &str = "After this program ended, its sandbox was still busy (or \
     still sending), so it was ended: the next program starts without earlier variables.";

const BUSY_BETWEEN_PROGRAMS: &str = "After the last program ended, its sandbox became busy \
     (something that program left running), so it was ended: this program ran in a fresh \
     sandbox, without earlier variables.";

/// How long an idle worker has to answer the page's ping after its program ended. It answers
/// at once unless something the program left runs on (a loop in a task or a callback).
const IDLE_ANSWER_MS: u32 = 5_000;
/// How often the page asks a sandbox between programs whether it is still idle: a program
/// can leave work that starts later (a task that sleeps first, a callback).
const IDLE_WATCH_EVERY_MS: u32 = 2_000;

/// While the sandbox lives, asks it every [`IDLE_WATCH_EVERY_MS`] between programs whether
/// it is idle, and ends it if not: nothing a program left keeps a core busy after its run.
fn watch_idle(sandbox: Weak<Sandbox>, turn: Rc<Mutex<()>>, ended: Rc<Cell<bool>>) {
    wasm_bindgen_futures::spawn_local(async move {
        loop {
            sleep(IDLE_WATCH_EVERY_MS).await;
            let Some(sandbox) = sandbox.upgrade().filter(|s| s.is_open()) else {
                return;
            };
            // A program runs: its own limit holds, and its messages are its runner's to read.
            let Some(_turn) = turn.try_lock() else {
                continue;
            };
            if !idle_after(&sandbox).await {
                sandbox.close();
                ended.set(true);
                return;
            }
        }
    });
}

/// How long a program interrupted at its time limit has to end before its sandbox is ended:
/// Pyodide checks the interrupt between bytecodes, but a long call into C (a huge `sum`)
/// checks it only when it returns.
const INTERRUPT_GRACE_MS: f64 = 3_000.0;
/// What a call the program makes after its interrupt gets (it is not run).
const PAST_ITS_TIME: &str = "the program ran past its time limit";

/// Reads one program's messages in the order a real program sends them
/// (`arena_core::tools::sandbox_order`), within `limit_ms` of the program's own time (the time
/// the page spends on its calls, a consent question say, is not counted), answering each call
/// through `calls` with the program's key. A CodeAct program past its time is interrupted
/// where the frame can, and has [`INTERRUPT_GRACE_MS`] more to end.
async fn drive<C: ProgramCalls>(
    sandbox: &Sandbox,
    key: &str,
    mut limit_ms: f64,
    calls: Option<&C>,
) -> Ran {
    let mut order = ProgramMessages::new(key, calls.is_some());
    let mut used_ms = 0.0;
    let mut interrupted = false;
    loop {
        let waited_from = js_sys::Date::now();
        let left = (limit_ms - used_ms).max(0.0) as u32;
        let reply = sandbox.next(|_| true, left).await;
        used_ms += js_sys::Date::now() - waited_from;
        let Some(reply) = reply else {
            if !interrupted && calls.is_some() && sandbox.interruptible {
                interrupted = sandbox
                    .post(&message(&[("kind", "interrupt".into())]))
                    .is_ok();
                if interrupted {
                    limit_ms = used_ms + INTERRUPT_GRACE_MS;
                    continue;
                }
            }
            return Ran::TimedOut { interrupted };
        };
        let step = match order.read(&reply) {
            Ok(step) => step,
            Err(OutOfOrder(why)) => return Ran::Refused(why),
        };
        let calls = match (step, calls) {
            (Step::Started, _) => continue,
            (Step::Ended, _)
                if interrupted && reply.kind != "unavailable" && reply.kind != "flood" =>
            {
                return Ran::Interrupted(reply)
            }
            (Step::Ended, _) => return Ran::Ended(reply),
            // Interrupted while it asked for a call: the call is not run, and the program
            // meets its interrupt once it reads the answer.
            (Step::Call, Some(_)) if interrupted => {
                let refused = Answered {
                    call: reply.call,
                    ok: false,
                    limit: false,
                    json: false,
                };
                if let Err(why) = sandbox.post(&result_message(key, refused, PAST_ITS_TIME)) {
                    return Ran::Lost(why);
                }
                order.answered();
                continue;
            }
            (Step::Tampered(what), _) => return Ran::Tampered(what),
            (Step::Call, Some(calls)) => calls,
            (Step::Call, None) => return Ran::Refused("a call".into()),
        };
        let function = reply.function.clone().unwrap_or_default();
        let answer = match serde_json::from_str::<serde_json::Value>(
            reply.kwargs.as_deref().unwrap_or(""),
        ) {
            Ok(kwargs) => calls.call(&function, &kwargs).await,
            Err(_) => Err(ProgramCallError::Failed(format!(
                "the arguments of {function} could not be read"
            ))),
        };
        // A call refused at the step's limit raises CallLimitError in the program, which runs
        // on in the same interpreter.
        // A structured result goes as JSON text, marked, and is read into a dict or a list.
        let (ok, limit, json, text) = match answer {
            Ok(serde_json::Value::String(text)) => (true, false, false, text),
            Ok(value) => (true, false, true, value.to_string()),
            Err(ProgramCallError::Failed(why)) => (false, false, false, why),
            Err(ProgramCallError::Limit(stop)) => (false, true, false, limit_error(stop)),
        };
        let answered = Answered {
            call: reply.call,
            ok,
            limit,
            json,
        };
        if let Err(why) = sandbox.post(&result_message(key, answered, &text)) {
            return Ran::Lost(why);
        }
        order.answered();
    }
}

/// Whether the sandbox answers a ping at once after its program ended, and says nothing else:
/// a worker still busy (a loop a program left in a task), or still talking, is not idle.
async fn idle_after(sandbox: &Sandbox) -> bool {
    let key = program_key();
    if sandbox.post(&ping_message(&key)).is_err() {
        return false;
    }
    matches!(
        sandbox.next(|_| true, IDLE_ANSWER_MS).await,
        Some(reply) if reply.kind == "pong" && reply.key == key
    )
}

/// A key no program can guess: 128 bits from the page's own `crypto`.
fn program_key() -> String {
    let bytes = js_sys::Uint8Array::new_with_length(16);
    let crypto = Reflect::get(&js_sys::global(), &JsValue::from_str("crypto")).unwrap_or_default();
    let fill = Reflect::get(&crypto, &JsValue::from_str("getRandomValues"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    match fill {
        Some(fill) if fill.call1(&crypto, &bytes).is_ok() => {}
        _ => {
            for i in 0..16 {
                bytes.set_index(i, (js_sys::Math::random() * 256.0) as u8);
            }
        }
    }
    bytes.to_vec().iter().map(|b| format!("{b:02x}")).collect()
}

/// CodeAct's side has calls; the python tool's programs make none (the order refuses one).
struct NoCalls;

impl ProgramCalls for NoCalls {
    async fn call(
        &self,
        _: &str,
        _: &serde_json::Value,
    ) -> Result<serde_json::Value, ProgramCallError> {
        Err(ProgramCallError::Failed("no tools here".into()))
    }
}

struct EndUnlessFinished<'a> {
    python: &'a WorkerPython,
    finished: bool,
}

impl Drop for EndUnlessFinished<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.python.kill();
        }
    }
}

impl Drop for WorkerPython {
    fn drop(&mut self) {
        self.kill();
    }
}

impl PythonRunner for WorkerPython {
    fn run<'a>(
        &'a self,
        code: &'a str,
        timeout_secs: u32,
    ) -> LocalBoxFuture<'a, Result<PythonOutput, PythonFailure>> {
        Box::pin(async move {
            let _turn = self.turn.lock().await;
            self.run_in_turn(code, timeout_secs).await
        })
    }
}

/// The sandboxed frame, its worker, and the messages it sent the page that are not read yet:
/// at most [`MAX_UNANSWERED_MESSAGES`]. A real program waits for an answer long before that; a
/// sandbox that sends more (a timer posting in a loop, with or without a program waiting) is
/// ended at once, and whoever reads next is told it flooded.
struct Sandbox {
    frame: HtmlIFrameElement,
    inbox: Mutex<mpsc::Receiver<WorkerReply>>,
    flooded: Rc<Cell<bool>>,
    /// When the frame last said it is alive (`Date.now()`).
    alive_at: Rc<Cell<f64>>,
    listener: Closure<dyn FnMut(MessageEvent)>,
    /// Whether the frame can interrupt a running program (it said so once Pyodide loaded).
    interruptible: bool,
}

/// While the page waits on the sandbox, it asks the frame this often whether it is alive;
/// a question left unanswered this long means the frame's process has ended. The frame runs
/// in a process of its own (a sandboxed frame does, in Chromium), so a program that exhausts
/// memory, outside Pyodide's heap or in it, takes down only that process: the page notices,
/// says why, and the next program starts in a fresh sandbox.
const ALIVE_EVERY_MS: u32 = 1_000;
const LOST_AFTER_MS: f64 = 10_000.0;

impl Sandbox {
    /// Adds the hidden frame; it says `ready` once it has loaded.
    fn open() -> Result<Self, String> {
        let window = web_sys::window().ok_or("no window")?;
        let frame = sandboxed_frame("python-frame.html", "python-frame")?;
        // A cross-origin isolated page lends its isolation to this frame (it then shares
        // memory with its worker, for Pyodide's interrupt buffer) only where it allows it.
        let _ = frame.set_attribute("allow", "cross-origin-isolated");
        // The channel holds its buffer plus one message per sender.
        let (mut sender, inbox) = mpsc::channel(MAX_UNANSWERED_MESSAGES as usize - 1);
        let flooded = Rc::new(Cell::new(false));
        let own = frame.clone();
        let flood = flooded.clone();
        let alive_at = Rc::new(Cell::new(0.0));
        let alive = alive_at.clone();
        let listener = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            // Only this sandbox's frame may speak to it (its origin is opaque: "null"). Once it
            // is removed, what it sent before is dropped unread.
            let Some(window) = own.content_window() else {
                return;
            };
            if !is_from(&window, &event) {
                return;
            }
            let reply = read_reply(&event.data());
            if reply.kind == "alive" {
                alive.set(js_sys::Date::now());
                return;
            }
            // The frame's own word that it ended a flooding worker counts as one.
            let flooding = reply.kind == "flood";
            if sender.try_send(reply).is_err() || flooding {
                // Removing the frame ends its worker: the flood stops here, not when (or if)
                // a program reads its messages.
                flood.set(true);
                sender.close_channel();
                own.remove();
            }
        });
        window
            .add_event_listener_with_callback("message", listener.as_ref().unchecked_ref())
            .map_err(|_| "cannot listen to the frame")?;
        let sandbox = Sandbox {
            frame,
            inbox: Mutex::new(inbox),
            flooded,
            alive_at,
            listener,
            interruptible: false,
        };
        attach(&sandbox.frame)?;
        Ok(sandbox)
    }

    fn post(&self, message: &JsValue) -> Result<(), String> {
        if self.flooded.get() {
            // It is gone; the next read says why.
            return Ok(());
        }
        let window = self
            .frame
            .content_window()
            .ok_or("the Python sandbox is gone")?;
        // An opaque origin cannot be named as the target: the window is ours.
        window
            .post_message(message, "*")
            .map_err(|_| "the Python sandbox refused the message".to_string())
    }

    /// Whether its frame is still there (a flood removes it).
    fn is_open(&self) -> bool {
        self.frame.is_connected()
    }

    /// Resolves once the frame has answered none of the page's questions for
    /// [`LOST_AFTER_MS`] (its process ended). A late timer (a page in the background) does not
    /// count: only questions asked that long ago and still unanswered do.
    async fn lost(&self) {
        // When the first question not yet answered was asked.
        let mut waiting_since: Option<f64> = None;
        loop {
            let now = js_sys::Date::now();
            let since = *waiting_since.get_or_insert(now);
            if now - since >= LOST_AFTER_MS {
                return;
            }
            // A frame still loading misses it; the next one reaches it.
            let _ = self.post(&message(&[("kind", "alive?".into())]));
            sleep(ALIVE_EVERY_MS).await;
            if self.alive_at.get() >= since {
                waiting_since = None;
            }
        }
    }

    /// The first message that `wanted` picks, within `limit_ms`; once the sandbox has
    /// flooded, a `flood` message instead (what it sent before is not read: none of it can be
    /// trusted, and a program waiting on it is to hear why it was stopped).
    async fn next(
        &self,
        wanted: impl Fn(&WorkerReply) -> bool,
        limit_ms: u32,
    ) -> Option<WorkerReply> {
        let wait = Box::pin(async {
            let mut inbox = self.inbox.lock().await;
            while !self.flooded.get() {
                match inbox.next().await {
                    Some(_) if self.flooded.get() => break,
                    Some(reply) if wanted(&reply) => return Some(reply),
                    Some(_) => {}
                    None => break,
                }
            }
            self.flooded.get().then(|| WorkerReply {
                kind: "flood".into(),
                ..WorkerReply::default()
            })
        });
        let within = select(wait, Box::pin(sleep(limit_ms)));
        match select(within, Box::pin(self.lost())).await {
            Either::Left((Either::Left((reply, _)), _)) => reply,
            Either::Left((Either::Right(_), _)) => None,
            Either::Right(_) => Some(WorkerReply {
                kind: "unavailable".into(),
                error: Some(SANDBOX_PROCESS_ENDED.into()),
                ..WorkerReply::default()
            }),
        }
    }

    /// Removing the frame ends its worker.
    fn close(&self) {
        if let Some(window) = web_sys::window() {
            let _ = window.remove_event_listener_with_callback(
                "message",
                self.listener.as_ref().unchecked_ref(),
            );
        }
        self.frame.remove();
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.close();
    }
}

/// Opens a frame, gives it Pyodide's files and waits until Pyodide has loaded.
async fn start_sandbox(index_url: &str) -> Result<Sandbox, String> {
    let files = pyodide_files(index_url).await?;
    let mut sandbox = Sandbox::open()?;
    let unavailable = |reply: WorkerReply| {
        reply
            .error
            .unwrap_or_else(|| "the Python sandbox stopped".into())
    };
    match sandbox
        .next(
            |r| r.kind == "ready" || r.kind == "unavailable",
            LOAD_LIMIT_SECS * 1000,
        )
        .await
    {
        Some(reply) if reply.kind == "ready" => {}
        Some(reply) => return Err(unavailable(reply)),
        None => return Err("the Python sandbox did not start".into()),
    }
    sandbox.post(&start_message(&files, index_url))?;
    match sandbox
        .next(
            |r| r.kind == "loaded" || r.kind == "unavailable",
            LOAD_LIMIT_SECS * 1000,
        )
        .await
    {
        Some(reply) if reply.kind == "loaded" => {
            sandbox.interruptible = reply.interruptible;
            Ok(sandbox)
        }
        Some(reply) => Err(unavailable(reply)),
        None => Err("Pyodide did not load".into()),
    }
}

/// Pyodide's files and the worker's script, as Blobs.
#[derive(Clone)]
struct Files {
    pyodide: Object,
    worker: JsValue,
}

type FilesFuture = Shared<LocalBoxFuture<'static, Result<Files, String>>>;

thread_local! {
    /// Fetched once per page and base URL: every panel's sandbox, and every restart, uses them.
    static FILES: RefCell<HashMap<String, FilesFuture>> = RefCell::new(HashMap::new());
    /// Bytes of Pyodide fetched so far (the latest download), shown while a python call waits.
    static DOWNLOAD: Cell<Option<Download>> = const { Cell::new(None) };
}

async fn pyodide_files(index_url: &str) -> Result<Files, String> {
    let pending = FILES.with(|files| {
        files
            .borrow_mut()
            .entry(index_url.to_string())
            .or_insert_with(|| fetch_files(index_url.to_string()).boxed_local().shared())
            .clone()
    });
    let files = pending.await;
    if files.is_err() {
        // A later call tries again (the base URL may have been offline for a moment).
        FILES.with(|f| f.borrow_mut().remove(index_url));
    }
    files
}

async fn fetch_files(index_url: String) -> Result<Files, String> {
    let pyodide = Object::new();
    DOWNLOAD.with(|d| d.set(Some(Download::default())));
    let count = |n: u64| {
        DOWNLOAD.with(|d| {
            let mut now = d.get().unwrap_or_default();
            now.loaded += n;
            d.set(Some(now));
        })
    };
    let fetched = async {
        for name in PYODIDE_FILES {
            let blob = fetch_counted(&format!("{index_url}{name}"), count).await?;
            let _ = Reflect::set(&pyodide, &JsValue::from_str(name), &blob);
        }
        fetch_counted(WORKER_SCRIPT, count).await
    }
    .await;
    DOWNLOAD.with(|d| d.set(d.get().map(|now| Download { done: true, ..now })));
    let worker = fetched?.into();
    Ok(Files { pyodide, worker })
}

/// How much of Pyodide the page has fetched, for the panel that waits on it.
pub fn pyodide_download() -> Option<Download> {
    DOWNLOAD.with(Cell::get)
}

fn message(fields: &[(&str, JsValue)]) -> JsValue {
    let message = Object::new();
    for (name, value) in fields {
        let _ = Reflect::set(&message, &JsValue::from_str(name), value);
    }
    message.into()
}

fn start_message(files: &Files, index_url: &str) -> JsValue {
    message(&[
        ("kind", "start".into()),
        ("files", files.pyodide.clone().into()),
        ("worker", files.worker.clone()),
        ("indexURL", index_url.into()),
        ("noNetwork", NO_NETWORK.into()),
        ("maxOutput", (MAX_OUTPUT_CHARS as u32).into()),
        ("maxUnanswered", MAX_UNANSWERED_MESSAGES.into()),
    ])
}

fn run_message(id: u32, key: &str, code: &str) -> JsValue {
    message(&[
        ("kind", "run".into()),
        ("id", id.into()),
        ("key", key.into()),
        ("code", code.into()),
        ("maxOutput", (MAX_OUTPUT_CHARS as u32).into()),
    ])
}

fn program_message(id: u32, key: &str, code: &str, tools: &[PythonTool]) -> JsValue {
    let list = Array::new();
    for tool in tools {
        let params: Array = tool.params.iter().map(|p| JsValue::from_str(p)).collect();
        list.push(&Array::of2(&JsValue::from_str(&tool.function), &params));
    }
    message(&[
        ("kind", "program".into()),
        ("id", id.into()),
        ("key", key.into()),
        ("code", code.into()),
        ("tools", list.into()),
        ("maxOutput", (MAX_OUTPUT_CHARS as u32).into()),
    ])
}

fn ping_message(key: &str) -> JsValue {
    message(&[("kind", "ping".into()), ("key", key.into())])
}

/// How the page answered a program's call: `ok`, refused at the step's `limit`, and whether
/// the text is a structured result's JSON.
#[derive(Clone, Copy)]
struct Answered {
    call: u32,
    ok: bool,
    limit: bool,
    json: bool,
}

fn result_message(key: &str, answered: Answered, text: &str) -> JsValue {
    message(&[
        ("kind", "result".into()),
        ("key", key.into()),
        ("call", answered.call.into()),
        ("ok", answered.ok.into()),
        ("limit", answered.limit.into()),
        ("json", answered.json.into()),
        ("text", text.into()),
    ])
}

/// The frame relays plain fields only; anything else reads as empty.
fn read_reply(data: &JsValue) -> WorkerReply {
    let get = |name: &str| Reflect::get(data, &JsValue::from_str(name)).unwrap_or_default();
    let text = |name: &str| get(name).as_string();
    let count = |name: &str| get(name).as_f64().map_or(0, |n| n.max(0.0) as usize);
    WorkerReply {
        kind: text("kind").unwrap_or_default(),
        id: count("id") as u32,
        key: text("key").unwrap_or_default(),
        stdout: text("stdout").unwrap_or_default(),
        cut: count("cut"),
        value: text("value"),
        value_chars: count("valueChars"),
        error: text("error"),
        blocked: get("blocked")
            .dyn_into::<Array>()
            .map(|urls| urls.iter().filter_map(|u| u.as_string()).collect())
            .unwrap_or_default(),
        call: count("call") as u32,
        function: text("function"),
        kwargs: text("kwargs"),
        names: get("names")
            .dyn_into::<Array>()
            .map(|names| names.iter().filter_map(|n| n.as_string()).collect())
            .unwrap_or_default(),
        interruptible: get("interruptible").as_bool() == Some(true),
    }
}
