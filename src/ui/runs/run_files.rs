//! Export the panels' run as JSON (the `RunFile`: records and the run's settings, never the
//! token) or Markdown, and import a JSON run to replay it in the panels as a recording. An
//! import touches neither the settings, the token nor the confirmed hosts: it only replaces
//! what the panels show. The buttons are drawn with the first screen; exporting, importing
//! and the recording's banner are the parts chunk's (`export_to_file`, `import_file`,
//! `RecordingBanner`), fetched when first used.

use leptos::prelude::*;
use web_sys::HtmlInputElement;

use crate::agent::record::RunRecord;
use crate::agent::replay::Speed;
use crate::export::{file_stem, markdown};
use crate::run_file::{RunFile, MAX_IMPORT_BYTES};
use crate::ui::app_context::AppContext;
use crate::ui::panel::panel_run::{shows_a_run, PanelRun};
use crate::ui::parts::{self, Job, Part};
use crate::ui::runs::replay_player::ReplayControl;
use crate::ui::runs::show_file::FileShow;
use crate::web::download::download;
use crate::web::file_read::read_text;

/// The run the panels show, as a file. `None` when they show none.
pub(crate) fn current_file(panels: &[PanelRun]) -> Option<RunFile> {
    let records: Vec<RunRecord> = panels
        .iter()
        .filter_map(|p| p.state.try_get_untracked())
        .collect();
    if records.iter().all(|r| r.turns.is_empty()) {
        return None;
    }
    let settings = panels.first()?.settings.as_ref().clone();
    let created = records
        .iter()
        .map(|r| r.created)
        .fold(f64::INFINITY, f64::min);
    Some(RunFile::new(
        format!("run-{created:.0}"),
        created,
        settings,
        records,
    ))
}

/// A blind run the panels show is still waiting for its vote: its file names every panel's
/// mode and model, so it stays in the page until then. Tracks the records.
pub(crate) fn awaits_vote(panels: &[PanelRun]) -> bool {
    panels
        .iter()
        .any(|p| p.state.try_with(RunRecord::awaits_vote).unwrap_or(false))
}

/// Downloads the run the panels show as JSON or Markdown: the export buttons' job.
pub fn export_to_file(
    panels: RwSignal<Vec<PanelRun>>,
    as_markdown: bool,
    alert: RwSignal<Option<String>>,
) {
    let Some(file) = panels
        .with_untracked(|ps| current_file(ps))
        .filter(RunFile::can_share)
    else {
        return;
    };
    let stem = file_stem(file.created, &file.title);
    let result = if as_markdown {
        download(
            &format!("{stem}.md"),
            "text/markdown;charset=utf-8",
            &markdown(&file),
        )
    } else {
        download(&format!("{stem}.json"), "application/json", &file.to_json())
    };
    if result.is_err() {
        alert.set(Some("The browser refused the download.".into()));
    }
}

/// Reads a run file the user chose and shows it in the panels: the import's job.
pub async fn import_file(file: web_sys::File, shower: FileShow, alert: RwSignal<Option<String>>) {
    let name = file.name();
    if file.size() > MAX_IMPORT_BYTES as f64 {
        alert.set(Some(format!(
            "Cannot import {name}: it is {:.0} MB; runs larger than {} MB are not imported.",
            file.size() / 1e6,
            MAX_IMPORT_BYTES / 1_000_000
        )));
        return;
    }
    let Some(text) = read_text(&file).await else {
        alert.set(Some(format!(
            "Cannot import {name}: the browser could not read it."
        )));
        return;
    };
    match RunFile::from_json(&text) {
        Ok(run) => {
            alert.set(None);
            let title = run.title.clone();
            shower.show(run, title);
        }
        Err(why) => alert.set(Some(format!("Cannot import {name}: {why}"))),
    }
}

/// Whether the panels play back a recording (an imported or shipped file). Tracks it.
fn plays_recording(panels: RwSignal<Vec<PanelRun>>, replay: ReplayControl) -> bool {
    panels.with(|ps| ps.first().is_some_and(|p| replay.is_recording(p.run_id)))
}

#[component]
pub fn RunFiles(
    panels: RwSignal<Vec<PanelRun>>,
    replay: ReplayControl,
    /// Shows an imported file in the panels.
    shower: FileShow,
) -> impl IntoView {
    let alert = AppContext::get().alert;
    let has_run = Memo::new(move |_| panels.with(|ps| shows_a_run(ps)));
    let busy = Memo::new(move |_| {
        panels.with(|ps| {
            ps.iter()
                .any(|p| p.state.try_with(|r| r.status.is_active()).unwrap_or(false))
        })
    });
    let shows_recording = Memo::new(move |_| plays_recording(panels, replay));
    let blind = Memo::new(move |_| panels.with(|ps| awaits_vote(ps)));
    let cannot_export = move || !has_run.get() || busy.get() || blind.get();
    let vote_first = "Vote first: the file names each panel's mode and model";

    let export = move |as_markdown: bool| {
        parts::start(Job::Export {
            panels,
            as_markdown,
            alert,
        })
    };

    let on_file = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|list| list.get(0)) else {
            return;
        };
        // Cleared, so choosing the same file again imports it again.
        input.set_value("");
        parts::start(Job::Import {
            file,
            shower,
            alert,
        });
    };

    view! {
        <section class="run-files" aria-label="Export and import">
            <button id="export-json" disabled=cannot_export on:click=move |_| export(false)
                title=move || if blind.get() { vote_first } else { "The run's records and settings as JSON (never the token)" }>
                "Export JSON"
            </button>
            <button id="export-markdown" disabled=cannot_export on:click=move |_| export(true)
                title=move || if blind.get() { vote_first } else { "The run as a document: questions, steps, answers and figures" }>
                "Export Markdown"
            </button>
            <label class="import" title="Replay a run exported as JSON, without a token or network">
                "Import JSON…"
                <input id="import-file" type="file" accept=".json,application/json" on:change=on_file />
            </label>
            <label class="replay-speed">
                "Replay "
                <select
                    id="replay-speed"
                    prop:value=move || replay.speed.get().id()
                    on:change=move |ev| {
                        if let Some(s) = Speed::from_id(&event_target_value(&ev)) {
                            replay.choose(s);
                        }
                    }
                >
                    <option value=Speed::Real.id()>{Speed::Real.label()}</option>
                    <option value=Speed::Fast.id()>{Speed::Fast.label()}</option>
                    <option value=Speed::Instant.id()>{Speed::Instant.label()}</option>
                </select>
            </label>
            {parts::show_once(
                move || shows_recording.get(),
                move || parts::show(Part::RecordingBanner { panels, replay }).into_any(),
            )}
        </section>
    }
}

/// What the panels play back, and Replay again: drawn once they play a recording.
#[component]
pub fn RecordingBanner(panels: RwSignal<Vec<PanelRun>>, replay: ReplayControl) -> impl IntoView {
    let shows_recording = Memo::new(move |_| plays_recording(panels, replay));
    let replay_again = move |_| {
        let states: Vec<_> = panels.with_untracked(|ps| ps.iter().map(|p| p.state).collect());
        replay.play(states);
    };
    move || {
        shows_recording.get().then(|| {
            let playing = replay.playing.get();
            let title = replay
                .recording
                .with(|r| r.as_ref().map(|r| r.title.clone()).unwrap_or_default());
            let state = if playing {
                format!(": {title} — replaying ({}), no token, no network.", replay.speed.get().label())
            } else {
                format!(": {title} — played back from a file, no token, no network.")
            };
            view! {
                <button id="replay-again" hidden=playing on:click=replay_again>"Replay again"</button>
                <p id="recording-banner" class="recording-banner" role="status" data-playing=playing.to_string()>
                    <strong>"Recording"</strong>
                    {state}
                </p>
            }
        })
    }
}
