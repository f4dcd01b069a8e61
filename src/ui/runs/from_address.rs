//! Applies what the page's address asks for (`page_params`): the embedded layout, the modes,
//! the question, the models, a shipped recording to play, or a run carried in the fragment.
//! Problems are shown, not thrown; nothing here runs a model. A run or a recording to play is
//! read and played by the page's parts chunk (`Job`), which only such an address needs at once.

use leptos::prelude::*;

use crate::agent::mode::ModeChoice;
use crate::page_params::{base64url_decode, parse, PageParams, MAX_RUN_JSON_BYTES};
use crate::run_file::RunFile;
use crate::settings::Settings;
use crate::ui::parts::{start, Job};
use crate::ui::runs::show_file::FileShow;
use crate::web::deflate::inflate;
use crate::web::engine;

/// The address of this page, read once.
pub fn page_params() -> PageParams {
    let location = web_sys::window().map(|w| w.location());
    let search = location
        .as_ref()
        .and_then(|l| l.search().ok())
        .unwrap_or_default();
    let hash = location
        .as_ref()
        .and_then(|l| l.hash().ok())
        .unwrap_or_default();
    parse(&search, &hash)
}

/// The models the address names, over `settings` (for this visit: the caller does not save).
pub fn with_address_models(params: &PageParams, mut settings: Settings) -> Settings {
    if let Some(backend) = params.backend {
        settings.backend = backend;
    }
    if let Some(model) = &params.model {
        settings.model = model.clone();
    }
    for (mode, model) in &params.mode_models {
        *settings.mode_models.of_mut(*mode) = model.clone();
    }
    settings
}

/// A run file from the fragment's text.
async fn run_of_fragment(encoded: &str) -> Result<RunFile, String> {
    let bytes = base64url_decode(encoded).ok_or("it is not base64url text")?;
    let json = inflate(&bytes, MAX_RUN_JSON_BYTES).await?;
    RunFile::from_json(&json)
}

/// Fills the question and the modes, and plays what the address carries.
pub fn apply(
    params: &PageParams,
    question: RwSignal<String>,
    mode_choice: RwSignal<ModeChoice>,
    shower: FileShow,
    alert: RwSignal<Option<String>>,
) {
    if let Some(q) = &params.question {
        question.set(q.clone());
        // A link with a question is opened to run it: the engine comes first (the parts
        // chunk waits for it, `parts::show`), so Run pressed at once waits the least.
        engine::prefetch();
    }
    if let Some(choice) = params.modes {
        mode_choice.set(choice);
    }
    let mut problems = params.problems.clone();
    if params.run.is_some() {
        show_run(params, shower, alert);
    } else if let Some(address) = params.hub.clone() {
        start(Job::ShowHubRun {
            address,
            shower,
            alert,
        });
    } else if let Some(file) = params.recording.clone() {
        start(Job::PlayRecording {
            file,
            shower,
            alert,
        });
    }
    if !problems.is_empty() {
        problems.dedup();
        alert.set(Some(problems.join(" ")));
    }
}

/// Shows the run the fragment carries, if any (also when only the fragment changed: a pasted
/// `#run=` link does not reload the page).
pub fn show_run(params: &PageParams, shower: FileShow, alert: RwSignal<Option<String>>) {
    if let Some(encoded) = params.run.clone() {
        start(Job::ShowCarriedRun {
            encoded,
            shower,
            alert,
        });
    }
}

/// Reads the run `encoded` in the fragment and shows it (in the parts chunk).
pub async fn show_carried_run(encoded: &str, shower: FileShow, alert: RwSignal<Option<String>>) {
    match run_of_fragment(encoded).await {
        Ok(run) => {
            alert.set(None);
            let title = format!("{} (carried in the address)", run.title);
            shower.show(run, title);
        }
        Err(why) => alert.set(Some(format!(
            "Cannot show the run in the address: {}.",
            why.trim_end_matches('.')
        ))),
    }
}
