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

/// Names the sandbox defines itself: a tool may not take them.
const RESERVED_NAMES: [&str; 3] = ["final_answer", "ToolError", "print"];

/// `name` as a Python identifier: other characters become `_`, a leading digit or a reserved
/// word gets a `_`, a dunder name a `t` (MCP tools are named `get-weather` or `files.read`).
pub fn python_name(name: &str) -> String {
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
    if PYTHON_KEYWORDS.contains(&out.as_str()) || RESERVED_NAMES.contains(&out.as_str()) {
        out.push('_');
    }
    // Python's own names (`__builtins__`, `__name__`) stay Python's.
    if out.starts_with("__") {
        out.insert(0, 't');
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
    /// The program is to end now.
    Stop(ProgramStop),
}

/// The run's side of a program's tool calls (`function`: the Python name it called;
/// `kwargs`: its arguments by name, as the sandbox read them).
#[allow(async_fn_in_trait)]
pub trait ProgramCalls {
    async fn call(&self, function: &str, kwargs: &Value) -> Result<String, ProgramCallError>;
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
