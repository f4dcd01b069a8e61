//! The chat-completions client: request body, SSE decoding and chunk reading are pure; the
//! browser transport (`fetch`) is the thin wasm32-only edge.

pub mod body;
pub mod chunk;
pub mod error;
pub mod models;
pub mod request;
pub mod retry;
pub mod sse;
pub mod stream;
pub mod tool_calls;

#[cfg(target_arch = "wasm32")]
pub mod fetch;
#[cfg(target_arch = "wasm32")]
pub mod read_body;

pub use chunk::{ChatDelta, Usage};
pub use error::LlmError;
pub use request::{ChatCall, ChatMessage, ChatParams, Role};
