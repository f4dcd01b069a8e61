use crate::llm::Usage;

/// What a run reports while it goes. The last event of a run is `Answer`, `Error` or `Stopped`.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
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
    /// The reply of this step is complete and was read as…
    Thought(String),
    Action {
        tool: String,
        input: String,
    },
    Observation {
        text: String,
        is_error: bool,
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
    /// The stream broke after part of a reply arrived: the run can be continued from here.
    Resumable(Box<super::run::Resume>),
}
