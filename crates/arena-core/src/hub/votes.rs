//! A blind vote as a line of a published vote file (JSON Lines), and back: written from a
//! kept run, read from anyone's repository. What a line names (modes, models, the question)
//! is someone else's text when read: bounded and made plain here, shown as text by the page.

use serde::{Deserialize, Serialize};

use crate::agent::Mode;
use crate::hidden_text::plain;
use crate::history::RunSummary;
use crate::leaderboard::{vote_of, Contestant, Verdict, Vote};
use crate::run_file::RunFile;

use super::sha256_hex;

/// What a vote line says it is.
pub const VOTE_FORMAT: &str = "react-arena/vote";
pub const VOTE_VERSION: u32 = 1;

/// The app's version, in every line it writes.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The most of a model's or mode's name kept from a line read.
const NAME_CHARS: usize = 120;
/// The most panels a vote compares (the arena has four modes; room for more).
const MAX_PANELS: usize = 8;
/// A line longer than this is skipped unread (an answer could be long; 64 KiB is plenty).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One panel of a voted run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VotePanel {
    /// The mode's id (`think`, `act`, `react`, `codeact`).
    pub mode: String,
    pub model: String,
    /// The run sent a system prompt edited in Settings (a contestant of its own).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prompt_edited: bool,
    /// The panel's answer, only when the user chose to publish answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

/// The verdict: the best panel's index, or `"tie"`, or `"all_bad"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Winner {
    Panel(usize),
    Word(String),
}

/// One vote, as a line of `votes/*.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoteLine {
    pub format: String,
    pub version: u32,
    pub app_version: String,
    /// When the run was made, epoch ms.
    pub created: f64,
    /// SHA-256 of the question's text, always: votes on one question are told apart by it.
    pub question_sha256: String,
    /// The question's text, only when the user chose to publish it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The action protocol the run spoke (`text`, `native`, `json`).
    pub protocol: String,
    pub panels: Vec<VotePanel>,
    pub winner: Winner,
}

/// What a publish includes of each vote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VoteDetail {
    /// The question's text (else only its hash).
    pub question_text: bool,
    /// Each panel's answer.
    pub answers: bool,
}

/// The vote a kept run carries, as a line; `None` when it has no vote.
pub fn vote_line(file: &RunFile, detail: VoteDetail) -> Option<VoteLine> {
    let summary = RunSummary::of(file, file.created);
    let vote = vote_of(&summary.modes)?;
    let question = file
        .records
        .first()
        .and_then(|r| r.turns.first())
        .map(|t| t.question.clone())
        .unwrap_or_default();
    let protocol = file
        .records
        .first()
        .and_then(|r| serde_json::to_value(r.config.protocol).ok())
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    let panels = summary
        .modes
        .iter()
        .zip(&file.records)
        .map(|(m, record)| VotePanel {
            mode: m.mode.id().into(),
            model: m.model.clone(),
            prompt_edited: m.prompt_edited,
            answer: detail
                .answers
                .then(|| record.answer().map(|a| a.text.clone()))
                .flatten(),
        })
        .collect();
    Some(VoteLine {
        format: VOTE_FORMAT.into(),
        version: VOTE_VERSION,
        app_version: APP_VERSION.into(),
        created: file.created,
        question_sha256: sha256_hex(question.trim().as_bytes()),
        question: detail.question_text.then_some(question),
        protocol,
        panels,
        winner: match vote.verdict {
            Verdict::Best(i) => Winner::Panel(i),
            Verdict::Tie => Winner::Word("tie".into()),
            Verdict::AllBad => Winner::Word("all_bad".into()),
        },
    })
}

/// The lines of a vote file.
pub fn vote_file(lines: &[VoteLine]) -> String {
    lines
        .iter()
        .map(|l| serde_json::to_string(l).unwrap_or_default() + "\n")
        .collect()
}

fn mode_of(id: &str) -> Option<Mode> {
    Mode::ALL.into_iter().find(|m| m.id() == id)
}

/// A line read from someone's file as a vote the leaderboard counts, with the question's hash
/// (for counting a voter's repeated vote once). `None` for anything that is not a well-formed
/// vote: an unknown mode or format, fewer than two panels or too many, a winner out of range.
pub fn read_vote(line: &str) -> Option<(String, Vote)> {
    if line.len() > MAX_LINE_BYTES {
        return None;
    }
    let parsed: VoteLine = serde_json::from_str(line).ok()?;
    if parsed.format != VOTE_FORMAT
        || parsed.version != VOTE_VERSION
        || !(2..=MAX_PANELS).contains(&parsed.panels.len())
        || parsed.question_sha256.len() != 64
        || !parsed
            .question_sha256
            .bytes()
            .all(|b| b.is_ascii_hexdigit())
    {
        return None;
    }
    let contestants = parsed
        .panels
        .iter()
        .map(|p| {
            let label = mode_of(&p.mode)?.label();
            let model = plain(&p.model, NAME_CHARS);
            (!model.is_empty()).then(|| Contestant {
                mode: if p.prompt_edited {
                    format!("{label} (edited prompt)")
                } else {
                    label.to_string()
                },
                model,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    // One contestant in two panels would be compared with itself.
    let mut distinct = contestants.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() != contestants.len() {
        return None;
    }
    let verdict = match parsed.winner {
        Winner::Panel(i) if i < contestants.len() => Verdict::Best(i),
        Winner::Word(w) if w == "tie" => Verdict::Tie,
        Winner::Word(w) if w == "all_bad" => Verdict::AllBad,
        _ => return None,
    };
    Some((
        parsed.question_sha256.to_ascii_lowercase(),
        Vote {
            contestants,
            verdict,
        },
    ))
}
