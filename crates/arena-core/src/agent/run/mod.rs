//! The loops. Think-only is one call; Act-only and ReAct repeat model call → tool calls →
//! observations until an answer or the step limit, then ask once for a final answer.
//!
//! Recovery is part of the loop: a reply that fits no format gets one reminder before the step
//! counts as failed; the same call three times in a row is refused with a warning; an endpoint
//! that rejects native `tools` sends the run back to the text protocol (once, with a notice).

mod code_step;
mod model_call;

use futures::future::join_all;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::events::AgentEvent;
use super::mode::{format_reminder, Mode, FORCE_ANSWER_PROMPT};
use super::protocols::action_protocol::{Protocol, ProtocolPlan};
use super::protocols::decision::{decide, forced_answer, think_answer, Decision, Planned};
use super::protocols::native::tools_param;
use super::record::{RunConfig, RunRecord};
use super::ChatModel;
use crate::llm::tool_calls::ToolCall;
use crate::llm::{ChatMessage, LlmError};
use crate::tools::failure::Failed;
use crate::tools::{FailureKind, ToolFailure, Toolbox};

/// How a run goes, beyond the mode and the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOptions {
    pub max_steps: u32,
    pub plan: ProtocolPlan,
}

impl RunOptions {
    /// The text protocol with `max_steps` steps.
    pub fn text(max_steps: u32) -> Self {
        Self {
            max_steps,
            plan: ProtocolPlan::TEXT,
        }
    }
}

/// The same call this many times in a row is refused.
const REPEAT_LIMIT: usize = 3;

const NO_TEXT: &str = "The model returned no answer text (it may have spent all its max tokens on reasoning; raise Max tokens in Settings).";

/// A fresh run of `mode` on `question`: the record it leaves is the whole run.
pub async fn run_agent<M: ChatModel, T: Toolbox>(
    mode: Mode,
    question: &str,
    model: &M,
    tools: &T,
    options: &RunOptions,
    emit: &mut dyn FnMut(AgentEvent),
) -> RunRecord {
    let config = RunConfig {
        mode,
        max_steps: options.max_steps,
        ..RunConfig::default()
    };
    let record = RunRecord::new("", 0.0, config);
    run_turn(
        record,
        Next::Question(question.to_string()),
        model,
        tools,
        options,
        emit,
    )
    .await
}

/// What a run does next with the conversation so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Next {
    /// A new question: the first of the run, or a follow-up that sees every earlier turn.
    Question(String),
    /// The stream of this step broke mid-reply: run the step again, in the protocol it spoke,
    /// with what is known, then go on as the run would have.
    Resume { step: u32, protocol: Protocol },
    /// The latest turn again, from its question (Retry); the attempt it replaces is kept.
    Retry,
    /// The latest turn, ended by the step limit, goes on for `steps` more steps.
    MoreSteps { steps: u32 },
}

/// Runs one turn (or the rest of a cut one) on top of `record`, reporting every change as an
/// event; the record it returns is `record` with those events applied. The conversation each
/// call sends is `RunRecord::messages`, so nothing but the record carries the run's state.
pub async fn run_turn<M: ChatModel, T: Toolbox>(
    record: RunRecord,
    next: Next,
    model: &M,
    tools: &T,
    options: &RunOptions,
    emit: &mut dyn FnMut(AgentEvent),
) -> RunRecord {
    let mode = record.config.mode;
    let specs = offered_specs(mode, tools);
    let mut sink = Sink { record, out: emit };
    let more_steps = matches!(next, Next::MoreSteps { .. });
    let (first_step, protocol) = match next {
        Next::Question(question) => {
            // Think-only calls no tool, and CodeAct's actions are programs: both speak text.
            let protocol = if !mode.uses_tools() || mode == Mode::CodeAct {
                Protocol::Text
            } else if sink.record.turns.is_empty() {
                options.plan.protocol
            } else {
                sink.record.config.protocol
            };
            if sink.record.config.system_prompt.is_empty()
                || protocol != sink.record.config.protocol
            {
                let text = prompt_for(&sink.record.config, &specs, protocol);
                sink.emit(AgentEvent::SystemPrompt { text, protocol });
            }
            sink.emit(AgentEvent::TurnStarted {
                question: question.trim().to_string(),
            });
            (1, protocol)
        }
        Next::Resume { step, protocol } => (step.max(1), protocol),
        Next::Retry => {
            let max_steps = if mode.uses_tools() {
                options.max_steps.max(1)
            } else {
                1
            };
            sink.emit(AgentEvent::Retrying { max_steps });
            (1, sink.record.config.protocol)
        }
        Next::MoreSteps { steps } => {
            let ran = sink
                .record
                .steps()
                .iter()
                .filter(|s| !s.forced)
                .map(|s| s.number)
                .max()
                .unwrap_or(0);
            sink.emit(AgentEvent::MoreSteps {
                max_steps: ran + steps.max(1),
            });
            (ran + 1, sink.record.config.protocol)
        }
    };
    // Going on past the limit raised it in the record; otherwise the options set it.
    let max_steps = if more_steps {
        sink.record.config.max_steps
    } else {
        options.max_steps.max(1)
    };
    let mut run = Run {
        mode,
        model,
        tools,
        tools_json: tools_param(&specs),
        specs,
        protocol,
        can_fall_back: options.plan.fall_back_to_text && protocol == Protocol::Native,
        history: Vec::new(),
        cut: false,
        sink,
    };
    if mode == Mode::Think {
        run.think().await;
        return run.sink.record;
    }
    for step in first_step..=max_steps {
        run.sink.emit(AgentEvent::StepStarted {
            step,
            forced: false,
        });
        if run.step(step).await == Flow::Finished {
            return run.sink.record;
        }
    }
    run.force_answer(max_steps + 1).await;
    run.sink.record
}

/// The system prompt a run sends in `protocol`: the user's own, when they edited it (sent
/// exactly as written, in any protocol), or the mode's.
fn prompt_for(config: &RunConfig, specs: &[crate::tools::ToolSpec], protocol: Protocol) -> String {
    match &config.edited_prompt {
        Some(text) => text.clone(),
        None => config.mode.system_prompt(specs, protocol),
    }
}

/// Where the loop's events go: into its own copy of the record (the conversation it sends is
/// read from there), then out to whoever watches the run.
struct Sink<'a> {
    record: RunRecord,
    out: &'a mut dyn FnMut(AgentEvent),
}

impl Sink<'_> {
    fn emit(&mut self, event: AgentEvent) {
        self.record.apply(0.0, &event);
        (self.out)(event);
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Finished,
}

/// A model reply, with reasoning (`<think>` blocks) already set apart.
#[derive(Debug, Default)]
struct ModelReply {
    content: String,
    calls: Vec<ToolCall>,
}

struct Run<'a, M, T> {
    mode: Mode,
    model: &'a M,
    tools: &'a T,
    specs: Vec<crate::tools::ToolSpec>,
    tools_json: Value,
    protocol: Protocol,
    can_fall_back: bool,
    /// Tool calls made so far, for spotting a loop: (tool, input).
    history: Vec<(String, String)>,
    /// The last call failed after part of its reply arrived.
    cut: bool,
    sink: Sink<'a>,
}

impl<M: ChatModel, T: Toolbox> Run<'_, M, T> {
    async fn think(&mut self) {
        self.sink.emit(AgentEvent::StepStarted {
            step: 1,
            forced: false,
        });
        let reply = match self.call(false).await {
            Ok(r) => r,
            Err(e) => {
                self.offer_resume(1);
                return self.sink.emit(failure(e));
            }
        };
        self.append(ChatMessage::assistant(reply.content.trim_end()));
        match think_answer(&reply.content) {
            Some((thought, text)) => {
                self.emit_thought(thought);
                self.sink.emit(AgentEvent::Answer {
                    text,
                    forced: false,
                    step: 1,
                });
            }
            None => self.sink.emit(AgentEvent::Error(NO_TEXT.into())),
        }
    }

    async fn step(&mut self, step: u32) -> Flow {
        if self.mode == Mode::CodeAct {
            let limits = self.sink.record.config.program_limits();
            return self.code_step(step, limits).await;
        }
        let mut reminded = false;
        loop {
            let native = self.protocol == Protocol::Native;
            let reply = match self.call(native).await {
                Ok(reply) => reply,
                Err(LlmError::Http { status, .. })
                    if native && self.can_fall_back && matches!(status, 400 | 422) =>
                {
                    self.switch_to_text(status);
                    continue;
                }
                Err(e) => {
                    self.offer_resume(step);
                    self.sink.emit(failure(e));
                    return Flow::Finished;
                }
            };
            match decide(self.protocol, &reply.content, &reply.calls) {
                Decision::Answer { thought, text } => {
                    self.append(ChatMessage::assistant(reply.content.trim_end()));
                    self.emit_thought(thought);
                    self.sink.emit(AgentEvent::Answer {
                        text,
                        forced: false,
                        step,
                    });
                    return Flow::Finished;
                }
                Decision::Invalid { problem, .. } if !reminded => {
                    // One corrective retry, as a person would ask again for just the format.
                    reminded = true;
                    self.append(ChatMessage::assistant(reply.content.trim_end()));
                    self.append(ChatMessage::user(format_reminder(self.protocol)));
                    self.sink.emit(AgentEvent::Notice(format!(
                        "{problem} Asked the model once more, with a format reminder."
                    )));
                }
                Decision::Invalid { thought, problem } => {
                    self.append(ChatMessage::assistant(reply.content.trim_end()));
                    self.emit_thought(thought);
                    let text = format!(
                        "Error: {problem} {}",
                        format_reminder(self.protocol).replace('\n', " ")
                    );
                    self.observe_in_text(std::slice::from_ref(&text));
                    self.sink.emit(AgentEvent::Observation {
                        text,
                        is_error: true,
                        failure: None,
                    });
                    return Flow::Continue;
                }
                Decision::Actions {
                    thought,
                    calls,
                    note,
                } => {
                    self.act(reply, thought, calls, note).await;
                    return Flow::Continue;
                }
            }
        }
    }

    /// Runs the step's tool calls at once and hands the results back to the model.
    async fn act(
        &mut self,
        reply: ModelReply,
        thought: Option<String>,
        calls: Vec<Planned>,
        note: Option<String>,
    ) {
        let native_ids = calls.iter().all(|c| c.call_id.is_some()) && !calls.is_empty();
        if native_ids {
            self.append(ChatMessage::assistant_calling(
                reply.content.trim_end(),
                reply.calls.clone(),
            ));
        } else {
            self.append(ChatMessage::assistant(reply.content.trim_end()));
        }
        self.emit_thought(thought);
        for c in &calls {
            let input = c.input.as_deref().unwrap_or("").to_string();
            self.sink.emit(AgentEvent::Action {
                tool: c.tool.clone(),
                input,
            });
        }
        // Loop check before running: the same call three times in a row is not run again.
        let verdicts: Vec<Option<String>> = calls.iter().map(|c| self.repeat_warning(c)).collect();
        let tools = self.tools;
        tools.begin_calls();
        let results = join_all(calls.iter().zip(&verdicts).map(|(c, warning)| async move {
            match (&c.input, warning) {
                (Err(e), _) => Err(ToolFailure::bad_arguments(e.clone())),
                (Ok(_), Some(w)) => Err(ToolFailure::new(FailureKind::Repeated, w.clone())),
                (Ok(_), None) => tools.call(&c.tool, &c.args).await,
            }
        }))
        .await;

        let mut texts = Vec::new();
        for (i, result) in results.into_iter().enumerate() {
            let (mut text, failure) = match result {
                Ok(text) => (text, None),
                Err(failure) => (
                    format!("Error: {}", failure.message),
                    Some(Failed::from(&failure)),
                ),
            };
            if i == 0 {
                if let Some(note) = &note {
                    text = format!("{text}\nNote: {note}");
                }
            }
            self.sink.emit(AgentEvent::Observation {
                text: text.clone(),
                is_error: failure.is_some(),
                failure,
            });
            texts.push(text);
        }
        if native_ids {
            for (call, text) in calls.iter().zip(&texts) {
                let id = call.call_id.clone().unwrap_or_default();
                self.append(ChatMessage::tool_result(id, text.clone()));
            }
        } else {
            self.observe_in_text(&texts);
        }
    }

    /// Observations sent back as a user message (text and JSON protocols, bare-JSON calls).
    fn observe_in_text(&mut self, texts: &[String]) {
        let message = match texts {
            [one] => format!("Observation: {one}"),
            many => {
                let lines: Vec<String> = many
                    .iter()
                    .enumerate()
                    .map(|(i, t)| format!("{}. {t}", i + 1))
                    .collect();
                format!("Observations:\n{}", lines.join("\n"))
            }
        };
        self.append(ChatMessage::user(message));
    }

    /// How many times in a row `key` (a tool and its input, or a program) came just before
    /// this one, which is kept for the next check.
    fn repeats_of(&mut self, key: (String, String)) -> usize {
        let repeats = self.history.iter().rev().take_while(|k| **k == key).count();
        self.history.push(key);
        repeats
    }

    fn repeat_warning(&mut self, call: &Planned) -> Option<String> {
        let Ok(input) = &call.input else {
            return None;
        };
        let key = (
            call.tool.trim().to_ascii_lowercase(),
            input.trim().to_string(),
        );
        let repeats = self.repeats_of(key);
        (repeats + 1 >= REPEAT_LIMIT).then(|| {
            format!(
                "You called {} with the same input {} times in a row; it was not run again. \
                 Change course: use a different tool or input, or give your Answer with what you know.",
                call.tool.trim(),
                repeats + 1
            )
        })
    }

    /// After a cut stream: what the UI needs to run the step again.
    fn offer_resume(&mut self, step: u32) {
        if self.cut {
            self.sink.emit(AgentEvent::Resumable {
                step,
                protocol: self.protocol,
            });
        }
    }

    fn switch_to_text(&mut self, status: u16) {
        self.protocol = Protocol::Text;
        self.can_fall_back = false;
        let text = prompt_for(&self.sink.record.config, &self.specs, Protocol::Text);
        self.sink.emit(AgentEvent::SystemPrompt {
            text,
            protocol: Protocol::Text,
        });
        self.sink.emit(AgentEvent::Notice(format!(
            "This endpoint does not accept native tool calls (HTTP {status}); switched to the text protocol."
        )));
    }

    /// The step limit is reached: ask once, with no tools, for the best answer so far.
    async fn force_answer(&mut self, step: u32) {
        self.sink
            .emit(AgentEvent::StepStarted { step, forced: true });
        self.append(ChatMessage::user(FORCE_ANSWER_PROMPT));
        let reply = match self.call(false).await {
            Ok(r) => r,
            Err(e) => return self.sink.emit(failure(e)),
        };
        self.append(ChatMessage::assistant(reply.content.trim_end()));
        // CodeAct's answer written as a program is run: its final_answer is the answer.
        if self.mode == Mode::CodeAct && self.forced_program(step, &reply.content).await {
            return;
        }
        let text = forced_answer(&reply.content);
        if text.is_empty() {
            self.sink.emit(AgentEvent::Error(NO_TEXT.into()));
        } else {
            self.sink.emit(AgentEvent::Answer {
                text,
                forced: true,
                step,
            });
        }
    }

    /// The conversation grows only through the record.
    fn append(&mut self, message: ChatMessage) {
        self.sink.emit(AgentEvent::Appended(message));
    }

    fn emit_thought(&mut self, thought: Option<String>) {
        let keeps = self.mode.keeps_thoughts(self.sink.record.blind.is_some());
        if let Some(t) = thought.filter(|t| keeps && !t.trim().is_empty()) {
            self.sink.emit(AgentEvent::Thought(t));
        }
    }
}

/// The tools a mode offers the model: none for Think-only.
fn offered_specs<T: Toolbox>(mode: Mode, tools: &T) -> Vec<crate::tools::ToolSpec> {
    if mode.uses_tools() {
        tools.specs()
    } else {
        Vec::new()
    }
}

/// How a failed model call ends the run: a Stop the user asked for is not an error.
fn failure(e: LlmError) -> AgentEvent {
    match e {
        LlmError::Aborted => AgentEvent::Stopped,
        e => AgentEvent::Error(e.user_message()),
    }
}
