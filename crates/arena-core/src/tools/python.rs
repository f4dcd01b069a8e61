//! The `python` tool: runs a snippet in Pyodide inside a Web Worker that has no network
//! (`ui::python_worker`, `public/python-frame.html`, `public/python-worker.js`). This file is the
//! pure part: reading the input, reading the worker's replies, shaping the output, naming the
//! failures. The worker never sees the token: it gets the code, nothing else.

use std::rc::Rc;

use super::program::{ProgramRun, ProgramStop};
use futures::future::LocalBoxFuture;

use super::json_read::first_str;
use super::observation::{truncate, MAX_OBSERVATION_CHARS};
use super::{FailureKind, TextInput, ToolFailure, TypedTool};

/// Default time limit of one python call.
pub const DEFAULT_TIMEOUT_SECS: u32 = 10;
/// The files Pyodide needs, fetched once from the configured base URL (the page fetches them,
/// the tests serve and count them).
pub const PYODIDE_FILES: [&str; 5] = [
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
];
/// Longest program accepted.
const MAX_CODE_CHARS: usize = 10_000;
/// Output the worker keeps (printed text, and the last expression's value); the rest is
/// counted, not sent.
pub const MAX_OUTPUT_CHARS: usize = 4_000;
/// What a program that tries to reach the network is told, by the worker or in the observation.
pub const NO_NETWORK: &str = "NetworkError/blocked: the python tool has no network";
/// Messages the sandbox may send without an answer in between. A real program sends at most
/// three (started, one call, its end) before it waits; more is a flood (a timer posting in a
/// loop), and the sandbox is ended. The frame counts them (the page tells it this number) and
/// so does the page, whose queue of unread messages holds no more.
pub const MAX_UNANSWERED_MESSAGES: u32 = 8;
/// Why a program stopped when its sandbox's frame no longer answers the page: its process
/// ended (the sandbox runs in a process of its own, so a program that exhausts memory takes
/// only that process down).
pub const SANDBOX_PROCESS_ENDED: &str = "the sandbox's process ended, or stopped answering, \
     while the program ran (it ran out of memory, or crashed); the page is unharmed, and the \
     next program starts in a fresh sandbox, without earlier variables";
/// Room in an observation for labels and notes around the printed text and the value.
const NOTES_ROOM: usize = 300;
/// Share of the observation the value gets when the program also printed.
const VALUE_ROOM_BESIDE_OUTPUT: usize = 400;
/// Refused addresses named in an observation, and their length there.
const BLOCKED_SHOWN: usize = 2;
const BLOCKED_URL_CHARS: usize = 80;

/// What a finished program gave.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PythonOutput {
    pub stdout: String,
    /// `str()` of the last expression's value, if it had one (its first `MAX_OUTPUT_CHARS`).
    pub value: Option<String>,
    /// Characters of output dropped by the worker beyond `MAX_OUTPUT_CHARS`.
    pub cut_chars: usize,
    /// Characters of the value dropped by the worker.
    pub value_cut_chars: usize,
    /// Addresses the sandbox refused while the program ran.
    pub blocked: Vec<String>,
    /// What the page says of the sandbox beside the program's output (it ran in a fresh one,
    /// or the sandbox was ended after it).
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PythonFailure {
    /// The program raised; the text is Python's error message.
    Raised(String),
    /// It ran past the limit; the worker was terminated and will be replaced.
    TimedOut { seconds: u32 },
    /// Pyodide could not be loaded (bad base URL, offline…).
    Unavailable(String),
    /// The sandbox sent a message no real program sends at that point (which, and why:
    /// `sandbox_order`): the program was stopped and the sandbox ended.
    Refused(String),
    /// The sandbox sent more than `messages` messages without an answer; it was ended.
    Flooded { messages: u32 },
}

/// A message from the sandbox, its fields read as plain values (`ui::python_worker`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WorkerReply {
    /// `ready`, `loaded`, `unavailable`, `started`, `done`, `raised`, or `flood` (the sandbox
    /// sent more than [`MAX_UNANSWERED_MESSAGES`] without an answer and was ended).
    pub kind: String,
    /// The call it answers (0 for the sandbox's own news).
    pub id: u32,
    /// The key the page gave the program: only the sandbox's runner has it (`sandbox_order`).
    pub key: String,
    pub stdout: String,
    pub cut: usize,
    pub value: Option<String>,
    /// Length of the value's whole text, of which `value` is the start.
    pub value_chars: usize,
    pub error: Option<String>,
    pub blocked: Vec<String>,
    /// CodeAct: the number of the tool call a program asks for (`kind` "call"), the Python
    /// function it called and its arguments as JSON text.
    pub call: u32,
    pub function: Option<String>,
    pub kwargs: Option<String>,
    /// CodeAct: the program's variables once it ended (the names of its globals, not the
    /// sandbox's own), which the page names when a restart loses them.
    pub names: Vec<String>,
    /// `loaded`: whether the frame can interrupt a running program (it shares an interrupt
    /// buffer with its worker, which needs a cross-origin isolated page).
    pub interruptible: bool,
}

impl WorkerReply {
    /// Whether this ends call `id`: its result, or the sandbox failing under it.
    pub fn ends_call(&self, id: u32) -> bool {
        match self.kind.as_str() {
            "done" | "raised" | "final" => self.id == id,
            "unavailable" | "flood" => true,
            _ => false,
        }
    }

    /// The outcome of a call, from the message that ended it.
    pub fn outcome(self) -> Result<PythonOutput, PythonFailure> {
        match self.kind.as_str() {
            "done" | "final" => {
                let shown = self.value.as_deref().map_or(0, |v| v.chars().count());
                Ok(PythonOutput {
                    stdout: self.stdout,
                    value_cut_chars: self.value_chars.saturating_sub(shown),
                    value: self.value,
                    cut_chars: self.cut,
                    blocked: self.blocked,
                    note: None,
                })
            }
            "raised" => {
                let mut message = self.error.unwrap_or_else(|| "unknown error".into());
                if !self.blocked.is_empty() && !message.contains(NO_NETWORK) {
                    message.push('\n');
                    message.push_str(&blocked_note(&self.blocked));
                }
                Err(PythonFailure::Raised(message))
            }
            "flood" => Err(PythonFailure::Flooded {
                messages: MAX_UNANSWERED_MESSAGES,
            }),
            _ => Err(PythonFailure::Unavailable(
                self.error.unwrap_or_else(|| "the sandbox stopped".into()),
            )),
        }
    }
}

impl WorkerReply {
    /// CodeAct: what a program did, from the message that ended it (`done`, `raised`,
    /// `final`, or the sandbox failing under it).
    pub fn program_run(self) -> ProgramRun {
        let mut printed = self.stdout;
        if self.cut > 0 {
            printed.push_str(&format!("\n[... {} more characters cut]", self.cut));
        }
        let blocked = (!self.blocked.is_empty()).then(|| blocked_note(&self.blocked));
        let value = self.value.map(|v| {
            let shown = v.chars().count();
            match self.value_chars.saturating_sub(shown) {
                0 => v,
                more => format!("{v} [... {more} more characters cut]"),
            }
        });
        match self.kind.as_str() {
            "done" => ProgramRun {
                printed,
                value,
                error: blocked,
                ..ProgramRun::default()
            },
            "final" => ProgramRun {
                printed,
                final_answer: value,
                ..ProgramRun::default()
            },
            "raised" => {
                let mut error = self.error.unwrap_or_else(|| "unknown error".into());
                if let Some(note) = blocked.filter(|_| !error.contains(NO_NETWORK)) {
                    error = format!("{error}\n{note}");
                }
                ProgramRun {
                    printed,
                    error: Some(error),
                    ..ProgramRun::default()
                }
            }
            "flood" => ProgramRun {
                stopped: Some(ProgramStop::Flood {
                    messages: MAX_UNANSWERED_MESSAGES,
                }),
                ..ProgramRun::default()
            },
            _ => ProgramRun {
                error: Some(format!(
                    "RuntimeError: the Python sandbox stopped ({})",
                    self.error.unwrap_or_else(|| "no reason given".into())
                )),
                ..ProgramRun::default()
            },
        }
    }
}

impl WorkerReply {
    /// CodeAct: what a program interrupted at its time limit (`stop`) did, from the message
    /// that ended it: what it printed, and whatever it did after the interrupt (it may catch
    /// it); the KeyboardInterrupt the page caused is the stop, not an error of the program's.
    pub fn interrupted_run(self, stop: ProgramStop) -> ProgramRun {
        let mut run = self.program_run();
        let interrupt_only = run.error.as_deref().is_some_and(|e| {
            e.trim_end()
                .lines()
                .last()
                .is_some_and(|l| l.trim() == "KeyboardInterrupt")
        });
        if interrupt_only {
            run.error = None;
        }
        run.stopped = Some(stop);
        run
    }
}

/// Runs code somewhere safe. The browser implementation owns the worker.
pub trait PythonRunner {
    fn run<'a>(
        &'a self,
        code: &'a str,
        timeout_secs: u32,
    ) -> LocalBoxFuture<'a, Result<PythonOutput, PythonFailure>>;
}

pub struct Python {
    runner: Rc<dyn PythonRunner>,
    timeout_secs: u32,
}

impl Python {
    pub fn new(runner: Rc<dyn PythonRunner>, timeout_secs: u32) -> Self {
        Self {
            runner,
            timeout_secs: timeout_secs.max(1),
        }
    }
}

impl TypedTool for Python {
    const NAME: &'static str = "python";
    const DESCRIPTION: &'static str = "Runs a short Python 3 program (standard library only, no network) and returns what it prints and the value of its last expression.";
    const INPUT_HINT: &'static str = "Python code, e.g. print(sum(range(10)))";
    type Args = TextInput;

    fn run(&self, args: TextInput) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
        Box::pin(async move { self.execute(&args.input).await })
    }
}

impl Python {
    /// Runs the program in `input`: its output, or a readable error.
    pub async fn execute(&self, input: &str) -> Result<String, ToolFailure> {
        let code = read_code(input).map_err(ToolFailure::bad_arguments)?;
        let outcome = self.runner.run(&code, self.timeout_secs).await;
        describe(outcome)
    }
}

/// The program from the model's input: plain code, a fenced block, or `{"code": …}`.
pub fn read_code(input: &str) -> Result<String, String> {
    let trimmed = input.trim();
    let code = match serde_json::from_str::<serde_json::Value>(trimmed) {
        Ok(serde_json::Value::Object(map)) => first_str(&map, &["code", "input", "source"])
            .map(str::to_string)
            .unwrap_or_default(),
        _ => unfence(trimmed).to_string(),
    };
    if code.trim().is_empty() {
        return Err("No Python code was given. Put the program in Action Input.".into());
    }
    if code.chars().count() > MAX_CODE_CHARS {
        return Err(format!(
            "The program is longer than {MAX_CODE_CHARS} characters; send a shorter one."
        ));
    }
    Ok(code)
}

/// Strips a Markdown code fence (```python … ```), as models often send one.
fn unfence(s: &str) -> &str {
    let Some(rest) = s.strip_prefix("```") else {
        return s;
    };
    let body = rest.split_once('\n').map_or("", |(_, body)| body);
    body.trim_end()
        .strip_suffix("```")
        .unwrap_or(body)
        .trim_end()
}

/// The observation for a run's outcome. Printed text and value share the observation's room;
/// whatever does not fit is named by count, so the model knows it saw only the start.
pub fn describe(outcome: Result<PythonOutput, PythonFailure>) -> Result<String, ToolFailure> {
    match outcome {
        Ok(out) => {
            let room = MAX_OBSERVATION_CHARS - NOTES_ROOM;
            let stdout = out.stdout.trim_end();
            let value = out.value.as_deref().filter(|v| !v.is_empty());
            let value_part = value.map(|v| {
                let value_room = if stdout.is_empty() && out.cut_chars == 0 {
                    room
                } else {
                    VALUE_ROOM_BESIDE_OUTPUT
                };
                head_of(v, value_room, out.value_cut_chars)
            });
            let stdout_room = room.saturating_sub(value_part.as_ref().map_or(0, |v| v.chars().count()));
            let mut parts = Vec::new();
            if !stdout.is_empty() || out.cut_chars > 0 {
                parts.push(format!(
                    "Printed:\n{}",
                    head_of(stdout, stdout_room, out.cut_chars)
                ));
            }
            if let Some(value) = value_part {
                parts.push(format!("Value: {value}"));
            }
            if !out.blocked.is_empty() {
                parts.push(blocked_note(&out.blocked));
            }
            if parts.is_empty() {
                parts.push("The program ran and printed nothing.".into());
            }
            if let Some(note) = &out.note {
                parts.push(format!("Note: {note}"));
            }
            Ok(truncate(&parts.join("\n"), MAX_OBSERVATION_CHARS))
        }
        // The program's own error: the model reads the end of the traceback, the user may
        // read all of it.
        Err(PythonFailure::Raised(message)) => Err(ToolFailure::bad_arguments(truncate(
            &format!("Python raised an error: {}", last_lines(&message, 6)),
            MAX_OBSERVATION_CHARS,
        ))
        .with_detail(truncate(&message, MAX_OBSERVATION_CHARS * 4))),
        Err(PythonFailure::TimedOut { seconds }) => Err(ToolFailure::new(
            FailureKind::TimedOut,
            format!(
                "The program ran longer than {seconds} s and was stopped. A fresh interpreter is ready for the next call."
            ),
        )),
        Err(PythonFailure::Flooded { messages }) => Err(ToolFailure::new(
            FailureKind::BadArguments,
            format!(
                "The program was stopped: its sandbox sent more than {messages} messages without waiting for an answer (a flood, such as a timer posting in a loop). A fresh interpreter is ready for the next call."
            ),
        )),
        Err(PythonFailure::Refused(why)) => Err(ToolFailure::new(
            FailureKind::BadArguments,
            format!(
                "The program was stopped: its sandbox sent {why}. A program may not message the page itself. A fresh interpreter is ready for the next call."
            ),
        )),
        Err(PythonFailure::Unavailable(reason)) => Err(ToolFailure::new(
            FailureKind::Network,
            format!("The Python sandbox could not start: {reason}"),
        )),
    }
}

/// The first `room` characters of `text`, and a count of the rest (with `more` already cut).
fn head_of(text: &str, room: usize, more: usize) -> String {
    let total = text.chars().count();
    if total <= room && more == 0 {
        return text.to_string();
    }
    let head: String = text.chars().take(room).collect();
    let dropped = total.saturating_sub(room) + more;
    format!("{head}\n[…{dropped} more characters cut]")
}

/// Says that the sandbox refused a connection, and to where.
fn blocked_note(blocked: &[String]) -> String {
    let shown: Vec<String> = blocked
        .iter()
        .take(BLOCKED_SHOWN)
        .map(|url| url.chars().take(BLOCKED_URL_CHARS).collect())
        .collect();
    format!("{NO_NETWORK} (refused: {})", shown.join(", "))
}

/// Tracebacks are long; the end says what went wrong.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use std::cell::RefCell;

    struct FakeRunner {
        outcome: Result<PythonOutput, PythonFailure>,
        seen: RefCell<Vec<(String, u32)>>,
    }

    impl PythonRunner for FakeRunner {
        fn run<'a>(
            &'a self,
            code: &'a str,
            timeout_secs: u32,
        ) -> LocalBoxFuture<'a, Result<PythonOutput, PythonFailure>> {
            self.seen
                .borrow_mut()
                .push((code.to_string(), timeout_secs));
            let outcome = self.outcome.clone();
            Box::pin(async move { outcome })
        }
    }

    fn tool(outcome: Result<PythonOutput, PythonFailure>) -> (Python, Rc<FakeRunner>) {
        let runner = Rc::new(FakeRunner {
            outcome,
            seen: RefCell::default(),
        });
        (Python::new(runner.clone(), 10), runner)
    }

    #[test]
    fn reads_plain_fenced_and_json_code() {
        assert_eq!(read_code("print(1)").unwrap(), "print(1)");
        assert_eq!(
            read_code("```python\nx = 2\nprint(x)\n```").unwrap(),
            "x = 2\nprint(x)"
        );
        assert_eq!(read_code(r#"{"code": "print(3)"}"#).unwrap(), "print(3)");
        assert!(read_code("  ").unwrap_err().contains("No Python code"));
        assert!(read_code("```\n```").is_err());
        assert!(read_code(&"x".repeat(10_001))
            .unwrap_err()
            .contains("longer"));
    }

    #[test]
    fn sends_the_code_and_the_limit_only() {
        let (python, runner) = tool(Ok(PythonOutput {
            stdout: "45\n".into(),
            ..PythonOutput::default()
        }));
        assert_eq!(
            block_on(python.execute("print(sum(range(10)))")),
            Ok("Printed:\n45".into())
        );
        assert_eq!(
            runner.seen.borrow().as_slice(),
            &[("print(sum(range(10)))".to_string(), 10)]
        );
    }

    #[test]
    fn describes_values_silence_and_cut_output() {
        let out = |stdout: &str, value: Option<&str>, cut| {
            describe(Ok(PythonOutput {
                stdout: stdout.into(),
                value: value.map(str::to_string),
                cut_chars: cut,
                ..PythonOutput::default()
            }))
            .unwrap()
        };
        assert_eq!(out("", Some("42"), 0), "Value: 42");
        assert_eq!(out("", None, 0), "The program ran and printed nothing.");
        assert_eq!(
            out("a\n", Some("1"), 120),
            "Printed:\na\n[…120 more characters cut]\nValue: 1"
        );
    }

    /// What the worker sends for `print('x' * 10**9)` and for `'x' * 10**9` as the last
    /// expression: the start and a count.
    #[test]
    fn a_gigabyte_of_output_becomes_a_short_observation_that_says_how_much_was_cut() {
        let printed = WorkerReply {
            kind: "done".into(),
            id: 3,
            stdout: "x".repeat(MAX_OUTPUT_CHARS),
            cut: 1_000_000_001 - MAX_OUTPUT_CHARS,
            ..WorkerReply::default()
        };
        let text = describe(printed.outcome()).unwrap();
        assert!(text.chars().count() <= MAX_OBSERVATION_CHARS, "{text}");
        let shown = text.matches('x').count();
        assert!(
            text.ends_with(&format!("[…{} more characters cut]", 1_000_000_001 - shown)),
            "{text}"
        );

        let value = WorkerReply {
            kind: "done".into(),
            id: 4,
            value: Some("x".repeat(MAX_OUTPUT_CHARS)),
            value_chars: 1_000_000_000,
            ..WorkerReply::default()
        };
        let out = value.outcome().unwrap();
        assert_eq!(out.value_cut_chars, 1_000_000_000 - MAX_OUTPUT_CHARS);
        let text = describe(Ok(out)).unwrap();
        assert!(text.starts_with("Value: xxx"), "{text}");
        let shown = text.matches('x').count();
        assert!(
            text.ends_with(&format!("[…{} more characters cut]", 1_000_000_000 - shown)),
            "{text}"
        );
    }

    #[test]
    fn printed_text_and_value_share_the_observation() {
        let out = PythonOutput {
            stdout: "p".repeat(3000),
            value: Some("v".repeat(3000)),
            ..PythonOutput::default()
        };
        let text = describe(Ok(out)).unwrap();
        assert!(text.chars().count() <= MAX_OBSERVATION_CHARS, "{text}");
        assert!(
            text.contains("Value: vvv") && text.contains("Printed:\nppp"),
            "{text}"
        );
        assert_eq!(text.matches("more characters cut]").count(), 2, "{text}");
    }

    #[test]
    fn refused_connections_are_named_in_the_observation() {
        let blocked = vec![
            "http://127.0.0.1:9/x".to_string(),
            "ws://h/y".into(),
            "z".into(),
        ];
        let done = WorkerReply {
            kind: "done".into(),
            stdout: "caught it\n".into(),
            blocked: blocked.clone(),
            ..WorkerReply::default()
        };
        assert_eq!(
            describe(done.outcome()).unwrap(),
            format!("Printed:\ncaught it\n{NO_NETWORK} (refused: http://127.0.0.1:9/x, ws://h/y)")
        );
        let raised = WorkerReply {
            kind: "raised".into(),
            error: Some("JsException: TypeError: Failed to fetch".into()),
            blocked,
            ..WorkerReply::default()
        };
        let e = describe(raised.outcome()).unwrap_err().message;
        assert!(e.contains("TypeError: Failed to fetch"), "{e}");
        assert!(
            e.ends_with(&format!(
                "{NO_NETWORK} (refused: http://127.0.0.1:9/x, ws://h/y)"
            )),
            "{e}"
        );
        // The worker's own refusal already says it: not twice.
        let refused = WorkerReply {
            kind: "raised".into(),
            error: Some(format!("JsException: TypeError: {NO_NETWORK}")),
            blocked: vec!["http://h/".into()],
            ..WorkerReply::default()
        };
        let e = describe(refused.outcome()).unwrap_err().message;
        assert_eq!(e.matches(NO_NETWORK).count(), 1, "{e}");
    }

    #[test]
    fn a_call_ends_with_its_own_result_or_a_failed_sandbox() {
        let reply = |kind: &str, id| WorkerReply {
            kind: kind.into(),
            id,
            ..WorkerReply::default()
        };
        assert!(reply("done", 2).ends_call(2));
        assert!(reply("raised", 2).ends_call(2));
        assert!(!reply("done", 1).ends_call(2), "another call's result");
        assert!(!reply("started", 2).ends_call(2));
        assert!(reply("unavailable", 0).ends_call(2));
        let e = describe(
            WorkerReply {
                error: Some("the worker failed".into()),
                ..reply("unavailable", 0)
            }
            .outcome(),
        )
        .unwrap_err()
        .message;
        assert_eq!(e, "The Python sandbox could not start: the worker failed");
    }

    #[test]
    fn a_flood_ends_any_call_and_says_why_to_the_tool_and_to_a_program() {
        let flood = WorkerReply {
            kind: "flood".into(),
            ..WorkerReply::default()
        };
        assert!(flood.ends_call(7), "whichever call was waiting");
        let f = describe(flood.clone().outcome()).unwrap_err();
        assert_eq!(f.kind, FailureKind::BadArguments);
        assert!(
            f.message.contains(&format!(
                "more than {MAX_UNANSWERED_MESSAGES} messages without waiting for an answer"
            )),
            "{f}"
        );
        let ran = flood.program_run();
        assert_eq!(
            ran.stopped,
            Some(ProgramStop::Flood {
                messages: MAX_UNANSWERED_MESSAGES
            })
        );
        assert_eq!(ran.final_answer, None);
    }

    #[test]
    fn an_interrupted_program_keeps_what_it_printed_and_its_stop_is_the_time_limit() {
        let stop = ProgramStop::TimeLimit { secs: 5 };
        let interrupted = WorkerReply {
            kind: "raised".into(),
            stdout: "looping\n".into(),
            error: Some(
                "Traceback (most recent call last):\n  File \"<exec>\", line 2, in <module>\nKeyboardInterrupt"
                    .into(),
            ),
            names: vec!["keep".into()],
            ..WorkerReply::default()
        };
        let ran = interrupted.interrupted_run(stop);
        assert_eq!(ran.printed, "looping\n");
        assert_eq!(ran.stopped, Some(stop));
        assert_eq!(
            ran.error, None,
            "the interrupt is the stop, not the program's error"
        );
        // What it did after catching the interrupt is its own: another error, or an answer.
        let other = WorkerReply {
            kind: "raised".into(),
            error: Some("ValueError: after the interrupt".into()),
            ..WorkerReply::default()
        }
        .interrupted_run(stop);
        assert_eq!(
            other.error.as_deref(),
            Some("ValueError: after the interrupt")
        );
        let answered = WorkerReply {
            kind: "final".into(),
            value: Some("7".into()),
            ..WorkerReply::default()
        }
        .interrupted_run(stop);
        assert_eq!(answered.final_answer.as_deref(), Some("7"));
        assert_eq!(answered.stopped, Some(stop));
    }

    /// Attack review 6, row 8: what the model reads when a program posted a "done" of its own
    /// (the page stopped it), and when the page replaced its sandbox.
    #[test]
    fn a_refused_message_and_a_replaced_sandbox_are_said() {
        let f = describe(Err(PythonFailure::Refused(
            "a \"done\" message without the program's key".into(),
        )))
        .unwrap_err();
        assert_eq!(f.kind, FailureKind::BadArguments);
        assert_eq!(
            f.message,
            "The program was stopped: its sandbox sent a \"done\" message without the program's key. A program may not message the page itself. A fresh interpreter is ready for the next call."
        );
        let noted = describe(Ok(PythonOutput {
            stdout: "3\n".into(),
            note: Some("This program ran in a fresh sandbox.".into()),
            ..PythonOutput::default()
        }))
        .unwrap();
        assert_eq!(
            noted,
            "Printed:\n3\nNote: This program ran in a fresh sandbox."
        );
    }

    #[test]
    fn failures_are_readable_and_typed() {
        let traceback = "Traceback (most recent call last):\n  File \"<exec>\", line 1\n".repeat(5)
            + "ZeroDivisionError: division by zero";
        let f = describe(Err(PythonFailure::Raised(traceback.clone()))).unwrap_err();
        assert_eq!(f.kind, FailureKind::BadArguments);
        assert!(
            f.message.ends_with("ZeroDivisionError: division by zero"),
            "{f}"
        );
        assert!(f.message.lines().count() <= 6);
        // The whole traceback is the user's to read, not the model's.
        assert_eq!(f.detail.as_deref(), Some(traceback.as_str()));
        let f = describe(Err(PythonFailure::TimedOut { seconds: 10 })).unwrap_err();
        assert_eq!(f.kind, FailureKind::TimedOut);
        assert!(f.message.contains("longer than 10 s") && f.message.contains("fresh interpreter"));
        let f = describe(Err(PythonFailure::Unavailable("404".into()))).unwrap_err();
        assert_eq!(f.kind, FailureKind::Network);
        assert!(f.message.contains("could not start: 404"));
    }
}
