//! The arena page's state and what it decides: the settings, the question, the panels and the
//! runs in them, the page's alert, the host confirmation, and what the page's address asks for.
//! `Arena` is made once by the app and handed to the views, which read its signals and call
//! its methods; they do not decide anything themselves.

use leptos::prelude::*;
use web_sys::AbortController;

use crate::agent::mode::{blind_order, ModeChoice};
use crate::agent::record::Status;
use crate::agent::Mode;
use crate::origin::Origin;
use crate::page_params::{hidden_note, PageParams};
use crate::settings::{cannot_call_model, host_to_confirm, missing_for_run, Settings};
use crate::ui::panel::panel_run::{PanelAction, PanelRun};
use crate::ui::panels::Panels;
use crate::ui::panels_in_view::bring_panels_into_view;
use crate::ui::runner::{continue_run, follow_up, go_on_past_limit, retry, start_runs};
use crate::ui::runs::from_address::{self, page_params, with_address_models};
use crate::ui::runs::keep::KeepWiring;
use crate::ui::runs::replay_player::ReplayControl;
use crate::ui::runs::show_file::FileShow;
use crate::web::evaluate_loader::open_evaluate;
use crate::web::parent_height::post_height_to_parent;
use crate::web::storage;

/// What waits for the user to confirm the host the token would go to.
#[derive(Clone, Copy, PartialEq)]
pub enum AfterConfirm {
    Run,
    Continue(u32, Mode),
    Retry(u32, Mode),
    MoreSteps(u32, Mode),
}

/// The page's state. Every field is a handle (a signal or a stored value), so it is `Copy`.
#[derive(Clone, Copy)]
pub struct Arena {
    pub settings: RwSignal<Settings>,
    pub token: RwSignal<String>,
    pub question: RwSignal<String>,
    /// What was taken out of a question from the page's address (hidden characters).
    pub question_note: RwSignal<Option<String>>,
    pub mode_choice: RwSignal<ModeChoice>,
    pub panels: RwSignal<Vec<PanelRun>>,
    /// Runs and follow-ups started on this page, on the panels' element (`data-runs`): tests
    /// read it to know a press of Run was taken.
    pub runs_started: RwSignal<u32>,
    /// Runs played back from a file (export / import).
    pub replay: ReplayControl,
    /// Imported files, shipped recordings and runs in the address play back in the panels.
    pub shower: FileShow,
    /// Storage failures and refused actions, said where the user is looking.
    pub alert: RwSignal<Option<String>>,
    /// The host the token would go to, and what to do once the user confirms it.
    pub pending: RwSignal<Option<(Origin, AfterConfirm)>>,
    /// The Evaluate view is open (it replaces the arena).
    pub evaluating: RwSignal<bool>,
    /// A run that arrived in the address while the panels were busy: shown only if the user
    /// says so.
    pub received: RwSignal<Option<PageParams>>,
    /// What a run still needs (a token, a model, a question), if anything.
    pub missing: Memo<Option<String>>,
    /// The panels a new question would follow up on: the same modes, all answered.
    pub follow_up_to: Signal<Option<Vec<PanelRun>>>,
    /// Turns of the conversation a new question would follow up on (0: a new run).
    pub turns: Signal<usize>,
    pub running: Signal<bool>,
    /// Models named in the page's address are used on this visit only: settings are not saved.
    address_models: bool,
    /// One controller per panel that calls the model: Stop ends them all, a panel's own Stop
    /// its own.
    stops: Stops,
    /// New runs in the panels: their ids, and their signals under the app's owner, so a run
    /// started from a dialog that closes as it starts does not have them disposed with it.
    panel_owner: Panels,
}

/// A class on the root element, on or off: the embedded layout and the Evaluate view are
/// chosen in CSS.
fn mark_root_if(class: &str, on: bool) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.class_list().toggle_with_force(class, on);
    }
}

fn mark_root(class: &str) {
    mark_root_if(class, true);
}

/// The abort controllers of the panels' runs, by run id and mode.
#[derive(Clone, Copy)]
struct Stops(StoredValue<Vec<(u32, Mode, AbortController)>, LocalStorage>);

impl Stops {
    fn new() -> Self {
        Stops(StoredValue::new_local(Vec::new()))
    }

    /// A fresh controller for one panel, in place of the one it had.
    fn fresh(self, run_id: u32, mode: Mode) -> Option<AbortController> {
        let controller = AbortController::new().ok()?;
        self.0.update_value(|all| {
            all.retain(|(id, m, _)| (*id, *m) != (run_id, mode));
            all.push((run_id, mode, controller.clone()));
        });
        Some(controller)
    }

    fn stop_one(self, run_id: u32, mode: Mode) {
        self.0.with_value(|all| {
            for (_, _, c) in all.iter().filter(|(id, m, _)| (*id, *m) == (run_id, mode)) {
                c.abort();
            }
        });
    }

    fn stop_all(self) {
        for (_, _, c) in self.0.get_value() {
            c.abort();
        }
        self.0.set_value(Vec::new());
    }
}

/// Stops whatever the panels are doing: a run (its requests are aborted) or a replay.
fn stop_panels(stops: Stops, replay: ReplayControl, panels: RwSignal<Vec<PanelRun>>) {
    stops.stop_all();
    replay.stop(panels.with_untracked(|ps| ps.iter().map(|p| p.state).collect::<Vec<_>>()));
}

impl Arena {
    /// The page's state from its address and storage, with what the address asks for applied.
    pub fn start() -> Arena {
        let params = page_params();
        let arena = Arena::new(&params);
        arena.save_settings_when_changed();
        arena.apply_address(&params);
        arena.follow_evaluating();
        arena.listen_for_address_changes();
        post_height_to_parent();
        arena
    }

    fn new(params: &PageParams) -> Arena {
        let address_models = params.model.is_some() || !params.mode_models.is_empty();
        let settings = RwSignal::new(with_address_models(params, storage::load_settings()));
        let token = RwSignal::new(storage::load_token());
        let question = RwSignal::new(String::new());
        let mode_choice = RwSignal::new(ModeChoice::All);
        let panels = RwSignal::new(settings.with_untracked(|s| {
            Mode::ALL
                .iter()
                .map(|&m| PanelRun::idle(m, s))
                .collect::<Vec<_>>()
        }));
        let owner = Owner::current().expect("the app is mounted under an owner");
        let panel_owner = Panels::new(panels, owner);
        let stops = Stops::new();
        let replay = ReplayControl::new();
        let shower = FileShow {
            panels: panel_owner,
            replay,
            on_stop: Callback::new(move |()| stop_panels(stops, replay, panels)),
        };
        let missing = Memo::new(move |_| {
            settings.with(|s| token.with(|t| question.with(|q| missing_for_run(s, t, q))))
        });
        let follow_up_to = Signal::derive(move || {
            let modes = mode_choice.get().modes();
            panels.with(|ps| {
                let same_modes = ps.iter().map(|p| p.mode).eq(modes.iter().copied());
                let answered = ps
                    .iter()
                    .all(|p| p.state.with(|r| r.status == Status::Done));
                // A recording is played back, not continued; a blind run is voted on.
                let recorded = ps.first().is_some_and(|p| replay.is_recording(p.run_id));
                let blind = ps.iter().any(|p| p.state.with(|r| r.blind.is_some()));
                (same_modes && answered && !recorded && !blind && !ps.is_empty())
                    .then(|| ps.clone())
            })
        });
        let turns = Signal::derive(move || {
            follow_up_to.with(|c| {
                c.as_ref()
                    .and_then(|ps| ps.first())
                    .map_or(0, |p| p.state.with(|r| r.turns.len()))
            })
        });
        let running = Signal::derive(move || {
            panels.with(|ps| ps.iter().any(|p| p.state.with(|s| s.status.is_active())))
        });
        Arena {
            settings,
            token,
            question,
            question_note: RwSignal::new(hidden_note(params.question_hidden_removed)),
            mode_choice,
            panels,
            runs_started: RwSignal::new(0),
            replay,
            shower,
            alert: RwSignal::new(None),
            pending: RwSignal::new(None),
            evaluating: RwSignal::new(params.evaluate),
            received: RwSignal::new(None),
            missing,
            follow_up_to,
            turns,
            running,
            address_models,
            stops,
            panel_owner,
        }
    }

    fn save_settings_when_changed(self) {
        Effect::new(move || {
            let settings = self.settings.get();
            if self.address_models {
                return;
            }
            if let Err(e) = storage::save_settings(&settings) {
                self.alert.set(Some(e));
            }
        });
    }

    /// Fills in what the address asks for, says what it could not, and marks the embedded
    /// layout.
    fn apply_address(self, params: &PageParams) {
        from_address::apply(
            params,
            self.question,
            self.mode_choice,
            self.shower,
            self.alert,
        );
        if self.address_models && params.problems.is_empty() {
            self.alert.set(Some(
                "The models named in the page's address are used on this visit; settings changed here are not saved.".into(),
            ));
        }
        if params.embed {
            mark_root("embed");
            if params.show_settings {
                mark_root("show-settings");
            }
            if params.run.is_some() || params.recording.is_some() {
                mark_root("carries-run");
            }
        }
    }

    /// The Evaluate view replaces the arena while it is open (by CSS, from a class on the root
    /// element); its module is loaded the first time. It reads the settings and token from
    /// storage, and opens a result's run here through the address (`#run=`).
    fn follow_evaluating(self) {
        Effect::new(move || {
            let open = self.evaluating.get();
            mark_root_if("evaluating", open);
            if open {
                open_evaluate();
            }
        });
    }

    fn listen_for_address_changes(self) {
        window_event_listener_untyped("hashchange", move |_| {
            let params = page_params();
            if !params.problems.is_empty() {
                self.alert.set(Some(params.problems.join(" ")));
                return;
            }
            if params.run.is_none() {
                return;
            }
            // Any page that opened this one can change its address: it must not replace the
            // run the user is watching.
            if self.running.get_untracked() || self.replay.playing.get_untracked() {
                self.received.set(Some(params));
            } else {
                self.show_received(&params);
            }
        });
    }

    /// Shows a run that arrived in the address. A run opened from the Evaluate view (or
    /// pasted) is shown in the arena.
    pub fn show_received(self, params: &PageParams) {
        self.evaluating.set(false);
        from_address::show_run(params, self.shower, self.alert);
    }

    /// What keeping runs (and the history list) needs of the page.
    pub fn keep_wiring(self) -> KeepWiring {
        let replay = self.replay;
        KeepWiring {
            panels: self.panel_owner,
            alert: self.alert,
            mode_choice: self.mode_choice,
            is_replay: Callback::new(move |run_id| replay.shows(run_id)),
        }
    }

    /// The panels' layout class: four side by side (two by two where that is too narrow),
    /// three (a run kept before CodeAct), or one.
    pub fn layout(self) -> &'static str {
        match self.panels.with(|p| p.len()) {
            0 | 1 => "panels one",
            2 | 3 => "panels three",
            _ => "panels four",
        }
    }

    pub fn stop(self) {
        stop_panels(self.stops, self.replay, self.panels);
    }

    /// Stops and shows empty panels for the chosen modes.
    pub fn new_conversation(self) {
        self.stop();
        let fresh: Vec<PanelRun> = self.panel_owner.build(|| {
            self.settings.with_untracked(|s| {
                self.mode_choice
                    .get_untracked()
                    .modes()
                    .iter()
                    .map(|&m| PanelRun::idle(m, s))
                    .collect()
            })
        });
        self.panel_owner.replace(fresh);
    }

    /// Whether the token may go to `base_url` now; if the user has not confirmed that host,
    /// asks them first and `then` is done once they do.
    fn confirmed(self, base_url: &str, then: AfterConfirm) -> bool {
        // Read from storage each time: the Evaluate view may have confirmed a host since.
        let hosts = storage::load_token_hosts();
        match host_to_confirm(base_url, &self.token.get_untracked(), &hosts) {
            Some(origin) => {
                self.pending.set(Some((origin, then)));
                false
            }
            None => true,
        }
    }

    /// Run: a new run of the chosen modes, or a follow-up when every mode answered.
    pub fn run(self) {
        if self.missing.get_untracked().is_some() {
            return;
        }
        let base_url = self
            .settings
            .with_untracked(|s| s.endpoint_url().to_string());
        if !self.confirmed(&base_url, AfterConfirm::Run) {
            return;
        }
        // A question after every mode answered is a follow-up in each mode's conversation,
        // with the run's own settings; "New conversation" starts afresh.
        if let Some(conversation) = self.follow_up_to.get_untracked() {
            self.follow_up(&conversation);
            return;
        }
        self.stop();
        let run_id = self.panel_owner.next_run_id();
        let choice = self.mode_choice.get_untracked();
        let blind = choice == ModeChoice::Blind;
        let modes = if blind {
            blind_order(js_sys::Math::random)
        } else {
            choice.modes()
        };
        let Some(controllers) = modes
            .iter()
            .map(|&m| self.stops.fresh(run_id, m))
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        let new_panels = self.panel_owner.build(|| {
            self.settings.with_untracked(|s| {
                start_runs(
                    run_id,
                    s,
                    &self.token.get_untracked(),
                    &self.question.get_untracked(),
                    &modes,
                    &controllers,
                    blind,
                )
            })
        });
        self.runs_started.update(|n| *n += 1);
        self.panel_owner.replace(new_panels);
        bring_panels_into_view();
    }

    fn follow_up(self, conversation: &[PanelRun]) {
        let Some(first) = conversation.first() else {
            return;
        };
        if let Some(problem) = cannot_call_model(&first.settings, &self.token.get_untracked()) {
            self.alert
                .set(Some(format!("Cannot ask a follow-up: {problem}.")));
            return;
        }
        if !self.confirmed(first.settings.endpoint_url(), AfterConfirm::Run) {
            return;
        }
        self.stop();
        for panel in conversation {
            let Some(controller) = self.stops.fresh(panel.run_id, panel.mode) else {
                return;
            };
            follow_up(
                &self.token.get_untracked(),
                panel,
                &self.question.get_untracked(),
                &controller,
            );
        }
        self.runs_started.update(|n| *n += 1);
    }

    /// A panel's own button: Stop that panel; Retry its question; go on past the step limit;
    /// or Continue a run a broken stream cut (that step runs again). Each runs with the run's
    /// own settings, after the same checks as Run, and leaves the other panels as they are.
    pub fn panel_action(self, run_id: u32, mode: Mode, action: PanelAction) {
        if action == PanelAction::Stop {
            self.stops.stop_one(run_id, mode);
            return;
        }
        let Some(panel) = self.panels.with_untracked(|ps| {
            ps.iter()
                .find(|p| p.run_id == run_id && p.mode == mode)
                .cloned()
        }) else {
            return;
        };
        let (verb, then) = match action {
            PanelAction::Retry => ("retry", AfterConfirm::Retry(run_id, mode)),
            PanelAction::MoreSteps => ("go on", AfterConfirm::MoreSteps(run_id, mode)),
            _ => ("continue", AfterConfirm::Continue(run_id, mode)),
        };
        if let Some(problem) = cannot_call_model(&panel.settings, &self.token.get_untracked()) {
            self.alert.set(Some(format!("Cannot {verb}: {problem}.")));
            return;
        }
        if !self.confirmed(panel.settings.endpoint_url(), then) {
            return;
        }
        let possible = panel.state.with_untracked(|r| match action {
            PanelAction::Continue => r.last_turn().is_some_and(|t| t.resumable.is_some()),
            PanelAction::Retry => !r.status.is_active() && !r.turns.is_empty(),
            _ => r.status == Status::Done && r.last_turn().is_some_and(|t| t.forced()),
        });
        if !possible || self.replay.shows(run_id) {
            return;
        }
        let Some(controller) = self.stops.fresh(run_id, mode) else {
            return;
        };
        let token = self.token.get_untracked();
        match action {
            PanelAction::Retry => retry(&token, &panel, &controller),
            PanelAction::MoreSteps => go_on_past_limit(&token, &panel, &controller),
            _ => continue_run(&token, &panel, &controller),
        }
    }

    /// The user trusts the host: remembered, and what waited for it goes on.
    pub fn confirm_host(self) {
        let Some((origin, then)) = self.pending.get_untracked() else {
            return;
        };
        self.pending.set(None);
        let mut hosts = storage::load_token_hosts();
        hosts.trust(&origin);
        if let Err(e) = storage::save_token_hosts(&hosts) {
            self.alert.set(Some(e));
        }
        match then {
            AfterConfirm::Run => self.run(),
            AfterConfirm::Continue(run_id, mode) => {
                self.panel_action(run_id, mode, PanelAction::Continue)
            }
            AfterConfirm::Retry(run_id, mode) => {
                self.panel_action(run_id, mode, PanelAction::Retry)
            }
            AfterConfirm::MoreSteps(run_id, mode) => {
                self.panel_action(run_id, mode, PanelAction::MoreSteps)
            }
        }
    }

    pub fn cancel_host(self) {
        self.pending.set(None);
    }
}
