//! The panels' one owner of "a new run in the panels": its run id, its panels' signals under
//! the app's owner (so a run started from a dialog outlives the dialog), and the swap that
//! lets the old panels' records go. New runs, kept runs and shown files all go through it.

use std::sync::Arc;

use leptos::prelude::*;

use crate::run_file::RunFile;
use crate::ui::panel::panel_run::PanelRun;

#[derive(Clone, Copy)]
pub struct Panels {
    /// What the panels show.
    pub list: RwSignal<Vec<PanelRun>>,
    /// The last run id given (new runs, kept runs and shown files share it).
    run_counter: StoredValue<u32>,
    /// The app's owner.
    owner: StoredValue<Owner, LocalStorage>,
}

impl Panels {
    /// The panels of `list`, their signals made under `owner`.
    pub fn new(list: RwSignal<Vec<PanelRun>>, owner: Owner) -> Self {
        Self {
            list,
            run_counter: StoredValue::new(0),
            owner: StoredValue::new_local(owner),
        }
    }

    /// A new run's id.
    pub fn next_run_id(self) -> u32 {
        self.run_counter.update_value(|n| *n += 1);
        self.run_counter.get_value()
    }

    /// Runs `make` under the app's owner: the panels' signals it makes live as long as the app.
    pub fn build<T>(self, make: impl FnOnce() -> T) -> T {
        self.owner.with_value(|owner| owner.with(make))
    }

    /// The panels of a file's records, under a new run id, each with the file's settings.
    pub fn of_file(self, file: &RunFile) -> (u32, Vec<PanelRun>) {
        let run_id = self.next_run_id();
        let settings = Arc::new(file.settings.clone());
        let panels = self.build(|| {
            file.records
                .iter()
                .map(|r| PanelRun::of(run_id, r.clone(), settings.clone()))
                .collect()
        });
        (run_id, panels)
    }

    /// Shows `fresh`, and lets the old panels' records go.
    pub fn replace(self, fresh: Vec<PanelRun>) {
        let old = self.list.get_untracked();
        self.list.set(fresh);
        old.into_iter().for_each(|p| p.state.dispose());
    }
}
