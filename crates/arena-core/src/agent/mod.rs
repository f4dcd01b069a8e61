//! The agent core: pure, no browser APIs, tested on the host.
//!
//! `run::run_turn` drives one mode's loop against any `ChatModel` and `Toolbox` and reports
//! what happens as `AgentEvent`s; `record::RunRecord` folds those events into the run's record,
//! of which the conversation, the panels and the exports are views.

pub mod calls;
pub mod compaction;
pub mod events;
pub mod metrics;
pub mod mode;
pub mod protocols;
pub mod reasoning_tags;
pub mod record;
pub mod replay;
pub mod run;
pub mod think_split;
pub mod turn;

// The protocols keep their old paths (`agent::decision`, `agent::protocol`, …) for the tests
// and the examples.
pub use protocols::text as protocol;
pub use protocols::{action_protocol, decision, json_finder, json_protocol, native, tool_json};

use futures::future::LocalBoxFuture;

use crate::llm::{ChatCall, ChatDelta, LlmError};

pub use events::AgentEvent;
pub use mode::Mode;
pub use run::run_agent;

/// A streaming chat model. Implementations call `on_delta` as pieces of the reply arrive and
/// return once the reply is complete (or failed: what was delivered before stays delivered).
#[allow(async_fn_in_trait)] // single-threaded in the browser: no `Send` bound wanted
pub trait ChatModel {
    async fn stream_chat(
        &self,
        call: &ChatCall<'_>,
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError>;

    /// Waits before a retry. The browser waits on a timer; host tests need not wait.
    fn pause(&self, _ms: u32) -> LocalBoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// A number in 0..1 that spreads retries apart.
    fn jitter(&self) -> f64 {
        0.5
    }
}
