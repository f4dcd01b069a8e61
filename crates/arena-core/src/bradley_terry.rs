//! The Bradley-Terry fit behind both leaderboards, as a job that works in slices and keeps
//! count of its work: the page runs a slice, lets the browser draw and answer, and runs the
//! next, so no fit holds the page however many votes it is given; and no fit does more than
//! its budget of work, so a hostile pool of votes costs a bounded time, said in advance.
//!
//! A unit of work is one pair result counted, one vote drawn for a resample, or one pair's
//! term in one fitting iteration. Each vote is turned into pairwise results once (its kind:
//! contestants, verdict and weight), so a resample adds up kinds, not votes.

use std::collections::HashMap;

use crate::seeded::SplitMix64;

/// What the user said of one run's panels.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// This panel (an index into the run's contestants) was the best.
    Best(usize),
    /// They were as good as each other.
    Tie,
    /// Every answer was bad: counted as a tie between them, as arenas count "both bad".
    AllBad,
}

/// Most work of one fit, in units (see the module's comment). The ratings themselves need two
/// passes over the pair results (the largest pool the community view reads, 50 repositories
/// of 20,000 votes of 8 panels, has 28 M) and at most `FIT.1` iterations over 64 × 64 pairs
/// (20.5 M): about 77 M at most, well within it. The intervals' resamples use what is left;
/// with fewer than `RESAMPLES / 2` the intervals are left out.
pub const WORK_BUDGET: u64 = 150_000_000;

/// Fewest results (weighted) a contestant needs before it is rated.
pub const MIN_RESULTS: f64 = 5.0;

/// Resamples of the bootstrap interval.
pub const RESAMPLES: usize = 200;

/// How closely the ratings shown are fitted: until no strength moves by more than 1e-13 of
/// itself (the community view's pooled ranking is held to a reference computation within 1e-9
/// of a rating), and the bootstrap's resamples, which only place an interval's ends, to 1e-10
/// in at most 500 iterations (each starts from the ratings, so few are needed).
const FIT: (f64, usize) = (1e-13, 5_000);
const RESAMPLE_FIT: (f64, usize) = (1e-10, 500);

/// Counts a contestant as having won (or lost) only past this share of its games: weighted
/// sums that should be equal may differ in their last bits.
const EPS: f64 = 1e-9;

/// One vote as the fit reads it: its contestants (indices), the verdict and its weight.
#[derive(Debug, Clone, PartialEq)]
pub struct FitVote {
    pub ids: Vec<u16>,
    pub verdict: Verdict,
    pub weight: f64,
}

/// What the fit is given.
#[derive(Debug, Clone, Default)]
pub struct FitInput {
    /// Contestants, numbered `0..n`.
    pub n: usize,
    pub votes: Vec<FitVote>,
    /// Which contestants may be rated at all (the community view's two-voter rule); empty:
    /// every one.
    pub may_rate: Vec<bool>,
}

/// A rating and its interval.
pub type Rated = (f64, Option<(f64, f64)>);

/// What the fit found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fitted {
    /// Wins, ties and losses of each contestant, counted in pairs (unweighted).
    pub tally: Vec<(u32, u32, u32)>,
    /// Each contestant's weighted results.
    pub results: Vec<f64>,
    pub ratings: Vec<Option<Rated>>,
    /// Resamples done for the intervals.
    pub resamples: usize,
    /// The units of work done.
    pub work: u64,
    /// The budget ran out: intervals (or, past all reason, ratings) were left out.
    pub out_of_budget: bool,
}

/// A pairwise result: (a, b, a's score: 1 win, 0.5 tie, 0 loss).
type Pair = (u16, u16, f64);

fn pairs_of(vote: &FitVote) -> impl Iterator<Item = Pair> + '_ {
    let n = vote.ids.len();
    (0..n).flat_map(move |i| {
        (i + 1..n).filter_map(move |j| {
            let score = match vote.verdict {
                Verdict::Best(b) if b == i => 1.0,
                Verdict::Best(b) if b == j => 0.0,
                // A third panel was best: these two both lost to it, and tell nothing of
                // each other.
                Verdict::Best(_) => return None,
                Verdict::Tie | Verdict::AllBad => 0.5,
            };
            Some((vote.ids[i], vote.ids[j], score))
        })
    })
}

/// A contestant left out of the rated (in a rated kind's `ids`).
const UNRATED: u16 = u16::MAX;

/// Votes of one kind: the same contestants, verdict and weight, so the same pairwise results.
struct Kind {
    vote: FitVote,
    count: u32,
}

impl Kind {
    /// What is left in the list of kinds once one is moved to the rated.
    const TAKEN: Kind = Kind {
        vote: FitVote {
            ids: Vec::new(),
            verdict: Verdict::Tie,
            weight: 0.0,
        },
        count: 0,
    };

    /// Its pairs, those with an unrated contestant left out.
    fn pairs(&self) -> impl Iterator<Item = Pair> + '_ {
        pairs_of(&self.vote).filter(|&(a, b, _)| a != UNRATED && b != UNRATED)
    }
}

/// A square matrix of `k × k`, flat.
#[derive(Clone)]
struct Square {
    k: usize,
    cells: Vec<f64>,
}

impl Square {
    fn new(k: usize) -> Self {
        Square {
            k,
            cells: vec![0.0; k * k],
        }
    }
    fn at(&self, a: usize, b: usize) -> f64 {
        self.cells[a * self.k + b]
    }
    fn add(&mut self, a: usize, b: usize, x: f64) {
        self.cells[a * self.k + b] += x;
    }
}

/// Games and scores among `k` contestants: `games[a][b]` the weight of their results,
/// `score[a][b]` what of it `a` won.
#[derive(Clone)]
struct Results {
    games: Square,
    score: Square,
}

impl Results {
    fn new(k: usize) -> Self {
        Results {
            games: Square::new(k),
            score: Square::new(k),
        }
    }
    fn add(&mut self, (a, b, s): Pair, weight: f64) {
        let (a, b) = (a as usize, b as usize);
        self.games.add(a, b, weight);
        self.games.add(b, a, weight);
        self.score.add(a, b, weight * s);
        self.score.add(b, a, weight * (1.0 - s));
    }
    fn won(&self, a: usize) -> f64 {
        (0..self.games.k).map(|b| self.score.at(a, b)).sum()
    }
    fn played(&self, a: usize) -> f64 {
        (0..self.games.k).map(|b| self.games.at(a, b)).sum()
    }
    /// Whether each contestant won and lost (or tied), and all are linked by games: the
    /// strengths are then finite and unique up to scale.
    fn fittable(&self) -> bool {
        let k = self.games.k;
        let placed = (0..k).all(|a| {
            let (won, played) = (self.won(a), self.played(a));
            won > EPS * played && won < played * (1.0 - EPS)
        });
        placed && linked(k, &self.games, &vec![true; k]).len() == k
    }
}

/// The contestants linked to the first member by games among members (a search, `k²` steps).
fn linked(k: usize, games: &Square, member: &[bool]) -> Vec<usize> {
    let Some(start) = (0..k).find(|&i| member[i]) else {
        return Vec::new();
    };
    group_of(start, k, games, member)
}

fn group_of(start: usize, k: usize, games: &Square, member: &[bool]) -> Vec<usize> {
    let mut seen = vec![false; k];
    seen[start] = true;
    let (mut stack, mut found) = (vec![start], vec![start]);
    while let Some(at) = stack.pop() {
        for to in 0..k {
            if member[to] && !seen[to] && games.at(at, to) > 0.0 {
                seen[to] = true;
                stack.push(to);
                found.push(to);
            }
        }
    }
    found
}

/// One iteration of Hunter's MM for Bradley-Terry (ties as half a win each), the geometric
/// mean kept at 1; returns the largest relative move.
fn mm_step(results: &Results, wins: &[f64], p: &mut [f64]) -> f64 {
    let k = p.len();
    let mut next = vec![0.0; k];
    for i in 0..k {
        let mut denominator = 0.0;
        for j in 0..k {
            let g = results.games.at(i, j);
            if j != i && g > 0.0 {
                denominator += g / (p[i] + p[j]);
            }
        }
        next[i] = wins[i] / denominator;
    }
    // Only ratios matter: keep the geometric mean at 1.
    let log_mean = next.iter().map(|x: &f64| x.ln()).sum::<f64>() / k as f64;
    for x in &mut next {
        *x /= log_mean.exp();
    }
    // Relative: a strength far from 1 still stops moving in its last digits.
    let change = next
        .iter()
        .zip(p.iter())
        .map(|(a, b)| (a / b).ln().abs())
        .fold(0.0, f64::max);
    p.copy_from_slice(&next);
    change
}

fn elo(strength: f64) -> f64 {
    1000.0 + 400.0 * strength.log10()
}

/// Where the job is.
enum Phase {
    /// Counting each vote's pairs (every contestant's results with every other's added up),
    /// and grouping the votes into kinds.
    Tally {
        at: usize,
    },
    /// Choosing whom to rate.
    Choose,
    /// The rated kinds: pairs renumbered to the rated, and their results added up.
    RateKinds {
        at: usize,
        main: Results,
        pair_results: u64,
    },
    /// The ratings.
    Fit {
        p: Vec<f64>,
        iteration: usize,
    },
    /// One resample of the bootstrap.
    Resample {
        r: usize,
        stage: Stage,
    },
    Done,
}

enum Stage {
    /// Drawing as many votes as there are rated votes, with replacement.
    Draw { left: usize, counts: Vec<u32> },
    /// The drawn kinds' results added up.
    Add {
        at: usize,
        counts: Vec<u32>,
        results: Results,
    },
    /// Fitted from the ratings.
    Iterate {
        results: Results,
        wins: Vec<f64>,
        p: Vec<f64>,
        iteration: usize,
    },
}

/// A fit under way; [`FitJob::run`] does a slice of it.
pub struct FitJob {
    input: FitInput,
    budget: u64,
    work: u64,
    phase: Phase,
    out: Fitted,
    /// Every contestant's results with every other's.
    all: Results,
    kinds: Vec<Kind>,
    kind_of: HashMap<(Vec<u16>, u8, usize, u64), usize>,
    /// The rated contestants, and each contestant's slot among them.
    rated: Vec<usize>,
    slot: Vec<Option<u16>>,
    /// Rated kinds (contestants renumbered to slots), and the running count of their votes.
    rated_kinds: Vec<Kind>,
    cumulative: Vec<u64>,
    /// The ratings' results and strengths, and each rated contestant's resampled ratings.
    main: Results,
    main_wins: Vec<f64>,
    strengths: Vec<f64>,
    samples: Vec<Vec<f64>>,
    rng: SplitMix64,
}

/// Whether the job finished, or has more to do.
pub enum Slice {
    More,
    Done(Fitted),
}

impl FitJob {
    /// A fit of `input` that does at most `budget` units of work.
    pub fn new(input: FitInput, budget: u64) -> Self {
        let n = input.n;
        assert!(n < usize::from(UNRATED), "too many contestants to fit");
        FitJob {
            input,
            budget,
            work: 0,
            phase: Phase::Tally { at: 0 },
            out: Fitted {
                tally: vec![(0, 0, 0); n],
                results: vec![0.0; n],
                ratings: vec![None; n],
                ..Fitted::default()
            },
            all: Results::new(n),
            kinds: Vec::new(),
            kind_of: HashMap::new(),
            rated: Vec::new(),
            slot: vec![None; n],
            rated_kinds: Vec::new(),
            cumulative: Vec::new(),
            main: Results::new(0),
            main_wins: Vec::new(),
            strengths: Vec::new(),
            samples: Vec::new(),
            rng: SplitMix64::new(0),
        }
    }

    /// Units of work done so far.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// What the job is doing, in words.
    pub fn doing(&self) -> String {
        match &self.phase {
            Phase::Tally { at } => format!("counting votes ({at} of {})", self.input.votes.len()),
            Phase::Choose | Phase::RateKinds { .. } => "choosing whom to rate".into(),
            Phase::Fit { iteration, .. } => format!("fitting the ratings (iteration {iteration})"),
            Phase::Resample { r, .. } => {
                format!("the intervals (resample {} of {RESAMPLES})", r + 1)
            }
            Phase::Done => "done".into(),
        }
    }

    /// Does about `units` more work (a step's worth more at most: a vote's pairs, one
    /// iteration), and returns what the fit found once it is done.
    pub fn run(&mut self, units: u64) -> Slice {
        let until = self.work.saturating_add(units.max(1));
        // A step may do a little more than it was given: none starts that could pass the
        // budget.
        let limit = self.budget.saturating_sub(self.largest_step());
        while self.work < until && !matches!(self.phase, Phase::Done) {
            if self.work >= limit {
                self.out.out_of_budget = true;
                self.phase = self.finish();
                break;
            }
            self.step(until.min(limit));
        }
        if matches!(self.phase, Phase::Done) {
            let mut out = std::mem::take(&mut self.out);
            out.work = self.work;
            Slice::Done(out)
        } else {
            Slice::More
        }
    }

    /// The most units one step can do past the point it was told to stop at: choosing whom
    /// to rate (`n` rounds of `n²`, and the search for groups), or one iteration over 64 × 64
    /// pairs.
    fn largest_step(&self) -> u64 {
        let n = self.input.n as u64;
        (n * n * (n + 2)).max(64 * 64)
    }

    /// Runs to the end (the user's own leaderboard: a few votes).
    pub fn run_to_end(mut self) -> Fitted {
        loop {
            if let Slice::Done(out) = self.run(u64::MAX) {
                return out;
            }
        }
    }

    fn step(&mut self, until: u64) {
        self.phase = match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Tally { mut at } => {
                while at < self.input.votes.len() && self.work < until {
                    self.tally_vote(at);
                    at += 1;
                }
                if at < self.input.votes.len() {
                    Phase::Tally { at }
                } else {
                    self.kind_of = HashMap::new();
                    self.input.votes = Vec::new();
                    Phase::Choose
                }
            }
            Phase::Choose => {
                let all = std::mem::replace(&mut self.all, Results::new(0));
                self.choose(&all)
            }
            Phase::RateKinds {
                mut at,
                mut main,
                mut pair_results,
            } => {
                while at < self.kinds.len() && self.work < until {
                    let mut kind = std::mem::replace(&mut self.kinds[at], Kind::TAKEN);
                    at += 1;
                    for id in &mut kind.vote.ids {
                        *id = self.slot[usize::from(*id)].unwrap_or(UNRATED);
                    }
                    let weight = kind.vote.weight * f64::from(kind.count);
                    let mut pairs = 0u64;
                    for pair in kind.pairs() {
                        main.add(pair, weight);
                        pairs += 1;
                    }
                    self.work += kind.vote.ids.len() as u64 + pairs;
                    if pairs == 0 {
                        continue;
                    }
                    pair_results += pairs * u64::from(kind.count);
                    let total = self.cumulative.last().copied().unwrap_or(0);
                    self.cumulative.push(total + u64::from(kind.count));
                    self.rated_kinds.push(kind);
                }
                if at < self.kinds.len() {
                    Phase::RateKinds {
                        at,
                        main,
                        pair_results,
                    }
                } else {
                    self.kinds = Vec::new();
                    // Seeded: the same votes always give the same intervals.
                    self.rng = SplitMix64::new(pair_results);
                    let k = self.rated.len();
                    self.main_wins = (0..k).map(|a| main.won(a)).collect();
                    self.work += (k * k) as u64;
                    self.main = main;
                    Phase::Fit {
                        p: vec![1.0; self.rated.len()],
                        iteration: 0,
                    }
                }
            }
            Phase::Fit {
                mut p,
                mut iteration,
            } => {
                let k = p.len() as u64;
                let mut converged = false;
                while iteration < FIT.1 && self.work < until {
                    let change = mm_step(&self.main, &self.main_wins, &mut p);
                    self.work += k * k;
                    iteration += 1;
                    if change < FIT.0 {
                        converged = true;
                        break;
                    }
                }
                if converged || iteration >= FIT.1 {
                    self.rate(p)
                } else {
                    Phase::Fit { p, iteration }
                }
            }
            Phase::Resample { r, stage } => self.resample(r, stage, until),
            Phase::Done => Phase::Done,
        };
    }

    fn tally_vote(&mut self, at: usize) {
        let vote = &self.input.votes[at];
        let weight = vote.weight;
        let mut pairs = 0u64;
        for pair @ (a, b, s) in pairs_of(vote) {
            self.all.add(pair, weight);
            let (a, b) = (usize::from(a), usize::from(b));
            let tally = &mut self.out.tally;
            if s == 1.0 {
                tally[a].0 += 1;
                tally[b].2 += 1;
            } else if s == 0.0 {
                tally[a].2 += 1;
                tally[b].0 += 1;
            } else {
                tally[a].1 += 1;
                tally[b].1 += 1;
            }
            self.out.results[a] += weight;
            self.out.results[b] += weight;
            pairs += 1;
        }
        self.work += pairs.max(1);
        let (verdict, best) = match vote.verdict {
            Verdict::Best(b) => (0, b),
            Verdict::Tie => (1, usize::MAX),
            Verdict::AllBad => (2, usize::MAX),
        };
        let key = (vote.ids.clone(), verdict, best, weight.to_bits());
        match self.kind_of.get(&key) {
            Some(&kind) => self.kinds[kind].count += 1,
            None => {
                self.kind_of.insert(key, self.kinds.len());
                self.kinds.push(Kind {
                    vote: vote.clone(),
                    count: 1,
                });
            }
        }
    }

    /// Whom to rate: contestants allowed, with enough results, that won and lost (or tied)
    /// among the rest, again until none is left to leave, and then the largest group linked
    /// by comparisons (the first by number on a tie). So a contestant that only lost, or a
    /// few votes of their own, leave the others rated: they go unrated themselves. At most
    /// `n` rounds of `n²` steps (64 contestants: 262,144 units).
    fn choose(&mut self, all: &Results) -> Phase {
        let n = self.input.n;
        let may = |id: usize| self.input.may_rate.get(id).copied().unwrap_or(true);
        let mut member: Vec<bool> = (0..n)
            .map(|id| may(id) && self.out.results[id] >= MIN_RESULTS - EPS)
            .collect();
        loop {
            let mut changed = false;
            let (mut won, mut played) = (vec![0.0; n], vec![0.0; n]);
            for a in (0..n).filter(|&a| member[a]) {
                for b in (0..n).filter(|&b| member[b]) {
                    won[a] += all.score.at(a, b);
                    played[a] += all.games.at(a, b);
                }
            }
            self.work += (n * n) as u64;
            for a in 0..n {
                if member[a] && !(won[a] > EPS * played[a] && won[a] < played[a] * (1.0 - EPS)) {
                    member[a] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut best: Vec<usize> = Vec::new();
        let mut grouped = vec![false; n];
        for start in 0..n {
            if !member[start] || grouped[start] {
                continue;
            }
            let found = group_of(start, n, &all.games, &member);
            self.work += (n * found.len()) as u64;
            for &id in &found {
                grouped[id] = true;
            }
            if found.len() > best.len() {
                best = found;
            }
        }
        best.sort_unstable();
        if best.len() < 2 {
            return Phase::Done;
        }
        for (at, &id) in best.iter().enumerate() {
            self.slot[id] = Some(at as u16);
        }
        let k = best.len();
        self.rated = best;
        Phase::RateKinds {
            at: 0,
            main: Results::new(k),
            pair_results: 0,
        }
    }

    /// The ratings are fitted: the intervals next.
    fn rate(&mut self, p: Vec<f64>) -> Phase {
        for (at, &id) in self.rated.iter().enumerate() {
            self.out.ratings[id] = Some((elo(p[at]), None));
        }
        self.samples = vec![Vec::new(); p.len()];
        self.strengths = p;
        Phase::Resample {
            r: 0,
            stage: self.fresh_draw(),
        }
    }

    fn fresh_draw(&self) -> Stage {
        Stage::Draw {
            left: self.cumulative.last().copied().unwrap_or(0) as usize,
            counts: vec![0; self.rated_kinds.len()],
        }
    }

    fn resample(&mut self, r: usize, stage: Stage, until: u64) -> Phase {
        let k = self.rated.len();
        let next = match stage {
            Stage::Draw {
                mut left,
                mut counts,
            } => {
                let total = self.cumulative.last().copied().unwrap_or(0);
                while left > 0 && self.work < until {
                    let drawn = self.rng.next_u64() % total.max(1);
                    let kind = self.cumulative.partition_point(|&c| c <= drawn);
                    counts[kind] += 1;
                    left -= 1;
                    self.work += 1;
                }
                if left > 0 {
                    Stage::Draw { left, counts }
                } else {
                    Stage::Add {
                        at: 0,
                        counts,
                        results: Results::new(k),
                    }
                }
            }
            Stage::Add {
                mut at,
                counts,
                mut results,
            } => {
                while at < counts.len() && self.work < until {
                    let kind = &self.rated_kinds[at];
                    if counts[at] > 0 {
                        let weight = kind.vote.weight * f64::from(counts[at]);
                        for pair in kind.pairs() {
                            results.add(pair, weight);
                            self.work += 1;
                        }
                    }
                    self.work += 1;
                    at += 1;
                }
                if at < counts.len() {
                    Stage::Add {
                        at,
                        counts,
                        results,
                    }
                } else {
                    self.work += (k * k) as u64;
                    if results.fittable() {
                        let wins = (0..k).map(|a| results.won(a)).collect();
                        Stage::Iterate {
                            results,
                            wins,
                            p: self.strengths.clone(),
                            iteration: 0,
                        }
                    } else {
                        // A resample where someone never won (or lost) places no interval.
                        return self.next_resample(r);
                    }
                }
            }
            Stage::Iterate {
                results,
                wins,
                mut p,
                mut iteration,
            } => {
                while iteration < RESAMPLE_FIT.1 && self.work < until {
                    let change = mm_step(&results, &wins, &mut p);
                    self.work += (k * k) as u64;
                    iteration += 1;
                    if change < RESAMPLE_FIT.0 {
                        iteration = RESAMPLE_FIT.1;
                    }
                }
                if iteration >= RESAMPLE_FIT.1 {
                    for (i, s) in p.iter().enumerate() {
                        self.samples[i].push(elo(*s));
                    }
                    return self.next_resample(r);
                }
                Stage::Iterate {
                    results,
                    wins,
                    p,
                    iteration,
                }
            }
        };
        Phase::Resample { r, stage: next }
    }

    fn next_resample(&mut self, r: usize) -> Phase {
        self.out.resamples = r + 1;
        if r + 1 >= RESAMPLES {
            self.finish()
        } else {
            Phase::Resample {
                r: r + 1,
                stage: self.fresh_draw(),
            }
        }
    }

    /// The intervals from the resamples done (when they are enough), and the end.
    fn finish(&mut self) -> Phase {
        for (i, &id) in self.rated.iter().enumerate() {
            let Some(s) = self.samples.get_mut(i) else {
                continue;
            };
            let mut s = std::mem::take(s);
            s.sort_by(|a, b| a.total_cmp(b));
            let interval = (s.len() >= RESAMPLES / 2).then(|| {
                let at = |q: f64| s[((s.len() - 1) as f64 * q).round() as usize];
                (at(0.025), at(0.975))
            });
            if let Some(rating) = &mut self.out.ratings[id] {
                rating.1 = interval;
            }
        }
        Phase::Done
    }
}

/// The fit of `input`, to the end and within [`WORK_BUDGET`].
pub fn fit(input: FitInput) -> Fitted {
    FitJob::new(input, WORK_BUDGET).run_to_end()
}

#[cfg(test)]
mod tests;
