//! The page's split points, cut off the page's module by scripts/lib/split_page.py into wasm
//! chunks fetched when first needed: the parts and jobs of src/ui/parts.rs (a part drawn, a
//! job started); the agent engine (the loop, the model client, the MCP tools) and the driving
//! of a run's turns (a question written, a run started); what a panel shows of a run (a run
//! shown, once a starting run's first request has left); the built-in tools
//! with the check of a call's arguments and CodeAct's interpreter (a run's first request sent);
//! the MCP servers' tools (a run with servers set up); the Markdown parser (Markdown to draw). Code several chunks
//! use goes into a chunk of its own, fetched with whichever needs it first. They live in the page's binary, not the library: the Evaluate
//! module links the library too, and would otherwise carry their code.

use leptos::prelude::AnyView;
use react_arena::tools::registry::ReadArgs;
use react_arena::tools::Tool;
use react_arena::ui::part_views;
use react_arena::ui::parts::{
    self, Drawing, Fetch, FirstPart, HubPart, Job, Part, PartMissing, RunBody, Starting, Turns,
};
use react_arena::web::args_chunk;
use react_arena::web::engine::{self, Fetching};
use react_arena::web::markdown_chunk::{self, MarkdownEntries};
use react_arena::web::mcp_chunk::{self, McpEntries};
use react_arena::web::program_chunk::{self, ProgramRunner};
use react_arena::web::tool_chunk::{self, ToolsWanted};
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
    Ok(part_views::draw(part))
}

/// What a first visit is shown at once: a small chunk, so that it does not fetch the parts.
#[wasm_split_helpers::wasm_split(first_visit, fallible)]
fn draw_first(part: FirstPart) -> Result<AnyView, ChunkMissing> {
    Ok(part_views::draw_first(part))
}

// The Hub's views (publishing, the community leaderboard): a chunk of their own, fetched
// when one of their sections is first opened; most visits never open them.
#[wasm_split_helpers::wasm_split(hub, fallible)]
fn draw_hub(part: HubPart) -> Result<AnyView, ChunkMissing> {
    Ok(part_views::draw_hub(part))
}

fn fetch_and_draw_hub(part: HubPart) -> Drawing {
    Box::pin(async move { draw_hub(part).await.map_err(|ChunkMissing| PartMissing) })
}

#[wasm_split_helpers::wasm_split(parts, fallible)]
fn carry_out(job: Job) -> Result<(), ChunkMissing> {
    part_views::carry_out(job);
    Ok(())
}

// What a panel shows of a run is a chunk of its own, fetched once a starting run's first
// request has left: a first run fetches the first screen and the engine's chunk before it, and
// a run played back or kept needs no engine at all.
#[wasm_split_helpers::wasm_split(run_view, fallible)]
fn draw_run(body: RunBody) -> Result<AnyView, ChunkMissing> {
    Ok(part_views::draw_run(body))
}

#[wasm_split_helpers::wasm_split(engine, fallible)]
fn drive(turns: Turns) -> Result<(), ChunkMissing> {
    part_views::drive(turns);
    Ok(())
}

/// Nothing but the engine's chunk itself: fetched early, so a run started soon does not wait.
#[wasm_split_helpers::wasm_split(engine, fallible)]
fn engine_here() -> Result<(), ChunkMissing> {
    Ok(())
}

fn fetch_engine() -> Fetching<()> {
    Box::pin(async {
        engine_here()
            .await
            .map_err(|ChunkMissing| engine::ChunkMissing)
    })
}

/// The built-in tools' chunk: fetched once a run that may call them has sent its first
/// request, and made for each run at its first call.
#[wasm_split_helpers::wasm_split(tools, fallible)]
fn built_in_tools(wanted: ToolsWanted) -> Result<Vec<Box<dyn Tool>>, ChunkMissing> {
    Ok(tool_chunk::make(wanted))
}

fn fetch_tools(wanted: ToolsWanted) -> Fetching<Vec<Box<dyn Tool>>> {
    Box::pin(async move {
        built_in_tools(wanted)
            .await
            .map_err(|ChunkMissing| engine::ChunkMissing)
    })
}

/// The check of a call's arguments against its tool's schema, in the built-in tools' chunk (a
/// split module of its own would cost the first load a line of the loader and a stub): fetched
/// once a run that may call them has sent its first request, or at an MCP tool's first call.
#[wasm_split_helpers::wasm_split(tools, fallible)]
fn args_reader() -> Result<ReadArgs, ChunkMissing> {
    Ok(react_arena::tools::args::read)
}

fn fetch_args_reader() -> Fetching<ReadArgs> {
    Box::pin(async {
        args_reader()
            .await
            .map_err(|ChunkMissing| engine::ChunkMissing)
    })
}

/// The MCP servers' tools (reading the servers added, their sessions, the transport): fetched
/// when a run whose settings hold servers sets up its turns.
#[wasm_split_helpers::wasm_split(mcp, fallible)]
fn mcp_entries() -> Result<&'static McpEntries, ChunkMissing> {
    Ok(&mcp_chunk::ENTRIES)
}

fn fetch_mcp() -> Fetching<&'static McpEntries> {
    Box::pin(async {
        mcp_entries()
            .await
            .map_err(|ChunkMissing| engine::ChunkMissing)
    })
}

/// CodeAct's interpreter (the bridge to the Python sandbox), in the built-in tools' chunk, whose
/// `python` tool uses the same bridge and whose tools a program calls: fetched once a run that
/// may call them has sent its first request, or when a program is about to run.
#[wasm_split_helpers::wasm_split(tools, fallible)]
fn program_runner(index_url: String) -> Result<Box<dyn ProgramRunner>, ChunkMissing> {
    Ok(program_chunk::make(index_url))
}

fn fetch_program_runner(index_url: String) -> Fetching<Box<dyn ProgramRunner>> {
    Box::pin(async move {
        program_runner(index_url)
            .await
            .map_err(|ChunkMissing| engine::ChunkMissing)
    })
}

/// The Markdown parser's chunk: fetched when Markdown is first to be drawn.
#[wasm_split_helpers::wasm_split(markdown, fallible)]
fn markdown_entries() -> Result<&'static MarkdownEntries, ChunkMissing> {
    Ok(&markdown_chunk::ENTRIES)
}

fn fetch_markdown() -> Fetching<&'static MarkdownEntries> {
    Box::pin(async {
        markdown_entries()
            .await
            .map_err(|ChunkMissing| engine::ChunkMissing)
    })
}

fn fetch_and_draw_run(body: RunBody) -> Drawing {
    Box::pin(async move { draw_run(body).await.map_err(|ChunkMissing| PartMissing) })
}

fn fetch_and_drive(turns: Turns) -> Starting {
    Box::pin(async move { drive(turns).await.map_err(|ChunkMissing| PartMissing) })
}

fn fetch_and_draw(part: Part) -> Drawing {
    Box::pin(async move { draw(part).await.map_err(|ChunkMissing| PartMissing) })
}

fn fetch_and_draw_first(part: FirstPart) -> Drawing {
    Box::pin(async move { draw_first(part).await.map_err(|ChunkMissing| PartMissing) })
}

fn fetch_and_start(job: Job) -> Starting {
    Box::pin(async move { carry_out(job).await.map_err(|ChunkMissing| PartMissing) })
}

pub fn install() {
    parts::install(Fetch {
        draw: fetch_and_draw,
        draw_first: fetch_and_draw_first,
        draw_hub: fetch_and_draw_hub,
        start: fetch_and_start,
        draw_run: fetch_and_draw_run,
        drive: fetch_and_drive,
    });
    engine::install(fetch_engine);
    markdown_chunk::install(fetch_markdown);
    tool_chunk::install(fetch_tools);
    program_chunk::install(fetch_program_runner);
    args_chunk::install(fetch_args_reader);
    mcp_chunk::install(fetch_mcp);
}
