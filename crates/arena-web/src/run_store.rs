//! Kept runs in IndexedDB (`idb`): each run's file, and its line of the history list in a
//! store of its own, small, so the list loads quickly.

use super::idb::{Database, Key, Refusal};

const DB: Database = Database {
    name: "react-arena",
    stores: "runs,summaries",
};
/// id -> the run as its file (JSON text): what Open reads.
const RUNS: &str = "runs";
/// id -> the history list's line for it (JSON text).
const SUMMARIES: &str = "summaries";

/// Writes a run and its history line together.
pub async fn put_run(id: &str, file_json: &str, summary_json: &str) -> Result<(), Refusal> {
    DB.put(&[(RUNS, id, file_json), (SUMMARIES, id, summary_json)])
        .await
}

/// Starts writing a run without waiting: for the last save as the page goes away.
pub fn put_run_now(id: &str, file_json: &str, summary_json: &str) {
    DB.put_now(&[(RUNS, id, file_json), (SUMMARIES, id, summary_json)]);
}

/// A kept run's file, if it is there.
pub async fn get_run(id: &str) -> Result<Option<String>, Refusal> {
    DB.get(RUNS, id).await
}

pub async fn delete_run(id: &str) -> Result<(), Refusal> {
    DB.remove(&[(RUNS, Key::One(id)), (SUMMARIES, Key::One(id))])
        .await
}

/// Whether runs may be kept here: `false` on a first visit, before any run was kept.
pub async fn may_hold_runs() -> bool {
    DB.may_exist().await
}

/// Every kept run's history line (JSON text), in no particular order.
pub async fn summaries() -> Result<Vec<String>, Refusal> {
    DB.get_all(SUMMARIES, "").await
}
