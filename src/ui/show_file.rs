//! Shows a run file in new panels and plays it back: an imported file, a shipped recording or
//! a run carried in the page's address all go through here. Nothing is run and no token is
//! read; the panels only replay the records.

use std::sync::Arc;

use leptos::prelude::*;

use super::panel_run::PanelRun;
use super::panels_in_view::bring_panels_into_view;
use super::replay_player::ReplayControl;
use crate::run_file::RunFile;
use crate::web::engine;

#[derive(Clone, Copy)]
pub struct FileShow {
    pub panels: RwSignal<Vec<PanelRun>>,
    pub replay: ReplayControl,
    /// Allocates the run id of the new panels (shared with new runs).
    pub run_counter: StoredValue<u32>,
    /// The app's owner: the panels' signals live as long as the app.
    pub owner: StoredValue<Owner, LocalStorage>,
    /// Stops whatever the panels are doing (a run or a replay).
    pub on_stop: Callback<()>,
}

impl FileShow {
    /// Replaces the panels with the file's records and plays them; `title` labels the
    /// recording.
    pub fn show(self, file: RunFile, title: String) {
        // What a panel shows of a run is drawn by the engine's chunk: fetched now, with the
        // panels, if it is not here yet.
        engine::prefetch();
        self.on_stop.run(());
        self.run_counter.update_value(|n| *n += 1);
        let run_id = self.run_counter.get_value();
        let settings = Arc::new(file.settings.clone());
        let fresh: Vec<PanelRun> = self.owner.with_value(|owner| {
            owner.with(|| {
                file.records
                    .iter()
                    .map(|r| PanelRun {
                        run_id,
                        max_steps: r.config.max_steps,
                        settings: settings.clone(),
                        ..PanelRun::idle(r.config.mode, &settings)
                    })
                    .collect()
            })
        });
        self.replay.load(run_id, title, file.records);
        let old = self.panels.get_untracked();
        self.panels.set(fresh.clone());
        old.into_iter().for_each(|p| p.state.dispose());
        self.replay.play(fresh.iter().map(|p| p.state).collect());
        bring_panels_into_view();
    }
}
