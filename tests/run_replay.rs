//! Replay and Inspect against runs of the real loop: a scripted model and a fake clock make
//! records as the page would (each event folded at the time it happened); replaying a
//! record gives its turns back, and the calls Inspect lists are the calls the model got.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use futures::executor::block_on;
use react_arena::agent::action_protocol::{Protocol, ProtocolPlan};
use react_arena::agent::calls::model_calls;
use react_arena::agent::compaction::SUMMARY_PROMPT;
use react_arena::agent::record::{Blind, BlindVote, RunConfig, RunRecord, Status};
use react_arena::agent::replay::{Playback, Replay};
use react_arena::agent::run::{run_turn, Next, RunOptions};
use react_arena::agent::{AgentEvent, ChatModel, Mode};
use react_arena::export::markdown;
use react_arena::llm::tool_calls::ToolCallDelta;
use react_arena::llm::{ChatCall, ChatDelta, ChatMessage, LlmError, Usage};
use react_arena::run_file::RunFile;
use react_arena::settings::Settings;
use react_arena::tools::program::{ProgramLimits, ProgramRun, PythonTool};
use react_arena::tools::{FailureKind, ProgramCalls, ToolFailure, Toolbox};
use react_arena::tools::{Registry, ToolSpec};
use serde_json::Value;

/// The run's time: the model and the tools move it on as they work.
type Clock = Rc<Cell<f64>>;

const START: f64 = 1_700_000_000_000.0;

#[derive(Clone, Default)]
struct Reply {
    reasoning: &'static str,
    content: &'static str,
    calls: Vec<(&'static str, &'static str)>,
    /// Fails after streaming what it has.
    fail: Option<LlmError>,
}

fn says(content: &'static str) -> Reply {
    Reply {
        content,
        ..Reply::default()
    }
}

fn fails(e: LlmError) -> Reply {
    Reply {
        fail: Some(e),
        ..Reply::default()
    }
}

fn http(status: u16, message: &str) -> LlmError {
    LlmError::Http {
        status,
        message: Some(message.into()),
        retry_after: None,
    }
}

struct ScriptedModel {
    clock: Clock,
    replies: RefCell<VecDeque<Reply>>,
    /// What each call sent, and whether a reply came back whole.
    calls: RefCell<Vec<(Vec<ChatMessage>, bool)>>,
}

impl ScriptedModel {
    fn new(clock: &Clock, replies: impl IntoIterator<Item = Reply>) -> Self {
        Self {
            clock: clock.clone(),
            replies: RefCell::new(replies.into_iter().collect()),
            calls: RefCell::default(),
        }
    }

    fn tick(&self, ms: f64) {
        self.clock.set(self.clock.get() + ms);
    }
}

impl ChatModel for ScriptedModel {
    async fn stream_chat(
        &self,
        call: &ChatCall<'_>,
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError> {
        let reply = self
            .replies
            .borrow_mut()
            .pop_front()
            .expect("the model was called more often than scripted");
        self.calls
            .borrow_mut()
            .push((call.messages.to_vec(), reply.fail.is_none()));
        self.tick(180.0); // time to first token
        for piece in reply.reasoning.split_inclusive(' ') {
            on_delta(ChatDelta::Reasoning(piece.to_string()));
            self.tick(15.0);
        }
        let chars: Vec<char> = reply.content.chars().collect();
        for piece in chars.chunks(4) {
            on_delta(ChatDelta::Content(piece.iter().collect()));
            self.tick(15.0);
        }
        for (index, (name, args)) in reply.calls.iter().enumerate() {
            on_delta(ChatDelta::ToolCall(ToolCallDelta {
                index,
                id: Some(format!("call_{index}_{name}")),
                name: Some(name.to_string()),
                arguments: args.to_string(),
            }));
            self.tick(15.0);
        }
        if let Some(e) = reply.fail {
            return Err(e);
        }
        on_delta(ChatDelta::Usage(Usage {
            prompt_tokens: 40,
            completion_tokens: 8,
            total_tokens: 48,
        }));
        Ok(())
    }
}

/// The calculator, plus a tool that fails; every call takes 300 ms of the clock.
struct Tools {
    clock: Clock,
    registry: Registry,
}

impl Toolbox for Tools {
    fn specs(&self) -> Vec<ToolSpec> {
        let mut specs = self.registry.specs();
        specs.push(ToolSpec::new("flaky", "Always fails.", "anything"));
        specs
    }
    async fn call(&self, name: &str, args: &Value) -> Result<String, ToolFailure> {
        self.clock.set(self.clock.get() + 300.0);
        if name == "flaky" {
            return Err(
                ToolFailure::new(FailureKind::Network, "the service is down")
                    .with_detail("GET https://flaky.test/"),
            );
        }
        self.registry.call(name, args).await
    }

    /// A program here is lines of arithmetic, each given to the calculator by the gate and
    /// printed; a line `final_answer: X` ends the run.
    async fn run_program<C: ProgramCalls>(
        &self,
        code: &str,
        _: &[PythonTool],
        _: ProgramLimits,
        calls: &C,
    ) -> ProgramRun {
        let mut ran = ProgramRun::default();
        for line in code.lines() {
            if let Some(answer) = line.strip_prefix("final_answer: ") {
                ran.final_answer = Some(answer.into());
                break;
            }
            match calls
                .call("calculator", &serde_json::json!({ "input": line }))
                .await
            {
                Ok(text) => ran.printed.push_str(&format!("{text}\n")),
                Err(_) => {
                    ran.error = Some("ToolError".into());
                    break;
                }
            }
        }
        ran
    }
}

/// A mode's run, turn after turn, as the page keeps it: every event folded at its time.
struct Session {
    clock: Clock,
    model: ScriptedModel,
    tools: Tools,
    record: RunRecord,
    options: RunOptions,
}

impl Session {
    fn new(mode: Mode, replies: impl IntoIterator<Item = Reply>) -> Self {
        Self::with(mode, RunOptions::text(4), None, replies)
    }

    fn with(
        mode: Mode,
        options: RunOptions,
        context_length: Option<u32>,
        replies: impl IntoIterator<Item = Reply>,
    ) -> Self {
        let clock: Clock = Rc::new(Cell::new(START));
        let config = RunConfig {
            mode,
            model: "scripted".into(),
            max_steps: if mode.uses_tools() {
                options.max_steps
            } else {
                1
            },
            max_tokens: 64,
            context_length,
            ..RunConfig::default()
        };
        Session {
            model: ScriptedModel::new(&clock, replies),
            tools: Tools {
                clock: clock.clone(),
                registry: Registry::standard(),
            },
            record: RunRecord::new(format!("{}-run", mode.id()), START, config),
            clock,
            options,
        }
    }

    fn ask(&mut self, question: &str) -> &mut Self {
        self.go(Next::Question(question.into()))
    }

    fn go(&mut self, next: Next) -> &mut Self {
        // A user reads the answer before asking again.
        self.clock.set(self.clock.get() + 5_000.0);
        let mut record = self.record.clone();
        let clock = self.clock.clone();
        block_on(run_turn(
            self.record.clone(),
            next,
            &self.model,
            &self.tools,
            &self.options,
            &mut |e| {
                clock.set(clock.get() + 1.0);
                record.apply(clock.get(), &e);
            },
        ));
        self.record = record;
        self
    }
}

/// Replaying the record gives back its turns, its summary and how it ended.
fn assert_replays(record: &RunRecord) {
    let replay = Replay::of(record);
    let back = replay.fold();
    assert_eq!(back.turns, record.turns);
    assert_eq!(back.compaction, record.compaction);
    assert_eq!(back.status, record.status);
    assert_eq!(back.messages(), record.messages());
    // Played in steps on the clock, it ends the same.
    let mut playback = Playback::new(vec![replay.clone()]);
    let mut played = replay.start.clone();
    while !playback.is_done() {
        for (at, e) in playback.advance(40.0).remove(0) {
            played.apply(at, &e);
        }
    }
    assert_eq!(played, back);
}

/// The calls Inspect lists are calls the model got, in order, with the messages it got;
/// every call that brought a reply is among them.
fn assert_inspect_matches(session: &Session) {
    let listed = model_calls(&session.record);
    let made = session.model.calls.borrow();
    let mut next = 0;
    for call in &listed {
        let sent = call.sent(&session.record);
        assert_eq!(call.sent_count, sent.len(), "{}", call.label());
        // A call retried after a refusal sent the same again: the attempt that replied is
        // the one listed.
        let found = made[next..]
            .iter()
            .position(|(made, replied)| *made == sent && (*replied || call.reply.is_none()))
            .unwrap_or_else(|| panic!("{} sent what no call sent: {sent:#?}", call.label()));
        for (skipped, replied) in &made[next..next + found] {
            assert!(!replied, "a call with a reply is missing: {skipped:#?}");
        }
        next += found + 1;
    }
    assert!(
        made[next..].iter().all(|(_, replied)| !replied),
        "calls with replies are missing at the end"
    );
}

#[test]
fn a_react_conversation_of_two_questions_replays_and_inspects_as_it_ran() {
    let mut s = Session::new(
        Mode::ReAct,
        [
            Reply {
                reasoning: "The user wants a product. ",
                ..says("Thought: multiply.\nAction: calculator\nAction Input: 6*7")
            },
            says("Thought: it is 42.\nAnswer: 42"),
            says("Thought: now 42 * 2.\nAction: calculator\nAction Input: 42*2"),
            says("Thought: done.\nAnswer: 84"),
        ],
    );
    s.ask("What is 6 times 7?").ask("And twice that?");
    let r = &s.record;
    assert_eq!(r.turns.len(), 2);
    assert_eq!(r.answer().map(|a| a.text.as_str()), Some("84"));
    assert_replays(r);
    assert_inspect_matches(&s);
    let calls = model_calls(r);
    assert_eq!(calls.len(), 4);
    assert_eq!(calls[0].sent(r)[0].content, r.config.system_prompt);
    assert_eq!(calls[0].sent(r)[1].content, "What is 6 times 7?");
    assert_eq!(calls[0].reasoning, "The user wants a product. ");
    assert_eq!(calls[3].sent(r).len(), 8, "both turns, each with its steps");
    assert!(calls[3].usage.is_some());
}

#[test]
fn three_modes_of_one_run_replay_side_by_side() {
    let mut think = Session::new(Mode::Think, [says("Thought: 6 sevens.\nAnswer: 42")]);
    let mut act = Session::new(
        Mode::Act,
        [
            says("Action: calculator\nAction Input: 6*7"),
            says("Answer: 42"),
        ],
    );
    let mut react = Session::new(
        Mode::ReAct,
        [
            says("Thought: use flaky.\nAction: flaky\nAction Input: x"),
            says("I am not sure what format to use"),
            says("still no format"),
            says("Thought: calculator then.\nAction: calculator\nAction Input: 6*7"),
            says("Answer: 42"),
        ],
    );
    for s in [&mut think, &mut act, &mut react] {
        s.ask("What is 6 times 7?");
        assert_eq!(s.record.status, Status::Done, "{:#?}", s.record);
        assert_replays(&s.record);
        assert_inspect_matches(s);
    }
    // The failed tool and the reply that fit no format are in the replay too.
    let steps = react.record.steps();
    assert!(steps[0].tool_runs[0].is_error);
    assert!(steps[1].tool_runs[0].tool.is_empty(), "{:#?}", steps[1]);
    assert_eq!(steps[1].notices.len(), 1, "the format reminder");
    assert_eq!(
        model_calls(&react.record).len(),
        5,
        "the reminder is a call"
    );

    let records = vec![think.record, act.record, react.record];
    let mut playback = Playback::new(records.iter().map(Replay::of).collect());
    let mut shown: Vec<RunRecord> = records.iter().map(|r| Replay::of(r).start).collect();
    let mut ticks = 0;
    while !playback.is_done() {
        for (panel, due) in shown.iter_mut().zip(playback.advance(25.0)) {
            for (at, e) in due {
                panel.apply(at, &e);
            }
        }
        ticks += 1;
        if ticks == 3 {
            assert!(
                shown.iter().all(|r| r.status.is_active()),
                "the three play together"
            );
        }
    }
    for (shown, original) in shown.iter().zip(&records) {
        assert_eq!(shown.turns, original.turns);
    }
    // The Markdown export of the same run reads each mode's steps.
    let file = RunFile::new("run".into(), START, Settings::default(), records);
    let md = markdown(&file);
    assert!(
        md.contains("**Observation (error: network)**\n\n```text\nError: the service is down"),
        "{md}"
    );
    assert!(
        md.contains(
            "*Detail (the model did not read it):*\n\n```text\nGET https://flaky.test/\n```"
        ),
        "{md}"
    );
    assert!(md.contains("| Act-only | 42 | 2 | 1 |"), "{md}");
}

#[test]
fn native_calls_a_retry_and_a_cut_stream_replay_and_inspect_as_they_ran() {
    let mut s = Session::with(
        Mode::Act,
        RunOptions {
            max_steps: 4,
            plan: ProtocolPlan {
                protocol: Protocol::Native,
                fall_back_to_text: true,
            },
        },
        None,
        [
            fails(http(429, "slow down")),
            Reply {
                calls: vec![
                    ("calculator", r#"{"input":"6*7"}"#),
                    ("calculator", r#"{"input":"2+2"}"#),
                ],
                ..Reply::default()
            },
            Reply {
                fail: Some(LlmError::Network("connection reset".into())),
                ..says("Answer: 4")
            },
        ],
    );
    s.ask("6*7 and 2+2?");
    let r = &s.record;
    assert_eq!(r.status, Status::Error);
    assert!(r.last_turn().unwrap().resumable.is_some(), "{r:#?}");
    assert_eq!(r.steps()[0].live_epoch, 1, "the 429 retry");
    assert_eq!(r.steps()[0].tool_runs.len(), 2);
    assert_replays(r);
    assert_inspect_matches(&s);
    let calls = model_calls(r);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].reply.as_ref().unwrap().tool_calls.len(), 2);
    assert_eq!(
        calls[1].sent(r).last().unwrap().tool_call_id.as_deref(),
        Some("call_1_calculator")
    );
    assert!(calls[1].reply.is_none());
    assert!(calls[1].partial.starts_with("Answer"));

    // Continued after the cut, it answers; the replay shows the whole of it.
    s.model
        .replies
        .borrow_mut()
        .push_back(says("Answer: 42 and 4"));
    s.go(Next::Resume {
        step: 2,
        protocol: Protocol::Native,
    });
    assert_eq!(s.record.status, Status::Done);
    assert_replays(&s.record);
    assert_inspect_matches(&s);
}

#[test]
fn summaries_and_a_forced_answer_replay_and_inspect_as_they_ran() {
    let mut s = Session::with(
        Mode::ReAct,
        RunOptions::text(2),
        None,
        [
            says("Thought: multiply.\nAction: calculator\nAction Input: 6*7"),
            fails(http(
                400,
                "request (1566 tokens) exceeds the available context size (1024 tokens)",
            )),
            says("Asked for 6 times 7; the calculator gave 42."),
            says("Thought: check.\nAction: calculator\nAction Input: 42/6"),
            says("Answer: 42"),
            // The follow-up: the step limit, then the forced answer.
            says("Thought: add.\nAction: calculator\nAction Input: 42+1"),
            fails(http(400, "maximum context length is 1024 tokens")),
            says("Asked 6×7 (42), then 42+1 (43)."),
            says("Thought: again.\nAction: calculator\nAction Input: 43"),
            says("Answer: 43"),
        ],
    );
    s.ask("What is 6 times 7?").ask("Plus one?");
    let r = &s.record;
    assert_eq!(r.turns[0].answer.as_ref().unwrap().text, "42");
    let last = r.turns[1].answer.as_ref().unwrap();
    assert!(last.forced, "{r:#?}");
    let compaction = r.compaction.as_ref().expect("summarised");
    assert_eq!((compaction.turn, compaction.step), (1, 1));
    assert_replays(r);
    assert_inspect_matches(&s);
    let calls = model_calls(r);
    let summaries: Vec<_> = calls.iter().filter(|c| c.summary).collect();
    assert_eq!(summaries.len(), 2, "both summaries, not only the latest");
    assert!(summaries
        .iter()
        .all(|c| c.sent(r)[0].content == SUMMARY_PROMPT));
    let forced = calls.last().unwrap();
    assert!(forced.forced && forced.label().contains("Final answer"));
}

#[test]
fn a_failure_before_any_token_replays_as_the_error_it_was() {
    let mut s = Session::new(Mode::Think, [fails(http(401, "bad token"))]);
    s.ask("Hello?");
    assert_eq!(s.record.status, Status::Error);
    assert_replays(&s.record);
    let calls = model_calls(&s.record);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].sent(&s.record).len(), 2);
    assert!(calls[0].reply.is_none() && calls[0].partial.is_empty());
    // An event the replay cannot lose: the error is said at the end of the turn.
    let replay = Replay::of(&s.record);
    assert!(matches!(
        replay.events.last(),
        Some((_, AgentEvent::Error(e))) if e.contains("401")
    ));
}

#[test]
fn retried_and_continued_attempts_replay_and_export_beside_the_last() {
    let mut s = Session::with(
        Mode::ReAct,
        RunOptions::text(1),
        None,
        [
            says("Thought: add.\nAction: calculator\nAction Input: 1+1"),
            says("Answer: 2, I guess"),
            says("Thought: add again.\nAction: calculator\nAction Input: 2+2"),
            says("Thought: done.\nAnswer: 4"),
            says("Thought: once more.\nAnswer: four"),
        ],
    );
    s.ask("What is 2+2?")
        .go(Next::MoreSteps { steps: 1 })
        .go(Next::Retry);
    let r = &s.record;
    let turn = &r.turns[0];
    assert_eq!(turn.earlier.len(), 2);
    assert!(turn.earlier[0].answer.as_ref().unwrap().forced);
    assert_eq!(turn.earlier[1].answer.as_ref().unwrap().text, "4");
    assert_eq!(r.answer().unwrap().text, "four");
    assert_replays(r);
    // A blind run's letter and vote play back with it.
    let mut blind = r.clone();
    blind.blind = Some(Blind {
        label: "B".into(),
        vote: Some(BlindVote::Best),
    });
    assert_eq!(Replay::of(&blind).fold().blind, blind.blind);

    let file = RunFile::new("f".into(), START, Settings::default(), vec![r.clone()]);
    let md = markdown(&file);
    for expected in [
        "#### Attempt 1 of 3 (not sent to the model again)",
        "#### Attempt 2 of 3 (not sent to the model again)",
        "#### Attempt 3 of 3",
        "2, I guess",
        "> 4\n",
        "> four\n",
    ] {
        assert!(md.contains(expected), "{expected:?} missing from:\n{md}");
    }
    let back: RunFile = serde_json::from_str(&serde_json::to_string(&file).unwrap()).unwrap();
    assert_eq!(back.records[0].turns[0].earlier, turn.earlier);
}

#[test]
fn a_codeact_run_replays_its_programs_and_their_calls_at_their_times() {
    let mut s = Session::new(
        Mode::CodeAct,
        [
            says("Thought: two products\n```python\n6*7\n42*2\n```"),
            says("Thought: done\n```python\nfinal_answer: 84\n```"),
        ],
    );
    s.ask("What is 6 times 7, twice?");
    let r = &s.record;
    assert_eq!(r.answer().map(|a| a.text.as_str()), Some("84"));
    let runs = &r.turns[0].steps[0].tool_runs;
    assert_eq!(runs.len(), 3);
    assert!(runs[0].program && runs[1].in_program && runs[2].in_program);
    // Each call of the program has its own time (the tools' clock moved 300 ms a call).
    let took = |i: usize| runs[i].t_done.unwrap() - runs[i].t_start.unwrap();
    assert!(took(1) >= 300.0 && took(2) >= 300.0, "{runs:#?}");
    assert_replays(r);
    assert_inspect_matches(&s);
    // The program is not a tool call; the two it made are.
    assert_eq!(
        react_arena::agent::metrics::run_metrics(r, None).tool_calls,
        2
    );
    let md = markdown(&RunFile::new(
        "run".into(),
        START,
        Settings::default(),
        vec![r.clone()],
    ));
    assert!(md.contains("**Program** (CodeAct"), "{md}");
    assert_eq!(
        md.matches("**Tool call from the program:** `calculator`")
            .count(),
        2,
        "{md}"
    );
}
