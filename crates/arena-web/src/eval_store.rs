//! Evaluations in IndexedDB (`idb`), a database of their own so the arena's kept runs never
//! wait on (or get evicted with) a 500-question batch: specs, results as they arrive (so a
//! stopped or reloaded evaluation resumes where it was) and each run's record.

use super::idb::{Database, Key, Refusal};

const DB: Database = Database {
    name: "react-arena-evaluations",
    stores: "specs,results,records",
};

/// Whether evaluations may be kept here: `false` before any was.
pub async fn may_hold() -> bool {
    DB.may_exist().await
}

/// evaluation id -> its spec (JSON text), questions included.
const SPECS: &str = "specs";
/// "<evaluation id>/<job key>" -> the run's result (JSON text): small, read all at once.
const RESULTS: &str = "results";
/// "<evaluation id>/<job key>" -> the run's record (JSON text): read one at a time.
const RECORDS: &str = "records";

fn job_key(id: &str, job: &str) -> String {
    format!("{id}/{job}")
}

pub async fn put_spec(id: &str, spec_json: &str) -> Result<(), Refusal> {
    DB.put(&[(SPECS, id, spec_json)]).await
}

/// Every kept evaluation's spec (JSON text).
pub async fn specs() -> Result<Vec<String>, Refusal> {
    DB.get_all(SPECS, "").await
}

/// Keeps a run's result and its record together.
pub async fn put_result(
    id: &str,
    job: &str,
    result_json: &str,
    record_json: &str,
) -> Result<(), Refusal> {
    let key = job_key(id, job);
    DB.put(&[(RESULTS, &key, result_json), (RECORDS, &key, record_json)])
        .await
}

/// Every result of evaluation `id` (JSON text).
pub async fn results(id: &str) -> Result<Vec<String>, Refusal> {
    DB.get_all(RESULTS, &job_key(id, "")).await
}

/// The record of one run, if kept.
pub async fn record(id: &str, job: &str) -> Result<Option<String>, Refusal> {
    DB.get(RECORDS, &job_key(id, job)).await
}

pub async fn delete_evaluation(id: &str) -> Result<(), Refusal> {
    let runs = job_key(id, "");
    DB.remove(&[
        (SPECS, Key::One(id)),
        (RESULTS, Key::StartingWith(&runs)),
        (RECORDS, Key::StartingWith(&runs)),
    ])
    .await
}
