//! The line under a panel's head that says what the panel waits for and for how long. Its
//! height is reserved even when empty, so streaming never moves the panel's content.

use leptos::prelude::*;
use std::time::Duration;

use crate::agent::record::{RunRecord, Status};
use crate::progress::wait_line;
use crate::ui::runs::replay_player::ReplayClock;
use crate::web::browser_model;
use crate::web::clock::wall_ms;
use crate::web::python_worker::pyodide_download;

/// How often the elapsed seconds are read again.
const TICK: Duration = Duration::from_millis(250);

#[component]
pub fn ProgressLine(
    state: RwSignal<RunRecord>,
    /// Played back from a file: its times are the recording's, so the line counts on the
    /// replay's clock (a recording made two days ago does not wait "172800 s").
    recording: bool,
) -> impl IntoView {
    let replay_clock = recording.then(use_context::<ReplayClock>).flatten();
    let now = RwSignal::new(wall_ms());
    // The clock ticks only while there is something to wait for.
    let ticking = Memo::new(move |_| {
        state.with(|r| matches!(r.status, Status::Waiting | Status::RunningTool))
    });
    if let Ok(handle) = set_interval_with_handle(
        move || {
            if ticking.try_get_untracked() == Some(true) {
                now.set(wall_ms());
            }
        },
        TICK,
    ) {
        on_cleanup(move || handle.clear());
    }
    let line = move || {
        let at = match replay_clock {
            Some(ReplayClock(clock)) => match clock.get() {
                Some(at) => at,
                // Not playing: a played-back panel waits for nothing.
                None => return String::new(),
            },
            None => now.get().max(wall_ms()),
        };
        let holder = browser_model::holder();
        state.with(|r| wait_line(r, at, pyodide_download(), holder.as_ref()))
    };
    view! { <p class="progress">{line}</p> }
}
