//! The agent core: pure, no browser APIs, tested on the host.
//!
//! `run::run_agent` drives one mode's loop against any `ChatModel` and `Toolbox` and reports
//! what happens as `AgentEvent`s; `panel::PanelState` folds those events into what a panel shows.

pub mod events;
pub mod mode;
pub mod panel;
pub mod protocol;
pub mod run;
pub mod transcript;

use crate::llm::{ChatDelta, ChatMessage, LlmError};
use crate::tools::ToolSpec;

pub use events::AgentEvent;
pub use mode::Mode;
pub use run::run_agent;

/// A streaming chat model. Implementations call `on_delta` as pieces of the reply arrive and
/// return once the reply is complete (or failed: what was delivered before stays delivered).
#[allow(async_fn_in_trait)] // single-threaded in the browser: no `Send` bound wanted
pub trait ChatModel {
    async fn stream_chat(
        &self,
        messages: &[ChatMessage],
        stop: &[&str],
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError>;
}

/// The tools a run may call.
#[allow(async_fn_in_trait)]
pub trait Toolbox {
    fn specs(&self) -> Vec<ToolSpec>;
    /// Runs `name` on `input`; `Err` carries a readable message for the model and the user.
    async fn call(&self, name: &str, input: &str) -> Result<String, String>;
}
