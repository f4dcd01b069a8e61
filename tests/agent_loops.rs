//! The three loops end to end on the host, with a scripted model and a fake toolbox.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use react_arena::agent::action_protocol::{Protocol, ProtocolPlan};
use react_arena::agent::compaction::SUMMARY_PROMPT;
use react_arena::agent::mode::{FORCE_ANSWER_PROMPT, STOP_SEQUENCES};
use react_arena::agent::protocols::code_action::PROGRAM_TOOL;
use react_arena::agent::record::{Blind, RunRecord, Status};
use react_arena::agent::record::{RunConfig, SUMMARY_LEAD};
use react_arena::agent::run::{run_turn, Next, RunOptions};
use react_arena::agent::{run_agent, AgentEvent, ChatModel, Mode};
use react_arena::llm::tool_calls::ToolCallDelta;
use react_arena::llm::{ChatCall, ChatDelta, ChatMessage, LlmError, Role, Usage};
use react_arena::tools::program::{
    limit_error, ProgramLimits, ProgramRun, ProgramStop, PythonTool,
};
use react_arena::tools::registry::CACHED_NOTE;
use react_arena::tools::{typed, TextInput, TypedTool};
use react_arena::tools::{FailureKind, ProgramCallError, ProgramCalls, ToolFailure, Toolbox};
use react_arena::tools::{Registry, ToolSpec};
use serde::Deserialize;
use serde_json::{json, Value};

/// One scripted model reply: optional reasoning, content, and an optional failure after it.
#[derive(Clone, Default)]
struct Reply {
    reasoning: &'static str,
    content: &'static str,
    /// Native tool calls: (name, JSON arguments), streamed as fragments.
    calls: Vec<(&'static str, &'static str)>,
    fail: Option<LlmError>,
}

fn calls(calls: &[(&'static str, &'static str)]) -> Reply {
    Reply {
        calls: calls.to_vec(),
        ..Reply::default()
    }
}

fn refuses(status: u16) -> Reply {
    Reply {
        fail: Some(LlmError::Http {
            status,
            message: Some("tools not supported".into()),
            retry_after: None,
        }),
        ..Reply::default()
    }
}

fn says(content: &'static str) -> Reply {
    Reply {
        content,
        ..Reply::default()
    }
}

#[derive(Default)]
struct ScriptedModel {
    replies: RefCell<VecDeque<Reply>>,
    calls: RefCell<Vec<(Vec<ChatMessage>, Vec<String>)>>,
    /// Whether each call offered native tools.
    offered_tools: RefCell<Vec<bool>>,
}

impl ScriptedModel {
    fn new(replies: impl IntoIterator<Item = Reply>) -> Self {
        Self {
            replies: RefCell::new(replies.into_iter().collect()),
            ..Self::default()
        }
    }
    fn calls(&self) -> usize {
        self.calls.borrow().len()
    }
    fn messages_of_call(&self, i: usize) -> Vec<ChatMessage> {
        self.calls.borrow()[i].0.clone()
    }
}

impl ChatModel for ScriptedModel {
    async fn stream_chat(
        &self,
        call: &ChatCall<'_>,
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError> {
        self.calls.borrow_mut().push((
            call.messages.to_vec(),
            call.stop.iter().map(|s| s.to_string()).collect(),
        ));
        self.offered_tools.borrow_mut().push(call.tools.is_some());
        let reply = self
            .replies
            .borrow_mut()
            .pop_front()
            .expect("the model was called more often than scripted");
        if !reply.reasoning.is_empty() {
            on_delta(ChatDelta::Reasoning(reply.reasoning.to_string()));
        }
        // Stream in small pieces, as a real endpoint does.
        let chars: Vec<char> = reply.content.chars().collect();
        for piece in chars.chunks(3) {
            on_delta(ChatDelta::Content(piece.iter().collect()));
        }
        for (index, (name, args)) in reply.calls.iter().enumerate() {
            on_delta(ChatDelta::ToolCall(ToolCallDelta {
                index,
                id: Some(format!("call_{name}")),
                name: Some(name.to_string()),
                arguments: String::new(),
            }));
            for piece in args.as_bytes().chunks(4) {
                on_delta(ChatDelta::ToolCall(ToolCallDelta {
                    index,
                    arguments: String::from_utf8_lossy(piece).into_owned(),
                    ..ToolCallDelta::default()
                }));
            }
        }
        if let Some(e) = reply.fail {
            return Err(e);
        }
        on_delta(ChatDelta::Usage(Usage {
            prompt_tokens: 10,
            completion_tokens: 5,
            total_tokens: 15,
        }));
        Ok(())
    }
}

/// The text a call's arguments were: a string as it is, other JSON as JSON text.
fn input_text(args: &Value) -> String {
    args.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| args.to_string())
}

/// A toolbox with the real calculator plus a tool that always fails.
struct FakeTools {
    registry: Registry,
    calls: RefCell<Vec<(String, String)>>,
    /// The programs run, with the functions they were given.
    programs: RefCell<Vec<(String, Vec<PythonTool>)>>,
    /// Times the loop said calls were beginning (a step's, or one call of a program's).
    begun: std::cell::Cell<usize>,
    /// The interpreter's variables (`name = "value"` lines), kept from program to program.
    variables: RefCell<std::collections::HashMap<String, String>>,
}

impl FakeTools {
    fn new() -> Self {
        Self::with(Registry::standard())
    }

    fn with(registry: Registry) -> Self {
        Self {
            registry,
            calls: RefCell::new(Vec::new()),
            programs: RefCell::new(Vec::new()),
            begun: std::cell::Cell::new(0),
            variables: RefCell::default(),
        }
    }
}

/// The arguments of [`Forecast`], a typed tool of two fields.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct ForecastArgs {
    location: String,
    #[serde(default)]
    days: Option<u8>,
    #[serde(default)]
    units: Option<String>,
}

/// A typed tool that keeps the arguments it was given.
#[derive(Default)]
struct Forecast(Rc<RefCell<Vec<ForecastArgs>>>);

impl TypedTool for Forecast {
    const NAME: &'static str = "forecast";
    const DESCRIPTION: &'static str = "The forecast for a place.";
    const INPUT_HINT: &'static str = "a place name";
    type Args = ForecastArgs;

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "days": {"type": "integer"},
                "units": {"type": "string"},
            },
            "required": ["location"],
        })
    }

    fn run(&self, args: ForecastArgs) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
        let text = format!("{} for {} day(s)", args.location, args.days.unwrap_or(1));
        self.0.borrow_mut().push(args);
        Box::pin(async move { Ok(text) })
    }
}

/// A typed tool of one string that keeps what it was given.
#[derive(Default)]
struct Echo(Rc<RefCell<Vec<String>>>);

impl TypedTool for Echo {
    const NAME: &'static str = "echo";
    const DESCRIPTION: &'static str = "Says the input back.";
    const INPUT_HINT: &'static str = "any text";
    type Args = TextInput;

    fn run(&self, args: TextInput) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
        self.0.borrow_mut().push(args.input.clone());
        Box::pin(async move { Ok(format!("echo: {}", args.input)) })
    }
}

/// A typed tool whose result is structured: the model reads a sentence, a program a dict.
struct Station;

#[derive(Debug, Deserialize)]
struct StationArgs {
    city: String,
}

impl TypedTool for Station {
    const NAME: &'static str = "station_code";
    const DESCRIPTION: &'static str = "The station code of a city.";
    const INPUT_HINT: &'static str = "a city";
    type Args = StationArgs;

    fn parameters() -> Value {
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    }

    fn run(&self, args: StationArgs) -> LocalBoxFuture<'_, Result<String, ToolFailure>> {
        Box::pin(async move { Ok(format!("The station code of {} is PS-2643.", args.city)) })
    }

    fn output_schema() -> Option<Value> {
        Some(json!({"type": "object", "properties": {"city": {}, "code": {}}}))
    }

    fn run_value(&self, args: StationArgs) -> LocalBoxFuture<'_, Result<Value, ToolFailure>> {
        Box::pin(async move { Ok(json!({"city": args.city, "code": "PS-2643"})) })
    }
}

/// What only the user may read of the flaky tool's failure.
const FLAKY_DETAIL: &str = "GET https://flaky.test/api?key=secret answered HTTP 503";

impl Toolbox for FakeTools {
    fn specs(&self) -> Vec<ToolSpec> {
        let mut specs = self.registry.specs();
        specs.push(ToolSpec::new("flaky", "Always fails.", "anything"));
        specs
    }
    fn begin_calls(&self) {
        self.begun.set(self.begun.get() + 1);
    }

    async fn call(&self, name: &str, args: &Value) -> Result<String, ToolFailure> {
        self.calls
            .borrow_mut()
            .push((name.to_string(), input_text(args)));
        if name == "flaky" {
            return Err(
                ToolFailure::new(FailureKind::Upstream, "the service is down")
                    .with_detail(FLAKY_DETAIL),
            );
        }
        self.registry.call(name, args).await
    }

    /// A tool with an output schema gives the program its JSON, through the registry's
    /// value path; every other call is [`Self::call`]'s text.
    async fn call_value(&self, name: &str, args: &Value) -> Result<Value, ToolFailure> {
        let structured = self
            .registry
            .specs()
            .iter()
            .any(|s| s.name == name && s.output_schema.is_some());
        if !structured {
            return self.call(name, args).await.map(Value::String);
        }
        self.calls
            .borrow_mut()
            .push((name.to_string(), input_text(args)));
        self.registry.call_value(name, args).await
    }

    /// A stand-in for the page's Python sandbox, enough for the loop: each line is
    /// `print(tool(name="value"))`, `tool(name="value")`, `final_answer("text")`,
    /// `raise Error("text")` or `while True: pass` (which never ends: the time limit stops it).
    /// A failed call raises in the program, and so does one over the step's call limit.
    async fn run_program<C: ProgramCalls>(
        &self,
        code: &str,
        tools: &[PythonTool],
        limits: ProgramLimits,
        calls: &C,
    ) -> ProgramRun {
        self.programs
            .borrow_mut()
            .push((code.to_string(), tools.to_vec()));
        let mut ran = ProgramRun::default();
        for line in code.lines() {
            // The check of a bare reply, `compile(<the reply as JSON>, '<reply>', 'exec')`: it
            // compiles when each of its lines is one this stand-in runs.
            if let Some(rest) = line.strip_prefix("compile(") {
                let literal = &rest[..rest.rfind(", '<reply>'").expect("the check's form")];
                let source: String = serde_json::from_str(literal).unwrap();
                let name =
                    |n: &str| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_');
                let runs = |l: &str| {
                    l.split_once('(').is_some_and(|(f, _)| name(f))
                        || l.split_once(" = ").is_some_and(|(v, _)| name(v))
                };
                if !source.lines().all(runs) {
                    ran.error =
                        Some("  File \"<reply>\", line 1\nSyntaxError: invalid syntax".into());
                }
                break;
            }
            // `name = "value"` keeps a variable for this program and the run's next ones.
            if let Some((name, value)) = line.split_once(" = ") {
                self.variables
                    .borrow_mut()
                    .insert(name.to_string(), value.trim_matches('"').to_string());
                continue;
            }
            let (printed, line) = match line.strip_prefix("print(") {
                Some(inner) => (true, inner.strip_suffix(')').unwrap_or(inner)),
                None => (false, line),
            };
            if line.starts_with("while True") {
                ran.stopped = Some(ProgramStop::TimeLimit {
                    secs: limits.step_secs,
                });
                break;
            }
            if let Some(message) = line.strip_prefix("raise Error(\"") {
                ran.error = Some(format!(
                    "Traceback (most recent call last):\n  File \"<exec>\", line 1\nError: {}",
                    message.trim_end_matches("\")")
                ));
                break;
            }
            // `tool(name="value")["key"]` indexes the result.
            let (line, index) = match line.strip_suffix("\"]").and_then(|l| l.rsplit_once(")[\"")) {
                Some((call, key)) => (call, Some(key)),
                None => (line, None),
            };
            let (function, rest) = line.split_once('(').expect("a call");
            let inner = rest.trim_end_matches(')');
            if function == "final_answer" {
                let variable = self.variables.borrow().get(inner).cloned();
                ran.final_answer = Some(variable.unwrap_or_else(|| inner.trim_matches('"').into()));
                break;
            }
            let (key, value) = inner.split_once('=').expect("a keyword argument");
            let kwargs = json!({ key: value.trim_matches('"') });
            match calls.call(function, &kwargs).await {
                // `tool(...)["key"]`: a dict's item, as Python indexes one; a `str` raises.
                Ok(value) if index.is_some() => {
                    let key = index.unwrap();
                    match &value[key] {
                        Value::Null => {
                            ran.error = Some(format!(
                                "TypeError: string indices must be integers, not 'str' ({value})"
                            ));
                            break;
                        }
                        Value::String(item) if printed => {
                            ran.printed.push_str(&format!("{item}\n"))
                        }
                        item if printed => ran.printed.push_str(&format!("{item}\n")),
                        _ => {}
                    }
                }
                Ok(Value::String(text)) if printed => ran.printed.push_str(&format!("{text}\n")),
                Ok(_) => {}
                Err(ProgramCallError::Failed(message)) => {
                    ran.error = Some(format!("ToolError: {message}"));
                    break;
                }
                // Uncaught here: the program ends with it, as a real one that does not catch it.
                Err(ProgramCallError::Limit(stop)) => {
                    ran.error = Some(format!("CallLimitError: {}", limit_error(stop)));
                    break;
                }
            }
        }
        ran
    }
}

fn run(
    mode: Mode,
    model: &ScriptedModel,
    tools: &FakeTools,
    max_steps: u32,
) -> (Vec<AgentEvent>, RunRecord) {
    let mut events = Vec::new();
    let mut panel = RunRecord::default();
    block_on(run_agent(
        mode,
        "What is 6 times 7?",
        model,
        tools,
        &RunOptions::text(max_steps),
        &mut |e| {
            panel.apply(0.0, &e);
            events.push(e);
        },
    ));
    (events, panel)
}

fn answer_of(events: &[AgentEvent]) -> Option<(String, bool, u32)> {
    events.iter().find_map(|e| match e {
        AgentEvent::Answer { text, forced, step } => Some((text.clone(), *forced, *step)),
        _ => None,
    })
}

#[test]
fn react_uses_the_calculator_then_answers() {
    let model = ScriptedModel::new([
        says("Thought: I should multiply.\nAction: calculator\nAction Input: 6*7"),
        says("Thought: The calculator says 42.\nAnswer: 42"),
    ]);
    let tools = FakeTools::new();
    let (events, panel) = run(Mode::ReAct, &model, &tools, 5);

    assert_eq!(
        *tools.calls.borrow(),
        vec![("calculator".to_string(), "6*7".to_string())]
    );
    assert!(events.contains(&AgentEvent::Thought("I should multiply.".into())));
    assert!(events.contains(&AgentEvent::Observation {
        text: "42".into(),
        is_error: false,
        failure: None,
    }));
    assert_eq!(answer_of(&events), Some(("42".into(), false, 2)));
    // The observation went back to the model, and the stop sequence was asked for.
    let second = model.messages_of_call(1);
    assert_eq!(
        second.last().unwrap(),
        &ChatMessage::user("Observation: 42")
    );
    assert_eq!(
        model.calls.borrow()[0].1,
        STOP_SEQUENCES.map(String::from).to_vec()
    );
    assert!(
        second[0].content.contains("- calculator:"),
        "tools are listed in the system prompt"
    );
    assert_eq!(panel.status, Status::Done);
    assert_eq!(panel.usage().total_tokens, 30);
    assert_eq!(panel.steps().len(), 2);
}

#[test]
fn act_only_shows_no_thoughts() {
    let model = ScriptedModel::new([
        says("Thought: sneaky\nAction: calculator\nAction Input: 2+2"),
        says("Answer: 4"),
    ]);
    let tools = FakeTools::new();
    let (events, _) = run(Mode::Act, &model, &tools, 5);
    assert!(!events.iter().any(|e| matches!(e, AgentEvent::Thought(_))));
    assert_eq!(answer_of(&events), Some(("4".into(), false, 2)));
    assert!(
        !model.messages_of_call(0)[0].content.contains("Thought:"),
        "Act prompt asks for no thoughts"
    );
}

#[test]
fn a_blind_run_keeps_the_same_thought_in_every_mode() {
    // The same reply in each mode: the records must not tell the modes apart by it.
    let reply = "Thought: six sevens.\nAnswer: 42";
    let steps: Vec<_> = Mode::ALL
        .into_iter()
        .map(|mode| {
            let config = RunConfig {
                mode,
                ..RunConfig::default()
            };
            let record = RunRecord {
                blind: Some(Blind {
                    label: "A".into(),
                    vote: None,
                }),
                ..RunRecord::new("r", 0.0, config)
            };
            let model = ScriptedModel::new([says(reply)]);
            let done = block_on(run_turn(
                record,
                Next::Question("What is 6 times 7?".into()),
                &model,
                &FakeTools::new(),
                &RunOptions::text(5),
                &mut |_| {},
            ));
            let step = &done.steps()[0];
            (step.thought.clone(), done.answer().map(|a| a.text.clone()))
        })
        .collect();
    let same = (Some("six sevens.".to_string()), Some("42".to_string()));
    assert_eq!(steps, [same.clone(), same.clone(), same.clone(), same]);
}

#[test]
fn think_only_streams_reasoning_then_answers_without_tools() {
    let model = ScriptedModel::new([Reply {
        reasoning: "France's capital…",
        content: "Thought: It is Paris.\nAnswer: Paris",
        ..Reply::default()
    }]);
    let tools = FakeTools::new();
    let (events, panel) = run(Mode::Think, &model, &tools, 5);
    let reasoning_at = events
        .iter()
        .position(|e| matches!(e, AgentEvent::Reasoning(_)))
        .unwrap();
    let answer_at = events
        .iter()
        .position(|e| matches!(e, AgentEvent::Answer { .. }))
        .unwrap();
    assert!(reasoning_at < answer_at);
    assert_eq!(answer_of(&events), Some(("Paris".into(), false, 1)));
    assert!(tools.calls.borrow().is_empty());
    assert_eq!(model.calls(), 1);
    assert!(!model.messages_of_call(0)[0].content.contains("calculator"));
    assert_eq!(panel.steps()[0].reasoning, "France's capital…");
}

#[test]
fn think_only_without_the_answer_label_answers_with_the_whole_reply() {
    let model = ScriptedModel::new([says("It is Paris.")]);
    let (events, _) = run(Mode::Think, &model, &FakeTools::new(), 5);
    assert_eq!(answer_of(&events), Some(("It is Paris.".into(), false, 1)));
}

#[test]
fn think_only_with_nothing_to_show_is_an_error() {
    let model = ScriptedModel::new([Reply {
        reasoning: "long thinking",
        content: "",
        ..Reply::default()
    }]);
    let (events, panel) = run(Mode::Think, &model, &FakeTools::new(), 5);
    assert!(matches!(events.last(), Some(AgentEvent::Error(m)) if m.contains("max tokens")));
    assert_eq!(panel.status, Status::Error);
}

#[test]
fn unknown_tools_and_garbage_become_observations_and_the_loop_goes_on() {
    let model = ScriptedModel::new([
        says("Thought: search it\nAction: wikipedia\nAction Input: Paris"),
        says("I am not sure what to do."),
        says("Still not sure."),
        says("Action: flaky\nAction Input: x"),
        says("Answer: 42"),
    ]);
    let tools = FakeTools::new();
    let (events, panel) = run(Mode::ReAct, &model, &tools, 5);
    let observations: Vec<(String, bool)> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Observation { text, is_error, .. } => Some((text.clone(), *is_error)),
            _ => None,
        })
        .collect();
    // Each failure's kind: no such tool, none (the reply fit no format), the service's error.
    let kinds: Vec<Option<FailureKind>> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Observation { failure, .. } => Some(failure.as_ref().map(|f| f.kind)),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [
            Some(FailureKind::NotFound),
            None,
            Some(FailureKind::Upstream)
        ]
    );
    // The detail is the user's: in the record and its export, never in what the model read.
    let flaky_run = panel
        .steps()
        .iter()
        .flat_map(|s| &s.tool_runs)
        .find(|r| r.tool == "flaky")
        .expect("the flaky call is in the record");
    assert_eq!(
        flaky_run.failure.as_ref().and_then(|f| f.detail.as_deref()),
        Some(FLAKY_DETAIL)
    );
    assert!(model
        .messages_of_call(4)
        .iter()
        .all(|m| !m.content.contains("flaky.test")));
    assert_eq!(observations.len(), 3);
    assert!(observations[0].1 && observations[0].0.contains("no tool named \"wikipedia\""));
    assert!(
        observations[1].1
            && observations[1]
                .0
                .contains("neither an 'Action:' line nor an 'Answer:' line")
    );
    assert!(observations[2].1 && observations[2].0.contains("the service is down"));
    // Each failed step counted: the answer came at step 4.
    assert_eq!(answer_of(&events), Some(("42".into(), false, 4)));
    assert_eq!(panel.step_number(), 4);
    // The first unreadable reply got a format reminder (same step), the second counted.
    let reminder = model.messages_of_call(2);
    assert!(reminder
        .last()
        .unwrap()
        .content
        .contains("did not follow the format"));
    assert!(events
        .iter()
        .any(|e| matches!(e, AgentEvent::Notice(n) if n.contains("format reminder"))));
    // The model was told what went wrong.
    assert!(model
        .messages_of_call(3)
        .last()
        .unwrap()
        .content
        .starts_with("Observation: Error: The reply has neither"));
}

#[test]
fn the_same_call_three_times_in_a_row_is_refused() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 2+2"),
        says("Action: calculator\nAction Input: 2+2"),
        says("Action: calculator\nAction Input: 2+2"),
        says("Answer: 4"),
    ]);
    let tools = FakeTools::new();
    let (events, _) = run(Mode::Act, &model, &tools, 5);
    assert_eq!(
        tools.calls.borrow().len(),
        2,
        "the third identical call was not run"
    );
    let last_observation = events.iter().rev().find_map(|e| match e {
        AgentEvent::Observation { text, is_error, .. } => Some((text.clone(), *is_error)),
        _ => None,
    });
    let (text, is_error) = last_observation.unwrap();
    assert!(
        is_error && text.contains("same input 3 times in a row"),
        "{text}"
    );
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::Observation { failure: Some(f), .. } if f.kind == FailureKind::Repeated
    )));
    assert_eq!(answer_of(&events), Some(("4".into(), false, 4)));
}

#[test]
fn step_limit_forces_one_final_answer_without_tools() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 1+1"),
        says("Action: calculator\nAction Input: 2+2"),
        says("Answer: 4, I think"),
    ]);
    let tools = FakeTools::new();
    let (events, panel) = run(Mode::ReAct, &model, &tools, 2);
    assert_eq!(model.calls(), 3);
    assert_eq!(
        tools.calls.borrow().len(),
        2,
        "no tool runs during the forced call"
    );
    let last_call = model.messages_of_call(2);
    assert_eq!(
        last_call.last().unwrap(),
        &ChatMessage::user(FORCE_ANSWER_PROMPT)
    );
    assert!(events.contains(&AgentEvent::StepStarted {
        step: 3,
        forced: true
    }));
    assert_eq!(answer_of(&events), Some(("4, I think".into(), true, 3)));
    assert!(panel.answer().unwrap().forced);
}

#[test]
fn forced_answer_without_label_takes_the_whole_reply() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 1+1"),
        says("Probably 2."),
    ]);
    let (events, _) = run(Mode::Act, &model, &FakeTools::new(), 1);
    assert_eq!(answer_of(&events), Some(("Probably 2.".into(), true, 2)));
}

#[test]
fn a_model_failure_ends_the_run_and_keeps_what_streamed() {
    let model = ScriptedModel::new([
        says("Thought: compute\nAction: calculator\nAction Input: 3*3"),
        Reply {
            content: "Thought: nearly th",
            fail: Some(LlmError::Http {
                status: 429,
                message: None,
                retry_after: None,
            }),
            ..Reply::default()
        },
    ]);
    let (events, panel) = run(Mode::ReAct, &model, &FakeTools::new(), 5);
    assert!(matches!(events.last(), Some(AgentEvent::Error(m)) if m.contains("429")));
    assert_eq!(panel.status, Status::Error);
    assert_eq!(panel.steps()[1].live, "Thought: nearly th");
    assert_eq!(panel.steps()[0].observations(), [("9".to_string(), false)]);
    assert!(answer_of(&events).is_none());
}

#[test]
fn stop_ends_the_run_as_stopped_not_as_an_error() {
    let model = ScriptedModel::new([Reply {
        content: "Thought: half a tho",
        fail: Some(LlmError::Aborted),
        ..Reply::default()
    }]);
    let (events, panel) = run(Mode::ReAct, &model, &FakeTools::new(), 5);
    assert_eq!(events.last(), Some(&AgentEvent::Stopped));
    assert_eq!(panel.status, Status::Stopped);
    assert_eq!(panel.error(), None);
    assert_eq!(panel.steps()[0].live, "Thought: half a tho");
    assert_eq!(model.calls(), 1, "no further call after Stop");
}

#[test]
fn the_record_holds_the_whole_exchange_and_the_conversation_is_its_view() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 6*7"),
        says("Answer: 42"),
    ]);
    let tools = FakeTools::new();
    // What the page keeps: the same events folded by the same reducer.
    let mut watched = RunRecord::new(
        "",
        0.0,
        RunConfig {
            mode: Mode::Act,
            max_steps: 5,
            ..RunConfig::default()
        },
    );
    let record = block_on(run_agent(
        Mode::Act,
        "  q  ",
        &model,
        &tools,
        &RunOptions::text(5),
        &mut |e| watched.apply(0.0, &e),
    ));
    assert_eq!(watched, record, "the page's record is the loop's");
    let messages = record.messages();
    let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::System,
            Role::User,
            Role::Assistant,
            Role::User,
            Role::Assistant
        ]
    );
    assert_eq!(messages[1].content, "q");
    assert_eq!(messages[3].content, "Observation: 42");
    // Each call sent exactly the record's conversation as it stood.
    assert_eq!(model.messages_of_call(0), messages[..2]);
    assert_eq!(model.messages_of_call(1), messages[..4]);
    let json = serde_json::to_string(&record).unwrap();
    assert!(json.contains("\"role\":\"assistant\""));
    let back: RunRecord = serde_json::from_str(&json).unwrap();
    assert_eq!(back.messages(), messages);
}

#[test]
fn a_follow_up_continues_the_same_conversation() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 6*7"),
        says("Answer: 42"),
        says("Action: calculator\nAction Input: 42*3"),
        says("Answer: 126"),
    ]);
    let tools = FakeTools::new();
    let first = block_on(run_agent(
        Mode::ReAct,
        "What is 6 times 7?",
        &model,
        &tools,
        &RunOptions::text(5),
        &mut |_| {},
    ));
    let mut events = Vec::new();
    let second = block_on(run_turn(
        first,
        Next::Question("And times 3?".into()),
        &model,
        &tools,
        &RunOptions::text(5),
        &mut |e| events.push(e),
    ));
    assert_eq!(answer_of(&events), Some(("126".into(), false, 2)));
    assert_eq!(second.turns.len(), 2);
    let sent = model.messages_of_call(2);
    let contents: Vec<&str> = sent.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        contents[1..],
        [
            "What is 6 times 7?",
            "Action: calculator\nAction Input: 6*7",
            "Observation: 42",
            "Answer: 42",
            "And times 3?"
        ],
        "the follow-up call carries the first turn"
    );
    assert_eq!(sent[0], second.messages()[0], "one system prompt");
    assert_eq!(second.turns[1].steps.len(), 2, "steps count per turn");
}

fn run_with(
    mode: Mode,
    model: &ScriptedModel,
    tools: &FakeTools,
    protocol: Protocol,
) -> (Vec<AgentEvent>, RunRecord) {
    let mut events = Vec::new();
    let mut panel = RunRecord::default();
    let options = RunOptions {
        max_steps: 4,
        plan: ProtocolPlan {
            protocol,
            fall_back_to_text: true,
        },
    };
    block_on(run_agent(mode, "q", model, tools, &options, &mut |e| {
        panel.apply(0.0, &e);
        events.push(e);
    }));
    (events, panel)
}

#[test]
fn native_calls_run_together_and_answer_with_matching_tool_messages() {
    let model = ScriptedModel::new([
        Reply {
            content: "I need two numbers.",
            ..calls(&[
                ("calculator", r#"{"input": "6*7"}"#),
                ("calculator", r#"{"input": "2+2"}"#),
            ])
        },
        says("Both known: 42 and 4."),
    ]);
    let tools = FakeTools::new();
    let (events, panel) = run_with(Mode::ReAct, &model, &tools, Protocol::Native);
    assert_eq!(*model.offered_tools.borrow(), [true, true]);
    assert_eq!(panel.steps()[0].actions().len(), 2);
    assert_eq!(
        panel.steps()[0].observations(),
        [("42".to_string(), false), ("4".to_string(), false)]
    );
    assert_eq!(
        panel.steps()[0].thought.as_deref(),
        Some("I need two numbers.")
    );
    // Plain text without a call is the answer in the native protocol.
    assert_eq!(
        answer_of(&events),
        Some(("Both known: 42 and 4.".into(), false, 2))
    );
    let second = model.messages_of_call(1);
    let n = second.len();
    assert_eq!(second[n - 3].tool_calls.len(), 2);
    assert_eq!(second[n - 2].role, Role::Tool);
    assert_eq!(
        second[n - 2].tool_call_id.as_deref(),
        Some("call_calculator")
    );
    assert_eq!(second[n - 1].content, "4");
}

#[test]
fn a_bare_json_call_in_content_is_understood() {
    let model = ScriptedModel::new([
        says(r#"{"name": "calculator", "arguments": {"input": "3*3"}}"#),
        says("Answer: 9"),
    ]);
    let (events, panel) = run_with(Mode::Act, &model, &FakeTools::new(), Protocol::Native);
    assert_eq!(panel.steps()[0].observations(), [("9".to_string(), false)]);
    assert_eq!(answer_of(&events), Some(("9".into(), false, 2)));
    // No call id to answer: the result goes back as a text observation.
    assert_eq!(
        model.messages_of_call(1).last().unwrap().content,
        "Observation: 9"
    );
}

#[test]
fn a_refused_tools_parameter_switches_to_text_once() {
    let model = ScriptedModel::new([
        refuses(422),
        says("Action: calculator\nAction Input: 5*5"),
        says("Answer: 25"),
    ]);
    let (events, _) = run_with(Mode::Act, &model, &FakeTools::new(), Protocol::Native);
    assert_eq!(*model.offered_tools.borrow(), [true, false, false]);
    let notices: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Notice(n) if n.contains("HTTP 422")))
        .collect();
    assert_eq!(notices.len(), 1);
    assert!(model.messages_of_call(1)[0]
        .content
        .contains("Action Input:"));
    assert_eq!(answer_of(&events), Some(("25".into(), false, 2)));
}

#[test]
fn json_reactions_run_several_actions_and_finish_with_an_answer() {
    let model = ScriptedModel::new([
        says(
            r#"```json
[{"action": "calculator", "arguments": ["6*7"], "explanation": "first"},
 {"action": "calculator", "arguments": ["1+1"], "explanation": "second"}]
```"#,
        ),
        says(r#"[{"action": "answer", "arguments": ["42 and 2"], "explanation": "done"}]"#),
    ]);
    let (events, panel) = run_with(Mode::ReAct, &model, &FakeTools::new(), Protocol::Json);
    assert_eq!(
        panel.steps()[0].observations(),
        [("42".to_string(), false), ("2".to_string(), false)]
    );
    assert!(model
        .messages_of_call(1)
        .last()
        .unwrap()
        .content
        .starts_with("Observations:\n1. 42\n2. 2"));
    assert_eq!(answer_of(&events), Some(("42 and 2".into(), false, 2)));
    assert!(model.messages_of_call(0)[0].content.contains("\"action\""));
}

#[test]
fn think_tags_in_content_become_reasoning() {
    let model = ScriptedModel::new([says("<think>6 sevens are 42</think>Answer: 42")]);
    let (events, panel) = run(Mode::Think, &model, &FakeTools::new(), 1);
    assert_eq!(panel.steps()[0].reasoning, "6 sevens are 42");
    assert_eq!(answer_of(&events), Some(("42".into(), false, 1)));
}

#[test]
fn a_cut_stream_can_be_continued_from_the_same_step() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 2*3"),
        Reply {
            content: "Thought: halfway thr",
            fail: Some(LlmError::Network("connection reset".into())),
            ..Reply::default()
        },
    ]);
    let tools = FakeTools::new();
    let (events, panel) = run(Mode::ReAct, &model, &tools, 5);
    let (step, protocol) = panel
        .last_turn()
        .and_then(|t| t.resumable)
        .expect("the cut run can be continued");
    assert_eq!(step, 2);
    assert_eq!(panel.status, Status::Error);
    assert!(events
        .iter()
        .any(|e| matches!(e, AgentEvent::Warning(w) if w.contains("cut"))));
    // The conversation to continue from ends with the observation, not the broken reply.
    assert_eq!(panel.messages().last().unwrap().content, "Observation: 6");

    let again = ScriptedModel::new([says("Answer: 6")]);
    let mut panel = panel;
    let mut events = Vec::new();
    panel.apply(0.0, &AgentEvent::GoingOn);
    block_on(run_turn(
        panel.clone(),
        Next::Resume { step, protocol },
        &again,
        &tools,
        &RunOptions::text(5),
        &mut |e| {
            panel.apply(0.0, &e);
            events.push(e);
        },
    ));
    assert_eq!(answer_of(&events), Some(("6".into(), false, 2)));
    assert_eq!(panel.status, Status::Done);
    assert_eq!(panel.error(), None);
    assert!(
        panel.steps()[1].live.contains("halfway thr"),
        "what arrived before the cut stays"
    );
    // The continued call saw the whole conversation up to the cut.
    assert_eq!(
        again.messages_of_call(0).last().unwrap().content,
        "Observation: 6"
    );
}

#[test]
fn a_failure_before_any_token_is_not_resumable() {
    let model = ScriptedModel::new([Reply {
        fail: Some(LlmError::Http {
            status: 401,
            message: None,
            retry_after: None,
        }),
        ..Reply::default()
    }]);
    let (_, panel) = run(Mode::Act, &model, &FakeTools::new(), 5);
    assert_eq!(panel.status, Status::Error);
    assert!(panel.last_turn().unwrap().resumable.is_none());
}

fn context_error() -> Reply {
    Reply {
        fail: Some(LlmError::Http {
            status: 400,
            message: Some(
                "request (1566 tokens) exceeds the available context size (1024 tokens), try increasing it"
                    .into(),
            ),
            retry_after: None,
        }),
        ..Reply::default()
    }
}

#[test]
fn a_context_overflow_is_summarised_and_the_call_made_again() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 6*7"),
        context_error(),
        says("The user asked for 6 times 7; the calculator gave 42."),
        says("Answer: 42"),
    ]);
    let (events, panel) = run(Mode::ReAct, &model, &FakeTools::new(), 5);
    assert_eq!(answer_of(&events), Some(("42".into(), false, 2)));
    let summary_call = model.messages_of_call(2);
    assert_eq!(summary_call[0].content, SUMMARY_PROMPT);
    assert!(summary_call[1].content.contains("Observation: 42"));
    let retried = model.messages_of_call(3);
    let contents: Vec<&str> = retried.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(contents.len(), 3, "system, summary, question: {contents:?}");
    assert!(contents[1].starts_with(SUMMARY_LEAD), "{contents:?}");
    assert!(contents[1].contains("the calculator gave 42"));
    assert_eq!(contents[2], "What is 6 times 7?");
    assert!(
        panel.steps()[1]
            .notices
            .iter()
            .any(|n| n.contains("summarised to fit the model's context")),
        "{:?}",
        panel.steps()[1].notices
    );
    assert_eq!(panel.status, Status::Done);
}

#[test]
fn a_known_context_window_triggers_the_summary_before_the_call() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 6*7"),
        says("Asked 6 times 7; got 42."),
        says("Answer: 42"),
    ]);
    let tools = FakeTools::new();
    let record = RunRecord::new(
        "",
        0.0,
        RunConfig {
            mode: Mode::ReAct,
            max_steps: 5,
            max_tokens: 64,
            // Less than the system prompt alone: the second step must summarise first.
            context_length: Some(100),
            ..RunConfig::default()
        },
    );
    let done = block_on(run_turn(
        record,
        Next::Question("What is 6 times 7?".into()),
        &model,
        &tools,
        &RunOptions::text(5),
        &mut |_| {},
    ));
    assert_eq!(done.answer().map(|a| a.text.as_str()), Some("42"));
    assert_eq!(model.messages_of_call(1)[0].content, SUMMARY_PROMPT);
    assert!(model.messages_of_call(2)[1].content.contains("got 42"));
    assert_eq!(
        done.compaction.as_ref().map(|c| (c.turn, c.step)),
        Some((0, 1))
    );
    // Nothing new to summarise on the first step, and never twice for one point.
    assert_eq!(model.calls(), 3);
}

#[test]
fn native_structured_arguments_reach_a_typed_tool_typed() {
    let forecast = Forecast::default();
    let given = forecast.0.clone();
    let tools = FakeTools::with(Registry::new(vec![typed(forecast)]));
    let model = ScriptedModel::new([
        calls(&[
            ("forecast", r#"{"location": "Paris", "days": 3}"#),
            ("forecast", r#"{"location": "Oslo", "days": "three"}"#),
        ]),
        says("Paris: 3 days."),
    ]);
    let (_, panel) = run_with(Mode::Act, &model, &tools, Protocol::Native);
    assert_eq!(
        *given.borrow(),
        [ForecastArgs {
            location: "Paris".into(),
            days: Some(3),
            units: None,
        }],
        "the ill-typed call did not run"
    );
    let observations = panel.steps()[0].observations();
    assert_eq!(observations[0], ("Paris for 3 day(s)".to_string(), false));
    let (error, is_error) = &observations[1];
    assert!(*is_error);
    assert!(
        error.contains(
            "The arguments of forecast do not fit: `days` should be an integer, not a string."
        ),
        "{error}"
    );
}

#[test]
fn a_text_action_input_reaches_a_single_string_tool_and_json_text_a_typed_one() {
    let (echo, forecast) = (Echo::default(), Forecast::default());
    let (echoed, forecasts) = (echo.0.clone(), forecast.0.clone());
    let tools = FakeTools::with(Registry::new(vec![typed(echo), typed(forecast)]));
    let model = ScriptedModel::new([
        says("Thought: say it.\nAction: echo\nAction Input: hello,  world"),
        says("Thought: and Rome.\nAction: forecast\nAction Input: {\"location\": \"Rome\", \"units\": \"metric\", \"days\": 2}"),
        says("Thought: and a bare place.\nAction: Forecast\nAction Input: Lima"),
        says("Answer: done"),
    ]);
    let (events, panel) = run_with(Mode::ReAct, &model, &tools, Protocol::Text);
    assert_eq!(*echoed.borrow(), ["hello,  world"]);
    assert_eq!(
        *forecasts.borrow(),
        [
            ForecastArgs {
                location: "Rome".into(),
                days: Some(2),
                units: Some("metric".into()),
            },
            ForecastArgs {
                location: "Lima".into(),
                days: None,
                units: None,
            },
        ]
    );
    assert_eq!(
        panel.steps()[0].observations(),
        [("echo: hello,  world".to_string(), false)]
    );
    assert_eq!(answer_of(&events), Some(("done".into(), false, 4)));
}

/// Issue 38: the text protocol's reader unwrapped an Action Input object of one string field
/// before the registry saw it, so the tool got that string as its text argument and the
/// object's other fields (`days`) were lost. Now the object reaches the registry whole.
#[test]
fn a_text_object_reaches_the_registry_whole() {
    let forecast = Forecast::default();
    let forecasts = forecast.0.clone();
    let tools = FakeTools::with(Registry::new(vec![typed(forecast)]));
    let model = ScriptedModel::new([
        says("Action: forecast\nAction Input: {\"location\": \"Oslo\", \"days\": 2}"),
        says("Answer: done"),
    ]);
    run_with(Mode::Act, &model, &tools, Protocol::Text);
    assert_eq!(
        *forecasts.borrow(),
        [ForecastArgs {
            location: "Oslo".into(),
            days: Some(2),
            units: None,
        }]
    );
}

/// Runs `next` on `panel` as the page does: every event into the panel's own copy.
fn go_on(
    panel: &mut RunRecord,
    next: Next,
    model: &ScriptedModel,
    max_steps: u32,
) -> Vec<AgentEvent> {
    let mut events = Vec::new();
    block_on(run_turn(
        panel.clone(),
        next,
        model,
        &FakeTools::new(),
        &RunOptions::text(max_steps),
        &mut |e| {
            panel.apply(0.0, &e);
            events.push(e);
        },
    ));
    events
}

#[test]
fn retry_asks_the_same_question_again_and_keeps_the_first_attempt() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 6*7"),
        says("Answer: 41"),
    ]);
    let (_, mut panel) = run(Mode::ReAct, &model, &FakeTools::new(), 5);
    assert_eq!(panel.answer().unwrap().text, "41");
    let first_prompt = panel.config.system_prompt.clone();

    let again = ScriptedModel::new([says("Answer: 42")]);
    go_on(&mut panel, Next::Retry, &again, 5);
    assert_eq!(panel.answer().unwrap().text, "42");
    assert_eq!(panel.status, Status::Done);
    assert_eq!(
        panel.turns.len(),
        1,
        "a retry is the same turn, not a follow-up"
    );
    let turn = &panel.turns[0];
    assert_eq!(turn.steps.len(), 1);
    assert_eq!(turn.earlier.len(), 1);
    assert_eq!(turn.earlier[0].answer.as_ref().unwrap().text, "41");
    assert_eq!(turn.earlier[0].steps.len(), 2);
    // The retried call sent the same prompt and question, and nothing of the first attempt.
    let sent = again.messages_of_call(0);
    let contents: Vec<&str> = sent.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(contents, [first_prompt.as_str(), "What is 6 times 7?"]);

    // A second retry keeps both earlier attempts, oldest first, and a record with them
    // survives JSON (exports, kept runs).
    let third = ScriptedModel::new([says("Answer: 43")]);
    go_on(&mut panel, Next::Retry, &third, 5);
    let texts: Vec<&str> = panel.turns[0]
        .earlier
        .iter()
        .map(|t| t.answer.as_ref().unwrap().text.as_str())
        .collect();
    assert_eq!(texts, ["41", "42"]);
    let back: RunRecord = serde_json::from_str(&serde_json::to_string(&panel).unwrap()).unwrap();
    assert_eq!(back, panel);
}

#[test]
fn retry_of_a_follow_up_keeps_the_first_turn_in_the_conversation() {
    let model = ScriptedModel::new([says("Answer: 42"), says("Answer: 127")]);
    let (_, mut panel) = run(Mode::Act, &model, &FakeTools::new(), 5);
    go_on(&mut panel, Next::Question("And times 3?".into()), &model, 5);
    let again = ScriptedModel::new([says("Answer: 126")]);
    go_on(&mut panel, Next::Retry, &again, 5);
    assert_eq!(panel.turns.len(), 2);
    assert_eq!(panel.turns[0].answer.as_ref().unwrap().text, "42");
    assert_eq!(
        panel.turns[1].earlier[0].answer.as_ref().unwrap().text,
        "127"
    );
    let contents: Vec<String> = again
        .messages_of_call(0)
        .into_iter()
        .skip(1)
        .map(|m| m.content)
        .collect();
    assert_eq!(
        contents,
        ["What is 6 times 7?", "Answer: 42", "And times 3?"]
    );
}

#[test]
fn continue_past_the_step_limit_goes_on_from_the_next_step() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 1+1"),
        says("Action: calculator\nAction Input: 2+2"),
        says("Answer: 4, I think"),
    ]);
    let (_, mut panel) = run(Mode::ReAct, &model, &FakeTools::new(), 2);
    assert!(panel.last_turn().unwrap().forced());

    let more = ScriptedModel::new([
        says("Action: calculator\nAction Input: 4+4"),
        says("Answer: 8"),
    ]);
    let events = go_on(&mut panel, Next::MoreSteps { steps: 2 }, &more, 2);
    assert!(events.contains(&AgentEvent::StepStarted {
        step: 3,
        forced: false
    }));
    assert_eq!(answer_of(&events), Some(("8".into(), false, 4)));
    assert_eq!(panel.config.max_steps, 4);
    let turn = panel.last_turn().unwrap();
    let numbers: Vec<(u32, bool)> = turn.steps.iter().map(|s| (s.number, s.forced)).collect();
    assert_eq!(numbers, [(1, false), (2, false), (3, false), (4, false)]);
    // The forced answer is kept as an earlier attempt, and left out of what the model saw.
    assert_eq!(turn.earlier.len(), 1);
    assert_eq!(turn.earlier[0].answer.as_ref().unwrap().text, "4, I think");
    let sent = more.messages_of_call(0);
    assert!(sent.iter().all(|m| m.content != FORCE_ANSWER_PROMPT));
    assert_eq!(sent.last().unwrap().content, "Observation: 4");

    // Reaching the new limit forces an answer again, at the step after it.
    let (_, mut panel) = run(Mode::ReAct, &model_of_three(), &FakeTools::new(), 2);
    let stubborn = ScriptedModel::new([
        says("Action: calculator\nAction Input: 3+3"),
        says("Answer: 6, maybe"),
    ]);
    let events = go_on(&mut panel, Next::MoreSteps { steps: 1 }, &stubborn, 2);
    assert_eq!(answer_of(&events), Some(("6, maybe".into(), true, 4)));
}

fn model_of_three() -> ScriptedModel {
    ScriptedModel::new([
        says("Action: calculator\nAction Input: 1+1"),
        says("Action: calculator\nAction Input: 2+2"),
        says("Answer: 4, I think"),
    ])
}

/// Runs one question in `mode` on an edited prompt and returns the record.
fn run_edited(
    model: &ScriptedModel,
    mode: Mode,
    edited: &str,
    protocol: Protocol,
    fall_back_to_text: bool,
) -> RunRecord {
    let config = RunConfig {
        mode,
        max_steps: 3,
        edited_prompt: Some(edited.into()),
        ..RunConfig::default()
    };
    let mut panel = RunRecord::new("", 0.0, config);
    let options = RunOptions {
        max_steps: 3,
        plan: ProtocolPlan {
            protocol,
            fall_back_to_text,
        },
    };
    block_on(run_turn(
        panel.clone(),
        Next::Question("q".into()),
        model,
        &FakeTools::new(),
        &options,
        &mut |e| panel.apply(0.0, &e),
    ));
    panel
}

#[test]
fn an_edited_prompt_is_sent_exactly_as_written_in_every_protocol() {
    let edited = "Answer like a pirate.\nAction: <tool>\nAction Input: <input>";
    for (protocol, reply) in [
        (Protocol::Text, "Answer: 42, arr"),
        (Protocol::Native, "Answer: 42, arr"),
        (
            Protocol::Json,
            r#"[{"action": "answer", "arguments": ["42, arr"], "explanation": "done"}]"#,
        ),
    ] {
        let model = ScriptedModel::new([says(reply)]);
        let panel = run_edited(&model, Mode::ReAct, edited, protocol, false);
        assert_eq!(model.messages_of_call(0)[0].content, edited, "{protocol:?}");
        assert_eq!(panel.config.system_prompt, edited);
    }
    // A protocol switch keeps the edited prompt too.
    let model = ScriptedModel::new([refuses(400), says("Answer: 42")]);
    let panel = run_edited(&model, Mode::Act, edited, Protocol::Native, true);
    assert_eq!(model.messages_of_call(1)[0].content, edited);
    assert_eq!(panel.config.protocol, Protocol::Text);
}

/// CodeAct: a program that calls a tool in a loop and then `final_answer`; each call goes
/// through the toolbox's gate, is kept in the record as the program's, and the program's
/// output is the Observation the model reads next.
#[test]
fn codeact_runs_the_program_its_calls_go_through_the_gate_and_final_answer_ends_the_run() {
    let model = ScriptedModel::new([
        says("Thought: multiply, then subtract\n```python\nprint(calculator(input=\"4821*37\"))\nprint(calculator(input=\"178377-999\"))\n```\nObservation: 42"),
        says("Thought: I have it\n```python\nfinal_answer(\"177378\")\n```"),
    ]);
    let tools = FakeTools::new();
    let (events, record) = run(Mode::CodeAct, &model, &tools, 4);
    assert_eq!(answer_of(&events), Some(("177378".into(), false, 2)));
    // The tools were called by the gate, with the arguments by name.
    assert_eq!(
        *tools.calls.borrow(),
        [
            (
                "calculator".to_string(),
                r#"{"input":"4821*37"}"#.to_string()
            ),
            (
                "calculator".to_string(),
                r#"{"input":"178377-999"}"#.to_string()
            )
        ]
    );
    // Each call of a program began on its own (the consent gate counts each as a step, so a
    // call after another server's result is asked about): two programs, two calls.
    assert_eq!(tools.begun.get(), 2 + 2);
    // The program got the tools as functions.
    let programs = tools.programs.borrow();
    assert_eq!(programs[0].1[0].function, "calculator");
    assert_eq!(programs[0].1[0].params, ["input"]);
    // The record: the program, then its two calls with their results, then its output.
    let step = &record.turns[0].steps[0];
    let runs = &step.tool_runs;
    assert_eq!(runs.len(), 3, "{runs:#?}");
    assert!(runs[0].program && runs[0].tool == PROGRAM_TOOL);
    assert!(runs[0].input.starts_with("print(calculator("));
    assert_eq!(runs[0].output.as_deref(), Some("Printed:\n178377\n177378"));
    assert!(runs[1].in_program && runs[2].in_program);
    assert_eq!(runs[1].tool, "calculator");
    assert_eq!(runs[1].output.as_deref(), Some("178377"));
    assert_eq!(runs[2].output.as_deref(), Some("177378"));
    assert_eq!(step.thought.as_deref(), Some("multiply, then subtract"));
    // The model read the program's output, not the Observation it had imagined.
    let second_call = model.messages_of_call(1);
    let last = second_call.last().unwrap();
    assert_eq!(last.role, Role::User);
    assert_eq!(last.content, "Observation: Printed:\n178377\n177378");
    // The reply is kept up to its program's end: the Observation it imagined is not.
    assert_eq!(
        second_call[second_call.len() - 2].content,
        "Thought: multiply, then subtract\n```python\nprint(calculator(input=\"4821*37\"))\nprint(calculator(input=\"178377-999\"))\n```"
    );
    // CodeAct speaks text, with the stop sequence, and offers no native tools.
    assert!(model.offered_tools.borrow().iter().all(|t| !t));
    assert_eq!(model.calls.borrow()[0].1, STOP_SEQUENCES.map(String::from));
    let system = &model.messages_of_call(0)[0].content;
    assert!(system.starts_with(Mode::CodeAct.prompt_heading()));
    assert!(
        system.contains("def calculator(input: str) -> str:"),
        "{system}"
    );
}

#[test]
fn codeact_a_failed_call_reaches_the_program_and_errors_are_observations() {
    let model = ScriptedModel::new([
        says("Thought: try\n```python\nprint(flaky(input=\"x\"))\n```"),
        says("```python\nraise Error(\"name 'y' is not defined\")\n```"),
        says("Thought: no program"),
        says("Thought: still no program"),
        says("Answer: 42"),
    ]);
    let tools = FakeTools::new();
    let (events, record) = run(Mode::CodeAct, &model, &tools, 5);
    assert_eq!(answer_of(&events), Some(("42".into(), false, 4)));
    let steps = &record.turns[0].steps;
    // The tool's failure is the call's result and the program's exception.
    let failed = &steps[0].tool_runs;
    assert!(
        failed[1].is_error
            && failed[1]
                .output
                .as_deref()
                .unwrap()
                .contains("the service is down")
    );
    assert!(failed[0].is_error);
    assert!(failed[0]
        .output
        .as_deref()
        .unwrap()
        .contains("ToolError: the service is down"));
    // The user's detail stays out of what the model reads.
    for i in 0..model.calls() {
        for m in model.messages_of_call(i) {
            assert!(!m.content.contains(FLAKY_DETAIL));
        }
    }
    // A traceback's last lines are the next Observation.
    let raised = steps[1].tool_runs[0].output.as_deref().unwrap();
    assert!(
        raised.contains("Error: name 'y' is not defined"),
        "{raised}"
    );
    // A reply with no program gets one reminder, then counts as a failed step.
    assert!(steps[2]
        .notices
        .iter()
        .any(|n| n.contains("no Python program")));
    assert!(steps[2].tool_runs[0].is_error);
}

#[test]
fn codeact_a_program_in_a_loop_is_stopped_by_the_call_limit_and_an_endless_one_by_time() {
    let looping = (0..12)
        .map(|i| format!("calculator(input=\"{i}+1\")"))
        .collect::<Vec<_>>()
        .join("\n");
    let first: &'static str =
        Box::leak(format!("Thought: loop\n```python\n{looping}\n```").into_boxed_str());
    let model = ScriptedModel::new([
        says(first),
        says("```python\nwhile True: pass\n```"),
        says("Answer: done"),
    ]);
    let tools = FakeTools::new();
    let (events, record) = run(Mode::CodeAct, &model, &tools, 3);
    assert_eq!(answer_of(&events), Some(("done".into(), false, 3)));
    let limit = ProgramLimits::default().calls_per_step as usize;
    assert_eq!(
        tools.calls.borrow().len(),
        limit,
        "the calls past the limit never ran"
    );
    let steps = &record.turns[0].steps;
    let program = &steps[0].tool_runs[0];
    assert!(program.is_error);
    assert!(program
        .output
        .as_deref()
        .unwrap()
        .contains(&format!("more than {limit} tool calls")));
    // The refused call raised in the program (which may catch it), and the record keeps the
    // stop as the program's.
    assert!(program.output.as_deref().unwrap().contains(&format!(
        "CallLimitError: this program already made the {limit} tool calls"
    )));
    assert_eq!(
        record.turns[0].steps[0].tool_runs[0].stop,
        Some(ProgramStop::CallLimit {
            calls: limit as u32
        })
    );
    assert_eq!(steps[0].tool_runs.len(), 1 + limit);
    let endless = steps[1].tool_runs[0].output.as_deref().unwrap();
    assert!(endless.contains("ran past the 60 s"), "{endless}");
    assert_eq!(
        steps[1].tool_runs[0].stop,
        Some(ProgramStop::TimeLimit { secs: 60 })
    );
    // A replay of the record keeps each program's stop.
    let replayed = react_arena::agent::replay::Replay::of(&record).fold();
    assert_eq!(replayed.turns[0].steps, record.turns[0].steps);
}

#[test]
fn codeact_without_an_interpreter_says_so() {
    struct NoSandbox;
    impl Toolbox for NoSandbox {
        fn specs(&self) -> Vec<ToolSpec> {
            Vec::new()
        }
        async fn call(&self, _: &str, _: &Value) -> Result<String, ToolFailure> {
            unreachable!("no call")
        }
    }
    let model = ScriptedModel::new([says("```python\nprint(1)\n```"), says("Answer: 1")]);
    let mut events = Vec::new();
    let record = block_on(run_agent(
        Mode::CodeAct,
        "q",
        &model,
        &NoSandbox,
        &RunOptions::text(2),
        &mut |e| events.push(e),
    ));
    let said = record.turns[0].steps[0].tool_runs[0]
        .output
        .clone()
        .unwrap();
    assert!(
        said.contains("no Python interpreter is available here"),
        "{said}"
    );
    assert_eq!(answer_of(&events), Some(("1".into(), false, 2)));
}

/// A call a program repeats is answered from the run's cache: the panel says so, and the
/// program gets the same value as the first time, with no note appended to it (the note
/// would otherwise reach its output and its answer).
#[test]
fn codeact_a_repeated_call_gives_the_program_the_same_value_and_the_panel_says_cached() {
    let model = ScriptedModel::new([
        says("```python\nprint(calculator(input=\"4821*37\"))\nprint(calculator(input=\"4821*37\"))\n```"),
        says("Answer: 178377"),
    ]);
    let tools = FakeTools::new();
    let (_, record) = run(Mode::CodeAct, &model, &tools, 2);
    let runs = &record.turns[0].steps[0].tool_runs;
    assert_eq!(runs[0].output.as_deref(), Some("Printed:\n178377\n178377"));
    assert_eq!(runs[1].output.as_deref(), Some("178377"));
    assert_eq!(
        runs[2].output.as_deref(),
        Some(format!("178377\n{CACHED_NOTE}").as_str())
    );
}

/// Issue 59, row 4: a tool whose result is JSON gives the program a dict to index (the
/// prompt says `-> dict` and its keys), the panel shows the JSON, and a text tool's result
/// indexed the same way is Python's TypeError, as it would be.
#[test]
fn codeact_a_structured_result_is_a_dict_the_program_indexes() {
    let model = ScriptedModel::new([
        says("```python\nprint(station_code(city=\"Paris\")[\"code\"])\n```"),
        says("```python\nprint(calculator(input=\"6*7\")[\"value\"])\n```"),
        says("Answer: PS-2643"),
    ]);
    let mut registry = Registry::standard();
    registry.push(typed(Station));
    let tools = FakeTools::with(registry);
    let (_, record) = run(Mode::CodeAct, &model, &tools, 3);
    let system = &model.messages_of_call(0)[0].content;
    assert!(
        system.contains("def station_code(city: str) -> dict:\n    \"\"\"The station code of a city. Returns a dict with keys: city, code."),
        "{system}"
    );
    assert!(
        system.contains("def calculator(input: str) -> str:"),
        "{system}"
    );
    let first = &record.turns[0].steps[0].tool_runs;
    assert_eq!(first[0].output.as_deref(), Some("Printed:\nPS-2643"));
    assert_eq!(
        first[1].output.as_deref(),
        Some(r#"{"city":"Paris","code":"PS-2643"}"#)
    );
    let second = &record.turns[0].steps[1].tool_runs;
    let error = second[0].output.as_deref().unwrap_or_default();
    assert!(
        error.contains("TypeError: string indices must be integers"),
        "{error}"
    );
}

/// The loop check, for programs: the same program a third time in a row is not run; the
/// model reads why and may change course.
#[test]
fn codeact_the_same_program_a_third_time_in_a_row_is_not_run_again() {
    let same = "```python\nprint(calculator(input=\"4821*37\"))\n```";
    let model = ScriptedModel::new([
        says(same),
        says("Thought: again\n```python\nprint(calculator(input=\"4821*37\"))\n```"),
        says(same),
        says("```python\nfinal_answer(\"178377\")\n```"),
    ]);
    let tools = FakeTools::new();
    let (events, record) = run(Mode::CodeAct, &model, &tools, 5);
    assert_eq!(answer_of(&events), Some(("178377".into(), false, 4)));
    // Run twice, not the third time; then the different one.
    assert_eq!(tools.programs.borrow().len(), 3);
    let third = &record.turns[0].steps[2].tool_runs[0];
    assert!(third.program, "{third:#?}");
    assert!(
        third
            .output
            .as_deref()
            .unwrap_or_default()
            .contains("same program 3 times in a row; it was not run again"),
        "{third:#?}"
    );
    let read = model.messages_of_call(3);
    assert!(read
        .last()
        .unwrap()
        .content
        .starts_with("Observation: Error: You wrote this same program 3 times"));
}

/// Issue 59, row 3: at the step limit the forced reply `final_answer(total)` in a block was
/// shown as the text `total`; it is run in the run's interpreter, which holds 30.
#[test]
fn codeact_a_forced_answer_written_as_code_is_run_in_the_run_s_interpreter() {
    let model = ScriptedModel::new([
        says("Thought: keep the total\n```python\ntotal = 30\n```"),
        says("Thought: answer\n```python\nfinal_answer(total)\n```"),
    ]);
    let tools = FakeTools::new();
    let (events, record) = run(Mode::CodeAct, &model, &tools, 1);
    assert_eq!(answer_of(&events), Some(("30".into(), true, 2)));
    let programs = tools.programs.borrow();
    assert_eq!(programs.len(), 2, "the forced program ran");
    assert_eq!(programs[1].0, "final_answer(total)");
    let forced = &record.turns[0].steps[1];
    assert!(forced.tool_runs[0].program, "{forced:#?}");
    // A forced reply with no program is its answer, as before.
    let model = ScriptedModel::new([says("```python\ntotal = 30\n```"), says("Answer: 30")]);
    let (events, _) = run(Mode::CodeAct, &model, &FakeTools::new(), 1);
    assert_eq!(answer_of(&events), Some(("30".into(), true, 2)));
}

/// Issue 59, row 3: after `final_answer`, the Observation the conversation keeps for a
/// follow-up is the answer itself, not "printed nothing".
#[test]
fn codeact_after_final_answer_the_conversation_keeps_the_answer() {
    let model = ScriptedModel::new([says("```python\nx = \"101\"\nfinal_answer(x)\n```")]);
    let (_, record) = run(Mode::CodeAct, &model, &FakeTools::new(), 3);
    let kept = record.messages();
    assert_eq!(
        kept.last().map(|m| m.content.as_str()),
        Some("Observation: Final answer: 101"),
        "{kept:#?}"
    );
}

/// Issue 59, row 5: bare Python with no fence, which the sandbox compiles whole and which calls
/// a tool or final_answer, runs as the program; prose is reminded of the format as before, and
/// never reaches the sandbox unless it calls something.
#[test]
fn codeact_a_bare_program_the_sandbox_compiles_runs_and_prose_is_reminded() {
    let model = ScriptedModel::new([says(
        "print(calculator(input=\"6*7\"))\nfinal_answer(\"42\")",
    )]);
    let tools = FakeTools::new();
    let (events, record) = run(Mode::CodeAct, &model, &tools, 2);
    assert_eq!(answer_of(&events), Some(("42".into(), false, 1)));
    assert_eq!(tools.calls.borrow().len(), 1);
    let programs = tools.programs.borrow();
    assert!(programs[0].0.starts_with("compile("), "checked first");
    assert_eq!(
        programs[1].0,
        "print(calculator(input=\"6*7\"))\nfinal_answer(\"42\")"
    );
    assert!(record.turns[0].steps[0].notices.is_empty(), "no reminder");

    // Prose that names a tool's call but is not Python: checked, not run, reminded.
    let model = ScriptedModel::new([
        says("Thought: I will use calculator(6*7) to get it."),
        says("Answer: 42"),
    ]);
    let tools = FakeTools::new();
    let (events, record) = run(Mode::CodeAct, &model, &tools, 2);
    assert_eq!(answer_of(&events), Some(("42".into(), false, 1)));
    assert_eq!(tools.programs.borrow().len(), 1, "only the check");
    assert!(tools.calls.borrow().is_empty());
    assert!(record.turns[0].steps[0]
        .notices
        .iter()
        .any(|n| n.contains("no Python program")));
    // Prose that calls nothing never reaches the sandbox.
    let model = ScriptedModel::new([says("Thought: it is six sevens."), says("Answer: 42")]);
    let tools = FakeTools::new();
    run(Mode::CodeAct, &model, &tools, 2);
    assert!(tools.programs.borrow().is_empty());
}
