//! The three loops end to end on the host, with a scripted model and a fake toolbox.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::RefCell;
use std::collections::VecDeque;

use futures::executor::block_on;
use react_arena::agent::mode::{FORCE_ANSWER_PROMPT, STOP_SEQUENCES};
use react_arena::agent::panel::{PanelState, Status};
use react_arena::agent::{run_agent, AgentEvent, ChatModel, Mode, Toolbox};
use react_arena::llm::{ChatDelta, ChatMessage, LlmError, Role, Usage};
use react_arena::tools::{Registry, ToolSpec};

/// One scripted model reply: optional reasoning, content, and an optional failure after it.
#[derive(Clone, Default)]
struct Reply {
    reasoning: &'static str,
    content: &'static str,
    fail: Option<LlmError>,
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
        messages: &[ChatMessage],
        stop: &[&str],
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError> {
        self.calls.borrow_mut().push((
            messages.to_vec(),
            stop.iter().map(|s| s.to_string()).collect(),
        ));
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

/// A toolbox with the real calculator plus a tool that always fails.
struct FakeTools {
    registry: Registry,
    calls: RefCell<Vec<(String, String)>>,
}

impl FakeTools {
    fn new() -> Self {
        Self {
            registry: Registry::standard(),
            calls: RefCell::new(Vec::new()),
        }
    }
}

impl Toolbox for FakeTools {
    fn specs(&self) -> Vec<ToolSpec> {
        let mut specs = self.registry.specs();
        specs.push(ToolSpec::new("flaky", "Always fails.", "anything"));
        specs
    }
    async fn call(&self, name: &str, input: &str) -> Result<String, String> {
        self.calls
            .borrow_mut()
            .push((name.to_string(), input.to_string()));
        if name == "flaky" {
            return Err("the service is down".into());
        }
        self.registry.call(name, input).await
    }
}

fn run(
    mode: Mode,
    model: &ScriptedModel,
    tools: &FakeTools,
    max_steps: u32,
) -> (Vec<AgentEvent>, PanelState) {
    let mut events = Vec::new();
    let mut panel = PanelState::starting();
    block_on(run_agent(
        mode,
        "What is 6 times 7?",
        model,
        tools,
        max_steps,
        &mut |e| {
            panel.apply(e.clone());
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
        is_error: false
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
    assert_eq!(panel.usage.total_tokens, 30);
    assert_eq!(panel.steps.len(), 2);
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
fn think_only_streams_reasoning_then_answers_without_tools() {
    let model = ScriptedModel::new([Reply {
        reasoning: "France's capital…",
        content: "Thought: It is Paris.\nAnswer: Paris",
        fail: None,
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
    assert_eq!(panel.steps[0].reasoning, "France's capital…");
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
        fail: None,
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
        says("Action: flaky\nAction Input: x"),
        says("Answer: 42"),
    ]);
    let tools = FakeTools::new();
    let (events, panel) = run(Mode::ReAct, &model, &tools, 5);
    let observations: Vec<(String, bool)> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Observation { text, is_error } => Some((text.clone(), *is_error)),
            _ => None,
        })
        .collect();
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
    // The model was told what went wrong.
    assert!(model
        .messages_of_call(2)
        .last()
        .unwrap()
        .content
        .starts_with("Observation: Error: The reply has neither"));
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
    assert!(panel.answer.unwrap().forced);
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
            }),
            ..Reply::default()
        },
    ]);
    let (events, panel) = run(Mode::ReAct, &model, &FakeTools::new(), 5);
    assert!(matches!(events.last(), Some(AgentEvent::Error(m)) if m.contains("429")));
    assert_eq!(panel.status, Status::Error);
    assert_eq!(panel.steps[1].live, "Thought: nearly th");
    assert_eq!(panel.steps[0].observation, Some(("9".into(), false)));
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
    assert_eq!(panel.error, None);
    assert_eq!(panel.steps[0].live, "Thought: half a tho");
    assert_eq!(model.calls(), 1, "no further call after Stop");
}

#[test]
fn the_transcript_records_the_whole_exchange() {
    let model = ScriptedModel::new([
        says("Action: calculator\nAction Input: 6*7"),
        says("Answer: 42"),
    ]);
    let tools = FakeTools::new();
    let transcript = block_on(run_agent(
        Mode::Act,
        "  q  ",
        &model,
        &tools,
        5,
        &mut |_| {},
    ));
    let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
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
    assert_eq!(transcript.messages[1].content, "q");
    assert_eq!(transcript.messages[3].content, "Observation: 42");
    let json = serde_json::to_string(&transcript).unwrap();
    assert!(json.contains("\"role\":\"assistant\""));
}
