//! The fit's slices, its work counter and its budget.

use super::*;

fn vote(ids: &[u16], verdict: Verdict, weight: f64) -> FitVote {
    FitVote {
        ids: ids.to_vec(),
        verdict,
        weight,
    }
}

/// Votes among 5 contestants, each better than the next, of 2 to 4 panels.
fn league(n: usize) -> FitInput {
    let mut rng = SplitMix64::new(3);
    let votes = (0..n)
        .map(|_| {
            let panels = 2 + rng.below(3);
            let mut ids: Vec<u16> = (0..5).collect();
            for i in 0..panels {
                let j = i + rng.below(5 - i);
                ids.swap(i, j);
            }
            ids.truncate(panels);
            // Mostly the lowest number wins; now and then a tie or an upset.
            let verdict = match rng.below(10) {
                0 => Verdict::Tie,
                1 => Verdict::Best(rng.below(panels)),
                _ => Verdict::Best((0..panels).min_by_key(|&i| ids[i]).unwrap()),
            };
            vote(&ids, verdict, 1.0)
        })
        .collect();
    FitInput {
        n: 5,
        votes,
        may_rate: Vec::new(),
    }
}

#[test]
fn a_fit_in_slices_is_the_fit_whole() {
    let whole = fit(league(300));
    assert!(whole.ratings.iter().all(Option::is_some), "{whole:?}");
    assert_eq!(whole.resamples, RESAMPLES);
    for slice in [1, 97, 5_000] {
        let mut job = FitJob::new(league(300), WORK_BUDGET);
        let mut slices = 0u64;
        let sliced = loop {
            slices += 1;
            if let Slice::Done(out) = job.run(slice) {
                break out;
            }
        };
        assert_eq!(sliced, whole, "in slices of {slice}");
        // A slice ends within a step of its units (a vote's pairs, one iteration).
        assert!(
            slices >= whole.work / (slice + 25),
            "{slices} slices of {slice}"
        );
    }
    // The best rated first: contestant 0.
    let best = (0..5)
        .max_by(|&a, &b| {
            whole.ratings[a]
                .unwrap()
                .0
                .total_cmp(&whole.ratings[b].unwrap().0)
        })
        .unwrap();
    assert_eq!(best, 0);
}

#[test]
fn the_work_counter_counts_pairs_draws_and_iterations() {
    // 10,000 ties of the same 8: 28 pair results each, one kind.
    let ties = FitInput {
        n: 8,
        votes: (0..10_000)
            .map(|_| vote(&[0, 1, 2, 3, 4, 5, 6, 7], Verdict::Tie, 1.0))
            .collect(),
        may_rate: Vec::new(),
    };
    let mut job = FitJob::new(ties, WORK_BUDGET);
    while !job.doing().starts_with("choosing") {
        assert!(matches!(job.run(1), Slice::More));
    }
    // Counting: one unit a pair result.
    assert_eq!(job.work(), 280_000);
    let out = job.run_to_end();
    assert!(out
        .ratings
        .iter()
        .all(|r| (r.unwrap().0 - 1000.0).abs() < 1e-9));
    // Each resample draws 10,000 votes and adds up one kind: about 10,000 units, not 280,000.
    assert_eq!(out.resamples, RESAMPLES);
    let per_resample = (out.work - 280_000) / RESAMPLES as u64;
    assert!((10_000..12_000).contains(&per_resample), "{per_resample}");
}

#[test]
fn a_fit_stops_at_its_budget_and_says_so() {
    let whole = fit(league(300));
    // Enough for the ratings, not for the intervals.
    let budget = whole.work / 4;
    let cut = FitJob::new(league(300), budget).run_to_end();
    assert!(cut.out_of_budget);
    assert!(cut.work <= budget, "{} of {budget}", cut.work);
    assert!(cut.resamples < RESAMPLES / 2, "{}", cut.resamples);
    for (cut, whole) in cut.ratings.iter().zip(&whole.ratings) {
        let (cut, whole) = (cut.unwrap(), whole.unwrap());
        assert_eq!(cut.0, whole.0);
        assert_eq!(cut.1, None);
    }
    // Too little even for the ratings: none, rather than a half-fitted one.
    let starved = FitJob::new(league(300), 100).run_to_end();
    assert!(starved.out_of_budget && starved.work <= 100);
    assert!(starved.ratings.iter().all(Option::is_none));
    assert!(!whole.out_of_budget);
}

#[test]
fn a_contestant_not_allowed_is_not_rated_and_the_others_rate_without_it() {
    let mut input = league(300);
    input.may_rate = vec![true, true, true, true, false];
    let out = fit(input);
    assert!(out.ratings[4].is_none());
    assert!(out.ratings[..4].iter().all(Option::is_some));
    // Its results are still counted.
    let (w, t, l) = out.tally[4];
    assert!(w + t + l > 0);
}

#[test]
fn a_votes_weight_counts_as_that_many_votes() {
    // 3 wins to 1, as 12 votes of weight 1 or 1,200 of weight 0.01: 400·log10(3) apart.
    let pairs = |n: usize, weight: f64| FitInput {
        n: 2,
        votes: (0..n)
            .map(|i| vote(&[0, 1], Verdict::Best(usize::from(i % 4 == 3)), weight))
            .collect(),
        may_rate: Vec::new(),
    };
    for out in [fit(pairs(12, 1.0)), fit(pairs(1_200, 0.01))] {
        let gap = out.ratings[0].unwrap().0 - out.ratings[1].unwrap().0;
        assert!((gap - 400.0 * 3f64.log10()).abs() < 1e-9, "{gap}");
    }
    // Weighted results count toward the five a rating needs: 12 votes of 0.25 are 3.
    let light = fit(pairs(12, 0.25));
    assert!(light.ratings.iter().all(Option::is_none));
    assert!((light.results[0] - 3.0).abs() < 1e-12);
}
