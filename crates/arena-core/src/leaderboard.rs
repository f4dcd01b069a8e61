//! The leaderboard of the user's own runs: each blind vote compares a run's panels, each a
//! contestant (a mode with a model); the votes become pairwise results, and a Bradley-Terry
//! fit of them gives each contestant a rating on the Elo scale, with a bootstrap interval.
//! Beside the votes, each contestant's kept runs and evaluation runs give its answer rate,
//! median time and tokens, and cost. Pure, and deterministic (the bootstrap draws from a
//! seeded generator), so a table from scripted votes can be worked out by hand.

use std::collections::BTreeMap;

use crate::agent::record::BlindVote;
use crate::bradley_terry::{self, FitInput, FitVote, Fitted};
use crate::evaluation::csv::csv_row;
use crate::evaluation::outcome::JobResult;
use crate::evaluation::plan::EvalSpec;
use crate::history::{ModeOutcome, RunSummary};

/// Who a panel was: its mode and its model.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Contestant {
    pub mode: String,
    pub model: String,
}

/// What the user said of one run's panels (the fit's own vocabulary, kept with it).
pub use crate::bradley_terry::Verdict;

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
pub const MIN_RESULTS: u32 = bradley_terry::MIN_RESULTS as u32;

/// The table of `fitted`'s contestants, best rated first (unrated after, by wins).
pub fn rows_of(contestants: &[Contestant], fitted: &Fitted) -> Vec<Standing> {
    let mut rows: Vec<Standing> = contestants
        .iter()
        .enumerate()
        .map(|(id, c)| Standing {
            contestant: c.clone(),
            wins: fitted.tally[id].0,
            ties: fitted.tally[id].1,
            losses: fitted.tally[id].2,
            rating: fitted.ratings[id].map(|r| r.0),
            interval: fitted.ratings[id].and_then(|r| r.1),
        })
        .collect();
    rows.sort_by(|a, b| match (a.rating, b.rating) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => b.wins.cmp(&a.wins),
    });
    rows
}

/// The votes numbered for the fit: each contestant by its place in the returned list (in
/// order of name), each vote of weight 1.
fn numbered(votes: &[Vote]) -> (Vec<Contestant>, Vec<FitVote>) {
    let mut index = BTreeMap::new();
    for c in votes.iter().flat_map(|v| &v.contestants) {
        index.entry(c.clone()).or_insert(0u16);
    }
    for (at, id) in index.values_mut().enumerate() {
        *id = at as u16;
    }
    let fit_votes = votes
        .iter()
        .map(|v| FitVote {
            ids: v.contestants.iter().map(|c| index[c]).collect(),
            verdict: v.verdict.clone(),
            weight: 1.0,
        })
        .collect();
    (index.into_keys().collect(), fit_votes)
}

/// The table, best rated first (unrated after, by wins). Contestants with at least
/// [`MIN_RESULTS`] results are rated by Bradley-Terry (`bradley_terry`) on the comparisons
/// among them (those that won and lost, or tied, among the largest group linked by
/// comparisons); the interval resamples whole votes.
pub fn standings(votes: &[Vote]) -> Vec<Standing> {
    let (contestants, fit_votes) = numbered(votes);
    let fitted = bradley_terry::fit(FitInput {
        n: contestants.len(),
        votes: fit_votes,
        may_rate: Vec::new(),
    });
    rows_of(&contestants, &fitted)
}

/// One run of a contestant, for the table's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct RunStat {
    pub contestant: Contestant,
    pub answered: bool,
    /// How long it took, when it ended.
    pub ms: Option<f64>,
    pub tokens: u64,
    /// `None` when the model's price is unknown.
    pub cost_usd: Option<f64>,
}

/// One line of the leaderboard: the votes and the runs of one contestant.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub standing: Standing,
    pub runs: u32,
    pub answered: u32,
    pub median_ms: Option<f64>,
    pub median_tokens: Option<u64>,
    /// The runs' cost, summed over those whose price is known.
    pub cost_usd: Option<f64>,
}

impl Row {
    /// A contestant's line before its runs are counted in.
    fn new(standing: Standing) -> Row {
        Row {
            standing,
            runs: 0,
            answered: 0,
            median_ms: None,
            median_tokens: None,
            cost_usd: None,
        }
    }

    /// Answered runs as a share of runs, when there are any.
    pub fn answer_rate(&self) -> Option<f64> {
        (self.runs > 0).then(|| f64::from(self.answered) / f64::from(self.runs))
    }
}

/// A mode with its model; a run on an edited prompt is a contestant of its own.
fn contestant(mode: &ModeOutcome) -> Contestant {
    let label = mode.mode.label();
    Contestant {
        mode: if mode.prompt_edited {
            format!("{label} (edited prompt)")
        } else {
            label.to_string()
        },
        model: mode.model.clone(),
    }
}

/// The vote a kept run's panels carry, if the user voted on it.
pub fn vote_of(modes: &[ModeOutcome]) -> Option<Vote> {
    let votes: Vec<BlindVote> = modes
        .iter()
        .map(|m| m.blind.as_ref().and_then(|b| b.vote))
        .collect::<Option<_>>()?;
    if votes.len() < 2 {
        return None;
    }
    let verdict = match votes.iter().position(|v| *v == BlindVote::Best) {
        Some(best) => Verdict::Best(best),
        None if votes.iter().all(|v| *v == BlindVote::Tie) => Verdict::Tie,
        None if votes.iter().all(|v| *v == BlindVote::AllBad) => Verdict::AllBad,
        None => return None,
    };
    Some(Vote {
        contestants: modes.iter().map(contestant).collect(),
        verdict,
    })
}

/// The votes and runs to rank: kept runs and evaluations made at or after `since` (the last
/// Clear, epoch ms).
pub fn gather(
    kept: &[RunSummary],
    evaluations: &[(EvalSpec, Vec<JobResult>)],
    since: f64,
) -> (Vec<Vote>, Vec<RunStat>) {
    let kept: Vec<&RunSummary> = kept.iter().filter(|r| r.created >= since).collect();
    let votes = kept.iter().filter_map(|r| vote_of(&r.modes)).collect();
    let mut runs: Vec<RunStat> = kept
        .iter()
        .flat_map(|r| &r.modes)
        // A blind run's figures would tell its panels apart before the vote.
        .filter(|m| !m.model.is_empty() && !m.hidden())
        .map(|m| RunStat {
            contestant: contestant(m),
            answered: m.answered,
            ms: m.ms,
            tokens: m.tokens,
            cost_usd: m.cost_usd,
        })
        .collect();
    for (spec, results) in evaluations.iter().filter(|(s, _)| s.created >= since) {
        runs.extend(results.iter().map(|r| {
            RunStat {
                contestant: Contestant {
                    mode: r.job.mode.label().to_string(),
                    model: spec.model_for(r.job.mode).to_string(),
                },
                answered: r.answer.is_some(),
                ms: Some(r.ms),
                tokens: r.tokens_in + r.tokens_out,
                // The judge's calls are the evaluation's, not the contestant's.
                cost_usd: r
                    .cost_usd
                    .map(|c| c - r.judge.as_ref().and_then(|j| j.cost_usd).unwrap_or(0.0)),
            }
        }));
    }
    (votes, runs)
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

/// The leaderboard: every contestant with votes or runs, ranked ones first by rating, then
/// by wins, then by name.
pub fn table(votes: &[Vote], runs: &[RunStat]) -> Vec<Row> {
    let mut rows: Vec<Row> = standings(votes).into_iter().map(Row::new).collect();
    let mut by_contestant: BTreeMap<&Contestant, Vec<&RunStat>> = BTreeMap::new();
    for r in runs {
        by_contestant.entry(&r.contestant).or_default().push(r);
    }
    for (c, stats) in by_contestant {
        let at = match rows.iter().position(|r| &r.standing.contestant == c) {
            Some(at) => at,
            None => {
                rows.push(Row::new(Standing {
                    contestant: c.clone(),
                    wins: 0,
                    ties: 0,
                    losses: 0,
                    rating: None,
                    interval: None,
                }));
                rows.len() - 1
            }
        };
        let row = &mut rows[at];
        row.runs = stats.len() as u32;
        row.answered = stats.iter().filter(|s| s.answered).count() as u32;
        row.median_ms = median(stats.iter().filter_map(|s| s.ms).collect());
        row.median_tokens =
            median(stats.iter().map(|s| s.tokens as f64).collect()).map(|t| t.round() as u64);
        let priced: Vec<f64> = stats.iter().filter_map(|s| s.cost_usd).collect();
        row.cost_usd = (!priced.is_empty()).then(|| priced.iter().sum());
    }
    rows.sort_by(|a, b| {
        let (x, y) = (&a.standing, &b.standing);
        match (x.rating, y.rating) {
            (Some(p), Some(q)) => q.total_cmp(&p),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => y.wins.cmp(&x.wins),
        }
        .then_with(|| x.contestant.cmp(&y.contestant))
    });
    rows
}

/// What the table says before any vote.
pub const NO_VOTES: &str = "No votes yet: run All in blind mode and vote to rank the modes.";

/// What the table says when it cannot rank: too few votes, and how many more.
pub fn ranking_note(rows: &[Row], votes: usize) -> Option<String> {
    if rows.iter().any(|r| r.standing.rating.is_some()) {
        return None;
    }
    if votes == 0 {
        return Some(NO_VOTES.into());
    }
    let results = |r: &Row| r.standing.wins + r.standing.ties + r.standing.losses;
    if rows
        .iter()
        .filter(|r| results(r) > 0)
        .filter(|r| results(r) >= MIN_RESULTS)
        .count()
        >= 2
    {
        return Some(format!(
            "Not rated yet: {votes} votes so far. A rating needs each contestant to have won and lost (or tied) at least once, against contestants compared with one another."
        ));
    }
    let fewest = rows
        .iter()
        .filter(|r| r.standing.wins + r.standing.ties + r.standing.losses > 0)
        .map(|r| r.standing.wins + r.standing.ties + r.standing.losses)
        .min()
        .unwrap_or(0);
    Some(format!(
        "Too few votes to rank: {votes} so far. A rating needs at least {MIN_RESULTS} results (wins, ties or losses) for every contestant; the fewest has {fewest}."
    ))
}

/// The table as CSV, one line per contestant.
pub fn csv(rows: &[Row]) -> String {
    let mut out = csv_row(
        &[
            "mode",
            "model",
            "wins",
            "ties",
            "losses",
            "rating",
            "rating_low_95",
            "rating_high_95",
            "runs",
            "answered",
            "answer_rate",
            "median_ms",
            "median_tokens",
            "cost_usd",
        ]
        .map(String::from),
    );
    let number =
        |x: Option<f64>, places: usize| x.map_or(String::new(), |x| format!("{x:.places$}"));
    for r in rows {
        let s = &r.standing;
        out.push_str(&csv_row(&[
            s.contestant.mode.clone(),
            s.contestant.model.clone(),
            s.wins.to_string(),
            s.ties.to_string(),
            s.losses.to_string(),
            number(s.rating, 1),
            number(s.interval.map(|i| i.0), 1),
            number(s.interval.map(|i| i.1), 1),
            r.runs.to_string(),
            r.answered.to_string(),
            number(r.answer_rate(), 3),
            number(r.median_ms, 0),
            r.median_tokens.map_or(String::new(), |t| t.to_string()),
            number(r.cost_usd, 6),
        ]));
    }
    out
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

    fn kept(created: f64, votes: [Option<BlindVote>; 3]) -> RunSummary {
        use crate::agent::record::Blind;
        use crate::agent::Mode;
        let modes = Mode::ALL
            .iter()
            .zip(votes)
            .zip(["A", "B", "C"])
            .map(|((&mode, vote), label)| ModeOutcome {
                mode,
                outcome: "42".into(),
                model: "m".into(),
                answered: mode != Mode::Act,
                ms: Some(match mode {
                    Mode::Think => 1_000.0,
                    Mode::Act => 3_000.0,
                    Mode::ReAct => 2_000.0,
                    Mode::CodeAct => 4_000.0,
                }),
                tokens: 100,
                cost_usd: Some(0.001),
                blind: Some(Blind {
                    label: label.into(),
                    vote,
                }),
                prompt_edited: false,
            })
            .collect();
        RunSummary {
            id: format!("run-{created}"),
            created,
            modes,
            ..RunSummary::default()
        }
    }

    #[test]
    fn kept_runs_give_votes_and_figures_and_clear_starts_over() {
        use BlindVote::{AllBad, Best, NotBest, Tie};
        let runs = [
            kept(10.0, [Some(NotBest), Some(NotBest), Some(Best)]),
            kept(20.0, [Some(Tie), Some(Tie), Some(Tie)]),
            kept(30.0, [Some(AllBad), Some(AllBad), Some(AllBad)]),
            // Not voted on (yet): figures, no vote.
            kept(40.0, [None, None, None]),
        ];
        let (votes, stats) = gather(&runs, &[], 0.0);
        assert_eq!(
            votes.iter().map(|v| v.verdict.clone()).collect::<Vec<_>>(),
            [Verdict::Best(2), Verdict::Tie, Verdict::AllBad]
        );
        // The run not voted on is still blind: its figures wait for the vote too.
        assert_eq!(stats.len(), 9);
        let rows = table(&votes, &stats);
        let react = rows
            .iter()
            .find(|r| r.standing.contestant.mode == "ReAct")
            .unwrap();
        // Worked out by hand: ReAct beat both in the first vote, tied both in the others.
        assert_eq!(
            (
                react.standing.wins,
                react.standing.ties,
                react.standing.losses
            ),
            (2, 4, 0)
        );
        assert_eq!((react.runs, react.answered), (3, 3));
        assert_eq!(react.median_ms, Some(2_000.0));
        assert_eq!(react.median_tokens, Some(100));
        assert!((react.cost_usd.unwrap() - 0.003).abs() < 1e-12);
        let act = rows
            .iter()
            .find(|r| r.standing.contestant.mode == "Act-only")
            .unwrap();
        assert_eq!(act.answer_rate(), Some(0.0));
        // Five results or more each (think and act 0-4-1, ReAct 2-4-0): ranked, ReAct first,
        // and the two it beat equal (each lost once to it and tied the rest).
        assert_eq!(ranking_note(&rows, votes.len()), None);
        assert_eq!(rows[0].standing.contestant.mode, "ReAct");
        let rating = |i: usize| rows[i].standing.rating.unwrap();
        assert!(rating(0) > rating(1));
        assert!((rating(1) - rating(2)).abs() < 1e-6, "{rows:#?}");

        // Clear: only what came after counts.
        let (votes, stats) = gather(&runs, &[], 25.0);
        assert_eq!(votes.len(), 1);
        assert_eq!(stats.len(), 3);
        let rows = table(&votes, &stats);
        assert!(rows.iter().all(|r| r.standing.rating.is_none()));
        let note = ranking_note(&rows, votes.len()).unwrap();
        assert!(
            note.contains("1 so far") && note.contains("the fewest has 2"),
            "{note}"
        );
        let (votes, stats) = gather(&runs, &[], 50.0);
        assert!(votes.is_empty() && stats.is_empty());
        assert_eq!(
            ranking_note(&table(&votes, &stats), 0).unwrap(),
            "No votes yet: run All in blind mode and vote to rank the modes."
        );
    }

    #[test]
    fn a_partial_or_mixed_vote_is_no_vote() {
        use BlindVote::{Best, NotBest, Tie};
        let mut half = kept(1.0, [Some(Best), None, Some(NotBest)]);
        assert_eq!(vote_of(&half.modes), None);
        half.modes[1].blind.as_mut().unwrap().vote = Some(Tie);
        assert_eq!(
            vote_of(&half.modes).map(|v| v.verdict),
            Some(Verdict::Best(0))
        );
        let mixed = kept(1.0, [Some(Tie), Some(NotBest), Some(Tie)]);
        assert_eq!(vote_of(&mixed.modes), None);
        let mut not_blind = kept(1.0, [Some(Tie), Some(Tie), Some(Tie)]);
        not_blind.modes[2].blind = None;
        assert_eq!(vote_of(&not_blind.modes), None);
    }

    #[test]
    fn the_csv_has_a_line_per_contestant_and_no_formula() {
        let votes: Vec<Vote> = (0..6)
            .map(|i| Vote {
                contestants: vec![
                    Contestant {
                        mode: "ReAct".into(),
                        model: "=cmd|' /C calc'!A0".into(),
                    },
                    c("b"),
                ],
                verdict: Verdict::Best(usize::from(i % 3 == 0)),
            })
            .collect();
        let rows = table(&votes, &[]);
        let text = csv(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with("mode,model,wins,ties,losses,rating,"));
        assert!(
            lines[1].starts_with("ReAct,'=cmd|' /C calc'!A0,4,0,2,"),
            "{text}"
        );
        // 4 wins to 2: 400·log10(2) ≈ 120.4 apart, around 1000.
        let rating: f64 = lines[1].split(',').nth(5).unwrap().parse().unwrap();
        assert!(
            (rating - (1000.0 + 200.0 * 2f64.log10())).abs() < 0.1,
            "{rating}"
        );
    }

    #[test]
    fn evaluation_runs_count_in_the_figures_with_their_spec_s_models() {
        use crate::agent::Mode;
        use crate::evaluation::outcome::JobResult;
        use crate::evaluation::plan::{EvalSpec, Job, SetKind};
        use crate::evaluation::score::Score;
        let spec = EvalSpec {
            id: "e".into(),
            created: 100.0,
            set: SetKind::Own,
            set_name: "t".into(),
            questions: Vec::new(),
            modes: vec![Mode::Think, Mode::ReAct],
            models: vec!["lab/a".into(), "lab/b".into()],
            max_steps: 3,
            concurrency: 1,
            fallback: false,
            judge_model: String::new(),
        };
        let result = |question: usize, mode: Mode, answer: Option<&str>, ms: f64| JobResult {
            job: Job { question, mode },
            answer: answer.map(str::to_string),
            forced: false,
            score: Score { em: 0.0, f1: 0.0 },
            steps: 1,
            tool_calls: 0,
            tokens_in: 90,
            tokens_out: 10,
            cost_usd: Some(0.01),
            ms,
            error: None,
            judge: None,
        };
        let results = vec![
            result(0, Mode::Think, Some("x"), 1_000.0),
            result(1, Mode::Think, None, 3_000.0),
            result(0, Mode::ReAct, Some("y"), 2_000.0),
        ];
        let evaluations = [(spec, results)];
        let (votes, stats) = gather(&[], &evaluations, 0.0);
        assert!(votes.is_empty());
        let rows = table(&votes, &stats);
        let think = rows
            .iter()
            .find(|r| {
                r.standing.contestant
                    == Contestant {
                        mode: "Think-only".into(),
                        model: "lab/a".into(),
                    }
            })
            .unwrap();
        assert_eq!((think.runs, think.answered), (2, 1));
        assert_eq!(think.median_ms, Some(2_000.0));
        assert_eq!(think.median_tokens, Some(100));
        assert!((think.cost_usd.unwrap() - 0.02).abs() < 1e-12);
        assert_eq!(rows.len(), 2);
        // An evaluation made before the last Clear does not count.
        assert!(gather(&[], &evaluations, 101.0).1.is_empty());
    }

    #[test]
    fn a_newcomer_with_few_results_leaves_the_others_rated_and_an_unbeaten_one_rates_nobody() {
        let pair = |x: &str, y: &str, winner: usize| Vote {
            contestants: vec![c(x), c(y)],
            verdict: Verdict::Best(winner),
        };
        // a and b: 4 wins to 2; c, new, one loss to a.
        let mut votes: Vec<Vote> = [0, 0, 1, 0, 0, 1]
            .iter()
            .map(|&w| pair("a", "b", w))
            .collect();
        votes.push(pair("a", "c", 0));
        let rows = standings(&votes);
        let row = |m: &str| rows.iter().find(|r| r.contestant.mode == m).unwrap();
        assert!(row("a").rating.is_some() && row("b").rating.is_some());
        assert_eq!(row("c").rating, None);
        // Only a's games with b count in its rating: 4 to 2, 400·log10(2) apart.
        let gap = row("a").rating.unwrap() - row("b").rating.unwrap();
        assert!((gap - 400.0 * 2f64.log10()).abs() < 1e-6, "{gap}");

        // a won all six: no finite strength, so no ratings, and the note says why.
        let unbeaten: Vec<Vote> = (0..6).map(|_| pair("a", "b", 0)).collect();
        let table_rows = table(&unbeaten, &[]);
        assert!(table_rows.iter().all(|r| r.standing.rating.is_none()));
        let note = ranking_note(&table_rows, 6).unwrap();
        assert!(note.starts_with("Not rated yet: 6 votes so far."), "{note}");
    }
}
