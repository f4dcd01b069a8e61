//! A run's record: the single source of truth of one mode's run, turn after turn. It is
//! changed only by `apply`, a reducer over the run's events, which the loop and the page both
//! use; the conversation sent to the model (`messages`), the panels, the metrics, exports and
//! replays are all views of it. Serialisable, so it can be kept, exported and imported.

use serde::{Deserialize, Serialize};

use super::events::AgentEvent;
use super::mode::Mode;
use super::protocols::action_protocol::Protocol;
use super::protocols::code_action::PROGRAM_TOOL;
pub use super::turn::{Answer, McpSource, Step, ToolRun, Turn};
use crate::browser_model::Backend;
use crate::llm::models::Pricing;
use crate::llm::{ChatMessage, Role, Usage};
use crate::tools::program::ProgramLimits;
use crate::tools::registry::normalise_tool_name;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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

/// How the run was set up: what a replay, an export or a Continue needs to know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunConfig {
    pub mode: Mode,
    pub model: String,
    pub base_url: String,
    pub temperature: f32,
    pub max_tokens: u32,
    pub max_steps: u32,
    /// The action protocol in use (it may switch to text during the run).
    pub protocol: Protocol,
    /// The tools offered to the model, by name.
    pub tools: Vec<String>,
    /// Which of them are an MCP server's, and whose.
    pub mcp_tools: Vec<McpSource>,
    /// The system prompt in use, the first message of every call.
    pub system_prompt: String,
    /// The system prompt as the user edited it in Settings, sent in place of the mode's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edited_prompt: Option<String>,
    /// The model's price, when the endpoint's model list gives it.
    pub pricing: Option<Pricing>,
    /// The model's context window in tokens, when known.
    pub context_length: Option<u32>,
    /// Where the model ran: at `base_url`, or in the page (`base_url` is then the model
    /// file's address).
    pub backend: Backend,
    /// CodeAct: the time limit of each program's own time, in seconds (Settings' Python time
    /// limit when the run began; runs recorded before it was kept had 60 s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program_secs: Option<u32>,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            mode: Mode::ReAct,
            model: String::new(),
            base_url: String::new(),
            temperature: 0.0,
            max_tokens: 0,
            max_steps: 1,
            protocol: Protocol::Text,
            tools: Vec::new(),
            mcp_tools: Vec::new(),
            system_prompt: String::new(),
            edited_prompt: None,
            pricing: None,
            context_length: None,
            backend: Backend::Endpoint,
            program_secs: None,
        }
    }
}

impl RunConfig {
    /// What one of the run's programs may take: its calls, and its time as the run was set up.
    pub fn program_limits(&self) -> ProgramLimits {
        let limits = ProgramLimits::default();
        ProgramLimits {
            step_secs: self.program_secs.unwrap_or(limits.step_secs),
            ..limits
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunRecord {
    pub id: String,
    /// Milliseconds since the Unix epoch.
    pub created: f64,
    pub config: RunConfig,
    pub turns: Vec<Turn>,
    pub status: Status,
    /// The earlier conversation, summarised to fit the model's context.
    pub compaction: Option<Compaction>,
    /// Every system prompt of the run and where it took over: a protocol switch changes the
    /// prompt, and Inspect shows each call the prompt it really sent.
    pub prompts: Vec<PromptFrom>,
    /// A blind run's panel: the letter it was shown under, and the user's vote once given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blind: Option<Blind>,
}

/// How a panel of a blind run was shown, and what the user's vote said of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Blind {
    /// "A", "B" or "C": the panels were shown in a random order under these letters.
    pub label: String,
    pub vote: Option<BlindVote>,
}

impl Blind {
    /// The mode and model are hidden until the user has voted.
    pub fn hides(&self) -> bool {
        self.vote.is_none()
    }

    /// What the page calls a panel while the vote hides it: its letter only.
    pub fn hidden_name(&self) -> String {
        format!("Answer {}", self.label)
    }
}

/// What one vote said of one panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BlindVote {
    /// This panel's answer was the best.
    Best,
    /// Another panel's was.
    NotBest,
    /// They were as good as each other.
    Tie,
    /// Every answer was bad.
    AllBad,
}

/// Everything before step `step` (an index) of turn `turn` (an index), but that turn's
/// question, is sent as `summary`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compaction {
    pub turn: usize,
    pub step: usize,
    pub summary: String,
}

/// A system prompt, sent from the model call of step `step` (an index) of turn `turn` (an
/// index) on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptFrom {
    pub turn: usize,
    pub step: usize,
    pub text: String,
}

/// What the panel says when the conversation was summarised; the summary follows it.
pub const COMPACTED_NOTICE: &str = "The conversation was summarised to fit the model's context: ";

/// What a panel says of a run that the page's reload or closing cut short.
pub const INTERRUPTED_NOTICE: &str =
    "The page was reloaded or closed during this run; it stopped here.";

/// How a summary stands in for the conversation it replaces.
pub const SUMMARY_LEAD: &str =
    "Summary of the conversation so far (earlier messages were summarised to fit the context):";

impl RunRecord {
    pub fn new(id: impl Into<String>, created: f64, config: RunConfig) -> Self {
        Self {
            id: id.into(),
            created,
            config,
            turns: Vec::new(),
            status: Status::Idle,
            compaction: None,
            prompts: Vec::new(),
            blind: None,
        }
    }

    /// The one way a record changes: an event of the run, at a time (epoch ms).
    /// The MCP server a call of `tool` goes to, when it is one of the run's MCP tools.
    fn mcp_source(&self, tool: &str) -> Option<McpSource> {
        let wanted = normalise_tool_name(tool);
        self.config
            .mcp_tools
            .iter()
            .find(|s| normalise_tool_name(&s.tool) == wanted)
            .cloned()
    }

    pub fn apply(&mut self, at: f64, event: &AgentEvent) {
        match event {
            AgentEvent::TurnStarted { question } => {
                self.status = Status::Waiting;
                self.turns.push(Turn {
                    question: question.clone(),
                    t_start: at,
                    ..Turn::default()
                });
            }
            AgentEvent::SystemPrompt { text, protocol } => {
                // Mid-turn (a protocol switch after a refused call) the prompt is sent from
                // the current step's next call; between turns, from the next turn's first.
                let (turn, step) = match self.turns.last() {
                    Some(last)
                        if last.answer.is_none() && last.error.is_none() && !last.stopped =>
                    {
                        (self.turns.len() - 1, last.steps.len().saturating_sub(1))
                    }
                    _ => (self.turns.len(), 0),
                };
                self.prompts.push(PromptFrom {
                    turn,
                    step,
                    text: text.clone(),
                });
                self.config.system_prompt = text.clone();
                self.config.protocol = *protocol;
            }
            AgentEvent::StepStarted { step, forced } => {
                self.status = Status::Waiting;
                let turn = self.turn();
                // A continued run starts a step again: the earlier failure is over.
                turn.error = None;
                turn.resumable = None;
                turn.steps.push(Step {
                    number: *step,
                    forced: *forced,
                    t_start: at,
                    ..Step::default()
                });
            }
            AgentEvent::Token(t) => {
                self.status = Status::Streaming;
                let step = self.step();
                step.t_first_token.get_or_insert(at);
                step.live.push_str(t);
            }
            AgentEvent::Reasoning(t) => {
                self.status = Status::Streaming;
                let step = self.step();
                step.t_first_token.get_or_insert(at);
                step.reasoning.push_str(t);
            }
            AgentEvent::Usage(u) => {
                *self.step().usage.get_or_insert_with(Usage::default) += *u;
            }
            // A retried call's figures replace the failed one's: they say how the reply came.
            AgentEvent::Timings(t) => self.step().timings = Some(t.clone()),
            AgentEvent::WaitedForModel { ms } => {
                let step = self.step();
                step.model_waits.push([at - ms.max(0.0), at]);
            }
            AgentEvent::Appended(message) => {
                let step = self.step();
                // The reply is the model's message: a forced step appends its request first.
                if message.role == Role::Assistant {
                    step.t_reply.get_or_insert(at);
                    step.t_last_reply = Some(at);
                }
                step.messages.push(message.clone());
            }
            AgentEvent::Thought(t) => {
                let step = self.step();
                step.thought = Some(t.clone());
                step.settled = true;
            }
            AgentEvent::Action { tool, input } => {
                self.status = Status::RunningTool;
                let mcp = self.mcp_source(tool);
                let step = self.step();
                step.t_tools_start.get_or_insert(at);
                step.tool_runs.push(ToolRun {
                    tool: tool.clone(),
                    input: input.clone(),
                    mcp,
                    ..ToolRun::default()
                });
                step.settled = true;
            }
            AgentEvent::Program { code } => {
                self.status = Status::RunningTool;
                let step = self.step();
                step.t_tools_start.get_or_insert(at);
                step.tool_runs.push(ToolRun {
                    tool: PROGRAM_TOOL.into(),
                    input: code.clone(),
                    program: true,
                    ..ToolRun::default()
                });
                step.settled = true;
            }
            AgentEvent::ProgramCall { tool, input } => {
                let mcp = self.mcp_source(tool);
                self.step().tool_runs.push(ToolRun {
                    tool: tool.clone(),
                    input: input.clone(),
                    mcp,
                    in_program: true,
                    t_start: Some(at),
                    ..ToolRun::default()
                });
            }
            AgentEvent::ProgramStopped(stop) => {
                if let Some(program) = self.step().tool_runs.iter_mut().rev().find(|r| r.program) {
                    program.stop = Some(*stop);
                }
            }
            AgentEvent::ProgramCallDone {
                text,
                is_error,
                failure,
            } => {
                let step = self.step();
                if let Some(run) = step
                    .tool_runs
                    .iter_mut()
                    .rev()
                    .find(|r| r.in_program && r.output.is_none())
                {
                    run.output = Some(text.clone());
                    run.is_error = *is_error;
                    run.failure = failure.clone();
                    run.t_done = Some(at);
                }
            }
            AgentEvent::Observation {
                text,
                is_error,
                failure,
            } => {
                let step = self.step();
                step.settled = true;
                step.t_tools_done = Some(at);
                match step.tool_runs.iter_mut().find(|r| r.output.is_none()) {
                    Some(run) => {
                        run.output = Some(text.clone());
                        run.is_error = *is_error;
                        run.failure = failure.clone();
                    }
                    // An observation about the reply itself (it fit no format).
                    None => step.tool_runs.push(ToolRun {
                        output: Some(text.clone()),
                        is_error: *is_error,
                        failure: failure.clone(),
                        ..ToolRun::default()
                    }),
                }
            }
            AgentEvent::Answer { text, forced, step } => {
                self.status = Status::Done;
                let turn = self.turn();
                if let Some(s) = turn.steps.last_mut() {
                    s.settled = true;
                }
                turn.answer = Some(Answer {
                    text: text.clone(),
                    forced: *forced,
                    step: *step,
                });
            }
            AgentEvent::Error(message) => {
                self.status = Status::Error;
                self.turn().error = Some(message.clone());
            }
            AgentEvent::Stopped => {
                self.status = Status::Stopped;
                self.turn().stopped = true;
            }
            AgentEvent::Warning(text) => self.step().notices.push(text.clone()),
            AgentEvent::Compacted {
                turn,
                step,
                summary,
            } => {
                self.compaction = Some(Compaction {
                    turn: *turn,
                    step: *step,
                    summary: summary.clone(),
                });
                self.step()
                    .notices
                    .push(format!("{COMPACTED_NOTICE}{summary}"));
            }
            AgentEvent::GoingOn => {
                self.status = Status::Waiting;
                self.turn().resumable = None;
            }
            AgentEvent::Resumable { step, protocol } => {
                self.turn().resumable = Some((*step, *protocol));
            }
            AgentEvent::Retrying { max_steps } => {
                let Some(last) = self.turns.pop() else {
                    return;
                };
                let index = self.turns.len();
                // Going on past the limit raised it for that attempt only.
                self.config.max_steps = *max_steps;
                // A summary made during the replaced attempt summarised what is gone.
                if self.compaction.as_ref().is_some_and(|c| c.turn >= index) {
                    self.compaction = None;
                }
                let mut earlier = last.earlier.clone();
                earlier.push(last.as_attempt());
                self.turns.push(Turn {
                    question: last.question,
                    t_start: at,
                    earlier,
                    ..Turn::default()
                });
                // The new attempt sends, from its first call, the prompt in effect now.
                self.prompts.retain(|p| p.turn < index);
                if !self.config.system_prompt.is_empty() {
                    self.prompts.push(PromptFrom {
                        turn: index,
                        step: 0,
                        text: self.config.system_prompt.clone(),
                    });
                }
                self.status = Status::Waiting;
            }
            AgentEvent::MoreSteps { max_steps } => {
                self.config.max_steps = *max_steps;
                self.status = Status::Waiting;
                let Some(turn) = self.turns.last_mut() else {
                    return;
                };
                let attempt = turn.as_attempt();
                turn.earlier.push(attempt);
                // The forced call and its answer leave the conversation: the loop goes on
                // from the step after the last one it ran.
                turn.steps.retain(|s| !s.forced);
                turn.answer = None;
                turn.stopped = false;
                turn.error = None;
            }
            AgentEvent::Attempts(earlier) => {
                if let Some(turn) = self.turns.last_mut() {
                    turn.earlier = earlier.clone();
                }
            }
            AgentEvent::Interrupted => {
                // Only a run that was still going was cut; a finished one stays as it ended.
                if self.status.is_active() {
                    self.status = Status::Stopped;
                    self.turn().stopped = true;
                    self.step().notices.push(INTERRUPTED_NOTICE.into());
                }
            }
            AgentEvent::Notice(text) => {
                // The call is being made again: what streamed was read and is in the notice.
                let step = self.step();
                step.notices.push(text.clone());
                step.live.clear();
                step.live_epoch += 1;
            }
        }
    }

    /// The system prompt that the calls of step `step` of turn `turn` (indexes) sent.
    pub fn system_prompt_at(&self, turn: usize, step: usize) -> &str {
        self.prompts
            .iter()
            .rfind(|p| (p.turn, p.step) <= (turn, step))
            .or(self.prompts.first())
            .map_or(&self.config.system_prompt, |p| &p.text)
    }

    /// The conversation as the model sees it now: the system prompt, then each turn's
    /// question and what its steps added.
    /// After a compaction, the summary stands in for what it replaced.
    pub fn messages(&self) -> Vec<ChatMessage> {
        self.conversation(self.compaction.as_ref(), None)
    }

    /// The conversation that a compaction at (`turn`, `step`) would summarise: what is sent
    /// now before that point, but the system prompt.
    pub fn messages_before(&self, turn: usize, step: usize) -> Vec<ChatMessage> {
        let mut all = self.conversation(self.compaction.as_ref(), Some((turn, step)));
        all.remove(0);
        all
    }

    /// How many messages `conversation` gives, counted without copying them.
    pub fn conversation_len(
        &self,
        summary: Option<&Compaction>,
        until: Option<(usize, usize)>,
    ) -> usize {
        1 + usize::from(summary.is_some())
            + self
                .conversation_parts(summary, until)
                .map(|(_, steps)| 1 + steps.iter().map(|s| s.messages.len()).sum::<usize>())
                .sum::<usize>()
    }

    /// The turns a conversation holds, each with the steps of it that it sends.
    fn conversation_parts(
        &self,
        summary: Option<&Compaction>,
        until: Option<(usize, usize)>,
    ) -> impl Iterator<Item = (&Turn, &[Step])> {
        let (first_turn, first_step) = summary.map_or((0, 0), |c| (c.turn, c.step));
        let (last_turn, last_step) = until.unwrap_or((usize::MAX, usize::MAX));
        self.turns
            .iter()
            .enumerate()
            .skip(first_turn)
            .take_while(move |(i, _)| *i <= last_turn)
            .map(move |(i, turn)| {
                let to = if i == last_turn {
                    last_step
                } else {
                    usize::MAX
                };
                let to = to.min(turn.steps.len());
                let from = if i == first_turn { first_step } else { 0 }.min(to);
                (turn, &turn.steps[from..to])
            })
    }

    /// The conversation with `summary` in effect, whole or up to step `step` (an index) of
    /// turn `turn` (an index), that step excluded. Read in place: Inspect asks for it once a
    /// call, so a copy of the record each time would cost the square of its length.
    pub fn conversation(
        &self,
        summary: Option<&Compaction>,
        until: Option<(usize, usize)>,
    ) -> Vec<ChatMessage> {
        let mut out = vec![ChatMessage::system(self.config.system_prompt.clone())];
        if let Some(c) = summary {
            out.push(ChatMessage::user(format!("{SUMMARY_LEAD}\n{}", c.summary)));
        }
        for (turn, steps) in self.conversation_parts(summary, until) {
            out.push(ChatMessage::user(turn.question.trim()));
            out.extend(steps.iter().flat_map(|s| s.messages.iter().cloned()));
        }
        out
    }

    /// A blind run's panel whose mode and model the vote has not named yet.
    pub fn awaits_vote(&self) -> bool {
        self.blind.as_ref().is_some_and(Blind::hides)
    }

    /// What the page calls this panel: its mode, or its letter while a blind vote hides it.
    pub fn shown_name(&self) -> String {
        match &self.blind {
            Some(b) if b.hides() => b.hidden_name(),
            _ => self.config.mode.label().to_string(),
        }
    }

    /// The latest turn (the one a panel shows).
    pub fn last_turn(&self) -> Option<&Turn> {
        self.turns.last()
    }

    /// The latest turn's answer.
    pub fn answer(&self) -> Option<&Answer> {
        self.last_turn().and_then(|t| t.answer.as_ref())
    }

    /// Why the latest turn failed.
    pub fn error(&self) -> Option<&str> {
        self.last_turn().and_then(|t| t.error.as_deref())
    }

    /// The steps a panel shows: the latest turn's.
    pub fn steps(&self) -> &[Step] {
        self.last_turn().map_or(&[], |t| t.steps.as_slice())
    }

    /// The step counter: the latest step's number.
    pub fn step_number(&self) -> u32 {
        self.steps().last().map_or(0, |s| s.number)
    }

    /// Tokens the endpoint reported over the whole run.
    pub fn usage(&self) -> Usage {
        let mut total = Usage::default();
        for u in self
            .turns
            .iter()
            .flat_map(|t| &t.steps)
            .filter_map(|s| s.usage)
        {
            total += u;
        }
        total
    }

    fn turn(&mut self) -> &mut Turn {
        if self.turns.is_empty() {
            self.turns.push(Turn::default());
        }
        self.turns.last_mut().expect("a turn exists")
    }

    fn step(&mut self) -> &mut Step {
        let turn = self.turn();
        if turn.steps.is_empty() {
            turn.steps.push(Step {
                number: 1,
                ..Step::default()
            });
        }
        turn.steps.last_mut().expect("a step exists")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forced_steps_reply_is_the_models_message_not_its_request() {
        let mut r = RunRecord::new("r", 0.0, RunConfig::default());
        r.apply(
            0.0,
            &AgentEvent::TurnStarted {
                question: "q".into(),
            },
        );
        r.apply(
            1000.0,
            &AgentEvent::StepStarted {
                step: 2,
                forced: true,
            },
        );
        r.apply(
            1000.0,
            &AgentEvent::Appended(ChatMessage::user("Give your best answer.")),
        );
        r.apply(1500.0, &AgentEvent::Token("Answer: 42".into()));
        r.apply(
            2000.0,
            &AgentEvent::Appended(ChatMessage::assistant("Answer: 42")),
        );
        let step = &r.turns[0].steps[0];
        assert_eq!(
            (step.t_first_token, step.t_reply),
            (Some(1500.0), Some(2000.0))
        );
    }

    fn usage(p: u64, c: u64) -> Usage {
        Usage {
            prompt_tokens: p,
            completion_tokens: c,
            total_tokens: p + c,
        }
    }

    fn react_step(r: &mut RunRecord) {
        let events = [
            AgentEvent::TurnStarted {
                question: "1+1?".into(),
            },
            AgentEvent::StepStarted {
                step: 1,
                forced: false,
            },
            AgentEvent::Token("Thought: x\n".into()),
        ];
        for (i, e) in events.iter().enumerate() {
            r.apply(100.0 + i as f64, e);
        }
    }

    #[test]
    fn a_call_of_an_mcp_tool_names_its_server() {
        let source = McpSource {
            tool: "get-sum".into(),
            server: "Everything".into(),
            url: "http://127.0.0.1:9/mcp".into(),
            name: "get-sum".into(),
        };
        let config = RunConfig {
            tools: vec!["calculator".into(), "get-sum".into()],
            mcp_tools: vec![source.clone()],
            ..RunConfig::default()
        };
        let mut r = RunRecord::new("r", 0.0, config);
        r.apply(
            1.0,
            &AgentEvent::TurnStarted {
                question: "q".into(),
            },
        );
        r.apply(
            2.0,
            &AgentEvent::StepStarted {
                step: 1,
                forced: false,
            },
        );
        for (tool, input) in [("Get_Sum", "{}"), ("calculator", "1+1")] {
            r.apply(
                3.0,
                &AgentEvent::Action {
                    tool: tool.into(),
                    input: input.into(),
                },
            );
            r.apply(
                4.0,
                &AgentEvent::Observation {
                    text: "2".into(),
                    is_error: false,
                    failure: None,
                },
            );
        }
        let runs = &r.turns[0].steps[0].tool_runs;
        assert_eq!(runs[0].mcp.as_ref(), Some(&source));
        assert_eq!(runs[1].mcp, None);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json.matches("\"mcp\":").count(), 1, "{json}");
        let back: RunRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn a_react_step_goes_waiting_streaming_tool_done() {
        let mut r = RunRecord::default();
        react_step(&mut r);
        assert_eq!(r.status, Status::Streaming);
        let step = &r.turns[0].steps[0];
        assert_eq!(step.live, "Thought: x\n");
        assert_eq!((step.t_start, step.t_first_token), (101.0, Some(102.0)));
        r.apply(110.0, &AgentEvent::Usage(usage(1, 2)));
        r.apply(
            110.0,
            &AgentEvent::Appended(ChatMessage::assistant("Thought: x")),
        );
        r.apply(110.0, &AgentEvent::Thought("x".into()));
        r.apply(
            110.0,
            &AgentEvent::Action {
                tool: "calculator".into(),
                input: "1+1".into(),
            },
        );
        assert_eq!(r.status, Status::RunningTool);
        r.apply(
            150.0,
            &AgentEvent::Observation {
                text: "2".into(),
                is_error: false,
                failure: None,
            },
        );
        r.apply(
            150.0,
            &AgentEvent::Appended(ChatMessage::user("Observation: 2")),
        );
        r.apply(
            151.0,
            &AgentEvent::StepStarted {
                step: 2,
                forced: false,
            },
        );
        r.apply(160.0, &AgentEvent::Usage(usage(1, 2)));
        r.apply(
            160.0,
            &AgentEvent::Answer {
                text: "2".into(),
                forced: false,
                step: 2,
            },
        );
        assert_eq!(r.status, Status::Done);
        assert_eq!(r.step_number(), 2);
        assert_eq!(r.usage().total_tokens, 6);
        let turn = &r.turns[0];
        assert!(turn.steps.iter().all(|s| s.settled));
        assert_eq!(turn.answer.as_ref().map(|a| a.text.as_str()), Some("2"));
        assert_eq!(turn.steps[0].tool_runs[0].output.as_deref(), Some("2"));
        assert_eq!(
            (turn.steps[0].t_reply, turn.steps[0].t_tools_done),
            (Some(110.0), Some(150.0))
        );
    }

    #[test]
    fn an_error_keeps_what_streamed() {
        let mut r = RunRecord::default();
        react_step(&mut r);
        r.apply(5.0, &AgentEvent::Error("boom".into()));
        assert_eq!(r.status, Status::Error);
        assert_eq!(r.turns[0].steps[0].live, "Thought: x\n");
        assert_eq!(r.turns[0].error.as_deref(), Some("boom"));
    }

    #[test]
    fn the_conversation_is_a_view_of_the_turns() {
        let mut r = RunRecord::default();
        r.apply(
            0.0,
            &AgentEvent::SystemPrompt {
                text: "sys".into(),
                protocol: Protocol::Text,
            },
        );
        react_step(&mut r);
        r.apply(
            1.0,
            &AgentEvent::Appended(ChatMessage::assistant("Answer: 2")),
        );
        r.apply(
            2.0,
            &AgentEvent::TurnStarted {
                question: " and times 3? ".into(),
            },
        );
        let roles: Vec<String> = r
            .messages()
            .iter()
            .map(|m| format!("{:?}:{}", m.role, m.content))
            .collect();
        assert_eq!(
            roles,
            [
                "System:sys",
                "User:1+1?",
                "Assistant:Answer: 2",
                "User:and times 3?"
            ]
        );
    }

    #[test]
    fn an_interrupted_run_stops_where_it_was_and_says_so() {
        let mut r = RunRecord::default();
        react_step(&mut r);
        r.apply(9.0, &AgentEvent::Interrupted);
        assert_eq!(r.status, Status::Stopped);
        let turn = &r.turns[0];
        assert!(turn.stopped);
        assert_eq!(turn.steps.len(), 1, "no step is added");
        assert_eq!(turn.steps[0].live, "Thought: x\n", "what streamed stays");
        assert_eq!(turn.steps[0].notices, [INTERRUPTED_NOTICE]);
        // A run that had ended is left as it was.
        let mut done = r.clone();
        done.apply(10.0, &AgentEvent::Error("boom".into()));
        let before = done.clone();
        done.apply(11.0, &AgentEvent::Interrupted);
        assert_eq!(done, before);
    }

    #[test]
    fn a_record_round_trips_through_json() {
        let mut r = RunRecord::new("run-1", 1_700_000_000_000.0, RunConfig::default());
        react_step(&mut r);
        r.apply(3.0, &AgentEvent::Usage(usage(3, 4)));
        let json = serde_json::to_string(&r).unwrap();
        let back: RunRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        // Fields an older or hand-edited export lacks take their defaults.
        let partial: RunRecord =
            serde_json::from_str(r#"{"id":"x","turns":[{"question":"q"}]}"#).unwrap();
        assert_eq!(partial.turns[0].question, "q");
        assert_eq!(partial.status, Status::Idle);
    }

    #[test]
    fn a_retry_drops_a_summary_of_the_attempt_it_replaces_and_takes_the_run_s_limit() {
        let mut r = RunRecord::new("r", 0.0, RunConfig::default());
        for e in [
            AgentEvent::TurnStarted {
                question: "q1".into(),
            },
            AgentEvent::Answer {
                text: "a1".into(),
                forced: false,
                step: 1,
            },
            AgentEvent::TurnStarted {
                question: "q2".into(),
            },
            AgentEvent::StepStarted {
                step: 1,
                forced: false,
            },
            AgentEvent::Compacted {
                turn: 1,
                step: 0,
                summary: "of the first attempt".into(),
            },
            AgentEvent::MoreSteps { max_steps: 9 },
        ] {
            r.apply(0.0, &e);
        }
        assert_eq!(r.config.max_steps, 9);
        r.apply(0.0, &AgentEvent::Retrying { max_steps: 4 });
        assert_eq!(r.compaction, None);
        assert_eq!(r.config.max_steps, 4);
        assert_eq!(r.turns.len(), 2);
        assert_eq!(r.turns[1].question, "q2");
        assert!(r.turns[1].steps.is_empty());
        // A summary of earlier turns alone stays.
        r.compaction = Some(Compaction {
            turn: 0,
            step: 1,
            summary: "of q1".into(),
        });
        r.apply(0.0, &AgentEvent::Retrying { max_steps: 4 });
        assert!(r.compaction.is_some());
    }
}
