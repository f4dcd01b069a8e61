//! Keeps the run the panels show in IndexedDB while it streams, shows the latest kept run
//! again when the page loads, and opens, renames and deletes kept runs for the history list.
//! A refused write is said once per run through the app's alert; the run goes on regardless.
//! Only the run's file is stored (records and settings): never the token.

use std::hash::{DefaultHasher, Hash, Hasher};

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::agent::mode::ModeChoice;
use crate::agent::record::RunRecord;
use crate::history::{self, RunSummary, KEEP_RUNS, SAVE_EVERY_MS};
use crate::run_file::RunFile;
use crate::ui::panels::Panels;
use crate::web::clock::wall_ms;
use crate::web::idb::Refusal;
use crate::web::run_store;
use crate::web::timer::sleep;

/// The kept run that the panels show.
#[derive(Clone)]
struct Kept {
    /// The panels' run (`PanelRun::run_id`) this is.
    run_id: u32,
    id: String,
    created: f64,
    title: String,
    /// Hash of the file as last written or opened: an unchanged run is not written again.
    written: u64,
    /// A refused write was reported for this run: once is enough.
    refusal_reported: bool,
    /// Deleted from the history while shown: not written again, unless undone.
    deleted: bool,
}

impl Kept {
    fn new(run_id: u32, records: &[RunRecord]) -> Self {
        let now = wall_ms();
        let salt = (js_sys::Math::random() * 1e9) as u64;
        Kept {
            run_id,
            id: format!("run-{now:.0}-{run_id}-{salt}"),
            created: records.first().map_or(now, |r| r.created),
            title: history::default_title(records),
            written: 0,
            refusal_reported: false,
            deleted: false,
        }
    }
}

fn hash_of(json: &str) -> u64 {
    let mut h = DefaultHasher::new();
    json.hash(&mut h);
    h.finish()
}

/// What the keeper needs of the app to show a kept run in its panels.
pub struct KeepWiring {
    /// The panels, whose signals live as long as the app, not as a history row.
    pub panels: Panels,
    pub alert: RwSignal<Option<String>>,
    pub mode_choice: RwSignal<ModeChoice>,
    /// Whether the panels of this run play a recording (an imported file), which is not a
    /// run to keep.
    pub is_replay: Callback<u32, bool>,
}

#[derive(Clone, Copy)]
pub struct Keeper {
    panels: Panels,
    alert: RwSignal<Option<String>>,
    mode_choice: RwSignal<ModeChoice>,
    is_replay: Callback<u32, bool>,
    /// The history list, most recently saved first.
    pub runs: RwSignal<Vec<RunSummary>>,
    /// The kept run the panels show, by id.
    pub shown: RwSignal<Option<String>>,
    /// The run deleted last (its line and file), for Undo.
    pub deleted: RwSignal<Option<(RunSummary, String)>>,
    /// The browser would not open the database: nothing is kept on this page.
    pub unavailable: RwSignal<bool>,
    current: StoredValue<Option<Kept>>,
    save_scheduled: StoredValue<bool>,
    last_save_at: StoredValue<f64>,
    /// The panels' run, which of its panels were going and how many carry a blind vote at
    /// the last look: a panel whose run ends, or a vote, is saved at once.
    going: StoredValue<(u32, Vec<bool>, usize)>,
    /// The page is going away: the last save is made, and what the unloading does to the
    /// run (its streams fail as the page goes) is not kept as what happened.
    leaving: StoredValue<bool>,
}

impl Keeper {
    /// Starts keeping: loads the history, shows the latest run, saves the panels' run as it
    /// changes, and once more as the page is hidden or goes away.
    pub fn start(wiring: KeepWiring) -> Keeper {
        let keeper = Keeper {
            panels: wiring.panels,
            alert: wiring.alert,
            mode_choice: wiring.mode_choice,
            is_replay: wiring.is_replay,
            runs: RwSignal::new(Vec::new()),
            shown: RwSignal::new(None),
            deleted: RwSignal::new(None),
            unavailable: RwSignal::new(false),
            current: StoredValue::new(None),
            save_scheduled: StoredValue::new(false),
            last_save_at: StoredValue::new(0.0),
            going: StoredValue::new((0, Vec::new(), 0)),
            leaving: StoredValue::new(false),
        };
        keeper.load();
        let panels = keeper.panels.list;
        Effect::new(move |_| {
            // Subscribes to the panel list and every panel's record: at most once a frame.
            let look = panels.with(|ps| {
                let run_id = ps.first().map_or(0, |p| p.run_id);
                let going: Vec<bool> = ps
                    .iter()
                    .map(|p| p.state.try_with(|r| r.status.is_active()).unwrap_or(false))
                    .collect();
                let voted = ps
                    .iter()
                    .filter(|p| {
                        p.state
                            .try_with(|r| r.blind.as_ref().is_some_and(|b| b.vote.is_some()))
                            .unwrap_or(false)
                    })
                    .count();
                (run_id, going, voted)
            });
            keeper.changed(look);
        });
        window_event_listener_untyped("pagehide", move |_| {
            keeper.save(true);
            keeper.leaving.set_value(true);
        });
        // Back from the back-forward cache: the page lives on.
        window_event_listener_untyped("pageshow", move |_| keeper.leaving.set_value(false));
        // A hidden tab may be discarded without a pagehide; it still runs, so the write is
        // awaited as usual (and its outcome reported).
        window_event_listener_untyped("visibilitychange", move |_| {
            if document().hidden() {
                keeper.save(false);
            }
        });
        keeper
    }

    fn changed(self, (run_id, going, voted): (u32, Vec<bool>, usize)) {
        // A panel's run ended, or a vote was cast: saved at once, before a next run can
        // replace the panels.
        let ended = self.going.with_value(|(was_run, was_going, was_voted)| {
            *was_run == run_id
                && (was_going.iter().zip(&going).any(|(was, is)| *was && !*is)
                    || voted > *was_voted)
        });
        self.going.set_value((run_id, going, voted));
        // Fresh panels (New conversation) show no kept run.
        if run_id == 0 && self.shown.with_untracked(Option::is_some) {
            self.shown.set(None);
        }
        if ended {
            // In a task of its own: a run ends in a frame's drawing, which should not also
            // make the run's file.
            spawn_local(async move {
                sleep(0).await;
                self.save(false);
            });
        } else if !self.save_scheduled.get_value() {
            self.save_scheduled.set_value(true);
            let since = wall_ms() - self.last_save_at.get_value();
            let wait = (f64::from(SAVE_EVERY_MS) - since).max(0.0) as u32;
            spawn_local(async move {
                if wait > 0 {
                    sleep(wait).await;
                }
                self.save_scheduled.set_value(false);
                self.save(false);
            });
        }
    }

    /// Writes the panels' run if it changed since the last write. `now`: start the write
    /// before returning (the page is going away) and do not wait for it.
    fn save(self, now: bool) {
        if self.leaving.get_value() {
            return;
        }
        let at = wall_ms();
        self.last_save_at.set_value(at);
        let Some((id, file_json, summary)) = self.prepare(at) else {
            return;
        };
        let summary_json = serde_json::to_string(&summary).unwrap_or_default();
        if now {
            run_store::put_run_now(&id, &file_json, &summary_json);
            return;
        }
        spawn_local(async move {
            // The write in a task of its own: handing a long run to the database costs about
            // as much as making its file, and the two in one task would be a long one. Not in
            // a hidden tab, whose timers may wait a second (and which may be discarded).
            if !document().hidden() {
                sleep(0).await;
            }
            let result = run_store::put_run(&id, &file_json, &summary_json).await;
            self.written(summary, result);
        });
    }

    /// The panels' run as its file and history line, when there is something new to write.
    fn prepare(self, at: f64) -> Option<(String, String, RunSummary)> {
        let (run_id, settings, records) = self.panels.list.with_untracked(|ps| {
            let first = ps.first()?;
            let records: Vec<RunRecord> = ps
                .iter()
                .filter_map(|p| p.state.try_get_untracked())
                .collect();
            Some((first.run_id, first.settings.clone(), records))
        })?;
        // Panels where nothing was asked yet, or that play a file, are nothing to keep.
        if run_id == 0 || records.iter().all(|r| r.turns.is_empty()) || self.is_replay.run(run_id) {
            return None;
        }
        let mut kept = self
            .current
            .get_value()
            .filter(|k| k.run_id == run_id)
            .unwrap_or_else(|| Kept::new(run_id, &records));
        if kept.deleted {
            return None;
        }
        let file = history::kept_file(&kept.id, kept.created, &kept.title, &settings, records);
        let json = file.to_json();
        let hash = hash_of(&json);
        if hash == kept.written {
            return None;
        }
        kept.written = hash;
        let id = kept.id.clone();
        if self.shown.get_untracked().as_deref() != Some(id.as_str()) {
            self.shown.set(Some(id.clone()));
        }
        self.current.set_value(Some(kept));
        Some((id, json, RunSummary::of(&file, at)))
    }

    fn written(self, summary: RunSummary, result: Result<(), Refusal>) {
        match result {
            Ok(()) => {
                let new = self
                    .runs
                    .with_untracked(|rs| !rs.iter().any(|r| r.id == summary.id));
                self.runs.update(|rs| history::upsert(rs, summary));
                if new {
                    self.drop_oldest();
                }
            }
            Err(refusal) => {
                let first_refusal = self.update_current(&summary.id, |k| {
                    !std::mem::replace(&mut k.refusal_reported, true)
                });
                if first_refusal == Some(true) && !self.unavailable.get_untracked() {
                    self.report(&refusal);
                }
            }
        }
    }

    /// Changes the current kept run if it is `id`.
    fn update_current<T>(self, id: &str, change: impl FnOnce(&mut Kept) -> T) -> Option<T> {
        let mut out = None;
        self.current.update_value(|c| {
            if let Some(k) = c.as_mut().filter(|k| k.id == id) {
                out = Some(change(k));
            }
        });
        out
    }

    fn report(self, refusal: &Refusal) {
        self.alert.set(Some(history::storage_refusal(
            &refusal.name,
            &refusal.message,
        )));
    }

    /// Deletes the runs beyond the `KEEP_RUNS` most recently saved.
    fn drop_oldest(self) {
        let extra = self
            .runs
            .with_untracked(|rs| history::runs_to_drop(rs, KEEP_RUNS));
        if extra.is_empty() {
            return;
        }
        self.runs.update(|rs| rs.retain(|r| !extra.contains(&r.id)));
        spawn_local(async move {
            for id in extra {
                let _ = run_store::delete_run(&id).await;
            }
        });
    }

    /// Reads the history list and shows the latest run, unless a run started meanwhile.
    fn load(self) {
        spawn_local(async move {
            let lines = match run_store::summaries().await {
                Ok(lines) => lines,
                Err(refusal) => {
                    self.unavailable.set(true);
                    self.report(&refusal);
                    return;
                }
            };
            let mut runs: Vec<RunSummary> = lines
                .iter()
                .filter_map(|line| serde_json::from_str(line).ok())
                .collect();
            history::sort_newest_first(&mut runs);
            let latest = history::latest(&runs).map(|r| r.id.clone());
            self.runs.set(runs);
            if let Some(id) = latest {
                self.open_when(id, true);
            }
        });
    }

    /// Shows a kept run in the panels, once the run they show has ended (replaced while it
    /// streams, it would be kept as cut off).
    pub fn open(self, id: String) {
        let running = self.panels.list.with_untracked(|ps| {
            ps.iter()
                .any(|p| p.state.try_with_untracked(|r| r.status.is_active()) == Some(true))
        });
        if running {
            self.alert
                .set(Some("Stop the run first: it is still going.".into()));
            return;
        }
        self.open_when(id, false);
    }

    fn open_when(self, id: String, on_load: bool) {
        spawn_local(async move {
            let json = match run_store::get_run(&id).await {
                Ok(Some(json)) => json,
                Ok(None) => {
                    self.runs.update(|rs| rs.retain(|r| r.id != id));
                    if !on_load {
                        self.alert
                            .set(Some("This run is no longer kept (it was deleted).".into()));
                    }
                    return;
                }
                Err(refusal) => {
                    self.alert.set(Some(format!(
                        "The kept run could not be read ({}: {}).",
                        refusal.name, refusal.message
                    )));
                    return;
                }
            };
            let file = match RunFile::from_json(&json) {
                Ok(file) => file,
                Err(why) => {
                    self.alert
                        .set(Some(format!("The kept run cannot be shown: {why}")));
                    return;
                }
            };
            // A run the user started while the page loaded wins over the kept one.
            if on_load && !self.panels_untouched() {
                return;
            }
            self.show(history::reopened(file, wall_ms()));
        });
    }

    fn panels_untouched(self) -> bool {
        self.panels.list.with_untracked(|ps| {
            ps.iter()
                .all(|p| p.run_id == 0 && p.state.with_untracked(|r| r.turns.is_empty()))
        })
    }

    /// Puts a kept run in the panels. Its settings go with it, so a follow-up continues it
    /// as it ran (tools start afresh).
    fn show(self, file: RunFile) {
        let (run_id, panels) = self.panels.of_file(&file);
        let modes: Vec<_> = file.records.iter().map(|r| r.config.mode).collect();
        self.current.set_value(Some(Kept {
            run_id,
            id: file.id.clone(),
            created: file.created,
            title: file.title.clone(),
            written: hash_of(&file.to_json()),
            refusal_reported: false,
            deleted: false,
        }));
        let voted = file
            .records
            .iter()
            .filter(|r| r.blind.as_ref().is_some_and(|b| b.vote.is_some()))
            .count();
        self.going
            .set_value((run_id, vec![false; panels.len()], voted));
        self.shown.set(Some(file.id.clone()));
        self.mode_choice.set(history::mode_choice_for(&modes));
        self.panels.replace(panels);
    }

    /// Gives a kept run the title the user typed (an empty field keeps the old one).
    pub fn rename(self, id: String, input: String) {
        let Some(old) = self
            .runs
            .with_untracked(|rs| rs.iter().find(|r| r.id == id).map(|r| r.title.clone()))
        else {
            return;
        };
        let title = history::renamed(&input, &old);
        if title == old {
            return;
        }
        self.runs.update(|rs| {
            if let Some(r) = rs.iter_mut().find(|r| r.id == id) {
                r.title = title.clone();
            }
        });
        // The run on the panels is written with its new title by the next save.
        let shown = self.update_current(&id, |k| {
            k.title = title.clone();
            k.written = 0;
            !k.deleted
        });
        if shown == Some(true) {
            self.save(false);
            return;
        }
        spawn_local(async move {
            let renamed = async move {
                let json = run_store::get_run(&id).await?.unwrap_or_default();
                let Ok(file) = RunFile::from_json(&json) else {
                    return Ok(());
                };
                let file = RunFile { title, ..file };
                let updated = self
                    .runs
                    .with_untracked(|rs| rs.iter().find(|r| r.id == id).map_or(0.0, |r| r.updated));
                let summary =
                    serde_json::to_string(&RunSummary::of(&file, updated)).unwrap_or_default();
                run_store::put_run(&id, &file.to_json(), &summary).await
            };
            if let Err(refusal) = renamed.await {
                self.alert.set(Some(format!(
                    "The new title was not saved ({}: {}); it lasts until you reload.",
                    refusal.name, refusal.message
                )));
            }
        });
    }

    /// Deletes a kept run; Undo puts it back.
    pub fn delete(self, id: String) {
        let Some(summary) = self
            .runs
            .with_untracked(|rs| rs.iter().find(|r| r.id == id).cloned())
        else {
            return;
        };
        spawn_local(async move {
            let file = run_store::get_run(&id).await.ok().flatten();
            if let Err(refusal) = run_store::delete_run(&id).await {
                self.alert.set(Some(format!(
                    "The run was not deleted ({}: {}).",
                    refusal.name, refusal.message
                )));
                return;
            }
            self.update_current(&id, |k| k.deleted = true);
            self.runs.update(|rs| rs.retain(|r| r.id != id));
            self.deleted.set(file.map(|f| (summary, f)));
        });
    }

    /// Puts the run deleted last back.
    pub fn undo_delete(self) {
        let Some((summary, file_json)) = self.deleted.get_untracked() else {
            return;
        };
        self.deleted.set(None);
        spawn_local(async move {
            let summary_json = serde_json::to_string(&summary).unwrap_or_default();
            match run_store::put_run(&summary.id, &file_json, &summary_json).await {
                Ok(()) => {
                    let id = summary.id.clone();
                    self.runs.update(|rs| history::upsert(rs, summary));
                    // Shown meanwhile: write what the panels have now.
                    let shown = self.update_current(&id, |k| {
                        k.deleted = false;
                        k.written = 0;
                    });
                    if shown.is_some() {
                        self.save(false);
                    }
                }
                Err(refusal) => self.report(&refusal),
            }
        });
    }
}
