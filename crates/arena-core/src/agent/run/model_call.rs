//! Calling the model for the loop: one streamed call (content, reasoning and native tool-call
//! fragments read as they arrive), retried with backoff while it fails before its first token,
//! and the conversation summarised first when it would not fit the model's context.

use super::{ModelReply, Run};
use crate::agent::compaction::{
    is_context_overflow, summary_budget_chars, summary_request, would_overflow,
};
use crate::agent::events::AgentEvent;
use crate::agent::mode::STOP_SEQUENCES;
use crate::agent::think_split::{Piece, ThinkSplitter};
use crate::agent::ChatModel;
use crate::llm::retry::{delay_ms, is_retryable, waiting_message, MAX_RETRIES};
use crate::llm::tool_calls::ToolCallAssembler;
use crate::llm::{ChatCall, ChatDelta, LlmError};
use crate::tools::Toolbox;

impl<M: ChatModel, T: Toolbox> Run<'_, M, T> {
    /// One model call. A conversation that would not fit the model's context (or that the
    /// endpoint says did not) is summarised first, once, and the call made with the summary.
    pub(super) async fn call(&mut self, with_tools: bool) -> Result<ModelReply, LlmError> {
        let record = &self.sink.record;
        let tools_chars = if with_tools {
            self.tools_json.to_string().len()
        } else {
            0
        };
        let mut compacted = false;
        if would_overflow(
            &record.messages(),
            tools_chars,
            record.config.max_tokens,
            record.config.context_length,
        ) {
            compacted = self.compact().await;
        }
        match self.call_retrying(with_tools).await {
            Err(e) if !compacted && is_context_overflow(&e) && self.compact().await => {
                self.call_retrying(with_tools).await
            }
            other => other,
        }
    }

    /// Summarises the conversation before the current step and sends the summary in its
    /// place from now on. False when there is nothing (new) to summarise or the summary call
    /// failed: the call then goes as it is.
    async fn compact(&mut self) -> bool {
        let record = &self.sink.record;
        let Some(turn) = record.turns.len().checked_sub(1) else {
            return false;
        };
        let step = record.turns[turn].steps.len().saturating_sub(1);
        let already = record
            .compaction
            .as_ref()
            .is_some_and(|c| (c.turn, c.step) >= (turn, step));
        if already || (turn, step) == (0, 0) {
            return false;
        }
        let budget = summary_budget_chars(record.config.context_length);
        let request = summary_request(&record.messages_before(turn, step), budget);
        self.sink.emit(AgentEvent::Warning(
            "The conversation is too long for the model's context: summarising the earlier part…"
                .into(),
        ));
        let mut summary = String::new();
        let sink = &mut self.sink;
        let call = ChatCall {
            messages: &request,
            stop: &[],
            tools: None,
        };
        let result = self
            .model
            .stream_chat(&call, &mut |delta| match delta {
                ChatDelta::Content(t) => summary.push_str(&t),
                ChatDelta::Usage(u) => sink.emit(AgentEvent::Usage(u)),
                _ => {}
            })
            .await;
        let summary = summary.trim().to_string();
        match result {
            Ok(()) if !summary.is_empty() => {
                self.sink.emit(AgentEvent::Compacted {
                    turn,
                    step,
                    summary,
                });
                true
            }
            Ok(()) => false,
            Err(e) => {
                self.sink.emit(AgentEvent::Warning(format!(
                    "The summary could not be made ({}); the call goes as it is.",
                    e.user_message()
                )));
                false
            }
        }
    }

    /// One model call, retried with backoff while it fails before its first token (rate
    /// limits, server errors, network); the panel says how long it waits.
    async fn call_retrying(&mut self, with_tools: bool) -> Result<ModelReply, LlmError> {
        let mut attempt = 0;
        loop {
            let (result, streamed) = self.call_once(with_tools).await;
            match result {
                Err(e) if !streamed && attempt < MAX_RETRIES && is_retryable(&e) => {
                    attempt += 1;
                    let retry_after = match &e {
                        LlmError::Http { retry_after, .. } => *retry_after,
                        _ => None,
                    };
                    let wait = delay_ms(attempt, retry_after, self.model.jitter());
                    self.sink
                        .emit(AgentEvent::Notice(waiting_message(&e, attempt, wait)));
                    self.model.pause(wait).await;
                }
                Err(e) if streamed && e != LlmError::Aborted => {
                    self.cut = true;
                    self.sink.emit(AgentEvent::Warning(
                        "The stream broke after part of the reply arrived: the step is cut there, and what arrived is kept.".into(),
                    ));
                    return Err(e);
                }
                other => return other,
            }
        }
    }

    /// One streamed model call. Content streams as tokens, `<think>` blocks and the reasoning
    /// channel as reasoning, native tool-call fragments are joined. Also says whether anything
    /// arrived before it ended.
    async fn call_once(&mut self, with_tools: bool) -> (Result<ModelReply, LlmError>, bool) {
        let mut streamed = false;
        let mut reply = ModelReply::default();
        // No lead rule: content streams at once (reasoning models use the reasoning channel).
        let mut splitter = ThinkSplitter::with_lead_limit(0);
        let mut assembler = ToolCallAssembler::default();
        let messages = self.sink.record.messages();
        let sink = &mut self.sink;
        let mut emit = |event| sink.emit(event);
        let emit: &mut dyn FnMut(AgentEvent) = &mut emit;
        let call = ChatCall {
            messages: &messages,
            stop: &STOP_SEQUENCES,
            tools: (with_tools && !self.specs.is_empty()).then_some(&self.tools_json),
        };
        let result = self
            .model
            .stream_chat(&call, &mut |delta| {
                streamed |= matches!(
                    delta,
                    ChatDelta::Content(_) | ChatDelta::Reasoning(_) | ChatDelta::ToolCall(_)
                );
                match delta {
                    ChatDelta::Content(t) => route(splitter.push(&t), &mut reply, emit),
                    ChatDelta::Reasoning(t) => emit(AgentEvent::Reasoning(t)),
                    ChatDelta::ToolCall(d) => assembler.push(&d),
                    ChatDelta::Usage(u) => emit(AgentEvent::Usage(u)),
                    ChatDelta::Timings(t) => emit(AgentEvent::Timings(t)),
                    ChatDelta::WaitedForModel(ms) => emit(AgentEvent::WaitedForModel { ms }),
                    ChatDelta::Skipped(n) => emit(AgentEvent::Warning(format!(
                        "Skipped {n} stream line(s) that were not valid JSON."
                    ))),
                }
            })
            .await;
        route(splitter.finish(), &mut reply, emit);
        reply.calls = assembler.finish();
        (result.map(|()| reply), streamed)
    }
}

/// Content pieces stream as tokens and build the reply; `<think>` pieces are reasoning.
fn route(pieces: Vec<Piece>, reply: &mut ModelReply, emit: &mut dyn FnMut(AgentEvent)) {
    for piece in pieces {
        match piece {
            Piece::Content(t) => {
                reply.content.push_str(&t);
                emit(AgentEvent::Token(t));
            }
            Piece::Reasoning(t) => emit(AgentEvent::Reasoning(t)),
        }
    }
}
