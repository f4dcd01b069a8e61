//! A kept run as it is published: only what the user chose to share. The run keeps its shape
//! (its modes and models, steps, the tools called by name, times and tokens), and:
//!
//! - without **question text**, each question, and every message sent to the model as the
//!   user (the question, and in the text protocol the tool results), is left out; a question is
//!   replaced by its SHA-256, as in a vote line, so a run can be matched with its vote;
//! - without **answers**, everything the models wrote is left out (answers, replies, thoughts,
//!   reasoning, the calls' arguments and programs, summaries): an answer is in a model's words;
//! - without **tool results**, what each tool call gave back is left out, and so is the
//!   detail of a failed call;
//! - always, the model endpoint's address and each MCP server's address are reduced to their
//!   origin (scheme, host, port), wherever the run mentions them.
//!
//! As a last check, any text left out that still appears verbatim elsewhere in the file (a
//! thought quoting the question, an error quoting an address) is replaced there too.

use crate::agent::record::{RunRecord, ToolRun, Turn};
use crate::llm::{ChatMessage, Role};
use crate::origin::Origin;
use crate::run_file::RunFile;

use super::sha256_hex;

/// What a published run carries beyond its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunDetail {
    pub question_text: bool,
    pub answers: bool,
    pub tool_results: bool,
}

/// What stands for a text left out.
pub const ANSWER_LEFT_OUT: &str = "(left out: answers were not published)";
pub const RESULT_LEFT_OUT: &str = "(left out: tool results were not published)";
pub const USER_LEFT_OUT: &str =
    "(left out: the question and tool results sent as the user were not published)";

/// What stands for a question left out: its SHA-256, as a vote line keeps it.
pub fn question_left_out(question: &str) -> String {
    format!(
        "(question left out; SHA-256 {})",
        sha256_hex(question.trim().as_bytes())
    )
}

/// An address reduced to its origin; text that is no address is left out whole.
fn origin_of(url: &str) -> String {
    if url.trim().is_empty() {
        return String::new();
    }
    Origin::of(url.trim()).map_or_else(|| "(address left out)".into(), |o| o.to_string())
}

/// Texts found in the run, replaced wherever they appear.
#[derive(Default)]
struct LeftOut {
    /// (text, what replaces it), longest first.
    texts: Vec<(String, String)>,
}

impl LeftOut {
    /// Too short to be told from ordinary words: those are left out field by field only.
    const SHORTEST: usize = 12;

    fn add(&mut self, text: &str, with: &str) {
        let text = text.trim();
        if text.chars().count() >= Self::SHORTEST && !self.texts.iter().any(|(t, _)| t == text) {
            self.texts.push((text.to_string(), with.to_string()));
        }
    }

    fn scrub(&mut self, value: &mut serde_json::Value) {
        self.texts.sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));
        scrub_value(value, &self.texts);
    }
}

fn scrub_value(value: &mut serde_json::Value, texts: &[(String, String)]) {
    match value {
        serde_json::Value::String(s) => {
            for (text, with) in texts {
                if s.contains(text.as_str()) {
                    *s = s.replace(text.as_str(), with);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| scrub_value(v, texts)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| scrub_value(v, texts)),
        _ => {}
    }
}

fn message(m: &mut ChatMessage, detail: RunDetail) {
    match m.role {
        Role::System => {}
        Role::User => {
            if !(detail.question_text && detail.tool_results) {
                m.content = USER_LEFT_OUT.into();
            }
        }
        Role::Assistant => {
            if !detail.answers {
                m.content = ANSWER_LEFT_OUT.into();
                for call in &mut m.tool_calls {
                    call.arguments = ANSWER_LEFT_OUT.into();
                }
            }
        }
        Role::Tool => {
            if !detail.tool_results {
                m.content = RESULT_LEFT_OUT.into();
            }
        }
    }
}

fn tool_run(run: &mut ToolRun, detail: RunDetail, left: &mut LeftOut) {
    if !detail.answers && !run.input.is_empty() {
        left.add(&run.input, ANSWER_LEFT_OUT);
        run.input = ANSWER_LEFT_OUT.into();
    }
    if !detail.tool_results {
        if let Some(output) = &mut run.output {
            left.add(output, RESULT_LEFT_OUT);
            *output = RESULT_LEFT_OUT.into();
        }
        if let Some(failure) = &mut run.failure {
            failure.detail = None;
        }
    }
    if let Some(mcp) = &mut run.mcp {
        mcp.url = origin_of(&mcp.url);
    }
}

fn turn(t: &mut Turn, detail: RunDetail, left: &mut LeftOut) {
    if !detail.question_text {
        let hidden = question_left_out(&t.question);
        left.add(&t.question, &hidden);
        t.question = hidden;
    }
    if !detail.answers {
        if let Some(answer) = &mut t.answer {
            left.add(&answer.text, ANSWER_LEFT_OUT);
            answer.text = ANSWER_LEFT_OUT.into();
        }
    }
    for step in &mut t.steps {
        if !detail.answers {
            for text in [&mut step.reasoning, &mut step.live] {
                if !text.is_empty() {
                    left.add(text, ANSWER_LEFT_OUT);
                    *text = ANSWER_LEFT_OUT.into();
                }
            }
            if let Some(thought) = &mut step.thought {
                left.add(thought, ANSWER_LEFT_OUT);
                *thought = ANSWER_LEFT_OUT.into();
            }
        }
        for run in &mut step.tool_runs {
            tool_run(run, detail, left);
        }
        for m in &mut step.messages {
            message(m, detail);
        }
    }
    for earlier in &mut t.earlier {
        turn(earlier, detail, left);
    }
}

fn record(r: &mut RunRecord, detail: RunDetail, left: &mut LeftOut) {
    left.add(&r.config.base_url, &origin_of(&r.config.base_url));
    r.config.base_url = origin_of(&r.config.base_url);
    for source in &mut r.config.mcp_tools {
        left.add(&source.url, &origin_of(&source.url));
        source.url = origin_of(&source.url);
    }
    if !(detail.answers && detail.question_text && detail.tool_results) {
        // A summary of the conversation holds all three.
        if let Some(compaction) = &mut r.compaction {
            compaction.summary = ANSWER_LEFT_OUT.into();
        }
    }
    for t in &mut r.turns {
        turn(t, detail, left);
    }
}

/// `file` as published with `detail`: its JSON, as Export writes a run.
pub fn published(file: &RunFile, detail: RunDetail) -> String {
    let mut out = file.clone();
    let mut left = LeftOut::default();
    left.add(&out.settings.base_url, &origin_of(&out.settings.base_url));
    out.settings.base_url = origin_of(&out.settings.base_url);
    out.settings.mcp_servers = Default::default();
    for r in &mut out.records {
        record(r, detail, &mut left);
    }
    if !detail.question_text {
        let first = file
            .records
            .first()
            .and_then(|r| r.turns.first())
            .map_or(String::new(), |t| t.question.clone());
        left.add(&file.title, &question_left_out(&first));
        out.title = question_left_out(&first);
    }
    // The last check, over every text of the file.
    let mut value = serde_json::to_value(&out).unwrap_or_default();
    left.scrub(&mut value);
    value.to_string()
}

#[cfg(test)]
mod tests;
