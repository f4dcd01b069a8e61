//! The shipped recordings as cards to play (made with the app's own export, listed in
//! `recordings/index.json`), and playing one the page's address names. The cards are drawn
//! with the first screen (a first visit sees them); playing one is a job of the parts chunk
//! (`play_card`), which reads run files.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::recordings::{
    is_plain_file_name, parse_index, RecordingEntry, INDEX_FILE, MAX_INDEX_BYTES,
    MAX_RECORDING_BYTES, RECORDINGS_DIR,
};
use crate::run_file::RunFile;
use crate::ui::parts::{self, Job};
use crate::ui::runs::show_file::FileShow;
use crate::web::page_file::fetch_page_file;

async fn load_index() -> Result<Vec<RecordingEntry>, String> {
    let text = fetch_page_file(&format!("{RECORDINGS_DIR}{INDEX_FILE}"), MAX_INDEX_BYTES)
        .await
        .map_err(|why| format!("Cannot list the recordings: {why}."))?;
    parse_index(&text).map_err(|why| format!("Cannot list the recordings: {why}."))
}

async fn load_recording(entry: &RecordingEntry) -> Result<RunFile, String> {
    let cannot = |why: String| format!("Cannot play \"{}\": {why}.", entry.title);
    if !is_plain_file_name(&entry.file) {
        return Err(cannot("its file is not in the recordings folder".into()));
    }
    let text = fetch_page_file(&entry.path(), MAX_RECORDING_BYTES)
        .await
        .map_err(cannot)?;
    RunFile::from_json(&text).map_err(cannot)
}

/// Plays the shipped recording `file` (a plain file name of the recordings folder), labelled
/// as its index entry says: for a recording chosen in the page's address.
pub async fn play_recording_named(file: &str, shower: FileShow) -> Result<(), String> {
    if !is_plain_file_name(file) {
        return Err(format!(
            "Cannot play the recording {:?}: only a file name of the app's recordings folder is accepted.",
            file.chars().take(80).collect::<String>()
        ));
    }
    let entries = load_index().await?;
    let entry = entries
        .into_iter()
        .find(|e| e.file == file)
        .ok_or_else(|| format!("There is no recording named {file:?}."))?;
    let run = load_recording(&entry).await?;
    shower.show_recording(run, entry.label());
    Ok(())
}

/// Plays a card's recording: `loading` names it until it plays, or `problem` says why not.
pub async fn play_card(
    entry: RecordingEntry,
    shower: FileShow,
    problem: RwSignal<Option<String>>,
    loading: RwSignal<Option<String>>,
) {
    match load_recording(&entry).await {
        Ok(run) => shower.show_recording(run, entry.label()),
        Err(why) => problem.set(Some(why)),
    }
    loading.set(None);
}

/// The list of recordings, fetched when first drawn, and what went wrong playing one.
#[component]
pub fn RecordingCards(shower: FileShow) -> impl IntoView {
    let list = RwSignal::new(None::<Result<Vec<RecordingEntry>, String>>);
    let problem = RwSignal::new(None::<String>);
    let loading = RwSignal::new(None::<String>);
    spawn_local(async move { list.set(Some(load_index().await)) });

    let play = move |entry: RecordingEntry| {
        problem.set(None);
        loading.set(Some(entry.file.clone()));
        parts::start(Job::PlayCard {
            entry,
            shower,
            problem,
            loading,
        });
    };

    let cards = move || match list.get() {
        None => {
            view! { <p class="welcome-note" role="status">"Loading the recordings…"</p> }.into_any()
        }
        Some(Err(why)) => view! { <p class="welcome-note" role="status">{why}</p> }.into_any(),
        Some(Ok(entries)) => view! {
            <ul class="recording-cards">
                {entries
                    .into_iter()
                    .map(|entry| {
                        let file = entry.file.clone();
                        let busy = {
                            let file = file.clone();
                            move || loading.with(|l| l.as_deref() == Some(file.as_str()))
                        };
                        let meta = format!("{} · recorded {}", entry.model, entry.recorded);
                        let title = entry.title.clone();
                        let about = entry.about.clone();
                        let question = entry.question.clone();
                        let label = format!("Play recording: {title}");
                        view! {
                            <li class="recording-card" data-file=file>
                                <h3>{title}</h3>
                                <p class="recording-question">{question}</p>
                                <p>{about}</p>
                                <p class="recording-meta">{meta}</p>
                                <button class="play-recording" aria-label=label disabled=busy
                                    on:click=move |_| play(entry.clone())>
                                    "Play recording"
                                </button>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
        .into_any(),
    };

    view! {
        {cards}
        {move || problem.get().map(|why| view! { <p id="welcome-error" class="welcome-error" role="alert">{why}</p> })}
    }
}
