//! CodeAct's protocol: each step the model writes a Thought and one short Python program that
//! calls the tools as functions; the program's output is the step's Observation.
//!
//! This module is pure: it reads a reply (the program, the thought, an answer given without
//! code), lists the tools as Python signatures for the prompt, and turns what a program did
//! (printed, returned, raised, or was stopped) into the Observation the model reads. The
//! sandbox that runs the program (public/python-frame.html) and the gate its tool calls go
//! through live at the edges.

use serde_json::Value;

mod bare_code;
mod final_answer_name;

pub use bare_code::{bare_program, compile_check, compiled};
use final_answer_name::{rename_final_answer_variable, RENAMED};

use crate::tools::program::{
    identifier, is_pythons_own, parameter_name, python_tools, schema_params, ProgramRun,
    ProgramStop,
};
use crate::tools::returns::schema_keys;
use crate::tools::{Returns, ToolSpec};

/// The name a step's program has among its tool runs (the record's `ToolRun::program`).
pub const PROGRAM_TOOL: &str = "program";

/// What a CodeAct reply means for the loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeDecision {
    /// Run `code`; `note` is told to the model with the Observation (another program in the
    /// same reply was not run).
    Run {
        thought: Option<String>,
        code: String,
        note: Option<String>,
        /// The reply up to its program's end: what the conversation keeps of it (an
        /// Observation the model went on to imagine is not kept).
        kept: String,
    },
    /// An answer written as text, without a program.
    Answer {
        thought: Option<String>,
        text: String,
    },
    /// Neither a program nor an answer: the model is reminded of the format.
    Invalid { thought: Option<String> },
}

/// Told to a model whose reply had neither a program nor an answer.
pub const CODE_FORMAT_REMINDER: &str = "Your reply had no Python program. Reply again with a \
Thought: line and then one program in a ```python block; call final_answer(...) in it when \
you know the answer.";

/// Told with the Observation when a block after the program, not marked as Python, was not
/// run (most often the output the model imagined for it).
const ONE_PROGRAM_NOTE: &str = "Only your Python blocks were run: the block after them, not \
marked ```python, was not (it looked like output; the Observation shows the real one).";

/// Told with the Observation when the reply went on after an Observation the model wrote.
const AFTER_OBSERVATION_NOTE: &str = "What you wrote after your own \"Observation:\" was not \
run: write your program, then wait for the real Observation.";

/// What a reply means: its program, the thought before it, or an `Answer:` line when it has no
/// program. The program is the reply's first block (a fence, tagged `python`/`py` or not, or a
/// `<code>` element) joined, in order, with every later block marked as Python (a fence tagged
/// `python`, or a `<code>` element), as smolagents joins them. An untagged block after the
/// program (the output the model imagined) and everything after an `Observation:` line the
/// model wrote are not run, and the model is told so.
pub fn parse_code_reply(content: &str) -> CodeDecision {
    let content = content.trim();
    match first_program(content) {
        Some(found) => {
            let thought = clean_thought(&content[..found.start]);
            let mut code = found.code;
            let mut end = found.end;
            let mut note = None;
            while let Some(next) = first_program(&content[end..]) {
                if imagined_observation(&content[end..end + next.start]) {
                    note = Some(AFTER_OBSERVATION_NOTE.to_string());
                    break;
                }
                if !next.tagged {
                    note = Some(ONE_PROGRAM_NOTE.to_string());
                    break;
                }
                if !next.code.trim().is_empty() {
                    if !code.trim().is_empty() {
                        code.push('\n');
                    }
                    code.push_str(&next.code);
                }
                end += next.end;
            }
            if code.trim().is_empty() {
                return CodeDecision::Invalid { thought };
            }
            if let Some(renamed) = rename_final_answer_variable(&code) {
                code = renamed;
                let told = format!(
                    "Your variable final_answer was renamed {RENAMED}, so that final_answer(...) still ends the run."
                );
                note = Some(match note {
                    Some(other) => format!("{told} {other}"),
                    None => told,
                });
            }
            CodeDecision::Run {
                thought,
                code,
                note,
                kept: content[..end].to_string(),
            }
        }
        None => {
            let (before, answer) = match answer_line(content) {
                Some((at, text)) => (&content[..at], text),
                None => {
                    return CodeDecision::Invalid {
                        thought: clean_thought(content),
                    }
                }
            };
            CodeDecision::Answer {
                thought: clean_thought(before),
                text: answer,
            }
        }
    }
}

struct Program {
    /// Where the block starts and ends in the text searched.
    start: usize,
    end: usize,
    code: String,
    /// Marked as Python: a fence tagged `python`, `py` or `python3`, or a `<code>` element.
    tagged: bool,
}

/// Whether the model wrote an Observation of its own in `text` (a line starting with it).
fn imagined_observation(text: &str) -> bool {
    text.lines().any(|line| {
        line.trim_start()
            .get(..12)
            .is_some_and(|head| head.eq_ignore_ascii_case("observation:"))
    })
}

/// The first program in `text`: a fence of three or more backticks (its info string, if any,
/// naming Python) or a `<code>` element. A fence left open runs to the end of the reply: a
/// model stopped before its closing fence (by a stop sequence) wrote the program whole. A
/// model that mixes the two forms (a fence closed by a `</code>` line, or the reverse) wrote
/// one block: the stray closing line is not part of the program.
fn first_program(text: &str) -> Option<Program> {
    let fence = find_fence(text);
    let tag = text.find("<code>");
    match (fence, tag) {
        (Some(f), Some(t)) if t < f.start => code_element(text, t),
        (Some(f), _) => Some(f),
        (None, Some(t)) => code_element(text, t),
        (None, None) => None,
    }
}

fn find_fence(text: &str) -> Option<Program> {
    let mut from = 0;
    while let Some(offset) = text[from..].find("```") {
        let start = from + offset;
        // A fence opens a line.
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        if !text[line_start..start].trim().is_empty() {
            from = start + 3;
            continue;
        }
        let ticks = text[start..].chars().take_while(|c| *c == '`').count();
        let info_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let info = text[start + ticks..info_end].trim().to_ascii_lowercase();
        if !(info.is_empty() || matches!(info.as_str(), "python" | "py" | "python3")) {
            // Another language's block (the model showing JSON or output): not a program.
            from = skip_block(text, info_end, ticks);
            continue;
        }
        let body_start = (info_end + 1).min(text.len());
        let closing = "`".repeat(ticks);
        let fence_end = find_closing(text, body_start, &closing).map(|at| (at, at + ticks));
        let tag_end = find_closing(text, body_start, CODE_END).map(|at| (at, at + CODE_END.len()));
        let (body_end, end) = match (fence_end, tag_end) {
            (Some(f), Some(t)) => f.min(t),
            (Some(f), None) => f,
            (None, Some(t)) => t,
            (None, None) => (text.len(), text.len()),
        };
        return Some(Program {
            start,
            end,
            code: text[body_start..body_end].trim_end().to_string(),
            tagged: !info.is_empty(),
        });
    }
    None
}

/// Where a block of `ticks` backticks opened before `from` ends (the end of the text if never).
fn skip_block(text: &str, from: usize, ticks: usize) -> usize {
    let body = (from + 1).min(text.len());
    match find_closing(text, body, &"`".repeat(ticks)) {
        Some(at) => at + ticks,
        None => text.len(),
    }
}

/// The closing fence: a line that starts with `closing` (after spaces).
fn find_closing(text: &str, from: usize, closing: &str) -> Option<usize> {
    let mut at = from;
    for line in text[from..].split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with(closing) {
            return Some(at + (line.len() - trimmed.len()));
        }
        at += line.len();
    }
    None
}

const CODE_END: &str = "</code>";

fn code_element(text: &str, start: usize) -> Option<Program> {
    let body_start = start + "<code>".len();
    let tag_end = text[body_start..]
        .find(CODE_END)
        .map(|i| (body_start + i, body_start + i + CODE_END.len()));
    // A `<code>` closed by a fence line (three or more backticks).
    let fence_end = find_closing(text, body_start, "```").map(|at| {
        let ticks = text[at..].chars().take_while(|c| *c == '`').count();
        (at, at + ticks)
    });
    let (body_end, end) = match (tag_end, fence_end) {
        (Some(t), Some(f)) => t.min(f),
        (Some(t), None) => t,
        (None, Some(f)) => f,
        (None, None) => (text.len(), text.len()),
    };
    Some(Program {
        start,
        end,
        code: text[body_start..body_end]
            .trim_matches('\n')
            .trim_end()
            .to_string(),
        tagged: true,
    })
}

/// The thought a model wrote before its program, without its label ("" is none).
fn clean_thought(text: &str) -> Option<String> {
    let text = text.trim();
    let text = strip_label(text, &["Thought:", "Thoughts:"]).unwrap_or(text);
    let text = text.trim_end_matches("Code:").trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn strip_label<'a>(text: &'a str, labels: &[&str]) -> Option<&'a str> {
    labels.iter().find_map(|label| {
        text.get(..label.len())
            .filter(|head| head.eq_ignore_ascii_case(label))
            .map(|_| text[label.len()..].trim_start())
    })
}

/// An answer line with no program: "Answer: …" or "Final answer: …" starting a line; the
/// answer runs to the end of the reply.
fn answer_line(text: &str) -> Option<(usize, String)> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(rest) = strip_label(trimmed, &["Final answer:", "Answer:"]) {
            let answer = format!("{rest}{}", &text[at + line.len()..]);
            let answer = answer.trim();
            if !answer.is_empty() {
                return Some((at, answer.to_string()));
            }
        }
        at += line.len();
    }
    None
}

struct Param {
    name: String,
    python_type: &'static str,
    required: bool,
    description: String,
}

/// The schema's properties as the signature shows them, in the order the program takes them.
fn parameters(schema: &Value) -> Vec<Param> {
    schema_params(schema)
        .into_iter()
        .map(|(name, required)| {
            let p = &schema["properties"][&name];
            Param {
                python_type: python_type(&p["type"]),
                required,
                description: one_line(p["description"].as_str().unwrap_or(""), 160),
                name,
            }
        })
        .collect()
}

fn python_type(schema_type: &Value) -> &'static str {
    match schema_type.as_str() {
        Some("string") => "str",
        Some("integer") => "int",
        Some("number") => "float",
        Some("boolean") => "bool",
        Some("array") => "list",
        Some("object") => "dict",
        _ => "object",
    }
}

/// `text` on one line, at most `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

/// Most keys of a dict result the prompt names.
const MAX_LISTED_KEYS: usize = 16;

/// The tools as the prompt lists them: a Python signature and a docstring each, and
/// `final_answer`. Names and descriptions come from tools (MCP servers included): they are
/// shown as text on one line, bounded, with no quote that could close the docstring.
pub fn python_signatures(tools: &[ToolSpec]) -> String {
    let mut out = String::new();
    for (tool, spec) in python_tools(tools).iter().zip(tools) {
        let params = parameters(&spec.parameters);
        let args: Vec<String> = params
            .iter()
            .filter(|p| parameter_name(&p.name) == p.name)
            .map(|p| {
                if p.required {
                    format!("{}: {}", p.name, p.python_type)
                } else {
                    format!("{}: {} = None", p.name, p.python_type)
                }
            })
            .collect();
        let mut doc = one_line(&spec.description, 300).replace('"', "'");
        // The model would call `len`, and get Python's: the name it must use is said first.
        let named = identifier(&spec.name);
        if is_pythons_own(&named) {
            doc = format!(
                "The tool {named} is called {} here ({named} is taken in Python). {doc}",
                tool.function
            );
        }
        let returns = spec.returns();
        // A dict's keys, as the tool declared them (plain names only), so a program can
        // index the result without printing it first.
        let keys = schema_keys(spec.output_schema.as_ref(), MAX_LISTED_KEYS);
        if returns == Returns::Dict && !keys.is_empty() {
            doc.push_str(&format!(" Returns a dict with keys: {}.", keys.join(", ")));
        }
        out.push_str(&format!(
            "def {}({}) -> {}:\n    \"\"\"{doc}",
            tool.function,
            args.join(", "),
            returns.python_type()
        ));
        for p in params.iter().filter(|p| !p.description.is_empty()) {
            out.push_str(&format!(
                "\n    {}: {}",
                parameter_name(&p.name),
                p.description.replace('"', "'")
            ));
        }
        out.push_str("\"\"\"\n\n");
    }
    out.push_str(
        "def final_answer(answer) -> None:\n    \"\"\"Ends the run with this answer.\"\"\"\n",
    );
    out
}

/// The most of a program's output the model reads: its start and its end are kept.
const OUTPUT_HEAD_CHARS: usize = 3_000;
const OUTPUT_TAIL_CHARS: usize = 1_000;
/// The lines of a traceback the model reads: the last ones name the error and where.
const TRACEBACK_LINES: usize = 6;

/// The Observation a program's run gives the model.
pub fn program_observation(run: &ProgramRun) -> String {
    let mut parts = Vec::new();
    if !run.printed.trim().is_empty() {
        parts.push(format!("Printed:\n{}", bounded(run.printed.trim_end())));
    }
    if let Some(value) = run.value.as_deref().filter(|v| !v.is_empty()) {
        parts.push(format!("Value: {}", bounded(value)));
    }
    if let Some(error) = run.error.as_deref().filter(|e| !e.trim().is_empty()) {
        parts.push(format!(
            "Error (the program stopped here; fix it and try again):\n{}",
            last_lines(error.trim_end(), TRACEBACK_LINES)
        ));
    }
    match run.stopped {
        Some(ProgramStop::TimeLimit { secs }) => parts.push(format!(
            "The program was stopped: it ran past the {secs} s a step may take. Write a shorter program (no endless loops)."
        )),
        Some(ProgramStop::CallLimit { calls }) => parts.push(format!(
            "It asked for more than {calls} tool calls in one step: each call past them raised CallLimitError and ran no tool (its variables are kept). Call fewer tools per program."
        )),
        Some(ProgramStop::Stopped) => parts.push("The program was stopped by the user.".into()),
        Some(ProgramStop::Flood { messages }) => parts.push(format!(
            "The program was stopped: its sandbox sent more than {messages} messages without waiting for an answer (a flood, such as a timer posting in a loop), so the sandbox was ended. Call the tools one at a time and leave no timers running."
        )),
        None => {}
    }
    // The answer itself, not "printed nothing": the conversation a follow-up reads keeps it.
    if let Some(answer) = run.final_answer.as_deref().filter(|a| !a.trim().is_empty()) {
        parts.push(format!("Final answer: {}", bounded(answer.trim())));
    }
    if parts.is_empty() {
        parts.push("The program ran and printed nothing. Use print() to see a value.".into());
    }
    if let Some(note) = &run.note {
        parts.push(format!("Note: {note}"));
    }
    parts.join("\n")
}

fn bounded(text: &str) -> String {
    let chars = text.chars().count();
    if chars <= OUTPUT_HEAD_CHARS + OUTPUT_TAIL_CHARS {
        return text.to_string();
    }
    let head: String = text.chars().take(OUTPUT_HEAD_CHARS).collect();
    let tail: String = text.chars().skip(chars - OUTPUT_TAIL_CHARS).collect();
    format!(
        "{head}\n… {} characters left out …\n{tail}",
        chars - OUTPUT_HEAD_CHARS - OUTPUT_TAIL_CHARS
    )
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(n);
    bounded(&lines[from..].join("\n"))
}

#[cfg(test)]
mod tests;
