//! MCP servers as tool sources: the Model Context Protocol over Streamable HTTP, called from
//! the page. The wire format (`wire`), a server's session (`client`), what its tools look like
//! to the model and the user (`server_tools`), the list the settings keep (`server_list`), a result as an observation (`result`), and what
//! went wrong, said so the user can act on it (`failure`). The browser's transport is in
//! arena-web.

pub mod client;
pub mod consent;
pub mod failure;
pub mod result;
pub mod server_list;
pub mod server_tools;
pub mod tokens;
pub mod wire;

pub use client::{McpClient, McpEndpoint, McpTransport, PostReply, PostRequest};
pub use failure::McpFailure;
