//! Parts of the page that are not needed to show it: what a panel shows of a run (steps,
//! answer, usage, Inspect), the comparison table, export and import, the embed code, keeping
//! runs and the history list, the host confirmation and the recordings' cards; and work
//! without a view of its own (`Job`): driving a run's turns, which wait for the engine module
//! anyway, and reading and playing back a run file the page's address carries or names. The
//! page's binary puts them in a wasm chunk of their own (split points, src/split_points.rs, cut
//! by scripts/lib/split_page.py), so the first load does not carry them: the chunk is fetched
//! once, when the first of them is needed (export, embed and history are drawn with the first
//! screen, so that is right after it), and drawn parts appear when it has arrived. If it
//! cannot be fetched, each part or job says so where its result would have been.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use leptos::prelude::*;
use leptos::task::spawn_local;
use send_wrapper::SendWrapper;

use super::comparison::Comparison;
use super::embed_code::EmbedCode;
use super::from_address::show_carried_run;
use super::history::History;
use super::host_confirm::HostConfirm;
use super::keep::{KeepWiring, Keeper};
use super::panel::run_body;
pub use super::panel::RunBody;
use super::recording_cards::{play_recording_named, RecordingCards};
use super::replay_player::ReplayControl;
use super::run_files::RunFiles;
use super::runner::PanelRun;
use super::show_file::FileShow;
use super::turn_driver::{self, FirstTurns, Turn};
use crate::agent::mode::ModeChoice;
use crate::agent::record::RunRecord;
use crate::agent::AgentEvent;
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
    /// The shipped recordings to play, in the welcome block.
    RecordingCards(FileShow),
}

/// Work done in the chunk: what the page's address asks for at once.
pub enum Job {
    /// Shows the run a `#run=` fragment carries (base64url of deflated JSON).
    ShowCarriedRun {
        encoded: String,
        shower: FileShow,
        alert: RwSignal<Option<String>>,
    },
    /// Plays the shipped recording the address names.
    PlayRecording {
        file: String,
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
/// the parts chunk; a panel's run and its turns in the engine's chunk, so a first run needs
/// only that one (and the code both chunks use).
#[derive(Clone, Copy)]
pub struct Fetch {
    pub draw: fn(Part) -> Drawing,
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
        Part::RecordingCards(shower) => view! { <RecordingCards shower=shower /> }.into_any(),
    }
}

/// Draws a panel's run: what the engine's split point calls once its chunk is in.
pub fn draw_run(body: RunBody) -> AnyView {
    run_body(body)
}

/// Drives a run's turns: what the engine's split point calls once its chunk is in.
pub fn drive(turns: Turns) {
    match turns {
        Turns::One(turn) => turn_driver::drive(*turn),
        Turns::First(first) => turn_driver::begin(first),
    }
}

/// Starts a job: what the split point calls once its chunk is in.
pub fn carry_out(job: Job) {
    spawn_local(async move {
        match job {
            Job::ShowCarriedRun {
                encoded,
                shower,
                alert,
            } => show_carried_run(&encoded, shower, alert).await,
            Job::PlayRecording {
                file,
                shower,
                alert,
            } => {
                if let Err(why) = play_recording_named(&file, shower).await {
                    alert.set(Some(why));
                }
            }
        }
    });
}

/// Where a job that cannot start is said: in the panels of its run, or in the page's alert.
enum SayMissing {
    Panels(Vec<RwSignal<RunRecord>>),
    Alert(RwSignal<Option<String>>),
}

impl SayMissing {
    fn of(job: &Job) -> Self {
        match job {
            Job::ShowCarriedRun { alert, .. } | Job::PlayRecording { alert, .. } => {
                Self::Alert(*alert)
            }
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
    let starting = (fetch.start)(job);
    spawn_local(async move {
        if starting.await.is_err() {
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
    let starting = (fetch.drive)(turns);
    spawn_local(async move {
        if starting.await.is_err() {
            missing.say();
        }
    });
}

/// Shows a part where it is called, once its chunk has arrived.
pub fn show(part: Part) -> impl IntoView {
    let drawing = FETCH.get().map(|fetch| (fetch.draw)(part));
    drawn_or_missing(drawing, || {
        view! { <p class="part-missing" role="alert">{MISSING}</p> }.into_any()
    })
}

/// Shows a panel's run where it is called, once the engine's chunk has arrived.
pub fn show_run(body: RunBody) -> impl IntoView {
    let drawing = FETCH.get().map(|fetch| (fetch.draw_run)(body));
    // Where the run's error would be: the engine could not be fetched, and Run tries again.
    drawn_or_missing(drawing, || {
        view! { <p class="part-missing panel-error" role="alert">{ENGINE_MISSING}</p> }.into_any()
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
