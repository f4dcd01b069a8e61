//! The chat-completions client: request body, SSE decoding and chunk reading, all pure; the
//! browser transport that drives them is `web::fetch`.

pub mod body;
pub mod chunk;
pub mod error;
pub mod models;
pub mod request;
pub mod retry;
pub mod sse;
pub mod stream;
pub mod timings;
pub mod tool_calls;

pub use chunk::{ChatDelta, Usage};
pub use error::LlmError;
pub use request::{ChatCall, ChatMessage, ChatParams, Role};
pub use timings::{GpuFallback, RunsOn, RuntimeTimings, ThreadLimit};
