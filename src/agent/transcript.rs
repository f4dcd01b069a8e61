//! The run's messages: what was sent and what came back. The canonical record of a run.

use serde::{Deserialize, Serialize};

use crate::llm::ChatMessage;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transcript {
    pub messages: Vec<ChatMessage>,
}

impl Transcript {
    pub fn push(&mut self, m: ChatMessage) {
        self.messages.push(m);
    }
}
