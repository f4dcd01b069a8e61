//! Plays a recording in the panels: the events `agent::replay` makes of each record go
//! through the panels' own reducer at their recorded times, scaled by the chosen speed.
//! Nothing here calls the model or a tool, and no token is read: a replay is the record
//! played back, nothing more.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::agent::record::RunRecord;
use crate::agent::replay::{Playback, Replay, Speed};
use crate::agent::AgentEvent;
use crate::web::clock::wall_ms;
use crate::web::timer::{now_ms, sleep};

/// Shortest and longest sleep between two looks at the clock: about a frame, and short
/// enough that a change of speed or a Stop is felt at once.
const MIN_WAIT_MS: f64 = 16.0;
const MAX_WAIT_MS: f64 = 100.0;

/// The recording the panels show.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// The panels' run (`PanelRun::run_id`).
    pub run_id: u32,
    pub title: String,
}

#[derive(Clone, Copy)]
pub struct ReplayControl {
    pub speed: RwSignal<Speed>,
    pub recording: RwSignal<Option<Recording>>,
    /// A replay is going.
    pub playing: RwSignal<bool>,
    /// The moment of the recording being played (its own epoch ms), while one plays: a
    /// panel's waiting line counts from it, not from today's clock.
    pub clock: RwSignal<Option<f64>>,
    /// The records as they were loaded, to play again.
    records: StoredValue<Vec<RunRecord>>,
    /// Changes when a replay ends early: a replay that sees it change stops.
    generation: StoredValue<u32>,
    /// The user chose a speed: a recording then plays at it, not at the recordings' own.
    chosen: StoredValue<bool>,
}

impl ReplayControl {
    pub fn new() -> Self {
        Self {
            speed: RwSignal::new(Speed::default()),
            recording: RwSignal::new(None),
            playing: RwSignal::new(false),
            clock: RwSignal::new(None),
            records: StoredValue::new(Vec::new()),
            generation: StoredValue::new(0),
            chosen: StoredValue::new(false),
        }
    }

    /// A shipped recording plays at the recordings' own speed until the user picks one.
    pub fn at_recording_speed(self) {
        if !self.chosen.get_value() {
            self.speed.set(Speed::RECORDING);
        }
    }

    /// The speed the user chose, for every replay from now on.
    pub fn choose(self, speed: Speed) {
        self.chosen.set_value(true);
        self.speed.set(speed);
    }

    /// Whether panels of this run show a recording (tracked, for views).
    pub fn is_recording(self, run_id: u32) -> bool {
        self.recording
            .with(|r| r.as_ref().is_some_and(|r| r.run_id == run_id))
    }

    /// The same, read once.
    pub fn shows(self, run_id: u32) -> bool {
        self.recording
            .with_untracked(|r| r.as_ref().is_some_and(|r| r.run_id == run_id))
    }

    /// The panels of run `run_id` will show these records, played back.
    pub fn load(self, run_id: u32, title: String, records: Vec<RunRecord>) {
        self.records.set_value(records);
        self.recording.set(Some(Recording { run_id, title }));
    }

    /// Plays the loaded records in these panels' records (one each, in order) from the start.
    pub fn play(self, states: Vec<RwSignal<RunRecord>>) {
        self.end();
        let replays: Vec<Replay> = self
            .records
            .with_value(|rs| rs.iter().map(Replay::of).collect());
        for (state, replay) in states.iter().zip(&replays) {
            state.set(replay.start.clone());
        }
        let generation = self.generation.get_value();
        self.playing.set(true);
        spawn_local(async move {
            let mut playback = Playback::new(replays);
            let mut last = now_ms();
            loop {
                if self.generation.try_get_value() != Some(generation) {
                    return; // stopped, or another replay began
                }
                let speed = self.speed.get_untracked().factor();
                let due = match speed {
                    None => playback.finish(),
                    Some(factor) => {
                        let now = now_ms();
                        let played = (now - last) * factor;
                        last = now;
                        playback.advance(played)
                    }
                };
                self.clock.set(Some(playback.now()));
                for (state, events) in states.iter().zip(due) {
                    if !events.is_empty() {
                        state.try_update(|r| events.iter().for_each(|(at, e)| r.apply(*at, e)));
                    }
                }
                // The panels were replaced (a new run, a kept run reopened): nothing to play in.
                let shown = states
                    .iter()
                    .any(|s| s.try_with_untracked(|_| ()).is_some());
                if playback.is_done() || !shown {
                    self.playing.set(false);
                    self.clock.set(None);
                    return;
                }
                let wait = match (playback.until_next(), speed) {
                    (Some(ms), Some(factor)) => ms / factor,
                    _ => 0.0,
                };
                sleep(wait.clamp(MIN_WAIT_MS, MAX_WAIT_MS) as u32).await;
            }
        });
    }

    /// Ends the replay in progress, if any: its panels stop where they are, as a run the user
    /// stopped does.
    pub fn stop(self, states: impl IntoIterator<Item = RwSignal<RunRecord>>) {
        if !self.playing.get_untracked() {
            return;
        }
        self.end();
        let now = wall_ms();
        for state in states {
            state.try_update(|r| {
                if r.status.is_active() {
                    r.apply(now, &AgentEvent::Stopped);
                }
            });
        }
    }

    fn end(self) {
        self.generation.update_value(|g| *g = g.wrapping_add(1));
        self.playing.set(false);
        self.clock.set(None);
    }
}

/// The clock of the recording being played, given to the panels as context: a played-back
/// panel's waiting line reads it.
#[derive(Clone, Copy)]
pub struct ReplayClock(pub RwSignal<Option<f64>>);
