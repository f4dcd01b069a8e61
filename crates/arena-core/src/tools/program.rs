//! What a CodeAct program meets in the tools layer: the tools as Python functions (names made
//! identifiers, parameters from the schemas), what a program did, its limits, and the seam
//! through which its tool calls come back to the run (`ProgramCalls`). The protocol that reads
//! programs from replies and words their Observations is `agent::protocols::code_action`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ToolSpec;

/// Python's reserved words: never a function's or a parameter's name.
const PYTHON_KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Python's builtins (`dir(builtins)` in the sandbox's Python, 3.14, but the keywords above and
/// the underscored names): a tool named like one would shadow it in every program, so that
/// `len('hunter2')` would send the text to the tool's server.
#[rustfmt::skip]
const PYTHON_BUILTINS: [&str; 147] = [
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
    "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError",
    "Exception", "ExceptionGroup", "FileExistsError", "FileNotFoundError", "FloatingPointError",
    "FutureWarning", "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError",
    "IndexError", "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt",
    "LookupError", "MemoryError", "ModuleNotFoundError", "NameError", "NotADirectoryError",
    "NotImplemented", "NotImplementedError", "OSError", "OverflowError",
    "PendingDeprecationWarning", "PermissionError", "ProcessLookupError", "PythonFinalizationError",
    "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError", "RuntimeWarning",
    "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError",
    "SystemExit", "TabError", "TimeoutError", "TypeError", "UnboundLocalError",
    "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError",
    "UnicodeWarning", "UserWarning", "ValueError", "Warning", "ZeroDivisionError", "abs", "aiter",
    "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable",
    "chr", "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir",
    "divmod", "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset",
    "getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance",
    "issubclass", "iter", "len", "license", "list", "locals", "map", "max", "memoryview", "min",
    "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range", "repr",
    "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super",
    "tuple", "type", "vars", "zip",
];

/// Names the sandbox defines itself: a tool may not take them.
const RESERVED_NAMES: [&str; 3] = ["final_answer", "ToolError", "print"];

/// Whether `name` is Python's own (a keyword or a builtin) or the sandbox's: a tool so named
/// is called by it with a `_` after it (`len_`), and the prompt's tool list says so.
pub fn is_pythons_own(name: &str) -> bool {
    PYTHON_KEYWORDS.contains(&name)
        || PYTHON_BUILTINS.contains(&name)
        || RESERVED_NAMES.contains(&name)
}

/// `name` as a Python identifier: other characters become `_`, a leading digit gets a `_`,
/// Python's own names (keywords, builtins) and the sandbox's a `_` after them, a dunder name a
/// `t` (MCP tools are named `get-weather` or `files.read`).
pub fn python_name(name: &str) -> String {
    let mut out = identifier(name);
    if is_pythons_own(&out) {
        out.push('_');
    }
    // Python's own names (`__builtins__`, `__name__`) stay Python's.
    if out.starts_with("__") {
        out.insert(0, 't');
    }
    out
}

/// A parameter's name as the signature shows it: an identifier that is no keyword. A parameter
/// may be called `input` or `len`: passed by name, it shadows nothing.
pub fn parameter_name(name: &str) -> String {
    let mut out = identifier(name);
    if PYTHON_KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    if out.starts_with("__") {
        out.insert(0, 't');
    }
    out
}

/// `name` with its other characters made `_`, and a `_` before a leading digit.
pub fn identifier(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// One tool as the program sees it: the function's name, the tool it calls, and the keyword
/// parameters it takes. The sandbox defines the functions from this (as data, never as
/// source text), so a hostile name or description cannot become code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonTool {
    pub function: String,
    pub tool: String,
    pub params: Vec<String>,
}

/// The tools as functions, each with a distinct Python name.
pub fn python_tools(tools: &[ToolSpec]) -> Vec<PythonTool> {
    let mut taken: Vec<String> = Vec::new();
    tools
        .iter()
        .map(|t| {
            let mut function = python_name(&t.name);
            while taken.contains(&function) {
                function.push('_');
            }
            taken.push(function.clone());
            PythonTool {
                function,
                tool: t.name.clone(),
                params: schema_params(&t.parameters)
                    .into_iter()
                    .map(|(name, _)| name)
                    .collect(),
            }
        })
        .collect()
}

/// The schema's properties, required first, in the schema's order: (name, required).
pub fn schema_params(schema: &Value) -> Vec<(String, bool)> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut params: Vec<(String, bool)> = schema["properties"]
        .as_object()
        .map(|props| {
            props
                .keys()
                .map(|name| (name.clone(), required.contains(&name.as_str())))
                .collect()
        })
        .unwrap_or_default();
    params.sort_by_key(|(_, required)| !required);
    params
}

/// Why a program was stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum ProgramStop {
    /// It ran past the step's time limit.
    TimeLimit { secs: u32 },
    /// It asked for more tool calls than a step allows.
    CallLimit { calls: u32 },
    /// The user pressed Stop.
    Stopped,
    /// Its sandbox sent more than `messages` messages without waiting for an answer (a timer
    /// posting in a loop, say): the sandbox was ended and nothing more it sent was read.
    Flood { messages: u32 },
}

/// What one program did, as the sandbox reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProgramRun {
    /// What it printed.
    pub printed: String,
    /// The value of its last expression (Python's `repr`), when not `None`.
    pub value: Option<String>,
    /// The traceback of the exception that ended it.
    pub error: Option<String>,
    /// What it passed to `final_answer`, as text.
    pub final_answer: Option<String>,
    pub stopped: Option<ProgramStop>,
    /// What the page says of the sandbox beside what the program did (it ran in a fresh one,
    /// or the sandbox was ended after it: the next program has no earlier variables).
    pub note: Option<String>,
}

/// The tool calls one program may make, and what a step may take: a program calling tools in a
/// loop is stopped by these, with its own Observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramLimits {
    pub calls_per_step: u32,
    pub step_secs: u32,
}

impl Default for ProgramLimits {
    fn default() -> Self {
        Self {
            calls_per_step: 10,
            step_secs: 60,
        }
    }
}

/// Counts one program's tool calls against its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallBudget {
    limit: u32,
    made: u32,
}

impl CallBudget {
    pub fn new(limits: ProgramLimits) -> Self {
        Self {
            limit: limits.calls_per_step,
            made: 0,
        }
    }

    /// Admits one more call, or says the program is to stop.
    pub fn admit(&mut self) -> Result<(), ProgramStop> {
        if self.made >= self.limit {
            return Err(ProgramStop::CallLimit { calls: self.limit });
        }
        self.made += 1;
        Ok(())
    }

    pub fn made(&self) -> u32 {
        self.made
    }
}

/// A program's error where the toolbox has no Python interpreter.
pub const NO_INTERPRETER: &str = "RuntimeError: no Python interpreter is available here";

/// Why a program's tool call gave no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramCallError {
    /// The call failed: the program gets an exception with this message.
    Failed(String),
    /// A limit of the step refuses the call: the program gets a `CallLimitError` (a
    /// `ToolError`, so it may catch it) saying [`limit_error`], and runs on in the same
    /// interpreter; the run keeps the stop as the program's.
    Limit(ProgramStop),
}

/// What the program's `CallLimitError` says when `stop` refuses a call.
pub fn limit_error(stop: ProgramStop) -> String {
    match stop {
        ProgramStop::CallLimit { calls } => format!(
            "this program already made the {calls} tool calls a step allows; this call and \
             every later one in this program are refused (its variables are kept: the next \
             program may call tools again)"
        ),
        other => format!("the program may call no more tools ({other:?})"),
    }
}

/// Names of a program's variables that a note lists at most.
const NAMES_SHOWN: usize = 20;

/// The note a program's Observation carries when its sandbox had to be restarted at the time
/// limit (the page could not interrupt the program, or the program did not stop when
/// interrupted): `lost` are the variables the sandbox held after the last program that ended,
/// which the next program no longer has.
pub fn restarted_note(interruptible: bool, lost: &[String]) -> String {
    let why = if interruptible {
        "The program did not stop when it was interrupted at the time limit"
    } else {
        "This page cannot interrupt a running program (it is not cross-origin isolated)"
    };
    match lost {
        [] => format!(
            "{why}, so its sandbox was restarted: the next program starts in a fresh \
             interpreter, without this program's variables."
        ),
        names => {
            let mut shown = names[..names.len().min(NAMES_SHOWN)].join(", ");
            if names.len() > NAMES_SHOWN {
                shown.push_str(&format!(" and {} more", names.len() - NAMES_SHOWN));
            }
            format!(
                "{why}, so its sandbox was restarted and these variables were lost: {shown} \
                 (and any this program made). The next program starts without them."
            )
        }
    }
}

/// The run's side of a program's tool calls (`function`: the Python name it called;
/// `kwargs`: its arguments by name, as the sandbox read them). The result is what the
/// program gets: a string is a `str`, an object a `dict`, an array a `list`.
#[allow(async_fn_in_trait)]
pub trait ProgramCalls {
    async fn call(&self, function: &str, kwargs: &Value) -> Result<Value, ProgramCallError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_program_calling_tools_in_a_loop_is_stopped_at_its_limit() {
        let mut budget = CallBudget::new(ProgramLimits {
            calls_per_step: 3,
            step_secs: 60,
        });
        let admitted: Vec<_> = (0..5).map(|_| budget.admit()).collect();
        assert_eq!(
            admitted,
            [
                Ok(()),
                Ok(()),
                Ok(()),
                Err(ProgramStop::CallLimit { calls: 3 }),
                Err(ProgramStop::CallLimit { calls: 3 })
            ]
        );
        assert_eq!(budget.made(), 3);
        assert_eq!(ProgramLimits::default().calls_per_step, 10);
    }

    /// Attack review 6, row 2: an MCP server's read-only `len` took Python's, and
    /// `print(len('hunter2'))` sent the text to the server.
    #[test]
    fn tools_named_like_python_s_builtins_keywords_or_the_sandbox_s_own_names_get_a_trailing_underscore(
    ) {
        let named = |names: &[&str]| -> Vec<String> {
            let specs: Vec<ToolSpec> = names
                .iter()
                .map(|n| ToolSpec::new(*n, "A tool.", "x"))
                .collect();
            python_tools(&specs)
                .into_iter()
                .map(|t| t.function)
                .collect()
        };
        assert_eq!(
            named(&["len", "str", "int", "sorted", "range"]),
            ["len_", "str_", "int_", "sorted_", "range_"]
        );
        assert_eq!(
            named(&[
                "print",
                "open",
                "type",
                "isinstance",
                "ValueError",
                "exit",
                "help"
            ]),
            [
                "print_",
                "open_",
                "type_",
                "isinstance_",
                "ValueError_",
                "exit_",
                "help_"
            ]
        );
        // Keywords and the sandbox's own names, the same way.
        assert_eq!(
            named(&["class", "None", "final_answer", "ToolError"]),
            ["class_", "None_", "final_answer_", "ToolError_"]
        );
        // Names near a builtin are left as they are; a tool already called `len_` keeps it,
        // and the builtin-named one after it takes the next free name.
        assert_eq!(
            named(&["length", "lens", "len_", "len", "Len"]),
            ["length", "lens", "len_", "len__", "Len"]
        );
        // Every builtin and keyword is refused as a bare name, and none of the renamed ones
        // is Python's own.
        for name in PYTHON_BUILTINS.iter().chain(&PYTHON_KEYWORDS) {
            let function = python_name(name);
            assert_eq!(function, format!("{name}_"));
            assert!(!is_pythons_own(&function), "{function}");
        }
    }

    #[test]
    fn a_call_over_the_limit_is_refused_with_words_the_program_can_read() {
        let said = limit_error(ProgramStop::CallLimit { calls: 10 });
        assert!(
            said.starts_with("this program already made the 10 tool calls a step allows"),
            "{said}"
        );
        assert!(said.contains("every later one"), "{said}");
    }

    #[test]
    fn a_restarted_sandbox_names_the_variables_it_lost_and_says_why() {
        let names = |n: usize| (0..n).map(|i| format!("v{i}")).collect::<Vec<_>>();
        let lost = restarted_note(false, &["base".into(), "keep".into()]);
        assert_eq!(
            lost,
            "This page cannot interrupt a running program (it is not cross-origin isolated), \
             so its sandbox was restarted and these variables were lost: base, keep (and any \
             this program made). The next program starts without them."
        );
        let stubborn = restarted_note(true, &[]);
        assert!(
            stubborn.starts_with("The program did not stop when it was interrupted")
                && stubborn.contains("fresh interpreter"),
            "{stubborn}"
        );
        let many = restarted_note(false, &names(25));
        assert!(many.contains("v19 and 5 more"), "{many}");
        assert!(!many.contains("v20"), "{many}");
    }

    #[test]
    fn a_program_run_reads_from_the_sandbox_s_json_and_keeps_unknown_fields_out() {
        let run: ProgramRun = serde_json::from_value(json!({
            "printed": "hi\n", "final_answer": "Canberra",
            "stopped": { "kind": "time-limit", "secs": 60 }, "extra": "ignored"
        }))
        .unwrap();
        assert_eq!(run.final_answer.as_deref(), Some("Canberra"));
        assert_eq!(run.stopped, Some(ProgramStop::TimeLimit { secs: 60 }));
    }
}
