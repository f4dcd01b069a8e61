//! Parts of the page that are not needed to show it and start a run: what a panel shows of a
//! run (steps, answer, usage, Inspect), the comparison table, export and import, the embed
//! code, keeping runs and the history list, and the host confirmation. The page's binary puts
//! them in a wasm chunk of their own (a split point, src/split_points.rs, cut by
//! scripts/lib/split_page.py), so the first load does not carry them: the chunk is fetched once,
//! when the first of them is drawn (export, embed and history are drawn with the first screen,
//! so that is right after it), and drawn parts appear when it has arrived. If it cannot be
//! fetched, each part says so where it would have been.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use leptos::prelude::*;
use send_wrapper::SendWrapper;

use super::comparison::Comparison;
use super::embed_code::EmbedCode;
use super::history::History;
use super::host_confirm::HostConfirm;
use super::keep::{KeepWiring, Keeper};
use super::panel::{run_body, RunBody};
use super::replay_player::ReplayControl;
use super::run_files::RunFiles;
use super::runner::PanelRun;
use super::show_file::FileShow;
use crate::agent::mode::ModeChoice;
use crate::origin::Origin;

/// A part and what it is drawn from.
pub enum Part {
    Comparison(RwSignal<Vec<PanelRun>>),
    RunFiles {
        panels: RwSignal<Vec<PanelRun>>,
        replay: ReplayControl,
        alert: RwSignal<Option<String>>,
        shower: FileShow,
    },
    EmbedCode {
        panels: RwSignal<Vec<PanelRun>>,
        question: RwSignal<String>,
        mode_choice: RwSignal<ModeChoice>,
    },
    /// Keeping runs as they stream, restoring the latest after a reload, and the list of kept
    /// runs.
    History(KeepWiring),
    HostConfirm {
        origin: Origin,
        on_confirm: Callback<()>,
        on_cancel: Callback<()>,
    },
    /// A panel's run: steps, answer, usage and the Inspect view.
    RunBody(RunBody),
}

/// The chunk holding the parts could not be fetched.
#[derive(Debug)]
pub struct PartMissing;

/// A part being fetched and drawn.
pub type Drawing = Pin<Box<dyn Future<Output = Result<AnyView, PartMissing>>>>;

/// How the page fetches and draws a part, given once by the page's binary before it mounts
/// the app (only it knows the split point). Other modules that link this crate never draw one.
static FETCH: OnceLock<fn(Part) -> Drawing> = OnceLock::new();

pub fn install(fetch: fn(Part) -> Drawing) {
    let _ = FETCH.set(fetch);
}

/// Draws a part: what the split point calls once its chunk is in.
pub fn draw(part: Part) -> AnyView {
    match part {
        Part::Comparison(panels) => view! { <Comparison panels=panels /> }.into_any(),
        Part::RunFiles {
            panels,
            replay,
            alert,
            shower,
        } => {
            view! { <RunFiles panels=panels replay=replay alert=alert shower=shower /> }.into_any()
        }
        Part::EmbedCode {
            panels,
            question,
            mode_choice,
        } => view! { <EmbedCode panels=panels question=question mode_choice=mode_choice /> }
            .into_any(),
        Part::History(wiring) => {
            let keeper = Keeper::start(wiring);
            view! { <History keeper=keeper /> }.into_any()
        }
        Part::HostConfirm {
            origin,
            on_confirm,
            on_cancel,
        } => view! { <HostConfirm origin=origin on_confirm=on_confirm on_cancel=on_cancel /> }
            .into_any(),
        Part::RunBody(body) => run_body(body),
    }
}

/// Shows a part where it is called, once its chunk has arrived.
pub fn show(part: Part) -> impl IntoView {
    let drawing = FETCH.get().map(|fetch| fetch(part));
    // Leptos asks for a Send future; this one never leaves the page's thread.
    Suspend::new(SendWrapper::new(async move {
        let drawn = match drawing {
            Some(drawing) => drawing.await,
            None => Err(PartMissing),
        };
        drawn.unwrap_or_else(|PartMissing| {
            view! {
                <p class="part-missing" role="alert">
                    "This part of the page could not be loaded. Check the connection and reload the page."
                </p>
            }
            .into_any()
        })
    }))
}
