//! The check of a call's arguments against its tool's schema (`arena_core::tools::args` and its
//! work meters), behind a split point of the page's module (`src/split_points.rs`) in the
//! built-in tools' chunk: a run lists its tools and sends its first request without it; it
//! comes with that chunk, fetched once the request has left (`tool_chunk`), and a call that
//! comes before it has arrived waits for it (`Registry::deferred`).

use std::cell::Cell;

use arena_core::tools::args;
use arena_core::tools::registry::{LoadReadArgs, ReadArgs};
use arena_core::tools::{FailureKind, ToolFailure};

use crate::engine::{ChunkMissing, Fetching};
use crate::tool_chunk::TOOLS_MISSING;

/// What fetches the chunk and gives the check: the page's binary (the split point), or a
/// module that links the check directly ([`made_here`]).
pub type FetchArgsCheck = fn() -> Fetching<ReadArgs>;

thread_local! {
    static FETCH: Cell<Option<FetchArgsCheck>> = const { Cell::new(None) };
}

pub fn install(fetch: FetchArgsCheck) {
    FETCH.with(|f| f.set(Some(fetch)));
}

/// The check linked here, without a chunk: for a module that links it (Evaluate).
pub fn made_here() -> Fetching<ReadArgs> {
    Box::pin(async { Ok(args::read as ReadArgs) })
}

/// What a run's registry reads its calls' arguments with, at its first call.
pub fn loader() -> LoadReadArgs {
    Box::new(|| {
        Box::pin(async {
            // The check is in the tools' chunk: the same sentence as a tool that cannot be made.
            let missing = || ToolFailure::new(FailureKind::Network, TOOLS_MISSING);
            let fetch = FETCH.with(Cell::get).ok_or_else(missing)?;
            fetch().await.map_err(|ChunkMissing| missing())
        })
    })
}
