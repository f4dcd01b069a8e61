//! A run published with each choice: what is left out is nowhere in the file, what is kept
//! is there, the addresses are origins, and the file still opens.

use super::*;
use crate::agent::events::AgentEvent;
use crate::agent::record::{McpSource, RunConfig};
use crate::agent::Mode;
use crate::settings::Settings;

const QUESTION: &str = "Which city hosts QUESTION-SENTINEL-7 this year?";
const ANSWER: &str = "ANSWER-SENTINEL-3 is Lyon";
const RESULT: &str = "TOOLRESULT-SENTINEL-5: the private notes say Lyon";
const BASE: &str = "http://10.9.8.7:8080/secret-path-SENTINEL/v1";
const MCP: &str = "https://mcp.example:8443/mcp-secret-SENTINEL/rpc?key=abc";

fn run() -> RunFile {
    let config = RunConfig {
        mode: Mode::Act,
        model: "lab/model-7b".into(),
        base_url: BASE.into(),
        mcp_tools: vec![McpSource {
            tool: "read_notes".into(),
            server: "Notes".into(),
            url: MCP.into(),
            name: "read_notes".into(),
        }],
        ..RunConfig::default()
    };
    let mut r = RunRecord::new("act", 1.0, config);
    let events = [
        AgentEvent::TurnStarted {
            question: QUESTION.into(),
        },
        AgentEvent::Appended(ChatMessage::user(QUESTION)),
        AgentEvent::StepStarted {
            step: 1,
            forced: false,
        },
        AgentEvent::Token(format!("I read the notes about {QUESTION}")),
        AgentEvent::Thought(format!("The question is {QUESTION}")),
        AgentEvent::Action {
            tool: "read_notes".into(),
            input: "{\"topic\":\"MODEL-ARGS-SENTINEL-9\"}".into(),
        },
        AgentEvent::Observation {
            text: RESULT.into(),
            is_error: false,
            failure: None,
        },
        AgentEvent::Appended(ChatMessage::assistant(
            "Action: read_notes MODEL-ARGS-SENTINEL-9",
        )),
        AgentEvent::Appended(ChatMessage::user(format!("Observation: {RESULT}"))),
        AgentEvent::StepStarted {
            step: 2,
            forced: false,
        },
        AgentEvent::Answer {
            text: ANSWER.into(),
            forced: false,
            step: 2,
        },
    ];
    for (at, event) in events.iter().enumerate() {
        r.apply(at as f64, event);
    }
    r.turns[0].error = Some(format!(
        "An earlier call to {BASE}/chat/completions failed."
    ));
    let settings = Settings {
        base_url: BASE.into(),
        ..Settings::default()
    };
    RunFile::new("run-1".into(), 1_795_000_000_000.0, settings, vec![r])
}

fn detail(question_text: bool, answers: bool, tool_results: bool) -> RunDetail {
    RunDetail {
        question_text,
        answers,
        tool_results,
    }
}

#[test]
fn nothing_unticked_is_in_the_file_and_addresses_are_origins() {
    let text = published(&run(), RunDetail::default());
    for secret in [
        "QUESTION-SENTINEL",
        "ANSWER-SENTINEL",
        "TOOLRESULT-SENTINEL",
        "MODEL-ARGS-SENTINEL",
        "secret-path",
        "mcp-secret",
        "key=abc",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    assert!(text.contains("\"http://10.9.8.7:8080\""), "{text}");
    assert!(text.contains("\"https://mcp.example:8443\""), "{text}");
    // The question as its hash, as a vote line keeps it.
    assert!(text.contains(&sha256_hex(QUESTION.as_bytes())));
    // The run keeps its shape and opens.
    let opened = RunFile::from_json(&text).unwrap();
    let record = &opened.records[0];
    assert_eq!(record.config.model, "lab/model-7b");
    assert_eq!(
        record.turns[0].steps.len(),
        run().records[0].turns[0].steps.len()
    );
    assert_eq!(
        record.turns[0].answer.as_ref().unwrap().text,
        ANSWER_LEFT_OUT
    );
    let call = record.turns[0]
        .steps
        .iter()
        .flat_map(|s| &s.tool_runs)
        .find(|r| r.tool == "read_notes")
        .unwrap();
    assert_eq!(call.output.as_deref(), Some(RESULT_LEFT_OUT));
    assert_eq!(call.mcp.as_ref().unwrap().url, "https://mcp.example:8443");
    assert_eq!(
        record.turns[0].error.as_deref(),
        Some("An earlier call to http://10.9.8.7:8080/chat/completions failed.")
    );
}

#[test]
fn each_choice_brings_its_own_text_and_no_other() {
    // Answers only: the answer and the model's words, not the question (a thought quoting it
    // has it replaced) nor the tool's result.
    let text = published(&run(), detail(false, true, false));
    assert!(text.contains("ANSWER-SENTINEL") && text.contains("MODEL-ARGS-SENTINEL"));
    assert!(!text.contains("QUESTION-SENTINEL") && !text.contains("TOOLRESULT-SENTINEL"));
    // The question only.
    let text = published(&run(), detail(true, false, false));
    assert!(text.contains("QUESTION-SENTINEL"));
    assert!(!text.contains("ANSWER-SENTINEL") && !text.contains("TOOLRESULT-SENTINEL"));
    // Tool results only: the result where the tool gave it; the user's messages (the question,
    // and the result sent back as the user) stay out with the question.
    let text = published(&run(), detail(false, false, true));
    assert!(text.contains("TOOLRESULT-SENTINEL"));
    assert!(!text.contains("QUESTION-SENTINEL") && !text.contains("ANSWER-SENTINEL"));
    // All three: everything but the addresses' paths.
    let text = published(&run(), detail(true, true, true));
    for kept in [
        "QUESTION-SENTINEL",
        "ANSWER-SENTINEL",
        "TOOLRESULT-SENTINEL",
    ] {
        assert!(text.contains(kept), "{kept}");
    }
    assert!(!text.contains("secret-path") && !text.contains("mcp-secret"));
    assert_eq!(
        RunFile::from_json(&text).unwrap().records[0].turns[0].question,
        QUESTION
    );
}
