//! The three loops. One function drives any mode against any model and toolbox.

use super::events::AgentEvent;
use super::mode::{Mode, FORCE_ANSWER_PROMPT, STOP_SEQUENCES};
use super::protocol::{parse_reply, parse_think, Reply};
use super::transcript::Transcript;
use super::{ChatModel, Toolbox};
use crate::llm::{ChatDelta, ChatMessage, LlmError};

/// Runs `mode` on `question` until it answers, fails, or spends `max_steps` model calls
/// (then one more call asks for a final answer without tools). Returns the transcript.
pub async fn run_agent<M: ChatModel, T: Toolbox>(
    mode: Mode,
    question: &str,
    model: &M,
    tools: &T,
    max_steps: u32,
    emit: &mut dyn FnMut(AgentEvent),
) -> Transcript {
    let specs = if mode.uses_tools() {
        tools.specs()
    } else {
        Vec::new()
    };
    let mut transcript = Transcript::default();
    transcript.push(ChatMessage::system(mode.system_prompt(&specs)));
    transcript.push(ChatMessage::user(question.trim()));

    if mode == Mode::Think {
        think(model, &mut transcript, emit).await;
        return transcript;
    }

    let max_steps = max_steps.max(1);
    for step in 1..=max_steps {
        emit(AgentEvent::StepStarted {
            step,
            forced: false,
        });
        let reply = match call_model(model, &transcript, emit).await {
            Ok(reply) => reply,
            Err(e) => {
                emit(failure(e));
                return transcript;
            }
        };
        transcript.push(ChatMessage::assistant(reply.trim_end()));
        let (thought, observation) = match parse_reply(&reply) {
            Reply::Answer { thought, answer } => {
                emit_thought(mode, thought, emit);
                emit(AgentEvent::Answer { text: answer, forced: false, step });
                return transcript;
            }
            Reply::Action { thought, tool, input } => {
                emit_thought(mode, thought, emit);
                emit(AgentEvent::Action { tool: tool.clone(), input: input.clone() });
                (None, tools.call(&tool, &input).await)
            }
            Reply::Invalid { thought, problem } => (
                thought,
                Err(format!(
                    "{problem} Reply with 'Action:' and 'Action Input:' lines to use a tool, or 'Answer:' to finish."
                )),
            ),
        };
        emit_thought(mode, thought, emit);
        let (text, is_error) = match observation {
            Ok(text) => (text, false),
            Err(text) => (format!("Error: {text}"), true),
        };
        transcript.push(ChatMessage::user(format!("Observation: {text}")));
        emit(AgentEvent::Observation { text, is_error });
    }

    force_answer(model, &mut transcript, max_steps + 1, emit).await;
    transcript
}

/// Think-only: one call; the labelled answer, or the whole reply when the model skipped the label.
async fn think<M: ChatModel>(
    model: &M,
    transcript: &mut Transcript,
    emit: &mut dyn FnMut(AgentEvent),
) {
    emit(AgentEvent::StepStarted {
        step: 1,
        forced: false,
    });
    let reply = match call_model(model, transcript, emit).await {
        Ok(r) => r,
        Err(e) => return emit(failure(e)),
    };
    transcript.push(ChatMessage::assistant(reply.trim_end()));
    let (thought, answer) = parse_think(&reply);
    match answer {
        Some(answer) => {
            emit_thought(Mode::Think, thought, emit);
            emit(AgentEvent::Answer {
                text: answer,
                forced: false,
                step: 1,
            });
        }
        None => match thought {
            Some(whole) => emit(AgentEvent::Answer {
                text: whole,
                forced: false,
                step: 1,
            }),
            None => emit(AgentEvent::Error(NO_TEXT.into())),
        },
    }
}

const NO_TEXT: &str = "The model returned no answer text (it may have spent all its max tokens on reasoning; raise Max tokens in Settings).";

/// The step limit is reached: ask once, with no tools, for the best answer so far.
async fn force_answer<M: ChatModel>(
    model: &M,
    transcript: &mut Transcript,
    step: u32,
    emit: &mut dyn FnMut(AgentEvent),
) {
    emit(AgentEvent::StepStarted { step, forced: true });
    transcript.push(ChatMessage::user(FORCE_ANSWER_PROMPT));
    let reply = match call_model(model, transcript, emit).await {
        Ok(r) => r,
        Err(e) => return emit(failure(e)),
    };
    transcript.push(ChatMessage::assistant(reply.trim_end()));
    let text = match parse_reply(&reply) {
        Reply::Answer { answer, .. } => answer,
        // Whatever it wrote instead is the best answer there is.
        _ => reply.trim().to_string(),
    };
    if text.is_empty() {
        emit(AgentEvent::Error(NO_TEXT.into()));
    } else {
        emit(AgentEvent::Answer {
            text,
            forced: true,
            step,
        });
    }
}

/// How a failed model call ends the run: a Stop the user asked for is not an error.
fn failure(e: LlmError) -> AgentEvent {
    match e {
        LlmError::Aborted => AgentEvent::Stopped,
        e => AgentEvent::Error(e.user_message()),
    }
}

fn emit_thought(mode: Mode, thought: Option<String>, emit: &mut dyn FnMut(AgentEvent)) {
    // Act-only has no thoughts by design; prose it writes anyway is not shown as one.
    if let Some(t) = thought.filter(|_| mode != Mode::Act) {
        emit(AgentEvent::Thought(t));
    }
}

/// One streamed model call; forwards tokens as events and returns the reply text.
async fn call_model<M: ChatModel>(
    model: &M,
    transcript: &Transcript,
    emit: &mut dyn FnMut(AgentEvent),
) -> Result<String, LlmError> {
    let mut reply = String::new();
    let result = model
        .stream_chat(
            &transcript.messages,
            &STOP_SEQUENCES,
            &mut |delta| match delta {
                ChatDelta::Content(t) => {
                    reply.push_str(&t);
                    emit(AgentEvent::Token(t));
                }
                ChatDelta::Reasoning(t) => emit(AgentEvent::Reasoning(t)),
                ChatDelta::Usage(u) => emit(AgentEvent::Usage(u)),
                // Native tool calls are not requested by the text protocol.
                ChatDelta::ToolCall(_) => {}
            },
        )
        .await;
    result.map(|()| reply)
}
