//! Replaying a kept run: its record turned back into the events that made it, each at the
//! time it happened, so the panels play it again through the same reducer as a live run —
//! no model, no tools, no network. Folding the events gives back the record's turns.
//!
//! A record keeps what a step ended with, not every token, so a replay streams the
//! reasoning and the reply in small pieces between the step's first token and its reply,
//! shows its notices as it starts, its tool results between the reply and the end of its
//! tool calls, and the turn's outcome at its end.

use super::events::AgentEvent;
use super::metrics::waits;
use super::record::{RunRecord, Step, ToolRun, Turn, COMPACTED_NOTICE};
use crate::llm::Role;

/// Longest piece of streamed text in a replay, in characters.
const PIECE_CHARS: usize = 12;
/// Most pieces a text streams in: a longer text comes in longer pieces, so a replay's events
/// grow with its steps, not with the size of its texts.
const MAX_PIECES: usize = 2_000;

/// A record as events to play again.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// The record before its first event: the run's id, creation time and configuration.
    pub start: RunRecord,
    /// When the run's first event happened (epoch ms); offsets count from here.
    pub origin: f64,
    /// The events with their offsets from `origin` in ms, in the order to apply them. The
    /// offsets are the record's own times, so they do not always increase (a forced step's
    /// prompt joins the conversation before the reply streams): an event waits for the ones
    /// before it.
    pub events: Vec<(f64, AgentEvent)>,
}

impl Replay {
    pub fn of(record: &RunRecord) -> Replay {
        let mut timed = Vec::new();
        for (index, turn) in record.turns.iter().enumerate() {
            turn_events(index, turn, &mut timed);
        }
        let origin = timed
            .iter()
            .map(|(at, _)| *at)
            .fold(f64::INFINITY, f64::min);
        let origin = if origin.is_finite() { origin } else { 0.0 };
        let mut start = RunRecord::new(record.id.clone(), record.created, record.config.clone());
        // The replay starts from the final config; the prompts it had on the way come along.
        start.prompts = record.prompts.clone();
        // A blind run plays back blind, with its vote.
        start.blind = record.blind.clone();
        // A summary the notices do not tell of (a hand-edited file) stays as the record has it.
        let replayed_compaction = timed
            .iter()
            .any(|(_, e)| matches!(e, AgentEvent::Compacted { .. }));
        if !replayed_compaction {
            start.compaction = record.compaction.clone();
        }
        Replay {
            start,
            origin,
            // A file's times are anyone's: an offset stays a number a clock can reach.
            events: timed
                .into_iter()
                .map(|(at, event)| ((at - origin).clamp(-f64::MAX, f64::MAX), event))
                .collect(),
        }
    }

    /// The record after every event: what an instant replay shows.
    pub fn fold(&self) -> RunRecord {
        let mut record = self.start.clone();
        for (offset, event) in &self.events {
            record.apply(self.origin + offset, event);
        }
        record
    }

    /// The offset of the last event to happen.
    pub fn span(&self) -> f64 {
        self.events.iter().map(|(t, _)| *t).fold(0.0, f64::max)
    }
}

fn turn_events(index: usize, turn: &Turn, out: &mut Vec<(f64, AgentEvent)>) {
    out.push((
        turn.t_start,
        AgentEvent::TurnStarted {
            question: turn.question.clone(),
        },
    ));
    if !turn.earlier.is_empty() {
        out.push((turn.t_start, AgentEvent::Attempts(turn.earlier.clone())));
    }
    for (step_index, step) in turn.steps.iter().enumerate() {
        step_events(index, step_index, step, out);
    }
    let end = turn.steps.iter().map(step_end).fold(turn.t_start, f64::max);
    if let Some(answer) = &turn.answer {
        out.push((
            end,
            AgentEvent::Answer {
                text: answer.text.clone(),
                forced: answer.forced,
                step: answer.step,
            },
        ));
    }
    if let Some((step, protocol)) = turn.resumable {
        out.push((end, AgentEvent::Resumable { step, protocol }));
    }
    if let Some(error) = &turn.error {
        out.push((end, AgentEvent::Error(error.clone())));
    }
    if turn.stopped {
        out.push((end, AgentEvent::Stopped));
    }
}

/// The latest time the record knows of in a step.
fn step_end(step: &Step) -> f64 {
    [
        step.t_first_token,
        step.t_reply,
        step.t_last_reply,
        step.t_tools_done,
    ]
    .into_iter()
    .flatten()
    .fold(step.t_start, f64::max)
}

fn step_events(turn: usize, index: usize, step: &Step, out: &mut Vec<(f64, AgentEvent)>) {
    let start = step.t_start;
    out.push((
        start,
        AgentEvent::StepStarted {
            step: step.number,
            forced: step.forced,
        },
    ));
    // A `Notice` empties the streamed text (the call is made again): as many of them as the
    // step's text was emptied, the other notices as warnings that leave it alone.
    let mut restarts = step.live_epoch;
    for notice in &step.notices {
        let event = if let Some(summary) = notice.strip_prefix(COMPACTED_NOTICE) {
            AgentEvent::Compacted {
                turn,
                step: index,
                summary: summary.to_string(),
            }
        } else if restarts > 0 {
            restarts -= 1;
            AgentEvent::Notice(notice.clone())
        } else {
            AgentEvent::Warning(notice.clone())
        };
        out.push((start, event));
    }
    for (from, to) in waits(step) {
        out.push((to, AgentEvent::WaitedForModel { ms: to - from }));
    }
    if let Some(first) = step.t_first_token {
        let until = step.t_reply.filter(|&r| r >= first).unwrap_or(first);
        stream(first, until, step, out);
    }
    let replied = step.t_reply.unwrap_or_else(|| step_end(step));
    if let Some(usage) = step.usage {
        out.push((replied, AgentEvent::Usage(usage)));
    }
    // The last reply (of a call made again) and what came after it, at its own time.
    let last_reply = step
        .messages
        .iter()
        .rposition(|m| m.role == Role::Assistant)
        .filter(|&i| i > 0 && step.t_last_reply.is_some_and(|t| t > replied));
    for (i, message) in step.messages.iter().enumerate() {
        let at = match (last_reply, step.t_last_reply) {
            (Some(last), Some(t)) if i >= last => t,
            _ => replied,
        };
        out.push((at, AgentEvent::Appended(message.clone())));
    }
    if let Some(thought) = &step.thought {
        out.push((replied, AgentEvent::Thought(thought.clone())));
    }
    let acted = step.t_tools_start.unwrap_or(replied);
    if step.tool_runs.iter().any(|r| r.program) {
        return program_events(step, acted, step.t_tools_done.unwrap_or(acted), out);
    }
    for run in step.tool_runs.iter().filter(|r| is_action(r)) {
        out.push((
            acted,
            AgentEvent::Action {
                tool: run.tool.clone(),
                input: run.input.clone(),
            },
        ));
    }
    let results: Vec<&ToolRun> = step
        .tool_runs
        .iter()
        .filter(|r| r.output.is_some())
        .collect();
    let done = step.t_tools_done.unwrap_or(replied);
    for (i, run) in results.iter().enumerate() {
        // Spread between the reply and the last result, which comes at the recorded time.
        let at = if i + 1 == results.len() {
            done
        } else {
            replied + (done - replied) * (i + 1) as f64 / results.len() as f64
        };
        out.push((
            at,
            AgentEvent::Observation {
                text: run.output.clone().unwrap_or_default(),
                is_error: run.is_error,
                failure: run.failure.clone(),
            },
        ));
    }
}

/// A CodeAct step's program, its tool calls at their own times, and its output.
fn program_events(step: &Step, acted: f64, done: f64, out: &mut Vec<(f64, AgentEvent)>) {
    for run in &step.tool_runs {
        if run.program {
            out.push((
                acted,
                AgentEvent::Program {
                    code: run.input.clone(),
                },
            ));
        } else if run.in_program {
            let start = run.t_start.unwrap_or(acted).clamp(acted, done.max(acted));
            out.push((
                start,
                AgentEvent::ProgramCall {
                    tool: run.tool.clone(),
                    input: run.input.clone(),
                },
            ));
            if let Some(text) = &run.output {
                let end = run.t_done.unwrap_or(start).clamp(start, done.max(start));
                out.push((
                    end,
                    AgentEvent::ProgramCallDone {
                        text: text.clone(),
                        is_error: run.is_error,
                        failure: run.failure.clone(),
                    },
                ));
            }
        }
    }
    if let Some(program) = step.tool_runs.iter().find(|r| r.program) {
        if let Some(stop) = program.stop {
            out.push((done, AgentEvent::ProgramStopped(stop)));
        }
        if let Some(text) = &program.output {
            out.push((
                done,
                AgentEvent::Observation {
                    text: text.clone(),
                    is_error: program.is_error,
                    failure: program.failure.clone(),
                },
            ));
        }
    }
}

/// A tool call the model made, as opposed to a note on a reply that fit no format (which
/// has no tool and arrives only as an observation).
fn is_action(run: &ToolRun) -> bool {
    !run.tool.is_empty() || !run.input.is_empty() || run.output.is_none()
}

/// The step's reasoning, then its reply, in pieces from `first` to `until`.
fn stream(first: f64, until: f64, step: &Step, out: &mut Vec<(f64, AgentEvent)>) {
    let reasoning = bounded_pieces(&step.reasoning);
    let reply = bounded_pieces(&step.live);
    let count = reasoning.len() + reply.len();
    if count == 0 {
        // Something arrived then (a retried call's text, since emptied): say when.
        out.push((first, AgentEvent::Token(String::new())));
        return;
    }
    let events = reasoning
        .into_iter()
        .map(|p| AgentEvent::Reasoning(p.to_string()))
        .chain(reply.into_iter().map(|p| AgentEvent::Token(p.to_string())));
    for (i, event) in events.enumerate() {
        let at = if count > 1 {
            first + (until - first) * i as f64 / (count - 1) as f64
        } else {
            first
        };
        out.push((at, event));
    }
}

/// Text cut into word-sized pieces (a word with the spaces before it, long words split), as
/// a model streams it. The pieces join back into the text.
pub fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = 0;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        let word_starts_space = c.is_whitespace() && in_word;
        if i > start && (word_starts_space || chars >= PIECE_CHARS) {
            out.push(&text[start..i]);
            start = i;
            chars = 0;
        }
        in_word = !c.is_whitespace();
        chars += 1;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// `pieces`, joined into at most `MAX_PIECES` longer ones.
fn bounded_pieces(text: &str) -> Vec<&str> {
    let fine = pieces(text);
    if fine.len() <= MAX_PIECES {
        return fine;
    }
    let per_piece = fine.len().div_ceil(MAX_PIECES);
    let mut start = 0;
    fine.chunks(per_piece)
        .map(|group| {
            let len: usize = group.iter().map(|p| p.len()).sum();
            let piece = &text[start..start + len];
            start += len;
            piece
        })
        .collect()
}

/// How fast a replay goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Speed {
    /// As it happened.
    #[default]
    Real,
    Fast,
    /// Everything at once.
    Instant,
}

impl Speed {
    pub const ALL: [Speed; 3] = [Speed::Real, Speed::Fast, Speed::Instant];
    /// What a shipped recording plays at until the user picks a speed. The shipped ones last
    /// 85 to 114 s as they ran (four modes taking turns on the in-browser model, two cores),
    /// the earlier three-panel ones over three minutes: a first visitor leaves before that. At
    /// 4× every panel ends within half a minute and the text still streams at a pace one can
    /// read along; "as it ran" stays in the same list.
    pub const RECORDING: Speed = Speed::Fast;

    /// How many ms of the recording pass per ms of replay; `None` for instant.
    pub fn factor(self) -> Option<f64> {
        match self {
            Speed::Real => Some(1.0),
            Speed::Fast => Some(4.0),
            Speed::Instant => None,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Speed::Real => "1",
            Speed::Fast => "4",
            Speed::Instant => "instant",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Speed::Real => "1× (as it ran)",
            Speed::Fast => "4×",
            Speed::Instant => "Instant",
        }
    }

    pub fn from_id(id: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.id() == id)
    }
}

/// A wait longer than this before the next question of a conversation (the user reading
/// and typing) is cut to it: the replay shows the run, not the pauses between turns.
pub const PAUSE_BETWEEN_TURNS_MS: f64 = 1_000.0;
/// The longest a replay waits for its next event: a recorded wait longer than this (a slow
/// model, or a time written into a file) is cut to it. The events keep their recorded times.
pub const LONGEST_WAIT_MS: f64 = 60_000.0;

/// Several replays on one clock: the modes of a run ran at the same time, and play again
/// side by side as they ran.
#[derive(Debug, Clone)]
pub struct Playback {
    replays: Vec<Replay>,
    /// Where each replay's origin falls on the shared clock.
    shifts: Vec<f64>,
    /// The next event of each replay.
    next: Vec<usize>,
    /// Recording time played so far, on the shared clock.
    clock: f64,
    /// The epoch ms the shared clock starts at: the earliest replay's first event.
    earliest: f64,
}

/// The events now due, per replay, with the times (epoch ms) to apply them at.
pub type Due = Vec<Vec<(f64, AgentEvent)>>;

impl Playback {
    pub fn new(replays: Vec<Replay>) -> Playback {
        let earliest = replays
            .iter()
            .filter(|r| !r.events.is_empty())
            .map(|r| r.origin)
            .fold(f64::INFINITY, f64::min);
        let shifts = replays
            .iter()
            .map(|r| {
                if earliest.is_finite() {
                    r.origin - earliest
                } else {
                    0.0
                }
            })
            .collect();
        Playback {
            next: vec![0; replays.len()],
            shifts,
            replays,
            clock: 0.0,
            earliest: if earliest.is_finite() { earliest } else { 0.0 },
        }
    }

    /// The moment of the recording played so far, in its own epoch ms: what a panel's
    /// waiting line counts from, not the wall clock of today.
    pub fn now(&self) -> f64 {
        self.earliest + self.clock
    }

    /// Moves the clock on by `ms` of recording time; returns what is due.
    pub fn advance(&mut self, ms: f64) -> Due {
        self.skip_long_waits();
        self.clock += ms.max(0.0);
        self.take_due(self.clock)
    }

    /// Everything not yet played.
    pub fn finish(&mut self) -> Due {
        self.take_due(f64::INFINITY)
    }

    pub fn is_done(&self) -> bool {
        self.replays
            .iter()
            .zip(&self.next)
            .all(|(r, &n)| n >= r.events.len())
    }

    /// Recording time until the next event is due (0 when one already is).
    pub fn until_next(&self) -> Option<f64> {
        self.next_times()
            .map(|(_, at, _)| (at - self.clock).max(0.0))
            .reduce(f64::min)
    }

    /// Each unfinished replay's next event: (replay, time on the shared clock, event).
    fn next_times(&self) -> impl Iterator<Item = (usize, f64, &AgentEvent)> + '_ {
        self.replays.iter().enumerate().filter_map(move |(i, r)| {
            r.events
                .get(self.next[i])
                .map(|(offset, e)| (i, self.shifts[i] + offset, e))
        })
    }

    /// Moves the clock on to a pause's end: a pause before follow-ups is cut to a second,
    /// any other to `LONGEST_WAIT_MS`.
    fn skip_long_waits(&mut self) {
        let mut all_turns = true;
        let mut earliest = f64::INFINITY;
        for (i, at, event) in self.next_times() {
            // The first question is not a pause.
            all_turns &= self.next[i] > 0 && matches!(event, AgentEvent::TurnStarted { .. });
            earliest = earliest.min(at);
        }
        let longest = if all_turns {
            PAUSE_BETWEEN_TURNS_MS
        } else {
            LONGEST_WAIT_MS
        };
        if earliest.is_finite() && earliest - self.clock > longest {
            self.clock = earliest - longest;
        }
    }

    fn take_due(&mut self, clock: f64) -> Due {
        self.replays
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut due = Vec::new();
                while let Some((offset, event)) = r.events.get(self.next[i]) {
                    if self.shifts[i] + offset > clock {
                        break;
                    }
                    due.push((r.origin + offset, event.clone()));
                    self.next[i] += 1;
                }
                due
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::protocols::action_protocol::Protocol;
    use crate::agent::record::{RunConfig, Status};
    use crate::llm::{ChatMessage, Usage};

    /// Events at the given times, folded into a record.
    fn record_of(events: &[(f64, AgentEvent)]) -> RunRecord {
        let mut r = RunRecord::new("r", 5.0, RunConfig::default());
        for (at, e) in events {
            r.apply(*at, e);
        }
        r
    }

    fn react_run() -> Vec<(f64, AgentEvent)> {
        vec![
            (
                1000.0,
                AgentEvent::SystemPrompt {
                    text: "sys".into(),
                    protocol: Protocol::Text,
                },
            ),
            (
                1000.0,
                AgentEvent::TurnStarted {
                    question: "6 × 7?".into(),
                },
            ),
            (
                1000.0,
                AgentEvent::StepStarted {
                    step: 1,
                    forced: false,
                },
            ),
            (
                1200.0,
                AgentEvent::Reasoning("Let me use the calculator.".into()),
            ),
            (
                1300.0,
                AgentEvent::Token("Thought: multiply.\nAction: calculator\n".into()),
            ),
            (1400.0, AgentEvent::Token("Action Input: 6*7".into())),
            (
                1500.0,
                AgentEvent::Usage(Usage {
                    prompt_tokens: 50,
                    completion_tokens: 12,
                    total_tokens: 62,
                }),
            ),
            (
                1500.0,
                AgentEvent::Appended(ChatMessage::assistant(
                    "Thought: multiply.\nAction: calculator\nAction Input: 6*7",
                )),
            ),
            (1500.0, AgentEvent::Thought("multiply.".into())),
            (
                1500.0,
                AgentEvent::Action {
                    tool: "calculator".into(),
                    input: "6*7".into(),
                },
            ),
            (
                1900.0,
                AgentEvent::Observation {
                    text: "42".into(),
                    is_error: false,
                    failure: None,
                },
            ),
            (
                1900.0,
                AgentEvent::Appended(ChatMessage::user("Observation: 42")),
            ),
            (
                1900.0,
                AgentEvent::StepStarted {
                    step: 2,
                    forced: false,
                },
            ),
            (2100.0, AgentEvent::Token("Answer: 42".into())),
            (
                2300.0,
                AgentEvent::Appended(ChatMessage::assistant("Answer: 42")),
            ),
            (
                2300.0,
                AgentEvent::Answer {
                    text: "42".into(),
                    forced: false,
                    step: 2,
                },
            ),
        ]
    }

    #[test]
    fn waits_for_the_model_and_a_call_made_again_replay_at_their_times() {
        // A call that waited for the model in this browser, fit no format, was made again
        // (after another wait), then ran a tool.
        let events = vec![
            (
                1000.0,
                AgentEvent::TurnStarted {
                    question: "q".into(),
                },
            ),
            (
                1000.0,
                AgentEvent::StepStarted {
                    step: 1,
                    forced: false,
                },
            ),
            (4000.0, AgentEvent::WaitedForModel { ms: 3000.0 }),
            (4200.0, AgentEvent::Token("hmm".into())),
            (4500.0, AgentEvent::Appended(ChatMessage::assistant("hmm"))),
            (4500.0, AgentEvent::Notice("No action. Asked again.".into())),
            (
                4500.0,
                AgentEvent::Appended(ChatMessage::user("Use the format.")),
            ),
            (9000.0, AgentEvent::WaitedForModel { ms: 4000.0 }),
            (9300.0, AgentEvent::Token("Action: calculator".into())),
            (
                9600.0,
                AgentEvent::Appended(ChatMessage::assistant(
                    "Action: calculator\nAction Input: 1+1",
                )),
            ),
            (
                9600.0,
                AgentEvent::Action {
                    tool: "calculator".into(),
                    input: "1+1".into(),
                },
            ),
            (
                9700.0,
                AgentEvent::Observation {
                    text: "2".into(),
                    is_error: false,
                    failure: None,
                },
            ),
            (
                9700.0,
                AgentEvent::Appended(ChatMessage::user("Observation: 2")),
            ),
        ];
        let original = record_of(&events);
        let step = &original.turns[0].steps[0];
        assert_eq!(step.model_waits, vec![[1000.0, 4000.0], [5000.0, 9000.0]]);
        assert_eq!(
            (step.t_reply, step.t_last_reply, step.t_tools_start),
            (Some(4500.0), Some(9600.0), Some(9600.0))
        );
        let replayed = Replay::of(&original).fold();
        assert_eq!(replayed, original);
        let m = crate::agent::metrics::run_metrics(&replayed, None);
        assert_eq!(
            (m.model_ms, m.wait_ms, m.tool_ms),
            (8600.0 - 7000.0, 7000.0, 100.0)
        );
    }

    #[test]
    fn folding_the_replay_gives_the_record_back() {
        let original = record_of(&react_run());
        let replay = Replay::of(&original);
        assert_eq!(replay.origin, 1000.0);
        assert_eq!(replay.span(), 1300.0);
        assert_eq!(replay.fold(), original);
    }

    #[test]
    fn text_streams_in_pieces_between_the_first_token_and_the_reply() {
        let replay = Replay::of(&record_of(&react_run()));
        let streamed: Vec<(f64, &str)> = replay
            .events
            .iter()
            .filter_map(|(t, e)| match e {
                AgentEvent::Token(s) | AgentEvent::Reasoning(s) => Some((*t, s.as_str())),
                _ => None,
            })
            .collect();
        assert!(streamed.len() > 8, "{streamed:?}");
        assert!(streamed
            .iter()
            .all(|(_, s)| s.chars().count() <= PIECE_CHARS));
        // Step 1 streams from its first token (200 ms in) to its reply (500 ms in).
        assert_eq!(streamed[0].0, 200.0);
        let step_one: Vec<f64> = streamed
            .iter()
            .map(|(t, _)| *t)
            .filter(|t| *t <= 500.0)
            .collect();
        assert_eq!(step_one.last(), Some(&500.0));
        assert!(step_one.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn pieces_join_back_into_the_text() {
        for text in [
            "",
            "a",
            "Thought: x  y\n\nAction: calculator",
            "ünïcødé wörds çà",
            "abcdefghijklmnopqrstuvwxyz",
        ] {
            let p = pieces(text);
            assert_eq!(p.concat(), text);
            assert!(p.iter().all(|s| !s.is_empty()));
        }
        assert_eq!(pieces("one two"), ["one", " two"]);
    }

    #[test]
    fn an_error_a_retry_and_a_stop_replay_as_they_ended() {
        let mut events = react_run();
        events.truncate(3);
        events.extend([
            (1100.0, AgentEvent::Token("Thought: hm".into())),
            (
                1150.0,
                AgentEvent::Notice("Rate limited; waiting 1 s.".into()),
            ),
            (
                1160.0,
                AgentEvent::Warning("Skipped 1 stream line(s).".into()),
            ),
            (1300.0, AgentEvent::Token("Thought: again".into())),
            (
                1400.0,
                AgentEvent::Resumable {
                    step: 1,
                    protocol: Protocol::Text,
                },
            ),
            (1400.0, AgentEvent::Error("The stream broke.".into())),
        ]);
        let cut = record_of(&events);
        assert_eq!(cut.turns[0].steps[0].live_epoch, 1);
        let back = Replay::of(&cut).fold();
        assert_eq!(back, cut);
        assert_eq!(back.status, Status::Error);

        let mut stopped = react_run();
        stopped.truncate(10);
        stopped.push((1600.0, AgentEvent::Stopped));
        let stopped = record_of(&stopped);
        assert_eq!(Replay::of(&stopped).fold(), stopped);
    }

    #[test]
    fn an_empty_record_replays_to_itself() {
        let empty = RunRecord::new("x", 1.0, RunConfig::default());
        let replay = Replay::of(&empty);
        assert!(replay.events.is_empty());
        assert_eq!(replay.fold(), empty);
        let mut playback = Playback::new(vec![replay]);
        assert!(playback.is_done());
        assert_eq!(playback.advance(10.0), vec![Vec::new()]);
    }

    #[test]
    fn the_modes_play_on_one_clock_at_the_chosen_speed() {
        let first = record_of(&react_run());
        // A second mode that started 200 ms later.
        let later: Vec<(f64, AgentEvent)> = react_run()
            .into_iter()
            .map(|(t, e)| (t + 200.0, e))
            .collect();
        let second = record_of(&later);
        let mut playback = Playback::new(vec![Replay::of(&first), Replay::of(&second)]);
        let due = playback.advance(0.0);
        assert!(!due[0].is_empty() && due[1].is_empty());
        assert_eq!(playback.until_next(), Some(200.0));
        // The recording's own time, as its waiting lines count it (its first event at 1000).
        assert_eq!(playback.now(), 1000.0);
        // 4× for 100 ms of real time is 400 ms of the recording.
        let due = playback.advance(100.0 * Speed::Fast.factor().unwrap());
        assert_eq!(playback.now(), 1400.0);
        assert!(due[0].iter().all(|(t, _)| *t <= 1400.0));
        assert!(due[1].iter().all(|(t, _)| *t <= 1400.0));
        assert!(!playback.is_done());
        let rest = playback.finish();
        assert!(playback.is_done());
        assert_eq!(rest[1].last().map(|(t, _)| *t), Some(2500.0));
    }

    #[test]
    fn a_long_pause_before_a_follow_up_is_cut_short() {
        let mut events = react_run();
        events.push((
            600_000.0,
            AgentEvent::TurnStarted {
                question: "and 7 × 8?".into(),
            },
        ));
        let r = record_of(&events);
        let mut playback = Playback::new(vec![Replay::of(&r)]);
        playback.advance(1300.0);
        assert_eq!(playback.until_next(), Some(600_000.0 - 2300.0));
        assert!(playback.advance(0.0)[0].is_empty());
        let due = playback.advance(PAUSE_BETWEEN_TURNS_MS);
        assert_eq!(due[0].len(), 1, "the follow-up starts a second later");
        assert_eq!(due[0][0].0, 600_000.0, "at its recorded time");
    }

    /// Advances a 1× playback a second at a time until it is done; how many seconds it took.
    fn seconds_to_play(playback: &mut Playback) -> usize {
        let mut seconds = 0;
        while !playback.is_done() {
            playback.advance(1000.0);
            seconds += 1;
            assert!(seconds < 10_000, "the replay never ends");
        }
        seconds
    }

    #[test]
    fn a_long_wait_plays_as_a_minute_and_keeps_its_recorded_time() {
        let mut record = record_of(&react_run());
        // The tool took an hour.
        record.turns[0].steps[0].t_tools_done = Some(3_600_000.0);
        let replay = Replay::of(&record);
        let mut playback = Playback::new(vec![replay.clone()]);
        let seconds = seconds_to_play(&mut playback);
        assert!((60..=64).contains(&seconds), "{seconds} s");
        assert_eq!(replay.fold(), record, "the figures are the recorded ones");
    }

    #[test]
    fn absurd_times_in_a_file_still_play_to_the_end_soon() {
        for (start, reply) in [
            (1e300, -1e300),
            (-f64::MAX, f64::MAX),
            (f64::MAX, -f64::MAX),
            (0.0, 1e300),
        ] {
            let mut record = record_of(&react_run());
            let step = &mut record.turns[0].steps[0];
            step.t_start = start;
            step.t_reply = Some(reply);
            record.turns[0].t_start = -start;
            let mut playback = Playback::new(vec![Replay::of(&record)]);
            let seconds = seconds_to_play(&mut playback);
            assert!(seconds <= 4 * 61, "{start} {reply}: {seconds} s");
        }
    }

    #[test]
    fn a_long_text_streams_in_a_bounded_number_of_pieces() {
        let text = "word ".repeat(200_000);
        let coarse = bounded_pieces(&text);
        assert!(coarse.len() <= MAX_PIECES, "{}", coarse.len());
        assert!(coarse.len() > MAX_PIECES / 2);
        assert_eq!(coarse.concat(), text);
        assert_eq!(bounded_pieces("a few words"), pieces("a few words"));
    }

    #[test]
    fn speeds_have_ids_for_the_page() {
        for s in Speed::ALL {
            assert_eq!(Speed::from_id(s.id()), Some(s));
        }
        assert_eq!(Speed::Instant.factor(), None);
    }
}
