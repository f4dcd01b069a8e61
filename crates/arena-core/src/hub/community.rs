//! The community leaderboard: the votes and evaluations of every public repository tagged
//! `react-arena`, pooled. A voter's many identical votes (same repository, question,
//! panels and winner) count as one; the user may leave repositories out. The ranking is the
//! leaderboard's own Bradley-Terry fit (`leaderboard::standings`), over the pooled votes.

use std::collections::{BTreeMap, BTreeSet};

use crate::evaluation::csv::parse_csv;
use crate::evaluation::summary::Row as TableRow;
use crate::hidden_text::plain;
use crate::leaderboard::{standings, Contestant, Standing, Verdict, Vote};

use super::publish::ROWS_HEADER;
use super::repo::RepoId;
use super::votes::{read_vote, MAX_LINE_BYTES};

/// Most repositories read in one go.
pub const MAX_REPOS: usize = 50;
/// Most bytes read of one repository's files, all together.
pub const MAX_REPO_BYTES: usize = 5 * 1024 * 1024;
/// Most distinct votes counted from one repository.
const MAX_VOTES_PER_REPO: usize = 20_000;
/// Most contestants one repository may name (four modes on four models): a vote naming more
/// is skipped, so no repository can swamp the fit with made-up models.
pub const MAX_CONTESTANTS_PER_REPO: usize = 16;
/// Most contestants pooled: the fit's work grows with their square.
pub const MAX_CONTESTANTS: usize = 64;

/// What one repository gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RepoVotes {
    /// Each distinct vote with its question's hash (a voter's repeats kept once).
    pub votes: Vec<(String, Vote)>,
    /// Lines that were not votes (malformed, unknown mode, too long), or past a limit.
    pub skipped: usize,
    /// The repository's contestants so far.
    contestants: BTreeSet<Contestant>,
    /// The votes so far, as [`vote_key`]s.
    seen: BTreeSet<String>,
}

/// What makes two votes of one repository the same vote: the question, each panel's
/// contestant and the verdict named by contestant (so panel order does not matter).
fn vote_key(question: &str, vote: &Vote) -> String {
    let mut who: Vec<String> = vote
        .contestants
        .iter()
        .map(|c| format!("{}\u{1f}{}", c.mode, c.model))
        .collect();
    let verdict = match vote.verdict {
        Verdict::Best(i) => format!("best {}", who[i]),
        Verdict::Tie => "tie".into(),
        Verdict::AllBad => "all bad".into(),
    };
    who.sort();
    format!("{question}\u{1e}{}\u{1e}{verdict}", who.join("\u{1d}"))
}

/// A vote file's lines read; blank lines are not counted as skipped.
pub fn read_vote_file(text: &str, into: &mut RepoVotes) {
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let Some((question, vote)) = (line.len() <= MAX_LINE_BYTES)
            .then(|| read_vote(line))
            .flatten()
        else {
            into.skipped += 1;
            continue;
        };
        let key = vote_key(&question, &vote);
        if into.seen.contains(&key) {
            continue;
        }
        let new = vote
            .contestants
            .iter()
            .filter(|c| !into.contestants.contains(*c))
            .count();
        if into.votes.len() >= MAX_VOTES_PER_REPO
            || into.contestants.len() + new > MAX_CONTESTANTS_PER_REPO
        {
            into.skipped += 1;
            continue;
        }
        into.contestants.extend(vote.contestants.iter().cloned());
        into.seen.insert(key);
        into.votes.push((question, vote));
    }
}

/// The votes of the repositories not left out, a voter's repeats counted once; a vote that
/// would bring the contestants past [`MAX_CONTESTANTS`] is left out.
pub fn pooled_votes(repos: &[(RepoId, RepoVotes)], excluded: &BTreeSet<RepoId>) -> Vec<Vote> {
    let mut contestants = BTreeSet::new();
    let mut out = Vec::new();
    for (_, read) in repos.iter().filter(|(r, _)| !excluded.contains(r)) {
        for (_, vote) in &read.votes {
            let new = vote
                .contestants
                .iter()
                .filter(|c| !contestants.contains(*c))
                .count();
            if contestants.len() + new > MAX_CONTESTANTS {
                continue;
            }
            contestants.extend(vote.contestants.iter().cloned());
            out.push(vote.clone());
        }
    }
    out
}

/// The pooled ranking.
pub fn pooled_standings(
    repos: &[(RepoId, RepoVotes)],
    excluded: &BTreeSet<RepoId>,
) -> Vec<Standing> {
    standings(&pooled_votes(repos, excluded))
}

/// One question's scores in a published evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalRow {
    pub set_sha256: String,
    pub question_id: String,
    pub contestant: Contestant,
    pub em: f64,
    pub f1: f64,
}

/// An evaluation's rows file read; lines that do not fit are counted as skipped.
pub fn read_rows_file(text: &str, into: &mut Vec<EvalRow>) -> usize {
    let Ok(table) = parse_csv(text) else {
        return 1;
    };
    let mut rows = table.into_iter();
    let Some(header) = rows.next() else {
        return 0;
    };
    let column = |name: &str| header.iter().position(|h| h == name);
    let Some(at) = ROWS_HEADER
        .iter()
        .map(|h| column(h))
        .collect::<Option<Vec<usize>>>()
    else {
        return 1;
    };
    let mut skipped = 0;
    for cells in rows {
        let cell = |i: usize| cells.get(at[i]).map(String::as_str).unwrap_or("");
        let mode = crate::agent::Mode::ALL
            .into_iter()
            .find(|m| m.id() == cell(3));
        let score = |s: &str| s.parse::<f64>().ok().filter(|x| (0.0..=1.0).contains(x));
        match (mode, score(cell(5)), score(cell(6))) {
            (Some(mode), Some(em), Some(f1)) if !cell(4).is_empty() => into.push(EvalRow {
                set_sha256: plain(cell(1), 64),
                question_id: plain(cell(2), 120),
                contestant: Contestant {
                    mode: mode.label().into(),
                    model: plain(cell(4), 120),
                },
                em,
                f1,
            }),
            _ => skipped += 1,
        }
    }
    skipped
}

/// One line of the pooled evaluation table.
#[derive(Debug, Clone, PartialEq)]
pub struct PooledEval {
    pub contestant: Contestant,
    /// Distinct questions (by set and id, in each repository) the figures rest on.
    pub questions: usize,
    /// Percentages.
    pub em: f64,
    pub f1: f64,
    /// The ReAct paper's EM for the mode (PaLM-540B, HotpotQA), for reference.
    pub paper_em: Option<f64>,
}

/// EM and F1 per mode and model over every repository's rows not left out; a question a
/// repository scored twice for one contestant counts once (its last row).
pub fn pooled_evaluations(
    repos: &[(RepoId, Vec<EvalRow>)],
    excluded: &BTreeSet<RepoId>,
) -> Vec<PooledEval> {
    let mut by_question: BTreeMap<(Contestant, RepoId, String, String), (f64, f64)> =
        BTreeMap::new();
    for (repo, rows) in repos.iter().filter(|(r, _)| !excluded.contains(r)) {
        for row in rows {
            by_question.insert(
                (
                    row.contestant.clone(),
                    repo.clone(),
                    row.set_sha256.clone(),
                    row.question_id.clone(),
                ),
                (row.em, row.f1),
            );
        }
    }
    let mut sums: BTreeMap<Contestant, (usize, f64, f64)> = BTreeMap::new();
    for ((contestant, ..), (em, f1)) in by_question {
        let sum = sums.entry(contestant).or_default();
        sum.0 += 1;
        sum.1 += em;
        sum.2 += f1;
    }
    sums.into_iter()
        .map(|(contestant, (n, em, f1))| {
            let paper_em = crate::agent::Mode::ALL
                .into_iter()
                .find(|m| m.label() == contestant.mode)
                .and_then(|m| TableRow::Mode(m).paper_em());
            PooledEval {
                contestant,
                questions: n,
                em: 100.0 * em / n as f64,
                f1: 100.0 * f1 / n as f64,
                paper_em,
            }
        })
        .collect()
}
