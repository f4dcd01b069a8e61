//! A run published on the Hub, opened by the page's address (`?hub=<owner>/<repo>/<path>`):
//! one GET of the file, without the token, read as Import reads a file (its size, depth and
//! text limits, `RunFile::from_json`), and shown as a kept run is. Nothing else is fetched:
//! a replay needs no model and no tool.

use leptos::prelude::*;

use crate::hub::repo::{HubFile, HubUrls};
use crate::run_file::{RunFile, MAX_IMPORT_BYTES};
use crate::ui::runs::show_file::FileShow;
use crate::web::hub_fetch::{hub_fetch, HubRequest, HubStop};

use super::{hub_url, REQUEST_MS};

async fn fetch_run(address: &str) -> Result<RunFile, String> {
    let file = HubFile::parse(address)?;
    let base = hub_url();
    let url = HubUrls { base: &base }.file(&file.repo, &file.path);
    let reply = hub_fetch(
        HubRequest {
            method: "GET",
            url: &url,
            token: None,
            body: None,
            // One byte past the limit: a file that big is refused by the reader, not cut.
            cap: MAX_IMPORT_BYTES + 1,
            timeout_ms: REQUEST_MS,
        },
        &HubStop::default(),
    )
    .await?;
    if !reply.ok() {
        return Err(crate::hub::reply::failure(
            &format!("Fetching {file}"),
            reply.status,
            &reply.body,
            reply.retry_after.as_deref(),
        ));
    }
    RunFile::from_json(&reply.body)
}

/// Fetches and shows the run the address names, or says why not.
pub async fn show_hub_run(address: &str, shower: FileShow, alert: RwSignal<Option<String>>) {
    match fetch_run(address).await {
        Ok(run) => {
            alert.set(None);
            let title = format!("{} (published on the Hub)", run.title);
            shower.show(run, title);
        }
        Err(why) => alert.set(Some(
            format!(
                "Cannot show the run published on the Hub: {}",
                why.trim_end_matches('.')
            ) + ".",
        )),
    }
}
