use serde::{Deserialize, Serialize};

use super::protocols::action_protocol::Protocol;
use super::turn::Turn;
use crate::llm::{ChatMessage, RuntimeTimings, Usage};
use crate::tools::failure::Failed;
use crate::tools::program::ProgramStop;

/// What a run reports while it goes. The last event of a run is `Answer`, `Error` or `Stopped`.
/// Serializable: the agent engine is its own wasm module and sends its events to the page as
/// JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AgentEvent {
    /// A question starts a turn (the first, or a follow-up in the same conversation).
    TurnStarted {
        question: String,
    },
    /// The system prompt the calls send from now on, and the protocol it describes.
    SystemPrompt {
        text: String,
        protocol: Protocol,
    },
    /// The conversation grew by this message (a reply, tool results, a reminder).
    Appended(ChatMessage),
    /// A model call begins. `forced` marks the final no-tools call after the step limit.
    StepStarted {
        step: u32,
        forced: bool,
    },
    /// Reply text as it streams.
    Token(String),
    /// Thinking text from the reasoning channel, as it streams.
    Reasoning(String),
    Usage(Usage),
    /// llama.cpp's figures for the step's call (the model in this browser, or a llama.cpp
    /// server): tokens read and reused, speeds, where it ran.
    Timings(RuntimeTimings),
    /// The step's call waited this long (ms, ending now) for the model in this browser, which
    /// was answering another panel: neither the model's time on this call nor tool time.
    WaitedForModel {
        ms: f64,
    },
    /// The reply of this step is complete and was read as…
    Thought(String),
    Action {
        tool: String,
        input: String,
    },
    Observation {
        text: String,
        is_error: bool,
        /// A tool call's failure: its kind and the user's detail (the text is the message).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure: Option<Failed>,
    },
    /// CodeAct: the step's program, about to run in the run's Python interpreter.
    Program {
        code: String,
    },
    /// CodeAct: why the step's program ended before its end (its time limit, Stop), or that a
    /// call of its was refused at the step's call limit; sent before its Observation.
    ProgramStopped(ProgramStop),
    /// CodeAct: the running program called a tool (`input`: its arguments as JSON).
    ProgramCall {
        tool: String,
        input: String,
    },
    /// CodeAct: what that call gave the program.
    ProgramCallDone {
        text: String,
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure: Option<Failed>,
    },
    /// The run's typed finish.
    Answer {
        text: String,
        forced: bool,
        step: u32,
    },
    /// The run could not go on (the model endpoint failed).
    Error(String),
    /// The user pressed Stop; what arrived before stays.
    Stopped,
    /// Something the user should know about the step (a format reminder was sent, the
    /// endpoint refused native tools and the run switched to text); the call is made again.
    Notice(String),
    /// Something the user should know that does not interrupt the step (stream lines that
    /// were not valid JSON and were skipped).
    Warning(String),
    /// The conversation before step `step` (index) of turn `turn` (index) was summarised to
    /// fit the model's context: the calls send `summary` in its place from now on.
    Compacted {
        turn: usize,
        step: usize,
        summary: String,
    },
    /// The user asked the run to go on (Continue after a cut, or a follow-up question): it
    /// waits for the model from now on, and there is nothing left to continue.
    GoingOn,
    /// The stream broke after part of a reply arrived: the run can be continued by running
    /// this step again, in this protocol, with the conversation so far.
    Resumable {
        step: u32,
        protocol: Protocol,
    },
    /// The user asked for the latest turn again (Retry): it starts over with the same
    /// question and the run's own step limit, and what it did is kept as an earlier attempt.
    Retrying {
        max_steps: u32,
    },
    /// The user let the latest turn go on past the step limit, to `max_steps` steps: its
    /// forced answer is kept as an earlier attempt and the loop goes on from the next step.
    MoreSteps {
        max_steps: u32,
    },
    /// A replay gives the latest turn back its earlier attempts, as the record kept them.
    Attempts(Vec<Turn>),
    /// A kept run is shown again after the page was reloaded or closed while it went: a mode
    /// that was still going stops where it was saved, and says so.
    Interrupted,
}
