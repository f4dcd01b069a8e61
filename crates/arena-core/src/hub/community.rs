//! The community leaderboard's reading: the votes and evaluations of every public repository
//! tagged `react-arena`, each repository's votes kept compact (its contestants named once, a
//! vote their indices), a voter's repeats counted once; and the evaluations pooled. The
//! ranking of the votes is `ranking.rs`'s.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use sha2::{Digest, Sha256};

use crate::evaluation::csv::parse_csv;
use crate::evaluation::summary::Row as TableRow;
use crate::hidden_text::plain;
use crate::leaderboard::{Contestant, Verdict, Vote};

use super::publish::ROWS_HEADER;
use super::repo::RepoId;
use super::votes::{read_vote, MAX_LINE_BYTES};

/// Most repositories read in one go.
pub const MAX_REPOS: usize = 50;
/// Most bytes read of one repository's files, all together.
pub const MAX_REPO_BYTES: usize = 5 * 1024 * 1024;
/// Most distinct votes counted from one repository.
pub const MAX_VOTES_PER_REPO: usize = 20_000;
/// Most contestants one repository may name (four modes on four models): a vote naming more
/// is skipped, so no repository can swamp the fit with made-up models.
pub const MAX_CONTESTANTS_PER_REPO: usize = 16;

/// What makes two votes of one voter the same vote: the first 16 bytes of the SHA-256 of
/// the question's hash, each panel's contestant and the verdict named by contestant (so panel
/// order does not matter).
pub type VoteKey = [u8; 16];

/// One distinct vote of a repository.
#[derive(Debug, Clone, PartialEq)]
pub struct RepoVote {
    /// Each panel's contestant, as an index into the repository's contestants.
    pub panels: Vec<u8>,
    pub verdict: Verdict,
    pub key: VoteKey,
}

/// What one repository gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RepoVotes {
    /// The contestants its votes name, in the order first named.
    pub contestants: Vec<Contestant>,
    /// Each distinct vote (a voter's repeats kept once).
    pub votes: Vec<RepoVote>,
    /// Lines that were not votes (malformed, unknown mode, too long), or past a limit.
    pub skipped: usize,
    seen: HashSet<VoteKey>,
}

impl RepoVotes {
    /// A vote as the leaderboard reads it.
    pub fn vote(&self, vote: &RepoVote) -> Vote {
        Vote {
            contestants: vote
                .panels
                .iter()
                .map(|&i| self.contestants[usize::from(i)].clone())
                .collect(),
            verdict: vote.verdict.clone(),
        }
    }
}

fn vote_key(question: &str, vote: &Vote) -> VoteKey {
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
    let text = format!("{question}\u{1e}{}\u{1e}{verdict}", who.join("\u{1d}"));
    let digest = Sha256::digest(text.as_bytes());
    let mut key = [0; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// A vote file's lines read; blank lines are not counted as skipped.
pub fn read_vote_file(text: &str, into: &mut RepoVotes) {
    for line in text.lines() {
        read_vote_line(line, into);
    }
}

/// One line of a vote file read (the page reads a large file a slice of lines at a time).
pub fn read_vote_line(line: &str, into: &mut RepoVotes) {
    if line.trim().is_empty() {
        return;
    }
    let Some((question, vote)) = (line.len() <= MAX_LINE_BYTES)
        .then(|| read_vote(line))
        .flatten()
    else {
        into.skipped += 1;
        return;
    };
    let key = vote_key(&question, &vote);
    if into.seen.contains(&key) {
        return;
    }
    let new = vote
        .contestants
        .iter()
        .filter(|c| !into.contestants.contains(c))
        .count();
    if into.votes.len() >= MAX_VOTES_PER_REPO
        || into.contestants.len() + new > MAX_CONTESTANTS_PER_REPO
    {
        into.skipped += 1;
        return;
    }
    let panels = vote
        .contestants
        .iter()
        .map(|c| {
            let at = into
                .contestants
                .iter()
                .position(|k| k == c)
                .unwrap_or_else(|| {
                    into.contestants.push(c.clone());
                    into.contestants.len() - 1
                });
            at as u8
        })
        .collect();
    into.seen.insert(key);
    into.votes.push(RepoVote {
        panels,
        verdict: vote.verdict,
        key,
    });
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
pub fn pooled_evaluations<R: std::borrow::Borrow<Vec<EvalRow>>>(
    repos: &[(RepoId, R)],
    excluded: &BTreeSet<RepoId>,
) -> Vec<PooledEval> {
    let mut by_question: BTreeMap<(Contestant, RepoId, String, String), (f64, f64)> =
        BTreeMap::new();
    for (repo, rows) in repos.iter().filter(|(r, _)| !excluded.contains(r)) {
        for row in rows.borrow() {
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
