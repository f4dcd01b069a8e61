//! The page's split point: the parts of src/ui/parts.rs go into a wasm chunk of their own,
//! cut off the page's module by scripts/lib/split_page.py and fetched the first time a part is
//! drawn. It lives in the page's binary, not the library: the engine and Evaluate modules link
//! the library too, and would otherwise carry the parts' code.

use leptos::prelude::AnyView;
use react_arena::ui::parts::{self, Drawing, Part, PartMissing};
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

fn fetch_and_draw(part: Part) -> Drawing {
    Box::pin(async move { draw(part).await.map_err(|ChunkMissing| PartMissing) })
}

pub fn install() {
    parts::install(fetch_and_draw);
}
