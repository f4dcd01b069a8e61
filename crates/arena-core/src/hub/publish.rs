//! What a publish sends: the files (a vote file, an evaluation's table and rows, kept runs),
//! the repository's dataset card, and the commit that carries them, as the Hub's commit API
//! takes it (`application/x-ndjson`: a header line, then one line per file, its content in
//! base64; huggingface_hub `_commit_api.py` and @huggingface/hub `commit.ts` write the same).
//! The page shows the body byte for byte before sending it; this module is the one place it
//! is written, so what is shown is what is sent.

use serde_json::json;

use crate::evaluation::csv::csv_row;
use crate::evaluation::outcome::JobResult;
use crate::evaluation::plan::EvalSpec;
use crate::evaluation::summary::{summarize, table_csv};
use crate::run_file::RunFile;

use super::published_run::{published, RunDetail};
use super::sha256_hex;
use super::votes::{vote_file, VoteLine};

/// The tag every repository the arena writes carries: the community view lists by it.
pub const TAG: &str = "react-arena";
/// The repository's name when the user names none: `<user>/react-arena-results`.
pub const DEFAULT_REPO_NAME: &str = "react-arena-results";

/// The licences a user may put on what they publish (the Hub's licence identifiers).
pub const LICENCES: [(&str, &str); 4] = [
    ("cc-by-4.0", "CC BY 4.0 (credit the publisher)"),
    ("cc0-1.0", "CC0 1.0 (public domain)"),
    ("odc-by", "ODC-By (credit the publisher)"),
    ("mit", "MIT"),
];

/// The folders a repository of the arena holds, each with what it is.
pub const FOLDERS: [(&str, &str); 3] = [
    ("votes/", "Blind votes, one JSON object a line"),
    (
        "evaluations/",
        "Evaluations: the table and each question's scores (CSV)",
    ),
    ("runs/", "Runs, as the arena's Export JSON writes them"),
];

/// One file of a commit.
#[derive(Debug, Clone, PartialEq)]
pub struct HubFileText {
    pub path: String,
    pub text: String,
}

/// A file already in the repository, as its tree lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExistingFile {
    pub path: String,
    pub size: u64,
}

/// Text fit for a path segment: letters, digits, `-`, `_`; anything else becomes `-`.
fn path_safe(text: &str) -> String {
    let safe: String = text
        .chars()
        .take(80)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let safe = safe.trim_matches('-').to_string();
    if safe.is_empty() {
        "x".into()
    } else {
        safe
    }
}

/// `2026-11-27T23-40-05Z`: a time for a file's name, sortable.
pub fn stamp(epoch_ms: f64) -> String {
    match crate::dates::utc_date_time(epoch_ms) {
        Some((y, m, d, h, min)) => {
            let secs = ((epoch_ms / 1000.0).floor() as i64).rem_euclid(60);
            format!("{y:04}-{m:02}-{d:02}T{h:02}-{min:02}-{secs:02}Z")
        }
        None => "unknown-time".into(),
    }
}

/// The vote file of a publish.
pub fn votes_file(lines: &[VoteLine], now_ms: f64) -> HubFileText {
    HubFileText {
        path: format!("votes/{}.jsonl", stamp(now_ms)),
        text: vote_file(lines),
    }
}

/// The header of an evaluation's rows file: what the community view pools.
pub const ROWS_HEADER: [&str; 9] = [
    "set_name",
    "set_sha256",
    "question_id",
    "mode",
    "model",
    "em",
    "f1",
    "answered",
    "judge",
];

/// A question set's hash: SHA-256 of its questions as the evaluation keeps them (JSON).
pub fn set_sha256(spec: &EvalSpec) -> String {
    sha256_hex(
        serde_json::to_string(&spec.questions)
            .unwrap_or_default()
            .as_bytes(),
    )
}

/// An evaluation's two files: the table as the Evaluate view shows it, and a line per
/// question and mode (with the question, gold and answer only when `answers`).
pub fn evaluation_files(spec: &EvalSpec, results: &[JobResult], answers: bool) -> [HubFileText; 2] {
    let folder = format!("evaluations/{}", path_safe(&spec.id));
    let set_hash = set_sha256(spec);
    let mut header: Vec<String> = ROWS_HEADER.iter().map(|h| h.to_string()).collect();
    if answers {
        header.extend(["question", "gold", "answer"].map(String::from));
    }
    let mut rows = csv_row(&header);
    let mut sorted: Vec<&JobResult> = results.iter().collect();
    sorted.sort_by_key(|r| {
        (
            r.job.question,
            spec.modes.iter().position(|&m| m == r.job.mode),
        )
    });
    for r in sorted {
        let Some(q) = spec.questions.get(r.job.question) else {
            continue;
        };
        let mut cells = vec![
            spec.set_name.clone(),
            set_hash.clone(),
            q.id.clone(),
            r.job.mode.id().to_string(),
            spec.model_for(r.job.mode).to_string(),
            format!("{}", r.score.em),
            format!("{:.4}", r.score.f1),
            r.answer.is_some().to_string(),
            r.judge.as_ref().map_or(String::new(), |j| j.verdict()),
        ];
        if answers {
            cells.extend([
                q.question.clone(),
                q.answer.clone(),
                r.answer.clone().unwrap_or_default(),
            ]);
        }
        rows.push_str(&csv_row(&cells));
    }
    [
        HubFileText {
            path: format!("{folder}/table.csv"),
            text: table_csv(&summarize(spec, results)),
        },
        HubFileText {
            path: format!("{folder}/rows.csv"),
            text: rows,
        },
    ]
}

/// A kept run's file, as Export JSON writes it, with only what the user chose to publish
/// (`published_run`); `None` for a blind run still waiting for its vote (its records name
/// every mode and model).
pub fn run_file(file: &RunFile, detail: RunDetail) -> Option<HubFileText> {
    file.can_share().then(|| HubFileText {
        path: format!("runs/{}.json", path_safe(&file.id)),
        text: published(file, detail),
    })
}

fn licence_or_default(licence: &str) -> &'static str {
    LICENCES
        .iter()
        .find(|(id, _)| *id == licence)
        .map_or(LICENCES[0].0, |(id, _)| id)
}

/// The dataset card (`README.md`): YAML metadata (the licence, the tag), what the arena is,
/// and a table of what the repository holds once this commit lands: `existing` (its tree
/// before) with `adding` over it.
pub fn card(licence: &str, existing: &[ExistingFile], adding: &[HubFileText]) -> HubFileText {
    let mut files: Vec<(String, u64)> = existing
        .iter()
        .filter(|f| !adding.iter().any(|a| a.path == f.path))
        .map(|f| (f.path.clone(), f.size))
        .collect();
    files.extend(adding.iter().map(|a| (a.path.clone(), a.text.len() as u64)));
    let mut table = String::from("| What | Folder | Files | Bytes |\n|---|---|---|---|\n");
    for (folder, what) in FOLDERS {
        let in_folder: Vec<&(String, u64)> = files
            .iter()
            .filter(|(p, _)| p.starts_with(folder))
            .collect();
        table.push_str(&format!(
            "| {what} | `{folder}` | {} | {} |\n",
            in_folder.len(),
            in_folder.iter().map(|(_, s)| s).sum::<u64>()
        ));
    }
    let text = format!(
        "---\nlicense: {}\npretty_name: ReAct Arena results\ntags:\n- {TAG}\n- agents\n---\n\n# ReAct Arena results\n\nPublished from ReAct Arena, which runs one question in several ways of reasoning and acting (Think-only, Act-only, ReAct, CodeAct) side by side in the browser. The page writes this card on every publish.\n\n{table}\nA vote line names each panel's mode and model and which answer the voter found best; the question is kept as its SHA-256 unless the publisher chose to include its text. Community leaderboards read the `votes/` and `evaluations/` files of public repositories tagged `{TAG}`.\n",
        licence_or_default(licence)
    );
    HubFileText {
        path: "README.md".into(),
        text,
    }
}

/// The commit's one-line summary: what was published.
pub fn commit_summary(votes: usize, evaluations: usize, runs: usize) -> String {
    let mut parts = Vec::new();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if votes > 0 {
        parts.push(plural(votes, "blind vote", "blind votes"));
    }
    if evaluations > 0 {
        parts.push(plural(evaluations, "evaluation", "evaluations"));
    }
    if runs > 0 {
        parts.push(plural(runs, "run", "runs"));
    }
    let what = match parts.len() {
        0 => "the dataset card".to_string(),
        1 => parts.remove(0),
        _ => {
            let last = parts.pop().unwrap_or_default();
            format!("{} and {last}", parts.join(", "))
        }
    };
    format!("Publish {what} from ReAct Arena")
}

/// Standard base64 with padding, as the commit API reads a file's content.
pub fn base64(bytes: &[u8]) -> String {
    let mut out: String = crate::page_params::base64url_encode(bytes)
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    while !out.len().is_multiple_of(4) {
        out.push('=');
    }
    out
}

/// The commit's body: a header line, then each file, one JSON object a line.
pub fn commit_body(summary: &str, files: &[HubFileText]) -> String {
    let mut body =
        json!({ "key": "header", "value": { "summary": summary, "description": "" } }).to_string();
    body.push('\n');
    for file in files {
        body.push_str(
            &json!({ "key": "file", "value": {
                "content": base64(file.text.as_bytes()),
                "path": file.path,
                "encoding": "base64",
            } })
            .to_string(),
        );
        body.push('\n');
    }
    body
}

/// The preupload request's body: each file's path, size and first bytes (base64), so the Hub
/// can say whether it goes in the commit as it is ("regular") or through LFS.
pub fn preupload_body(files: &[HubFileText]) -> String {
    let files: Vec<_> = files
        .iter()
        .map(|f| {
            let bytes = f.text.as_bytes();
            json!({
                "path": f.path,
                "size": bytes.len(),
                "sample": base64(&bytes[..bytes.len().min(512)]),
            })
        })
        .collect();
    json!({ "files": files }).to_string()
}

/// Paths the Hub's preupload answer wants through LFS, which the page does not do; empty when
/// every file may go in the commit. An answer that cannot be read is an error.
pub fn lfs_paths(answer: &str) -> Result<Vec<String>, String> {
    let value: serde_json::Value = serde_json::from_str(answer)
        .map_err(|_| "The Hub's answer to the upload check could not be read.".to_string())?;
    let files = value["files"]
        .as_array()
        .ok_or("The Hub's answer to the upload check lists no files.")?;
    Ok(files
        .iter()
        .filter(|f| f["uploadMode"].as_str() == Some("lfs"))
        .filter_map(|f| {
            f["path"]
                .as_str()
                .map(|p| crate::hidden_text::plain(p, 120))
        })
        .collect())
}

/// The body that creates the repository.
pub fn create_repo_body(name: &str, organization: Option<&str>, private: bool) -> String {
    let mut body = json!({ "name": name, "type": "dataset", "private": private });
    if let Some(org) = organization {
        body["organization"] = json!(org);
    }
    body.to_string()
}
