//! What a panel is drawn from: a run's panel (`PanelRun`) and, once its run has started, the
//! run's body (`RunBody`). Data only, so the views, the runner and the page's parts seam
//! (`parts.rs`) can all name them without importing one another.

use std::sync::Arc;

use leptos::prelude::*;

use crate::agent::record::RunRecord;
use crate::agent::Mode;
use crate::settings::Settings;

/// What a panel's own buttons ask for, each of one panel (run id and mode).
#[derive(Clone, Copy, PartialEq)]
pub enum PanelAction {
    /// Continue a run a broken stream cut.
    Continue,
    Stop,
    Retry,
    /// Go on past the step limit.
    MoreSteps,
}

/// Whether the panels show a run (live, kept or played back), not only their empty frames.
/// Tracks the records.
pub fn shows_a_run(panels: &[PanelRun]) -> bool {
    panels
        .iter()
        .any(|p| p.state.try_with(|r| !r.turns.is_empty()).unwrap_or(false))
}

/// One panel of one run.
#[derive(Clone)]
pub struct PanelRun {
    pub run_id: u32,
    pub mode: Mode,
    /// The run's record, which the panel shows.
    pub state: RwSignal<RunRecord>,
    /// The settings the run started with: Continue uses these, not today's, and "Go on" adds
    /// their step limit, whichever way the run was opened. (`Arc`: signals hold only `Send`
    /// values.)
    pub settings: Arc<Settings>,
}

impl PanelRun {
    pub fn idle(mode: Mode, settings: &Settings) -> Self {
        Self {
            run_id: 0,
            mode,
            state: RwSignal::new(RunRecord::default()),
            settings: Arc::new(settings.clone()),
        }
    }

    /// A panel of run `run_id` showing `record`, run with `settings`.
    pub fn of(run_id: u32, record: RunRecord, settings: Arc<Settings>) -> Self {
        Self {
            run_id,
            mode: record.config.mode,
            state: RwSignal::new(record),
            settings,
        }
    }

    /// How many steps "Go on" adds: the run's step limit in its settings.
    pub fn more_steps(&self) -> u32 {
        self.settings.max_steps.max(1)
    }
}

/// What a panel shows once its run has started (or a kept or recorded run is shown): the
/// progress line, the steps, the answer, the usage line and the Inspect view. It is one of the
/// page's parts (src/ui/parts.rs, drawn by part_views.rs): an idle panel is drawn without it.
pub struct RunBody {
    pub state: RwSignal<RunRecord>,
    pub mode: Mode,
    pub run_id: u32,
    pub recording: bool,
    pub on_action: Callback<(u32, Mode, PanelAction)>,
    /// How many steps "Go on" adds: the run's step limit in Settings.
    pub more_steps: u32,
}
