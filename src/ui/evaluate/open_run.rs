//! Opens a result's run in the arena's panels. The view and the arena are separate wasm
//! modules; the address is the channel they share: the run goes into `#run=` (deflated, as a
//! shared link carries it), and the arena shows it when the fragment changes.

use crate::agent::record::RunRecord;
use crate::evaluation::plan::{EvalSpec, Job};
use crate::page_params::{base64url_encode, MAX_RUN_FRAGMENT, RUN_KEY};
use crate::run_file::RunFile;
use crate::web::deflate::deflate;
use crate::web::{eval_store, storage};

pub async fn open_in_arena(spec: &EvalSpec, job: Job) -> Result<(), String> {
    let json = eval_store::record(&spec.id, &job.key())
        .await
        .map_err(|r| format!("The run could not be read ({}: {}).", r.name, r.message))?
        .ok_or("This run was not kept.")?;
    let record: RunRecord =
        serde_json::from_str(&json).map_err(|e| format!("The kept run is damaged: {e}"))?;
    let mut file = RunFile::new(
        record.id.clone(),
        record.created,
        storage::load_settings(),
        vec![record],
    );
    file.title = format!(
        "Evaluation, question {} in {}",
        job.question + 1,
        job.mode.label()
    );
    let encoded = base64url_encode(&deflate(&file.to_json()).await?);
    if encoded.len() > MAX_RUN_FRAGMENT {
        return Err(format!(
            "This run is too long to open in the panels ({} KB deflated, at most {} KB); the JSON export holds it.",
            encoded.len() / 1024,
            MAX_RUN_FRAGMENT / 1024
        ));
    }
    web_sys::window()
        .ok_or("No window.")?
        .location()
        .set_hash(&format!("{RUN_KEY}{encoded}"))
        .map_err(|_| "The address could not be set.".to_string())
}
