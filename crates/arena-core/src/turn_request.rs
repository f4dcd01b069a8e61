//! What the page asks the agent engine to run: one turn of one panel. The engine (the loop,
//! the model client and the tools) is its own wasm module, loaded the first time a run
//! starts, so the request crosses from the page's module to the engine's as JSON, and each
//! event comes back the same way.

use serde::{Deserialize, Serialize};

use crate::agent::record::RunRecord;
use crate::agent::run::{Next, RunOptions};
use crate::agent::AgentEvent;
use crate::settings::Settings;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnRequest {
    /// The run so far; the turn goes on from it.
    pub record: RunRecord,
    pub next: Next,
    /// The settings the run started with (base URL, tools, their endpoints, time limits).
    pub settings: Settings,
    /// Sent to the model endpoint only, never to a tool.
    pub token: String,
    pub options: RunOptions,
    /// The run's tools (their cache, the Wikipedia page last read, the Python worker) are kept
    /// under this name (the run's id), so Continue and follow-ups go on with them.
    pub tools_key: String,
}

impl TurnRequest {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn from_json(json: &str) -> Result<Self, String> {
        serde_json::from_str(json).map_err(|e| format!("the run request could not be read ({e})"))
    }
}

/// Events as the engine sends them: a batch (those of one task), in order, with the text
/// pieces that follow one another joined, since the page draws them as one.
pub fn events_to_json(events: Vec<AgentEvent>) -> String {
    serde_json::to_string(&coalesced(events)).unwrap_or_default()
}

/// A batch from the engine; one that cannot be read becomes an error the panel shows.
pub fn events_from_json(json: &str) -> Vec<AgentEvent> {
    serde_json::from_str(json).unwrap_or_else(|e| {
        vec![AgentEvent::Error(format!(
            "The agent engine sent events the page could not read ({e})."
        ))]
    })
}

/// `events` with each run of `Token`s (and of `Reasoning`s) joined into one: a record that
/// applies them ends the same, and a fast stream crosses to the page in far fewer pieces.
pub fn coalesced(events: Vec<AgentEvent>) -> Vec<AgentEvent> {
    let mut out: Vec<AgentEvent> = Vec::with_capacity(events.len());
    for event in events {
        match (out.last_mut(), event) {
            (Some(AgentEvent::Token(text)), AgentEvent::Token(more))
            | (Some(AgentEvent::Reasoning(text)), AgentEvent::Reasoning(more)) => {
                text.push_str(&more)
            }
            (_, event) => out.push(event),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::action_protocol::{Protocol, ProtocolPlan};
    use crate::agent::record::Status;
    use crate::agent::Mode;
    use crate::llm::{ChatMessage, Usage};

    fn request() -> TurnRequest {
        let mut record = RunRecord::new("r-1", 1.0, Default::default());
        record.config.mode = Mode::ReAct;
        record.status = Status::Waiting;
        TurnRequest {
            record,
            next: Next::Resume {
                step: 2,
                protocol: Protocol::Native,
            },
            settings: Settings {
                model: "m:fastest".into(),
                ..Settings::default()
            },
            token: "hf_not_a_real_token".into(),
            options: RunOptions {
                max_steps: 5,
                plan: ProtocolPlan {
                    protocol: Protocol::Native,
                    fall_back_to_text: true,
                },
            },
            tools_key: "7-react".into(),
        }
    }

    #[test]
    fn a_request_reaches_the_engine_whole() {
        let sent = request();
        assert_eq!(TurnRequest::from_json(&sent.to_json()), Ok(sent.clone()));
        let question = TurnRequest {
            next: Next::Question("How tall is \"it\"?\n</script>".into()),
            ..sent
        };
        assert_eq!(TurnRequest::from_json(&question.to_json()), Ok(question));
    }

    #[test]
    fn a_damaged_request_is_refused_with_a_reason() {
        let err = TurnRequest::from_json("{\"record\":").unwrap_err();
        assert!(
            err.starts_with("the run request could not be read"),
            "{err}"
        );
        assert!(TurnRequest::from_json("[]").is_err());
    }

    #[test]
    fn every_kind_of_event_comes_back_as_it_was_sent() {
        let events = [
            AgentEvent::TurnStarted {
                question: "q".into(),
            },
            AgentEvent::SystemPrompt {
                text: "s".into(),
                protocol: Protocol::Json,
            },
            AgentEvent::Appended(ChatMessage::user("u")),
            AgentEvent::StepStarted {
                step: 1,
                forced: true,
            },
            AgentEvent::Token("tok \u{1F600} \"quoted\"".into()),
            AgentEvent::Reasoning("r".into()),
            AgentEvent::Usage(Usage {
                prompt_tokens: 3,
                completion_tokens: 4,
                ..Usage::default()
            }),
            AgentEvent::Thought("t".into()),
            AgentEvent::Action {
                tool: "calculator".into(),
                input: "2+2".into(),
            },
            AgentEvent::Observation {
                text: "4".into(),
                is_error: false,
            },
            AgentEvent::Answer {
                text: "4".into(),
                forced: false,
                step: 2,
            },
            AgentEvent::Error("e".into()),
            AgentEvent::Stopped,
            AgentEvent::Notice("n".into()),
            AgentEvent::Warning("w".into()),
            AgentEvent::Compacted {
                turn: 0,
                step: 1,
                summary: "s".into(),
            },
            AgentEvent::GoingOn,
            AgentEvent::Resumable {
                step: 1,
                protocol: Protocol::Text,
            },
            AgentEvent::Interrupted,
        ];
        // Alone, in order, and all in one batch.
        for event in events.iter() {
            let back = events_from_json(&events_to_json(vec![event.clone()]));
            assert_eq!(back.as_slice(), std::slice::from_ref(event));
        }
        assert_eq!(events_from_json(&events_to_json(events.to_vec())), events);
    }

    #[test]
    fn text_pieces_in_a_row_cross_as_one_and_the_record_ends_the_same() {
        let events = vec![
            AgentEvent::StepStarted {
                step: 1,
                forced: false,
            },
            AgentEvent::Reasoning("I ".into()),
            AgentEvent::Reasoning("think".into()),
            AgentEvent::Token("Thought: ".into()),
            AgentEvent::Token("a".into()),
            AgentEvent::Token("".into()),
            AgentEvent::Token("b\n".into()),
            AgentEvent::Reasoning("more".into()),
            AgentEvent::Token("c".into()),
            AgentEvent::Usage(Usage::default()),
            AgentEvent::Token("d".into()),
        ];
        let joined = coalesced(events.clone());
        assert_eq!(
            joined,
            [
                events[0].clone(),
                AgentEvent::Reasoning("I think".into()),
                AgentEvent::Token("Thought: ab\n".into()),
                AgentEvent::Reasoning("more".into()),
                AgentEvent::Token("c".into()),
                AgentEvent::Usage(Usage::default()),
                AgentEvent::Token("d".into()),
            ]
        );
        let apply = |events: &[AgentEvent]| {
            let mut record = RunRecord::new("r", 0.0, Default::default());
            record.apply(
                1.0,
                &AgentEvent::TurnStarted {
                    question: "q".into(),
                },
            );
            for event in events {
                record.apply(2.0, event);
            }
            record
        };
        assert_eq!(apply(&joined), apply(&events));
    }

    #[test]
    fn an_unreadable_batch_is_shown_as_an_error_not_dropped() {
        for bad in [
            "",
            "[",
            "[{\"Token\":5}]",
            "[\"NoSuchEvent\"]",
            "null",
            "{\"Token\":\"x\"}",
        ] {
            match events_from_json(bad).as_slice() {
                [AgentEvent::Error(text)] => assert!(text.contains("could not read"), "{text}"),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }
}
