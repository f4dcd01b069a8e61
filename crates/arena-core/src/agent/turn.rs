//! What a run did about one question: its turn, the steps of it (a model call each) and the
//! tool calls they made. Part of the run's record (`record.rs`), apart so that the events a
//! replay sends (a turn's earlier attempts) can name a turn without naming the record.

use serde::{Deserialize, Serialize};

use super::protocols::action_protocol::Protocol;
use crate::llm::{ChatMessage, RuntimeTimings, Usage};
use crate::tools::failure::Failed;
use crate::tools::program::ProgramStop;

/// An MCP server's tool as a run offered it: what a call of it went to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct McpSource {
    /// The name offered to the model.
    pub tool: String,
    /// The server's name, as the settings show it.
    pub server: String,
    pub url: String,
    /// The server's own name for the tool.
    pub name: String,
}

impl McpSource {
    /// `"Docs" at https://mcp.test/mcp, tool search_docs`: where a call went, in words.
    pub fn describe(&self) -> String {
        format!(
            "MCP server \"{}\" at {}, tool {}",
            self.server, self.url, self.name
        )
    }
}

/// One tool call of a step and what came of it. A run with no tool is an observation about
/// the reply itself (it fit no format).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolRun {
    pub tool: String,
    pub input: String,
    /// `None` while it runs.
    pub output: Option<String>,
    pub is_error: bool,
    /// How the call failed (its kind, the user's detail), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failed>,
    /// The MCP server and tool the call went to, when it was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpSource>,
    /// CodeAct: this run is the step's program (its input is the code, its output the
    /// Observation); its tool calls follow it, each `in_program`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub program: bool,
    /// CodeAct: a tool call the step's program made.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub in_program: bool,
    /// When a program's tool call began and ended (epoch ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_start: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_done: Option<f64>,
    /// CodeAct: why the program stopped before its end, or the limit that refused its calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<ProgramStop>,
}

impl Step {
    /// The tool calls, as (tool, input).
    pub fn actions(&self) -> Vec<(String, String)> {
        self.called()
            .into_iter()
            .map(|(tool, input, _)| (tool, input))
            .collect()
    }

    /// The tool calls, as (tool, input, the MCP server it went to).
    pub fn called(&self) -> Vec<(String, String, Option<McpSource>)> {
        self.tool_runs
            .iter()
            .filter(|r| !r.tool.is_empty())
            .map(|r| (r.tool.clone(), r.input.clone(), r.mcp.clone()))
            .collect()
    }

    /// What came back, as (text, is_error, how a tool call failed), in order.
    pub fn outcomes(&self) -> Vec<(String, bool, Option<Failed>)> {
        self.tool_runs
            .iter()
            .filter_map(|r| r.output.clone().map(|o| (o, r.is_error, r.failure.clone())))
            .collect()
    }

    /// What came back, as (text, is_error), in order.
    pub fn observations(&self) -> Vec<(String, bool)> {
        self.tool_runs
            .iter()
            .filter_map(|r| r.output.clone().map(|o| (o, r.is_error)))
            .collect()
    }
}

/// One model call and the tool calls it asked for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Step {
    pub number: u32,
    /// The final no-tools call after the step limit.
    pub forced: bool,
    /// Milliseconds since the Unix epoch.
    pub t_start: f64,
    pub t_first_token: Option<f64>,
    /// When the reply was complete (the model's part of the step).
    pub t_reply: Option<f64>,
    /// When the step's tool calls were done.
    pub t_tools_done: Option<f64>,
    /// When the step's last reply was complete: a call made again (after a format reminder)
    /// replies after `t_reply`, and its time is the model's, not the tools'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_last_reply: Option<f64>,
    /// When the step's first tool call began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_tools_start: Option<f64>,
    /// When the step's calls waited for the model in this browser while it answered another
    /// panel: [from, to], epoch ms.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model_waits: Vec<[f64; 2]>,
    pub reasoning: String,
    /// The reply as it streams; once read, its parts are in `thought` and `tool_runs`.
    pub live: String,
    /// Counts the times `live` was emptied (a retried call), so a view that appends to what it
    /// showed knows when to start over.
    pub live_epoch: u32,
    pub thought: Option<String>,
    pub tool_runs: Vec<ToolRun>,
    /// What the run did about trouble in this step (a format reminder, a protocol switch).
    pub notices: Vec<String>,
    /// As the endpoint reported it (summed over retried calls).
    pub usage: Option<Usage>,
    /// llama.cpp's own figures for the step's (last) call, where the runtime sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<RuntimeTimings>,
    /// What this step added to the conversation, in order.
    pub messages: Vec<ChatMessage>,
    /// The reply has been read (thought/action/answer known): `live` is no longer shown.
    pub settled: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub text: String,
    pub forced: bool,
    pub step: u32,
}

/// One question and everything the run did about it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Turn {
    pub question: String,
    pub t_start: f64,
    pub steps: Vec<Step>,
    pub answer: Option<Answer>,
    pub error: Option<String>,
    pub stopped: bool,
    /// When the run was cut mid-reply: the step to run again, in the protocol it spoke.
    pub resumable: Option<(u32, Protocol)>,
    /// Earlier attempts at this question (Retry, or a forced answer before Continue), oldest
    /// first. They are not part of the conversation sent to the model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub earlier: Vec<Turn>,
}

impl Turn {
    /// This turn as an earlier attempt: everything but its own earlier attempts.
    pub(crate) fn as_attempt(&self) -> Turn {
        Turn {
            earlier: Vec::new(),
            ..self.clone()
        }
    }

    /// Whether the turn ended on an answer forced by the step limit.
    pub fn forced(&self) -> bool {
        self.answer.as_ref().is_some_and(|a| a.forced)
    }
}
