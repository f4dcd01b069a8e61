//! MCP servers' tools in a run, a split point of the page's module (`src/split_points.rs`):
//! reading the servers the user added (`Settings::mcp_tools`) and offering their tools
//! (`mcp_tools::add_tools`, with the sessions and the transport behind them) are in a chunk of
//! their own. A run whose settings hold no server never fetches it; one that has servers
//! fetches it as its turns are set up, before its first request (the tools are offered in it).

use std::cell::Cell;
use std::rc::Rc;

use arena_core::agent::turn::McpSource;
use arena_core::agent::Mode;
use arena_core::mcp::consent::ConsentGate;
use arena_core::settings::Settings;
use arena_core::tools::Registry;

use crate::engine::{ChunkMissing, Fetching};
use crate::mcp_tools;

/// What the chunk holds.
pub struct McpEntries {
    /// The MCP tools a mode may call, with their servers, in the order they are offered.
    pub sources: fn(&Settings, Mode) -> Vec<McpSource>,
    /// Adds them to a run's registry, behind the run's consent gate.
    pub add_tools: fn(&mut Registry, &Settings, Mode, &Rc<ConsentGate>),
}

/// The chunk's entries: named only by the split point (and by a module that links them).
pub static ENTRIES: McpEntries = McpEntries {
    sources: Settings::mcp_tools,
    add_tools: mcp_tools::add_tools,
};

/// What fetches the chunk: the page's binary (the split point), or a module that links the
/// MCP tools directly ([`made_here`]).
pub type FetchMcp = fn() -> Fetching<&'static McpEntries>;

thread_local! {
    static FETCH: Cell<Option<FetchMcp>> = const { Cell::new(None) };
}

pub fn install(fetch: FetchMcp) {
    FETCH.with(|f| f.set(Some(fetch)));
}

/// The entries linked here, without a chunk: for a module that links them (Evaluate).
pub fn made_here() -> Fetching<&'static McpEntries> {
    Box::pin(async { Ok(&ENTRIES) })
}

/// What a run whose MCP servers' tools cannot be fetched says, in its panel.
pub const MCP_MISSING: &str = "The MCP servers' part of the page could not be fetched, so the run did not start. Check the connection and press Run again.";

/// The entries for a run with `settings`: none when no server was added (nothing is fetched),
/// or the chunk's once it has arrived.
pub async fn entries_for(settings: &Settings) -> Result<Option<&'static McpEntries>, ChunkMissing> {
    if settings.mcp_servers.is_empty() {
        return Ok(None);
    }
    let fetch = FETCH.with(Cell::get).ok_or(ChunkMissing)?;
    fetch().await.map(Some)
}
