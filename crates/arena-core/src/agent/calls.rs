//! The model calls of a run, read off its record: for each, the exact messages it sent and
//! what came back. What the Inspect view shows.
//!
//! Each call sent the conversation as the record had it then (`RunRecord::messages`): the
//! system prompt, the summary in effect (every summary is in the notices of the step that
//! made it), the questions and the earlier steps' messages, and the messages its own step
//! added before it (a format reminder, the step-limit prompt). Each assistant message of a
//! step is the reply of one call; a step that ended without one had a call that failed or
//! was cut, and what streamed of it is kept.

use super::compaction::{summary_budget_chars, summary_request};
use super::record::{Compaction, RunRecord, Step, COMPACTED_NOTICE};
use crate::llm::{ChatMessage, Role, RuntimeTimings, Usage};
use crate::tools::failure::Failed;

#[derive(Debug, Clone, PartialEq)]
pub struct ModelCall {
    /// Indexes of the turn and the step that made the call.
    pub turn: usize,
    pub step: usize,
    /// The step's number, as the panel shows it.
    pub number: u32,
    pub forced: bool,
    /// A call that summarised the conversation to fit the model's context.
    pub summary: bool,
    /// How many messages the call sent; `sent` reads them.
    pub sent_count: usize,
    sent_from: SentFrom,
    /// The reply as it joined the conversation (content and native tool calls); `None` when
    /// the call failed or was cut.
    pub reply: Option<ChatMessage>,
    /// What streamed of a reply that never completed.
    pub partial: String,
    /// The step's reasoning and usage (over all its calls), given with its last call.
    pub reasoning: String,
    pub usage: Option<Usage>,
    /// llama.cpp's figures for the step's last call, given with it.
    pub timings: Option<RuntimeTimings>,
}

/// Where a call's messages are in the record. They are read off it when shown: a copy per
/// call would cost the square of the conversation's length (each call sent all before it).
#[derive(Debug, Clone, PartialEq)]
struct SentFrom {
    /// The summary in effect for the call.
    summary: Option<Compaction>,
    /// Messages of the call's own step that it sent after the conversation before the step.
    own: usize,
    /// A summary call sent a request built from the conversation, not the conversation.
    summarising: bool,
}

impl ModelCall {
    /// The exact messages the call sent, read off `record` (the record it came from).
    pub fn sent(&self, record: &RunRecord) -> Vec<ChatMessage> {
        let from = &self.sent_from;
        let mut out = conversation_before(record, from.summary.as_ref(), self.turn, self.step);
        if from.summarising {
            return summary_request(
                &out[1..],
                summary_budget_chars(record.config.context_length),
            );
        }
        if let Some(step) = record
            .turns
            .get(self.turn)
            .and_then(|t| t.steps.get(self.step))
        {
            out.extend_from_slice(&step.messages[..from.own.min(step.messages.len())]);
        }
        out
    }

    /// The step's tool calls that failed, as (tool, how): the kind and the user's detail,
    /// which the model never read.
    pub fn failed_tools(&self, record: &RunRecord) -> Vec<(String, Failed)> {
        if self.summary {
            return Vec::new();
        }
        record
            .turns
            .get(self.turn)
            .and_then(|t| t.steps.get(self.step))
            .map(|step| {
                step.tool_runs
                    .iter()
                    .filter_map(|r| Some((r.tool.clone(), r.failure.clone()?)))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn label(&self) -> String {
        let step = if self.forced {
            "Final answer".to_string()
        } else {
            format!("Step {}", self.number)
        };
        let turn = if self.turn > 0 {
            format!("Question {} · ", self.turn + 1)
        } else {
            String::new()
        };
        let what = if self.summary {
            " · summary of the conversation"
        } else {
            ""
        };
        format!("{turn}{step}{what}")
    }
}

/// Every summary of the run, where it was made: the record keeps only the latest, the
/// notices keep them all.
fn compactions(record: &RunRecord) -> Vec<Compaction> {
    let mut all: Vec<Compaction> = Vec::new();
    for (t, turn) in record.turns.iter().enumerate() {
        for (s, step) in turn.steps.iter().enumerate() {
            for notice in &step.notices {
                if let Some(summary) = notice.strip_prefix(COMPACTED_NOTICE) {
                    all.push(Compaction {
                        turn: t,
                        step: s,
                        summary: summary.to_string(),
                    });
                }
            }
        }
    }
    if let Some(latest) = &record.compaction {
        if !all.contains(latest) {
            all.push(latest.clone());
        }
    }
    all.sort_by_key(|c| (c.turn, c.step));
    all
}

/// The conversation before step `step` of turn `turn`, with `summary` in effect, as
/// `RunRecord::messages` sends it (the system prompt first).
fn conversation_before(
    record: &RunRecord,
    summary: Option<&Compaction>,
    turn: usize,
    step: usize,
) -> Vec<ChatMessage> {
    let mut out = record.conversation(summary, Some((turn, step)));
    out[0] = ChatMessage::system(record.system_prompt_at(turn, step));
    out
}

/// How many messages `conversation_before` gives, counted without copying them.
fn conversation_len(
    record: &RunRecord,
    summary: Option<&Compaction>,
    turn: usize,
    step: usize,
) -> usize {
    record.conversation_len(summary, Some((turn, step)))
}

pub fn model_calls(record: &RunRecord) -> Vec<ModelCall> {
    let summaries = compactions(record);
    let in_effect = |at: (usize, usize), made_here: bool| {
        summaries.iter().rfind(|c| {
            let pos = (c.turn, c.step);
            pos < at || (made_here && pos == at)
        })
    };
    let mut calls = Vec::new();
    for (t, turn) in record.turns.iter().enumerate() {
        for (s, step) in turn.steps.iter().enumerate() {
            let call = |sent_count, sent_from, reply| ModelCall {
                turn: t,
                step: s,
                number: step.number,
                forced: step.forced,
                summary: false,
                sent_count,
                sent_from,
                reply,
                partial: String::new(),
                reasoning: String::new(),
                usage: None,
                timings: None,
            };
            // A summary made in this step: it saw what was sent before, with the summary
            // in effect then, less the system prompt.
            for made in summaries.iter().filter(|c| (c.turn, c.step) == (t, s)) {
                let from = SentFrom {
                    summary: in_effect((t, s), false).cloned(),
                    own: 0,
                    summarising: true,
                };
                calls.push(ModelCall {
                    summary: true,
                    ..call(2, from, Some(ChatMessage::assistant(made.summary.clone())))
                });
            }
            let summary = in_effect((t, s), true).cloned();
            let base = conversation_len(record, summary.as_ref(), t, s);
            let sent_from = |own| SentFrom {
                summary: summary.clone(),
                own,
                summarising: false,
            };
            let first = calls.len();
            for (i, message) in step.messages.iter().enumerate() {
                if message.role == Role::Assistant {
                    calls.push(call(base + i, sent_from(i), Some(message.clone())));
                }
            }
            if ended_without_reply(step) {
                let own = step.messages.len();
                calls.push(ModelCall {
                    partial: step.live.clone(),
                    ..call(base + own, sent_from(own), None)
                });
            }
            if let Some(last) = calls[first..].last_mut() {
                last.reasoning = step.reasoning.clone();
                last.usage = step.usage;
                last.timings = step.timings.clone();
            }
        }
    }
    calls
}

/// The step's last call brought no reply: nothing was answered at all, or what the step
/// added last (a format reminder, the step-limit prompt) was never answered and no tool ran.
fn ended_without_reply(step: &Step) -> bool {
    match step.messages.last() {
        None => true,
        Some(last) => last.role != Role::Assistant && step.tool_runs.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::events::AgentEvent;
    use crate::agent::protocols::action_protocol::Protocol;
    use crate::agent::record::RunConfig;

    fn apply_all(r: &mut RunRecord, events: Vec<AgentEvent>) {
        for e in events {
            r.apply(0.0, &e);
        }
    }

    #[test]
    fn each_call_sent_the_conversation_up_to_it_and_got_its_reply() {
        let mut r = RunRecord::new("r", 0.0, RunConfig::default());
        apply_all(
            &mut r,
            vec![
                AgentEvent::SystemPrompt {
                    text: "sys".into(),
                    protocol: Protocol::Text,
                },
                AgentEvent::TurnStarted {
                    question: "q?".into(),
                },
                AgentEvent::StepStarted {
                    step: 1,
                    forced: false,
                },
                AgentEvent::Reasoning("hmm".into()),
                AgentEvent::Appended(ChatMessage::assistant("gibberish")),
                AgentEvent::Appended(ChatMessage::user("Use the format.")),
                AgentEvent::Notice("Asked again.".into()),
                AgentEvent::Appended(ChatMessage::assistant(
                    "Action: calculator\nAction Input: 1+1",
                )),
                AgentEvent::Action {
                    tool: "calculator".into(),
                    input: "1+1".into(),
                },
                AgentEvent::Observation {
                    text: "2".into(),
                    is_error: false,
                    failure: None,
                },
                AgentEvent::Appended(ChatMessage::user("Observation: 2")),
                AgentEvent::StepStarted {
                    step: 2,
                    forced: false,
                },
                AgentEvent::Token("Answ".into()),
                AgentEvent::Error("cut".into()),
            ],
        );
        let calls = model_calls(&r);
        assert_eq!(calls.len(), 3);
        let contents = |m: &[ChatMessage]| m.iter().map(|m| m.content.clone()).collect::<Vec<_>>();
        assert_eq!(contents(&calls[0].sent(&r)), ["sys", "q?"]);
        assert_eq!(calls[0].reply.as_ref().unwrap().content, "gibberish");
        assert_eq!(
            calls[0].reasoning, "",
            "the step's reasoning goes with its last call"
        );
        assert_eq!(
            contents(&calls[1].sent(&r)),
            ["sys", "q?", "gibberish", "Use the format."]
        );
        assert_eq!(calls[1].reasoning, "hmm");
        assert_eq!(calls[2].sent(&r).len(), 6);
        assert_eq!(calls[2].sent_count, 6);
        assert_eq!(calls[2].sent(&r)[5].content, "Observation: 2");
        assert_eq!(
            (calls[2].reply.is_none(), calls[2].partial.as_str()),
            (true, "Answ")
        );
        assert_eq!(calls[2].label(), "Step 2");
    }

    #[test]
    fn each_call_shows_the_system_prompt_it_sent_across_a_protocol_switch() {
        let prompt = |text: &str, protocol| AgentEvent::SystemPrompt {
            text: text.into(),
            protocol,
        };
        let step = |n| AgentEvent::StepStarted {
            step: n,
            forced: false,
        };
        let mut r = RunRecord::new("r", 0.0, RunConfig::default());
        apply_all(
            &mut r,
            vec![
                prompt("native rules", Protocol::Native),
                AgentEvent::TurnStarted {
                    question: "q1".into(),
                },
                step(1),
                AgentEvent::Appended(ChatMessage::assistant("42")),
                AgentEvent::Answer {
                    text: "42".into(),
                    forced: false,
                    step: 1,
                },
                // A follow-up: the first call of its first step is refused, the run
                // switches to text and asks again within that step.
                AgentEvent::TurnStarted {
                    question: "q2".into(),
                },
                step(1),
                prompt("text rules", Protocol::Text),
                AgentEvent::Appended(ChatMessage::assistant("Final Answer: 43")),
                AgentEvent::Answer {
                    text: "43".into(),
                    forced: false,
                    step: 1,
                },
            ],
        );
        let calls = model_calls(&r);
        let prompts: Vec<String> = calls
            .iter()
            .map(|c| c.sent(&r)[0].content.clone())
            .collect();
        assert_eq!(prompts, ["native rules", "text rules"]);
        assert_eq!(
            r.messages()[0].content,
            "text rules",
            "the next call sends the new one"
        );

        // A switch between turns takes over from the next turn, not the last step before it.
        let mut r = RunRecord::new("r", 0.0, RunConfig::default());
        apply_all(
            &mut r,
            vec![
                prompt("A", Protocol::Native),
                AgentEvent::TurnStarted {
                    question: "q1".into(),
                },
                step(1),
                AgentEvent::Appended(ChatMessage::assistant("1")),
                AgentEvent::Answer {
                    text: "1".into(),
                    forced: false,
                    step: 1,
                },
                prompt("B", Protocol::Text),
                AgentEvent::TurnStarted {
                    question: "q2".into(),
                },
                step(1),
                AgentEvent::Appended(ChatMessage::assistant("2")),
            ],
        );
        let prompts: Vec<String> = model_calls(&r)
            .iter()
            .map(|c| c.sent(&r)[0].content.clone())
            .collect();
        assert_eq!(prompts, ["A", "B"]);
        // The replay of the record keeps the prompts it had on the way.
        let replayed = crate::agent::replay::Replay::of(&r).fold();
        assert_eq!(replayed.prompts, r.prompts);
    }
}
