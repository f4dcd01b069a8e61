//! The `python` tool: runs a snippet in Pyodide inside a module Web Worker (`ui::python_worker`
//! and `public/python-worker.js`). This file is the pure part: reading the input, shaping the
//! output, naming the failures. The worker never sees the token: it gets the code, nothing else.

use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::observation::{truncate, MAX_OBSERVATION_CHARS};
use super::{Tool, ToolSpec};

/// Default time limit of one python call.
pub const DEFAULT_TIMEOUT_SECS: u32 = 10;
/// Longest program accepted.
const MAX_CODE_CHARS: usize = 10_000;
/// Output the worker keeps; the rest is counted, not sent.
pub const MAX_OUTPUT_CHARS: usize = 4_000;

/// What a finished program gave.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PythonOutput {
    pub stdout: String,
    /// `repr`-like text of the last expression's value, if it had one.
    pub value: Option<String>,
    /// Characters of output dropped by the worker beyond `MAX_OUTPUT_CHARS`.
    pub cut_chars: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PythonFailure {
    /// The program raised; the text is Python's error message.
    Raised(String),
    /// It ran past the limit; the worker was terminated and will be replaced.
    TimedOut { seconds: u32 },
    /// Pyodide could not be loaded (bad base URL, offline…).
    Unavailable(String),
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

impl Tool for Python {
    fn spec(&self) -> ToolSpec {
        ToolSpec::new(
            "python",
            "Runs a short Python 3 program (standard library only, no network) and returns what it prints and the value of its last expression.",
            "Python code, e.g. print(sum(range(10)))",
        )
    }

    fn call<'a>(&'a self, input: &'a str) -> LocalBoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let code = read_code(input)?;
            let outcome = self.runner.run(&code, self.timeout_secs).await;
            describe(outcome)
        })
    }
}

/// The program from the model's input: plain code, a fenced block, or `{"code": …}`.
pub fn read_code(input: &str) -> Result<String, String> {
    let trimmed = input.trim();
    let code = match serde_json::from_str::<serde_json::Value>(trimmed) {
        Ok(serde_json::Value::Object(map)) => ["code", "input", "source"]
            .iter()
            .find_map(|k| map.get(*k).and_then(|v| v.as_str()))
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

/// The observation for a run's outcome.
pub fn describe(outcome: Result<PythonOutput, PythonFailure>) -> Result<String, String> {
    match outcome {
        Ok(out) => {
            let mut parts = Vec::new();
            let stdout = out.stdout.trim_end();
            if !stdout.is_empty() {
                parts.push(format!("Printed:\n{stdout}"));
            }
            if out.cut_chars > 0 {
                parts.push(format!("[…{} more characters of output cut]", out.cut_chars));
            }
            if let Some(value) = out.value.filter(|v| !v.is_empty()) {
                parts.push(format!("Value: {value}"));
            }
            if parts.is_empty() {
                parts.push("The program ran and printed nothing.".into());
            }
            Ok(truncate(&parts.join("\n"), MAX_OBSERVATION_CHARS))
        }
        Err(PythonFailure::Raised(message)) => Err(truncate(
            &format!("Python raised an error: {}", last_lines(&message, 6)),
            MAX_OBSERVATION_CHARS,
        )),
        Err(PythonFailure::TimedOut { seconds }) => Err(format!(
            "The program ran longer than {seconds} s and was stopped. A fresh interpreter is ready for the next call."
        )),
        Err(PythonFailure::Unavailable(reason)) => {
            Err(format!("The Python sandbox could not start: {reason}"))
        }
    }
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
            value: None,
            cut_chars: 0,
        }));
        assert_eq!(
            block_on(python.call("print(sum(range(10)))")),
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
            }))
            .unwrap()
        };
        assert_eq!(out("", Some("42"), 0), "Value: 42");
        assert_eq!(out("", None, 0), "The program ran and printed nothing.");
        assert_eq!(
            out("a\n", Some("1"), 120),
            "Printed:\na\n[…120 more characters of output cut]\nValue: 1"
        );
    }

    #[test]
    fn failures_are_readable() {
        let traceback = "Traceback (most recent call last):\n  File \"<exec>\", line 1\n".repeat(5)
            + "ZeroDivisionError: division by zero";
        let e = describe(Err(PythonFailure::Raised(traceback))).unwrap_err();
        assert!(e.ends_with("ZeroDivisionError: division by zero"), "{e}");
        assert!(e.lines().count() <= 6);
        let e = describe(Err(PythonFailure::TimedOut { seconds: 10 })).unwrap_err();
        assert!(e.contains("longer than 10 s") && e.contains("fresh interpreter"));
        let e = describe(Err(PythonFailure::Unavailable("404".into()))).unwrap_err();
        assert!(e.contains("could not start: 404"));
    }
}
