//! The seam to the page's parts: what is not needed to show the page. The comparison table,
//! the blind vote, a phone's tabs, the embed dialog, the recording's banner, keeping runs and
//! the history list, the host confirmation, Settings' model and tool sections (`Part`), and
//! exporting, importing, playing a recording and reading a run the address carries (`Job`)
//! are in the parts chunk; what a panel shows of a run (`RunBody`) is in a chunk of its own,
//! and driving a run's turns (`Turns`) in the engine's chunk. The page's binary cuts them off
//! its module (split points, src/split_points.rs, cut by scripts/lib/split_page.py), so the
//! first load does not carry them. A chunk is fetched once, when the first of its parts is
//! about to be shown (`show_once`: a run in the panels, a dialog or a section opened, runs
//! kept by an earlier visit) or a job is asked for; never before a starting run's first
//! request has left (`engine::settled`). Drawn parts appear when it has arrived; if it cannot
//! be fetched, each part or job says so where its result would have been.
//!
//! This file names what the parts are drawn from, never a view: the views call it, and
//! `part_views.rs` (reached only from the split points) draws them.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use leptos::prelude::*;
use leptos::task::spawn_local;
use send_wrapper::SendWrapper;

use crate::agent::mode::ModeChoice;
use crate::agent::record::RunRecord;
use crate::agent::AgentEvent;
use crate::origin::Origin;
use crate::recordings::RecordingEntry;
use crate::ui::panel::panel_run::PanelRun;
pub use crate::ui::panel::panel_run::RunBody;
use crate::ui::phone_tabs::PhoneTabs;
use crate::ui::runs::keep::KeepWiring;
use crate::ui::runs::replay_player::ReplayControl;
use crate::ui::runs::show_file::FileShow;
use crate::ui::turn_driver::{FirstTurns, Turn};
use crate::web::engine;

/// A part and what it is drawn from.
pub enum Part {
    Comparison(RwSignal<Vec<PanelRun>>),
    /// The embed dialog, once its button has opened it.
    EmbedCode {
        panels: RwSignal<Vec<PanelRun>>,
        question: RwSignal<String>,
        mode_choice: RwSignal<ModeChoice>,
        open: RwSignal<bool>,
    },
    /// Keeping runs as they stream, restoring the latest after a reload, the list of kept
    /// runs and the leaderboard; `opened` names which of the two to draw open (its summary
    /// was opened before they were here); `drawn` turns true when they are.
    History {
        wiring: KeepWiring,
        opened: RwSignal<Option<&'static str>>,
        drawn: RwSignal<bool>,
    },
    HostConfirm {
        origin: Origin,
        on_confirm: Callback<()>,
        on_cancel: Callback<()>,
    },
    /// Settings' tool section: the protocol, which tools each mode may call, their endpoints
    /// and time limits, and the MCP servers.
    ToolSettings,
    /// A blind run's vote.
    BlindVote(RwSignal<Vec<PanelRun>>),
    /// A phone's tabs, one per mode and one for the comparison.
    ModeTabs(PhoneTabs),
    /// What the panels play back, and Replay again.
    RecordingBanner {
        panels: RwSignal<Vec<PanelRun>>,
        replay: ReplayControl,
    },
    /// Settings' choice of where the model runs, and the model in this browser (its
    /// download, what is kept, Delete).
    ModelBackend,
}

/// What a first visit is shown at once beside the first screen (the recordings' cards; in
/// Settings, what this browser keeps): drawn from a small chunk of their own, so that a
/// first visit does not fetch the parts.
pub enum FirstPart {
    RecordingCards(FileShow),
    /// Settings' list of the secrets this browser keeps and where; read again when the token,
    /// the settings or `changed` change.
    KeptSecrets {
        changed: RwSignal<u32>,
    },
}

/// The Hub's views, in a chunk of their own (drawn when their section is first opened).
pub enum HubPart {
    /// Publishing votes, evaluations and the kept runs (the history list's summaries).
    Publish(RwSignal<Vec<crate::history::RunSummary>>),
    /// The community leaderboard.
    Community,
}

/// Work done in the chunk: what the page's address asks for at once.
pub enum Job {
    /// Shows the run a `#run=` fragment carries (base64url of deflated JSON).
    ShowCarriedRun {
        encoded: String,
        shower: FileShow,
        alert: RwSignal<Option<String>>,
    },
    /// Shows the run published on the Hub that `?hub=` names (`owner/repo/path.json`).
    ShowHubRun {
        address: String,
        shower: FileShow,
        alert: RwSignal<Option<String>>,
    },
    /// Plays the shipped recording the address names.
    PlayRecording {
        file: String,
        shower: FileShow,
        alert: RwSignal<Option<String>>,
    },
    /// Plays a recording's card: `loading` names it until it plays or `problem` says why not.
    PlayCard {
        entry: RecordingEntry,
        shower: FileShow,
        problem: RwSignal<Option<String>>,
        loading: RwSignal<Option<String>>,
    },
    /// Downloads the run the panels show, as JSON or Markdown.
    Export {
        panels: RwSignal<Vec<PanelRun>>,
        as_markdown: bool,
        alert: RwSignal<Option<String>>,
    },
    /// Reads a run file the user chose and shows it.
    Import {
        file: web_sys::File,
        shower: FileShow,
        alert: RwSignal<Option<String>>,
    },
}

/// The chunk holding the parts could not be fetched.
#[derive(Debug)]
pub struct PartMissing;

/// A part being fetched and drawn.
pub type Drawing = Pin<Box<dyn Future<Output = Result<AnyView, PartMissing>>>>;

/// A job being fetched and started.
pub type Starting = Pin<Box<dyn Future<Output = Result<(), PartMissing>>>>;

/// A run's turns, driven in the engine's chunk.
pub enum Turns {
    /// A turn of a panel's run (a follow-up or a continued step).
    One(Box<Turn>),
    /// The first turn of each mode of a new run.
    First(FirstTurns),
}

/// How the page fetches the chunks and draws a part or starts a job in them: the parts in
/// the parts chunk; a panel's run in its own chunk, and its turns in the engine's chunk, so a
/// first run needs only the engine before its first request (and the code it shares).
#[derive(Clone, Copy)]
pub struct Fetch {
    pub draw: fn(Part) -> Drawing,
    pub draw_first: fn(FirstPart) -> Drawing,
    pub draw_hub: fn(HubPart) -> Drawing,
    pub start: fn(Job) -> Starting,
    pub draw_run: fn(RunBody) -> Drawing,
    pub drive: fn(Turns) -> Starting,
}

/// Given once by the page's binary before it mounts the app (only it knows the split
/// points). Other modules that link this crate never draw a part.
static FETCH: OnceLock<Fetch> = OnceLock::new();

pub fn install(fetch: Fetch) {
    let _ = FETCH.set(fetch);
}

/// What a part or a job that cannot be fetched says.
const MISSING: &str =
    "This part of the page could not be loaded. Check the connection and reload the page.";

/// What a run whose engine cannot be fetched says, in its panels.
const ENGINE_MISSING: &str = "The agent engine could not start (its part of the page could not be fetched). Check the connection and press Run again.";

/// Where a job that cannot start is said: in the panels of its run, in the page's alert, or
/// under a recording's card (which is no longer busy).
enum SayMissing {
    Panels(Vec<RwSignal<RunRecord>>),
    Alert(RwSignal<Option<String>>),
    Card {
        problem: RwSignal<Option<String>>,
        loading: RwSignal<Option<String>>,
    },
}

impl SayMissing {
    fn of(job: &Job) -> Self {
        match job {
            Job::ShowCarriedRun { alert, .. }
            | Job::ShowHubRun { alert, .. }
            | Job::PlayRecording { alert, .. }
            | Job::Export { alert, .. }
            | Job::Import { alert, .. } => Self::Alert(*alert),
            Job::PlayCard {
                problem, loading, ..
            } => Self::Card {
                problem: *problem,
                loading: *loading,
            },
        }
    }

    fn of_turns(turns: &Turns) -> Self {
        match turns {
            Turns::One(turn) => Self::Panels(vec![turn.state]),
            Turns::First(first) => Self::Panels(first.panels.iter().map(|p| p.1).collect()),
        }
    }

    fn say(self) {
        match self {
            Self::Panels(states) => {
                let now = crate::web::clock::wall_ms();
                let missing = AgentEvent::Error(ENGINE_MISSING.into());
                for state in states {
                    // `try_update`: the panel may have been replaced meanwhile.
                    state.try_update(|r| r.apply(now, &missing));
                }
            }
            Self::Alert(alert) => alert.set(Some(MISSING.into())),
            Self::Card { problem, loading } => {
                loading.set(None);
                problem.set(Some(MISSING.into()));
            }
        }
    }
}

/// Starts a job once its chunk has arrived; if it cannot, says so where the job's result
/// would have been.
pub fn start(job: Job) {
    let missing = SayMissing::of(&job);
    let Some(fetch) = FETCH.get() else {
        missing.say();
        return;
    };
    let start = fetch.start;
    spawn_local(async move {
        engine::settled().await;
        if start(job).await.is_err() {
            missing.say();
        }
    });
}

/// Starts a run's turns once the engine's chunk has arrived; if it cannot, the run's panels
/// say so.
pub fn start_turns(turns: Turns) {
    let missing = SayMissing::of_turns(&turns);
    let Some(fetch) = FETCH.get() else {
        missing.say();
        return;
    };
    // The parts wait until this run's first request has left (`engine::settled`).
    engine::run_starting();
    let starting = (fetch.drive)(turns);
    spawn_local(async move {
        if starting.await.is_err() {
            engine::model_request_left();
            missing.say();
        }
    });
}

/// Draws `view` (a part, say) where it is called once `due` has been true, and from then on:
/// a part is fetched when what it draws is about to be shown, not with the first screen.
/// (Boxed: one copy of this in the first screen's code, not one per place it is used.)
pub fn show_once(
    due: impl Fn() -> bool + Send + Sync + 'static,
    view: impl Fn() -> AnyView + Send + Sync + 'static,
) -> AnyView {
    once_due(Box::new(due), Box::new(view))
}

type Due = Box<dyn Fn() -> bool + Send + Sync>;
type Drawn = Box<dyn Fn() -> AnyView + Send + Sync>;

fn once_due(due: Due, view: Drawn) -> AnyView {
    let due = Memo::new(move |was: Option<&bool>| was.copied().unwrap_or(false) || due());
    (move || due.get().then(&view)).into_any()
}

/// Shows a part where it is called, once its chunk has arrived.
pub fn show(part: Part) -> impl IntoView {
    // After an early fetch of the engine, if one is under way, and after a starting run's
    // first request: a run started at once from a link does not share the connection with
    // the parts, nor wait for them.
    let drawing = FETCH.get().map(|fetch| {
        let draw = fetch.draw;
        Box::pin(async move {
            engine::settled().await;
            draw(part).await
        }) as Drawing
    });
    drawn_or_missing(drawing, || {
        view! { <p class="part-missing" role="alert">{MISSING}</p> }.into_any()
    })
}

/// Shows a Hub view where it is called, once its chunk has arrived.
pub fn show_hub(part: HubPart) -> impl IntoView {
    let drawing = FETCH.get().map(|fetch| {
        let draw = fetch.draw_hub;
        Box::pin(async move { draw(part).await }) as Drawing
    });
    drawn_or_missing(drawing, || {
        view! { <p class="part-missing" role="alert">{MISSING}</p> }.into_any()
    })
}

/// Shows a first visit's part where it is called, once its chunk has arrived.
pub fn show_first(part: FirstPart) -> impl IntoView {
    let drawing = FETCH.get().map(|fetch| {
        let draw = fetch.draw_first;
        Box::pin(async move {
            engine::settled().await;
            draw(part).await
        }) as Drawing
    });
    drawn_or_missing(drawing, || {
        view! { <p class="part-missing" role="alert">{MISSING}</p> }.into_any()
    })
}

/// Shows a panel's run where it is called, once its chunk has arrived (after a starting run's
/// first request has left); `drawn` turns true when it is shown, or says why not.
pub fn show_run(body: RunBody, drawn: RwSignal<bool>) -> impl IntoView {
    let drawing = FETCH.get().map(|fetch| {
        let draw = fetch.draw_run;
        Box::pin(async move {
            engine::settled().await;
            let shown = draw(body).await;
            // After this view is in the page: an effect runs once the render is done.
            Effect::new(move |_| drawn.set(true));
            shown
        }) as Drawing
    });
    drawn_or_missing(drawing, || {
        view! { <p class="part-missing panel-error" role="alert">{MISSING}</p> }.into_any()
    })
}

fn drawn_or_missing(drawing: Option<Drawing>, missing: fn() -> AnyView) -> impl IntoView {
    // Leptos asks for a Send future; this one never leaves the page's thread.
    Suspend::new(SendWrapper::new(async move {
        let drawn = match drawing {
            Some(drawing) => drawing.await,
            None => Err(PartMissing),
        };
        drawn.unwrap_or_else(|PartMissing| missing())
    }))
}
