//! The community ranking: the votes of the repositories not left out, pooled so that no one
//! account owns the table, and rated by the leaderboard's Bradley-Terry fit, as one job that
//! works in slices within a budget of work (`bradley_terry`).
//!
//! - A voter is a repository's owner. An owner's identical votes count once, across all of
//!   their repositories.
//! - An owner's votes together weigh at most as much as [`MAX_OWNER_WEIGHT`] votes: each of
//!   an owner's `n` votes weighs `min(1, 20 / n)`. Votes from one account are one person's
//!   judgement (or one script's), not independent evidence, so past a handful they add little:
//!   20 even votes already place a pair of contestants within about ±80 rating points (the
//!   standard error of a rating difference over `n` votes, 400 / ln 10 · 2 / √n, at n = 20:
//!   78), and more from the same account would only narrow an interval on one voter's taste.
//! - A contestant is rated only when at least [`MIN_VOTERS`] owners voted on it: one account
//!   alone cannot give its own model a rating, however many votes it publishes.
//! - An owner's votes name at most [`MAX_CONTESTANTS_PER_OWNER`] contestants (the limit of one
//!   repository, for the voter): their most-voted, then by name; their votes naming others are
//!   left out. So one account fills at most 16 of the pool's places.
//! - The pool names at most [`MAX_CONTESTANTS`] contestants, chosen by votes (those more
//!   owners voted on first, then by weighted votes, then by name), not by the order the Hub
//!   lists repositories; a vote naming a contestant left out is left out.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use crate::bradley_terry::{FitInput, FitJob, FitVote, Fitted, Slice};
pub use crate::bradley_terry::{RESAMPLES, WORK_BUDGET};
use crate::leaderboard::{rows_of, Contestant, Standing};

use super::community::{RepoVotes, VoteKey};
use super::repo::RepoId;

/// The most an owner's votes weigh together, in votes.
pub const MAX_OWNER_WEIGHT: f64 = 20.0;
/// Fewest owners who voted on a contestant before it is rated.
pub const MIN_VOTERS: usize = 2;
/// Most contestants pooled: the fit's work grows with their square.
pub const MAX_CONTESTANTS: usize = 64;
/// Most contestants one owner's votes may name.
pub const MAX_CONTESTANTS_PER_OWNER: usize = super::community::MAX_CONTESTANTS_PER_REPO;

/// One owner's part in the pool.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnerWeight {
    pub owner: String,
    /// Their distinct votes, across their repositories.
    pub votes: usize,
    /// What each of them weighs.
    pub each: f64,
}

impl OwnerWeight {
    /// What their votes weigh together, in votes.
    pub fn total(&self) -> f64 {
        self.votes as f64 * self.each
    }
}

/// The ranking.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommunityTable {
    pub standings: Vec<Standing>,
    /// Votes counted (after repeats, and the contestant cap).
    pub votes: usize,
    /// Owners whose votes were counted.
    pub voters: usize,
    /// Votes left out because they named a contestant past an owner's 16 or the pool's 64.
    pub capped: usize,
    /// Each owner's weight, by name.
    pub owners: Vec<OwnerWeight>,
    /// What the fit did (its work, its resamples, whether the budget ran out).
    pub fitted: Fitted,
}

/// Where the job is.
enum Phase {
    /// Each vote once per owner, counted per owner and contestant.
    Pool {
        repo: usize,
        at: usize,
    },
    /// Each owner's votes naming a contestant past their 16 left out, and counted again.
    Trim {
        repo: usize,
        at: usize,
    },
    /// The weights, and the contestants kept.
    Cap,
    /// The kept votes, numbered for the fit.
    Number {
        repo: usize,
        at: usize,
    },
    Fit(Box<FitJob>),
    Done,
}

/// The ranking under way; [`RankingJob::run`] does a slice of it.
pub struct RankingJob {
    repos: Vec<(RepoId, Arc<RepoVotes>)>,
    budget: u64,
    work: u64,
    phase: Phase,
    /// Every contestant named, and each repository's contestants as their numbers.
    named: BTreeMap<Contestant, u16>,
    repo_ids: Vec<Vec<u16>>,
    /// Owners by name: their number, seen votes, votes per contestant (before and after
    /// their 16), the contestants each may name, and their votes.
    owners: BTreeMap<String, usize>,
    owner_of: Vec<usize>,
    seen: Vec<HashSet<VoteKey>>,
    counts: Vec<BTreeMap<u16, u32>>,
    trimmed: Vec<BTreeMap<u16, u32>>,
    allowed: Vec<Option<BTreeSet<u16>>>,
    owner_votes: Vec<usize>,
    /// Which of each repository's votes are not repeats.
    kept: Vec<Vec<bool>>,
    weights: Vec<f64>,
    /// A named contestant's number in the fit, if kept.
    fit_id: Vec<Option<u16>>,
    chosen: Vec<Contestant>,
    votes: Vec<FitVote>,
    /// The owners who voted on each kept contestant.
    voters_of: Vec<BTreeSet<usize>>,
    capped: usize,
    out: CommunityTable,
}

impl RankingJob {
    /// A ranking of `repos` (those not left out, in the order read) within `budget` units.
    pub fn new(repos: Vec<(RepoId, Arc<RepoVotes>)>, budget: u64) -> Self {
        let mut owners = BTreeMap::new();
        for (repo, _) in &repos {
            let next = owners.len();
            owners.entry(repo.owner.clone()).or_insert(next);
        }
        let owner_of = repos.iter().map(|(r, _)| owners[&r.owner]).collect();
        let n_owners = owners.len();
        RankingJob {
            budget,
            work: 0,
            phase: Phase::Pool { repo: 0, at: 0 },
            named: BTreeMap::new(),
            repo_ids: Vec::new(),
            owners,
            owner_of,
            seen: vec![HashSet::new(); n_owners],
            counts: vec![BTreeMap::new(); n_owners],
            trimmed: vec![BTreeMap::new(); n_owners],
            allowed: Vec::new(),
            owner_votes: vec![0; n_owners],
            kept: repos
                .iter()
                .map(|(_, v)| vec![false; v.votes.len()])
                .collect(),
            weights: vec![1.0; n_owners],
            fit_id: Vec::new(),
            chosen: Vec::new(),
            votes: Vec::new(),
            voters_of: Vec::new(),
            capped: 0,
            out: CommunityTable::default(),
            repos,
        }
    }

    /// Units of work done so far (the fit's included).
    pub fn work(&self) -> u64 {
        match &self.phase {
            Phase::Fit(job) => self.work + job.work(),
            _ => self.work,
        }
    }

    /// What the job is doing, in words.
    pub fn doing(&self) -> String {
        match &self.phase {
            Phase::Pool { .. } | Phase::Trim { .. } | Phase::Cap | Phase::Number { .. } => {
                "pooling the votes".into()
            }
            Phase::Fit(job) => job.doing(),
            Phase::Done => "done".into(),
        }
    }

    /// Does about `units` more work, and returns the table once it is done.
    pub fn run(&mut self, units: u64) -> Option<CommunityTable> {
        let until = self.work().saturating_add(units.max(1));
        while self.work() < until {
            match std::mem::replace(&mut self.phase, Phase::Done) {
                Phase::Pool { repo, at } => self.pool(repo, at, until),
                Phase::Trim { repo, at } => self.trim(repo, at, until),
                Phase::Cap => self.cap(),
                Phase::Number { repo, at } => self.number(repo, at, until),
                Phase::Fit(mut job) => {
                    match job.run(until.saturating_sub(self.work + job.work())) {
                        Slice::More => self.phase = Phase::Fit(job),
                        Slice::Done(fitted) => {
                            self.work += fitted.work;
                            self.out.standings = rows_of(&self.chosen, &fitted);
                            self.out.fitted = fitted;
                            self.out.fitted.work = self.work;
                            return Some(std::mem::take(&mut self.out));
                        }
                    }
                }
                Phase::Done => return Some(std::mem::take(&mut self.out)),
            }
        }
        None
    }

    /// Runs to the end.
    pub fn run_to_end(mut self) -> CommunityTable {
        loop {
            if let Some(table) = self.run(u64::MAX / 2) {
                return table;
            }
        }
    }

    fn pool(&mut self, mut repo: usize, mut at: usize, until: u64) {
        while repo < self.repos.len() && self.work < until {
            let read = Arc::clone(&self.repos[repo].1);
            if at == 0 {
                let ids = read
                    .contestants
                    .iter()
                    .map(|c| {
                        let next = self.named.len() as u16;
                        *self.named.entry(c.clone()).or_insert(next)
                    })
                    .collect();
                self.repo_ids.push(ids);
            }
            let owner = self.owner_of[repo];
            while at < read.votes.len() && self.work < until {
                let vote = &read.votes[at];
                if self.seen[owner].insert(vote.key) {
                    self.kept[repo][at] = true;
                    for &panel in &vote.panels {
                        let id = self.repo_ids[repo][usize::from(panel)];
                        *self.counts[owner].entry(id).or_default() += 1;
                    }
                }
                self.work += 1;
                at += 1;
            }
            if at >= read.votes.len() {
                repo += 1;
                at = 0;
            }
        }
        if repo < self.repos.len() {
            self.phase = Phase::Pool { repo, at };
            return;
        }
        // Each owner's most-voted 16, then by name.
        self.allowed = self
            .counts
            .iter()
            .map(|counts| {
                (counts.len() > MAX_CONTESTANTS_PER_OWNER).then(|| {
                    let mut by_votes: Vec<(u16, u32)> =
                        counts.iter().map(|(&id, &n)| (id, n)).collect();
                    by_votes
                        .sort_by(|(x, a), (y, b)| b.cmp(a).then(self.name(*x).cmp(self.name(*y))));
                    by_votes
                        .into_iter()
                        .take(MAX_CONTESTANTS_PER_OWNER)
                        .map(|(id, _)| id)
                        .collect()
                })
            })
            .collect();
        self.work += self.named.len() as u64;
        self.phase = Phase::Trim { repo: 0, at: 0 };
    }

    fn name(&self, id: u16) -> &Contestant {
        self.named
            .iter()
            .find(|(_, &n)| n == id)
            .map(|(c, _)| c)
            .expect("a contestant named")
    }

    fn trim(&mut self, mut repo: usize, mut at: usize, until: u64) {
        while repo < self.repos.len() && self.work < until {
            let read = Arc::clone(&self.repos[repo].1);
            let owner = self.owner_of[repo];
            while at < read.votes.len() && self.work < until {
                self.work += 1;
                at += 1;
                if !self.kept[repo][at - 1] {
                    continue;
                }
                let ids = read.votes[at - 1]
                    .panels
                    .iter()
                    .map(|&p| self.repo_ids[repo][usize::from(p)]);
                if let Some(allowed) = &self.allowed[owner] {
                    if !ids.clone().all(|id| allowed.contains(&id)) {
                        self.kept[repo][at - 1] = false;
                        self.capped += 1;
                        continue;
                    }
                }
                self.owner_votes[owner] += 1;
                for id in ids {
                    *self.trimmed[owner].entry(id).or_default() += 1;
                }
            }
            if at >= read.votes.len() {
                repo += 1;
                at = 0;
            }
        }
        self.phase = if repo < self.repos.len() {
            Phase::Trim { repo, at }
        } else {
            Phase::Cap
        };
    }

    /// Each owner's weight, and the contestants kept: those more owners voted on first, then
    /// by weighted votes, then by name; numbered for the fit in order of name.
    fn cap(&mut self) {
        self.seen = Vec::new();
        self.counts = Vec::new();
        let votes_of = std::mem::take(&mut self.owner_votes);
        for (o, &n) in votes_of.iter().enumerate() {
            self.weights[o] = if n as f64 > MAX_OWNER_WEIGHT {
                MAX_OWNER_WEIGHT / n as f64
            } else {
                1.0
            };
        }
        self.out.owners = self
            .owners
            .iter()
            .map(|(name, &o)| OwnerWeight {
                owner: name.clone(),
                votes: votes_of[o],
                each: self.weights[o],
            })
            .collect();
        let n = self.named.len();
        let (mut voters, mut support) = (vec![0usize; n], vec![0.0f64; n]);
        // Owners in order of name: the same sums whatever order the repositories came in.
        for &o in self.owners.values() {
            for (&id, &count) in &self.trimmed[o] {
                voters[usize::from(id)] += 1;
                support[usize::from(id)] += f64::from(count) * self.weights[o];
            }
        }
        // Contestants whose every vote was left out are not in the pool.
        let mut by_name: Vec<(&Contestant, u16)> = self
            .named
            .iter()
            .map(|(c, &id)| (c, id))
            .filter(|(_, id)| voters[usize::from(*id)] > 0)
            .collect();
        self.work += n as u64;
        by_name.sort_by(|(x, a), (y, b)| {
            let (a, b) = (usize::from(*a), usize::from(*b));
            voters[b]
                .cmp(&voters[a])
                .then(support[b].total_cmp(&support[a]))
                .then(x.cmp(y))
        });
        by_name.truncate(MAX_CONTESTANTS);
        by_name.sort_by_key(|(x, _)| *x);
        self.fit_id = vec![None; n];
        for (at, (c, id)) in by_name.into_iter().enumerate() {
            self.fit_id[usize::from(id)] = Some(at as u16);
            self.chosen.push(c.clone());
        }
        self.voters_of = vec![BTreeSet::new(); self.chosen.len()];
        self.phase = Phase::Number { repo: 0, at: 0 };
    }

    fn number(&mut self, mut repo: usize, mut at: usize, until: u64) {
        while repo < self.repos.len() && self.work < until {
            let read = Arc::clone(&self.repos[repo].1);
            let owner = self.owner_of[repo];
            while at < read.votes.len() && self.work < until {
                let vote = &read.votes[at];
                self.work += 1;
                at += 1;
                if !self.kept[repo][at - 1] {
                    continue;
                }
                let ids: Option<Vec<u16>> = vote
                    .panels
                    .iter()
                    .map(|&p| self.fit_id[usize::from(self.repo_ids[repo][usize::from(p)])])
                    .collect();
                let Some(ids) = ids else {
                    self.capped += 1;
                    continue;
                };
                for &id in &ids {
                    self.voters_of[usize::from(id)].insert(owner);
                }
                self.votes.push(FitVote {
                    ids,
                    verdict: vote.verdict.clone(),
                    weight: self.weights[owner],
                });
            }
            if at >= read.votes.len() {
                repo += 1;
                at = 0;
            }
        }
        if repo < self.repos.len() {
            self.phase = Phase::Number { repo, at };
            return;
        }
        let counted: BTreeSet<usize> = self.voters_of.iter().flatten().copied().collect();
        self.out.voters = counted.len();
        self.out.votes = self.votes.len();
        self.out.capped = self.capped;
        let may_rate = self
            .voters_of
            .iter()
            .map(|o| o.len() >= MIN_VOTERS)
            .collect();
        let input = FitInput {
            n: self.chosen.len(),
            votes: std::mem::take(&mut self.votes),
            may_rate,
        };
        self.kept = Vec::new();
        self.trimmed = Vec::new();
        self.phase = Phase::Fit(Box::new(FitJob::new(
            input,
            self.budget.saturating_sub(self.work),
        )));
    }
}

/// The ranking of the repositories not `excluded`, to the end, within [`WORK_BUDGET`].
pub fn pooled_table(
    repos: &[(RepoId, Arc<RepoVotes>)],
    excluded: &BTreeSet<RepoId>,
) -> CommunityTable {
    let included = repos
        .iter()
        .filter(|(r, _)| !excluded.contains(r))
        .cloned()
        .collect();
    RankingJob::new(included, WORK_BUDGET).run_to_end()
}
