//! What one mode's panel shows, folded from the run's events. Pure, so the UI only renders.

use super::events::AgentEvent;
use crate::llm::Usage;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Status {
    #[default]
    Idle,
    /// Request sent, no token yet.
    Waiting,
    Streaming,
    RunningTool,
    Done,
    Error,
    /// The user stopped the run.
    Stopped,
}

impl Status {
    /// Stable identifier for the DOM (`data-status`).
    pub fn id(self) -> &'static str {
        match self {
            Status::Idle => "idle",
            Status::Waiting => "waiting",
            Status::Streaming => "streaming",
            Status::RunningTool => "running-tool",
            Status::Done => "done",
            Status::Error => "error",
            Status::Stopped => "stopped",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Status::Idle => "Ready",
            Status::Waiting => "Waiting for the model…",
            Status::Streaming => "Streaming",
            Status::RunningTool => "Running tool…",
            Status::Done => "Done",
            Status::Error => "Error",
            Status::Stopped => "Stopped",
        }
    }

    pub fn is_active(self) -> bool {
        matches!(
            self,
            Status::Waiting | Status::Streaming | Status::RunningTool
        )
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StepView {
    pub number: u32,
    /// The final no-tools call after the step limit.
    pub forced: bool,
    pub reasoning: String,
    /// The reply as it streams; replaced by the parsed parts once the step is read.
    pub live: String,
    /// Counts the times `live` was emptied (a retried call), so a view that appends to what it
    /// showed knows when to start over.
    pub live_epoch: u32,
    pub thought: Option<String>,
    /// Tool calls of this step (several with native calls or JSON actions): (tool, input).
    pub actions: Vec<(String, String)>,
    /// Their results, in the same order: (text, is_error).
    pub observations: Vec<(String, bool)>,
    /// What the run did about trouble in this step (a format reminder, a protocol switch).
    pub notices: Vec<String>,
    /// The reply has been read (thought/action/answer known): `live` is no longer shown.
    pub settled: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnswerView {
    pub text: String,
    pub forced: bool,
    pub step: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PanelState {
    pub status: Status,
    pub steps: Vec<StepView>,
    pub answer: Option<AnswerView>,
    pub error: Option<String>,
    pub usage: Usage,
    /// Set when the run was cut mid-reply and can be continued.
    pub resume: Option<crate::agent::run::Resume>,
}

impl PanelState {
    /// A panel for a run that is about to start.
    pub fn starting() -> Self {
        Self {
            status: Status::Waiting,
            ..Self::default()
        }
    }

    pub fn apply(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::StepStarted { step, forced } => {
                self.status = Status::Waiting;
                // A continued run starts a step again: the earlier failure is over.
                self.error = None;
                self.resume = None;
                self.steps.push(StepView {
                    number: step,
                    forced,
                    ..StepView::default()
                });
            }
            AgentEvent::Token(t) => {
                self.status = Status::Streaming;
                self.current().live.push_str(&t);
            }
            AgentEvent::Reasoning(t) => {
                self.status = Status::Streaming;
                self.current().reasoning.push_str(&t);
            }
            AgentEvent::Usage(u) => {
                self.usage.prompt_tokens += u.prompt_tokens;
                self.usage.completion_tokens += u.completion_tokens;
                self.usage.total_tokens += u.total_tokens;
            }
            AgentEvent::Thought(t) => {
                let step = self.current();
                step.thought = Some(t);
                step.settled = true;
            }
            AgentEvent::Action { tool, input } => {
                self.status = Status::RunningTool;
                let step = self.current();
                step.actions.push((tool, input));
                step.settled = true;
            }
            AgentEvent::Observation { text, is_error } => {
                let step = self.current();
                step.observations.push((text, is_error));
                step.settled = true;
            }
            AgentEvent::Answer { text, forced, step } => {
                self.status = Status::Done;
                if let Some(s) = self.steps.last_mut() {
                    s.settled = true;
                }
                self.answer = Some(AnswerView { text, forced, step });
            }
            AgentEvent::Error(message) => {
                self.status = Status::Error;
                self.error = Some(message);
            }
            AgentEvent::Stopped => self.status = Status::Stopped,
            AgentEvent::Warning(text) => self.current().notices.push(text),
            AgentEvent::Resumable(from) => self.resume = Some(*from),
            AgentEvent::Notice(text) => {
                // The call is being made again: what streamed was read and is in the notice.
                let step = self.current();
                step.notices.push(text);
                step.live.clear();
                step.live_epoch += 1;
            }
        }
    }

    /// The step counter: the latest step's number.
    pub fn step_number(&self) -> u32 {
        self.steps.last().map_or(0, |s| s.number)
    }

    fn current(&mut self) -> &mut StepView {
        if self.steps.is_empty() {
            self.steps.push(StepView {
                number: 1,
                ..StepView::default()
            });
        }
        self.steps.last_mut().expect("a step exists")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_react_step_goes_waiting_streaming_tool_done() {
        let mut p = PanelState::starting();
        p.apply(AgentEvent::StepStarted {
            step: 1,
            forced: false,
        });
        assert_eq!(p.status, Status::Waiting);
        p.apply(AgentEvent::Token("Thought: x\n".into()));
        assert_eq!(p.status, Status::Streaming);
        assert_eq!(p.steps[0].live, "Thought: x\n");
        p.apply(AgentEvent::Thought("x".into()));
        p.apply(AgentEvent::Action {
            tool: "calculator".into(),
            input: "1+1".into(),
        });
        assert_eq!(p.status, Status::RunningTool);
        p.apply(AgentEvent::Observation {
            text: "2".into(),
            is_error: false,
        });
        p.apply(AgentEvent::StepStarted {
            step: 2,
            forced: false,
        });
        p.apply(AgentEvent::Usage(Usage {
            prompt_tokens: 1,
            completion_tokens: 2,
            total_tokens: 3,
        }));
        p.apply(AgentEvent::Usage(Usage {
            prompt_tokens: 1,
            completion_tokens: 2,
            total_tokens: 3,
        }));
        p.apply(AgentEvent::Answer {
            text: "2".into(),
            forced: false,
            step: 2,
        });
        assert_eq!(p.status, Status::Done);
        assert_eq!(p.step_number(), 2);
        assert_eq!(p.usage.total_tokens, 6);
        assert!(p.steps[0].settled && p.steps[1].settled);
        assert_eq!(p.answer.as_ref().map(|a| a.text.as_str()), Some("2"));
    }

    #[test]
    fn an_error_keeps_what_streamed() {
        let mut p = PanelState::starting();
        p.apply(AgentEvent::StepStarted {
            step: 1,
            forced: false,
        });
        p.apply(AgentEvent::Token("partial".into()));
        p.apply(AgentEvent::Error("boom".into()));
        assert_eq!(p.status, Status::Error);
        assert_eq!(p.steps[0].live, "partial");
        assert_eq!(p.error.as_deref(), Some("boom"));
    }
}
