//! Shows a run file in new panels and plays it back: an imported file, a shipped recording or
//! a run carried in the page's address all go through here. Nothing is run and no token is
//! read; the panels only replay the records.

use leptos::prelude::*;

use crate::run_file::RunFile;
use crate::ui::panels::Panels;
use crate::ui::panels_in_view::bring_panels_into_view;
use crate::ui::runs::replay_player::ReplayControl;
use crate::web::engine;

#[derive(Clone, Copy)]
pub struct FileShow {
    pub panels: Panels,
    pub replay: ReplayControl,
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
        let (run_id, fresh) = self.panels.of_file(&file);
        self.replay.load(run_id, title, file.records);
        self.panels.replace(fresh.clone());
        self.replay.play(fresh.iter().map(|p| p.state).collect());
        bring_panels_into_view();
    }

    /// The same for a shipped recording, at the recordings' speed.
    pub fn show_recording(self, file: RunFile, title: String) {
        self.replay.at_recording_speed();
        self.show(file, title);
    }
}
