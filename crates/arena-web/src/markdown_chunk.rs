//! The Markdown parser, a split point of the page's module (`src/split_points.rs`) fetched
//! the first time Markdown is to be drawn: a run's first request does not wait for it, and
//! text is shown as it is until it has arrived.

use std::cell::{Cell, OnceCell};

use wasm_bindgen_futures::spawn_local;

use crate::engine::{ChunkMissing, Fetching};
use crate::timer::sleep;

/// The parser's entries, in its chunk.
pub struct MarkdownEntries {
    pub html: fn(&str, &str) -> String,
    pub block_starts: fn(&str) -> Vec<usize>,
}

/// The entries, as the chunk hands them over.
pub static ENTRIES: MarkdownEntries = MarkdownEntries {
    html: arena_core::markdown::render_markdown,
    block_starts: arena_core::markdown_blocks::settled_block_starts,
};

/// What fetches the parser's chunk: given by the page's binary, which holds the split point.
pub type FetchMarkdown = fn() -> Fetching<&'static MarkdownEntries>;

thread_local! {
    static FETCH: Cell<Option<FetchMarkdown>> = const { Cell::new(None) };
    static LOADED: OnceCell<&'static MarkdownEntries> = const { OnceCell::new() };
}

/// Called once by the page's binary, which holds the split point.
pub fn install(fetch: FetchMarkdown) {
    FETCH.with(|f| f.set(Some(fetch)));
}

fn loaded() -> Option<&'static MarkdownEntries> {
    LOADED.with(|l| l.get().copied())
}

/// A little of each kind of Markdown block and span.
const WARM_UP: &str = "# Title\n\nSome **bold**, *em*, `code` and a [link](https://example.org/).\n\n\
- one\n- two\n\n1. first\n\n> quoted\n\n```rust\nlet x = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n";

/// Fetches the parser if it is not yet here.
pub async fn load() -> Result<(), ChunkMissing> {
    if loaded().is_some() {
        return Ok(());
    }
    let fetch = FETCH.with(Cell::get).ok_or(ChunkMissing)?;
    let entries = fetch().await?;
    if LOADED.with(|l| l.set(entries)).is_ok() {
        // The browser compiles a function when it is first called: Markdown drawn once here,
        // in a task of its own, is not compiled in the frame that draws a run's first answer.
        spawn_local(async move {
            sleep(0).await;
            (entries.block_starts)(WARM_UP);
            (entries.html)(WARM_UP, "https://example.org");
        });
    }
    Ok(())
}

pub fn is_loaded() -> bool {
    loaded().is_some()
}

/// Model or tool text as HTML that runs nothing (`markdown::render_markdown`); `None` until
/// the parser has arrived.
pub fn markdown_html(text: &str, page_origin: &str) -> Option<String> {
    loaded().map(|m| (m.html)(text, page_origin))
}

/// Where the settled blocks of a growing text start (`markdown_blocks::settled_block_starts`);
/// `None` until the parser has arrived.
pub fn markdown_block_starts(text: &str) -> Option<Vec<usize>> {
    loaded().map(|m| (m.block_starts)(text))
}
