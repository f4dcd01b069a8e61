//! The first visit without a token: recorded example runs to watch in the three panels (made
//! with the app's own export, shipped in `recordings/`), and how to get a Hugging Face token.
//! Shown while no token is set; once one is, a "Recordings" button brings it back.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::show_file::FileShow;
use crate::recordings::{
    is_plain_file_name, parse_index, RecordingEntry, INDEX_FILE, MAX_INDEX_BYTES,
    MAX_RECORDING_BYTES, RECORDINGS_DIR,
};
use crate::run_file::RunFile;
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
    shower.show(run, entry.label());
    Ok(())
}

#[component]
pub fn Welcome(token: RwSignal<String>, shower: FileShow) -> impl IntoView {
    // The user asked for the recordings while a token is set.
    let asked = RwSignal::new(false);
    let shown = Memo::new(move |_| token.with(|t| t.trim().is_empty()) || asked.get());
    let list = RwSignal::new(None::<Result<Vec<RecordingEntry>, String>>);
    let problem = RwSignal::new(None::<String>);
    let loading = RwSignal::new(None::<String>);

    // The list is fetched the first time the block shows.
    Effect::new(move || {
        if shown.get() && list.with_untracked(Option::is_none) {
            list.set(Some(Err("Loading the recordings…".into())));
            spawn_local(async move { list.set(Some(load_index().await)) });
        }
    });

    let play = move |entry: RecordingEntry| {
        problem.set(None);
        loading.set(Some(entry.file.clone()));
        spawn_local(async move {
            match load_recording(&entry).await {
                Ok(run) => shower.show(run, entry.label()),
                Err(why) => problem.set(Some(why)),
            }
            loading.set(None);
        });
    };

    let cards = move || match list.get() {
        None => ().into_any(),
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
        <Show
            when=move || shown.get()
            fallback=move || view! {
                <button id="show-recordings" class="show-recordings" on:click=move |_| asked.set(true)>
                    "Recordings"
                </button>
            }
        >
            <section id="welcome" class="welcome" aria-labelledby="welcome-title">
                <h2 id="welcome-title">"Watch a recorded run"</h2>
                <p>
                    "Each recording is a real run of this app, exported with its own Export JSON and played back in the three panels with its original timing: no token, no network."
                </p>
                {cards}
                {move || problem.get().map(|why| view! { <p id="welcome-error" class="welcome-error" role="alert">{why}</p> })}
                <details class="token-guide">
                    <summary>"Run your own question: get a Hugging Face token"</summary>
                    <ol>
                        <li>
                            "Sign in at "
                            <a href="https://huggingface.co/settings/tokens" target="_blank" rel="noopener noreferrer">"huggingface.co → Settings → Access Tokens"</a>
                            "."
                        </li>
                        <li>"Create new token → Fine-grained, and tick \u{201c}Make calls to Inference Providers\u{201d}. No other permission is needed."</li>
                        <li>"Paste it in Settings below. It stays in this browser (this tab only, unless you tick Remember) and is sent only to the API host you confirm."</li>
                    </ol>
                </details>
                <Show when=move || token.with(|t| !t.trim().is_empty())>
                    <button id="hide-recordings" on:click=move |_| asked.set(false)>"Hide recordings"</button>
                </Show>
            </section>
        </Show>
    }
}
