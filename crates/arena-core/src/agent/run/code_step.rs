//! A CodeAct step: the model writes a Thought and one Python program; the program runs in the
//! run's interpreter, each tool call it makes going through the same gate as every other call
//! (the toolbox's `call`: its schema check, consent and cache), counted against the step's
//! limit and kept in the record as a call of the program; what the program printed, returned
//! or raised is the Observation, and `final_answer(…)` ends the run.

use std::cell::{Cell, RefCell};

use serde_json::Value;

use super::{Flow, Run, Sink, REPEAT_LIMIT};
use crate::agent::events::AgentEvent;
use crate::agent::protocols::code_action::{
    bare_program, compile_check, compiled, parse_code_reply, program_observation, CodeDecision,
    CODE_FORMAT_REMINDER, PROGRAM_TOOL,
};
use crate::agent::ChatModel;
use crate::llm::ChatMessage;
use crate::tools::failure::Failed;
use crate::tools::observation::{truncate, MAX_OBSERVATION_CHARS};
use crate::tools::program::{python_tools, CallBudget, ProgramLimits, ProgramStop, PythonTool};
use crate::tools::registry::CACHED_NOTE;
use crate::tools::{ProgramCallError, ProgramCalls, Toolbox};

/// The arguments of a program's call as the record shows them, at most this long.
const SHOWN_INPUT_CHARS: usize = 2_000;

impl<M: ChatModel, T: Toolbox> Run<'_, M, T> {
    pub(super) async fn code_step(&mut self, step: u32, limits: ProgramLimits) -> Flow {
        let mut reminded = false;
        loop {
            let reply = match self.call(false).await {
                Ok(reply) => reply,
                Err(e) => {
                    self.offer_resume(step);
                    self.sink.emit(super::failure(e));
                    return Flow::Finished;
                }
            };
            let decision = parse_code_reply(&reply.content);
            let kept = match &decision {
                CodeDecision::Run { kept, .. } => kept.as_str(),
                _ => reply.content.trim_end(),
            };
            self.append(ChatMessage::assistant(kept));
            match decision {
                CodeDecision::Answer { thought, text } => {
                    self.emit_thought(thought);
                    self.sink.emit(AgentEvent::Answer {
                        text,
                        forced: false,
                        step,
                    });
                    return Flow::Finished;
                }
                CodeDecision::Invalid { thought } => {
                    // Bare Python, no fence: run when the sandbox compiles the whole reply.
                    if let Some(code) = self.compiles_as_a_program(&reply.content, limits).await {
                        return self.run_program(step, &code, None, limits, false).await;
                    }
                    if reminded {
                        self.emit_thought(thought);
                        return self.observe_error(format!("Error: {CODE_FORMAT_REMINDER}"));
                    }
                    reminded = true;
                    self.append(ChatMessage::user(CODE_FORMAT_REMINDER));
                    self.sink.emit(AgentEvent::Notice(
                        "The reply had no Python program. Asked the model once more, with a format reminder."
                            .into(),
                    ));
                }
                CodeDecision::Run {
                    thought,
                    code,
                    note,
                    ..
                } => {
                    self.emit_thought(thought);
                    return self.run_program(step, &code, note, limits, false).await;
                }
            }
        }
    }

    /// The step ends on an error the model reads as its Observation (no program ran).
    fn observe_error(&mut self, text: String) -> Flow {
        self.observe_in_text(std::slice::from_ref(&text));
        self.sink.emit(AgentEvent::Observation {
            text,
            is_error: true,
            failure: None,
        });
        Flow::Continue
    }

    /// The step limit is reached and the model, asked for its answer, wrote a program: it is
    /// run in the run's interpreter (`final_answer(total)` answers with what `total` holds).
    /// `true` when that ended the run; otherwise the reply's text is the answer.
    pub(super) async fn forced_program(&mut self, step: u32, reply: &str) -> bool {
        let CodeDecision::Run { code, note, .. } = parse_code_reply(reply) else {
            return false;
        };
        let limits = self.sink.record.config.program_limits();
        self.run_program(step, &code, note, limits, true).await == Flow::Finished
    }

    /// The reply as a program, when it is bare Python that calls a tool or `final_answer` and
    /// the sandbox's own `compile()` takes it whole.
    async fn compiles_as_a_program(&self, reply: &str, limits: ProgramLimits) -> Option<String> {
        let code = bare_program(reply, &python_tools(&self.specs))?;
        let check = self
            .tools
            .run_program(&compile_check(&code), &[], limits, &NoCalls)
            .await;
        compiled(&check).then_some(code)
    }

    async fn run_program(
        &mut self,
        step: u32,
        code: &str,
        note: Option<String>,
        limits: ProgramLimits,
        forced: bool,
    ) -> Flow {
        self.sink.emit(AgentEvent::Program {
            code: code.to_string(),
        });
        // The loop check of the other modes, for programs: the same program three times in a
        // row is not run again (a small model rewrites the one that printed the answer instead
        // of calling final_answer).
        let repeats = self.repeats_of((PROGRAM_TOOL.to_string(), code.trim().to_string()));
        if repeats + 1 >= REPEAT_LIMIT {
            return self.observe_error(format!(
                "Error: You wrote this same program {} times in a row; it was not run again. \
                 Change course: write a different program, or call final_answer(...) with what \
                 you know.",
                repeats + 1
            ));
        }
        let functions = python_tools(&self.specs);
        let tools = self.tools;
        tools.begin_calls();
        let gate = Gate {
            tools,
            functions: &functions,
            budget: RefCell::new(CallBudget::new(limits)),
            stop: Cell::new(None),
            sink: RefCell::new(&mut self.sink),
        };
        let mut ran = tools.run_program(code, &functions, limits, &gate).await;
        // The program ran on past the refused call; a stop of its own after that (its time
        // limit, the user's Stop) is the reason it ended, else the refusal is.
        if let Some(stop) = gate.stop.get() {
            ran.stopped.get_or_insert(stop);
        }
        if let Some(stop) = ran.stopped {
            self.sink.emit(AgentEvent::ProgramStopped(stop));
        }
        let stopped_by_user = ran.stopped == Some(ProgramStop::Stopped);
        let mut text = program_observation(&ran);
        if let Some(note) = note {
            text = format!("{text}\nNote: {note}");
        }
        let is_error = ran.error.is_some() || ran.stopped.is_some();
        self.append(ChatMessage::user(format!("Observation: {text}")));
        self.sink.emit(AgentEvent::Observation {
            text,
            is_error,
            failure: None,
        });
        if stopped_by_user {
            self.sink.emit(AgentEvent::Stopped);
            return Flow::Finished;
        }
        match ran.final_answer.filter(|a| !a.trim().is_empty()) {
            Some(text) => {
                self.sink.emit(AgentEvent::Answer {
                    text: text.trim().to_string(),
                    forced,
                    step,
                });
                Flow::Finished
            }
            None => Flow::Continue,
        }
    }
}

/// The compile check's side: it calls nothing.
struct NoCalls;

impl ProgramCalls for NoCalls {
    async fn call(&self, function: &str, _: &Value) -> Result<Value, ProgramCallError> {
        Err(ProgramCallError::Failed(format!(
            "{function}: no tool here"
        )))
    }
}

/// The run's side of a program's tool calls.
struct Gate<'a, 's, T> {
    tools: &'a T,
    functions: &'a [PythonTool],
    budget: RefCell<CallBudget>,
    /// Set when the gate refused a call at the step's limit: the program got a
    /// `CallLimitError` and ran on, and the record keeps this as its stop.
    stop: Cell<Option<ProgramStop>>,
    sink: RefCell<&'a mut Sink<'s>>,
}

impl<T: Toolbox> ProgramCalls for Gate<'_, '_, T> {
    async fn call(&self, function: &str, kwargs: &Value) -> Result<Value, ProgramCallError> {
        let Some(tool) = self.functions.iter().find(|t| t.function == function) else {
            return Err(ProgramCallError::Failed(format!(
                "There is no tool named {function}."
            )));
        };
        if let Err(stop) = self.budget.borrow_mut().admit() {
            self.stop.set(Some(stop));
            return Err(ProgramCallError::Limit(stop));
        }
        let args = match kwargs {
            Value::Object(_) => kwargs.clone(),
            // The sandbox sends arguments by name; anything else is refused as it came.
            other => {
                return Err(ProgramCallError::Failed(format!(
                    "{function} takes its arguments by name, not {other}."
                )))
            }
        };
        // Each call of a program is its own step for the consent gate: the program has read
        // every result it got before it, so a call after another server's result is asked
        // about, as the model's would be (a program reading one server and then calling
        // another must not slip between the gate's steps).
        self.tools.begin_calls();
        let input: String = args.to_string().chars().take(SHOWN_INPUT_CHARS).collect();
        self.sink.borrow_mut().emit(AgentEvent::ProgramCall {
            tool: tool.tool.clone(),
            input,
        });
        let result = self.tools.call_value(&tool.tool, &args).await;
        let mut sink = self.sink.borrow_mut();
        match result {
            Ok(Value::String(text)) => {
                // The panel says a result came from the run's cache; the program gets the
                // result itself, the same value as the first time (a note appended to it
                // would end up in the answer).
                let value = text
                    .strip_suffix(CACHED_NOTE)
                    .and_then(|t| t.strip_suffix('\n'))
                    .unwrap_or(&text)
                    .to_string();
                sink.emit(AgentEvent::ProgramCallDone {
                    text,
                    is_error: false,
                    failure: None,
                });
                Ok(Value::String(value))
            }
            // A structured result: the program gets it as a dict or a list; the panel and
            // the record show its JSON, bounded as any observation.
            Ok(value) => {
                sink.emit(AgentEvent::ProgramCallDone {
                    text: truncate(&value.to_string(), MAX_OBSERVATION_CHARS),
                    is_error: false,
                    failure: None,
                });
                Ok(value)
            }
            Err(failure) => {
                sink.emit(AgentEvent::ProgramCallDone {
                    text: format!("Error: {}", failure.message),
                    is_error: true,
                    failure: Some(Failed::from(&failure)),
                });
                Err(ProgramCallError::Failed(failure.message))
            }
        }
    }
}
