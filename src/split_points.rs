//! The page's split points: the parts and jobs of src/ui/parts.rs go into one wasm chunk of
//! their own, cut off the page's module by scripts/lib/split_page.py and fetched the first time
//! a part is drawn or a job started. They live in the page's binary, not the library: the
//! engine and Evaluate modules link the library too, and would otherwise carry the parts' code.

use leptos::prelude::AnyView;
use react_arena::ui::parts::{self, Drawing, Fetch, Job, Part, PartMissing, Starting};
use wasm_split_helpers::SplitLoaderError;

/// Why a part is missing, as the split point reports it.
pub struct ChunkMissing;

impl From<SplitLoaderError> for ChunkMissing {
    fn from(_: SplitLoaderError) -> Self {
        ChunkMissing
    }
}

// `fallible`: a chunk that cannot be fetched is an error the part shows, not a panic (which
// would stop the whole page).
#[wasm_split_helpers::wasm_split(parts, fallible)]
fn draw(part: Part) -> Result<AnyView, ChunkMissing> {
    Ok(parts::draw(part))
}

#[wasm_split_helpers::wasm_split(parts, fallible)]
fn carry_out(job: Job) -> Result<(), ChunkMissing> {
    parts::carry_out(job);
    Ok(())
}

fn fetch_and_draw(part: Part) -> Drawing {
    Box::pin(async move { draw(part).await.map_err(|ChunkMissing| PartMissing) })
}

fn fetch_and_start(job: Job) -> Starting {
    Box::pin(async move { carry_out(job).await.map_err(|ChunkMissing| PartMissing) })
}

pub fn install() {
    parts::install(Fetch {
        draw: fetch_and_draw,
        start: fetch_and_start,
    });
}
