//! The leaderboard of the user's own blind votes (issue 28, work in progress): each vote of a
//! run compares its panels, each a contestant (a mode with a model); the votes become pairwise
//! results, and a Bradley-Terry fit of them gives each contestant a rating on the Elo scale,
//! with a bootstrap interval. Pure, and deterministic (the bootstrap draws from a seeded
//! generator), so a table from scripted votes can be worked out by hand.

use std::collections::BTreeMap;

/// Who a panel was: its mode and its model.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Contestant {
    pub mode: String,
    pub model: String,
}

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

/// One vote: the run's contestants, in panel order, and the verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Vote {
    pub contestants: Vec<Contestant>,
    pub verdict: Verdict,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub contestant: Contestant,
    pub wins: u32,
    pub ties: u32,
    pub losses: u32,
    /// Elo-scale rating (mean 1000), when there are votes enough to rank.
    pub rating: Option<f64>,
    /// The 95% bootstrap interval of the rating.
    pub interval: Option<(f64, f64)>,
}

/// Fewest pairwise results a contestant needs before it is ranked.
pub const MIN_RESULTS: u32 = 5;

/// A pairwise result: (a, b, a's score: 1 win, 0.5 tie, 0 loss).
type Pair = (usize, usize, f64);

fn pairs(votes: &[Vote], index: &BTreeMap<Contestant, usize>) -> Vec<Pair> {
    let mut out = Vec::new();
    for vote in votes {
        let ids: Vec<usize> = vote.contestants.iter().map(|c| index[c]).collect();
        for i in 0..ids.len() {
            for j in i + 1..ids.len() {
                let score = match vote.verdict {
                    Verdict::Best(b) if b == i => 1.0,
                    Verdict::Best(b) if b == j => 0.0,
                    // A third panel was best: these two both lost to it, and tell nothing of
                    // each other.
                    Verdict::Best(_) => continue,
                    Verdict::Tie | Verdict::AllBad => 0.5,
                };
                out.push((ids[i], ids[j], score));
            }
        }
    }
    out
}

/// Bradley-Terry strengths by Hunter's MM iterations, ties as half a win each; `None` when a
/// contestant never won nor tied (its strength would go to zero).
fn strengths(n: usize, results: &[Pair]) -> Option<Vec<f64>> {
    let mut wins = vec![0.0; n];
    let mut games = vec![vec![0.0; n]; n];
    for &(a, b, s) in results {
        wins[a] += s;
        wins[b] += 1.0 - s;
        games[a][b] += 1.0;
        games[b][a] += 1.0;
    }
    if wins.iter().any(|w| *w <= 0.0) {
        return None;
    }
    let mut p = vec![1.0; n];
    for _ in 0..500 {
        let mut next = vec![0.0; n];
        for i in 0..n {
            let denominator: f64 = (0..n)
                .filter(|&j| j != i && games[i][j] > 0.0)
                .map(|j| games[i][j] / (p[i] + p[j]))
                .sum();
            next[i] = wins[i] / denominator;
        }
        // Only ratios matter: keep the geometric mean at 1.
        let log_mean = next.iter().map(|x: &f64| x.ln()).sum::<f64>() / n as f64;
        for x in &mut next {
            *x /= log_mean.exp();
        }
        let change = next
            .iter()
            .zip(&p)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        p = next;
        if change < 1e-10 {
            break;
        }
    }
    Some(p)
}

fn elo(strength: f64) -> f64 {
    1000.0 + 400.0 * strength.log10()
}

/// A small, seeded generator (SplitMix64): the same votes always give the same intervals.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

const RESAMPLES: usize = 200;

/// The table, best rated first (unrated after, by wins).
pub fn standings(votes: &[Vote]) -> Vec<Standing> {
    let mut index = BTreeMap::new();
    for c in votes.iter().flat_map(|v| &v.contestants) {
        let next = index.len();
        index.entry(c.clone()).or_insert(next);
    }
    let n = index.len();
    let results = pairs(votes, &index);
    let mut rows: Vec<Standing> = index
        .keys()
        .map(|c| Standing {
            contestant: c.clone(),
            wins: 0,
            ties: 0,
            losses: 0,
            rating: None,
            interval: None,
        })
        .collect();
    let position: Vec<usize> = {
        let mut by_id = vec![0; n];
        for (row, id) in index.values().enumerate() {
            by_id[*id] = row;
        }
        by_id
    };
    for &(a, b, s) in &results {
        let (ra, rb) = (position[a], position[b]);
        if s == 1.0 {
            rows[ra].wins += 1;
            rows[rb].losses += 1;
        } else if s == 0.0 {
            rows[ra].losses += 1;
            rows[rb].wins += 1;
        } else {
            rows[ra].ties += 1;
            rows[rb].ties += 1;
        }
    }
    let enough = n >= 2
        && rows
            .iter()
            .all(|r| r.wins + r.ties + r.losses >= MIN_RESULTS);
    if enough {
        if let Some(p) = strengths(n, &results) {
            let mut samples: Vec<Vec<f64>> = vec![Vec::new(); n];
            let mut rng = SplitMix(results.len() as u64);
            for _ in 0..RESAMPLES {
                let drawn: Vec<Pair> = (0..results.len())
                    .map(|_| results[(rng.next() % results.len() as u64) as usize])
                    .collect();
                if let Some(q) = strengths(n, &drawn) {
                    for (id, s) in q.iter().enumerate() {
                        samples[id].push(elo(*s));
                    }
                }
            }
            for id in 0..n {
                let row = &mut rows[position[id]];
                row.rating = Some(elo(p[id]));
                let mut s = std::mem::take(&mut samples[id]);
                s.sort_by(|a, b| a.total_cmp(b));
                if s.len() >= RESAMPLES / 2 {
                    let at = |q: f64| s[((s.len() - 1) as f64 * q).round() as usize];
                    row.interval = Some((at(0.025), at(0.975)));
                }
            }
        }
    }
    rows.sort_by(|a, b| match (a.rating, b.rating) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => b.wins.cmp(&a.wins),
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(mode: &str) -> Contestant {
        Contestant {
            mode: mode.into(),
            model: "m".into(),
        }
    }

    fn vote(verdict: Verdict) -> Vote {
        Vote {
            contestants: vec![c("think"), c("act"), c("react")],
            verdict,
        }
    }

    #[test]
    fn votes_become_wins_ties_and_losses_worked_out_by_hand() {
        // ReAct best twice, Think-only once, one tie, one all-bad.
        let votes = [
            vote(Verdict::Best(2)),
            vote(Verdict::Best(2)),
            vote(Verdict::Best(0)),
            vote(Verdict::Tie),
            vote(Verdict::AllBad),
        ];
        let rows = standings(&votes);
        let row = |mode: &str| rows.iter().find(|r| r.contestant.mode == mode).unwrap();
        // ReAct: beat both twice (4 wins), lost to Think once, 2 ties in each of 2 votes.
        assert_eq!(
            (row("react").wins, row("react").ties, row("react").losses),
            (4, 4, 1)
        );
        assert_eq!(
            (row("think").wins, row("think").ties, row("think").losses),
            (2, 4, 2)
        );
        assert_eq!(
            (row("act").wins, row("act").ties, row("act").losses),
            (0, 4, 3)
        );
    }

    #[test]
    fn too_few_votes_rank_nobody() {
        let rows = standings(&[vote(Verdict::Best(2))]);
        assert!(rows
            .iter()
            .all(|r| r.rating.is_none() && r.interval.is_none()));
        assert!(standings(&[]).is_empty());
    }

    #[test]
    fn two_even_contestants_rate_alike_and_a_better_one_rates_higher() {
        let pair = |winner: usize| Vote {
            contestants: vec![c("a"), c("b")],
            verdict: Verdict::Best(winner),
        };
        let even: Vec<Vote> = (0..10).map(|i| pair(i % 2)).collect();
        let rows = standings(&even);
        let (x, y) = (rows[0].rating.unwrap(), rows[1].rating.unwrap());
        assert!(
            (x - 1000.0).abs() < 1e-6 && (y - 1000.0).abs() < 1e-6,
            "{rows:?}"
        );
        // 3 wins to 1, worked out by hand: p = 3, Elo difference 400·log10(3) ≈ 190.8.
        let uneven: Vec<Vote> = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
            .iter()
            .map(|&w| pair(w))
            .collect();
        let rows = standings(&uneven);
        assert_eq!(rows[0].contestant.mode, "a");
        let gap = rows[0].rating.unwrap() - rows[1].rating.unwrap();
        assert!((gap - 400.0 * 3f64.log10()).abs() < 1e-6, "{gap}");
        let (low, high) = rows[0].interval.unwrap();
        assert!(low <= rows[0].rating.unwrap() && rows[0].rating.unwrap() <= high);
        // The same votes, the same table.
        assert_eq!(standings(&uneven), rows);
    }
}
