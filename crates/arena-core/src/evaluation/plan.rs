//! What an evaluation is (its question set and choices) and the order its runs go in: at
//! most `concurrency` at once, none while a rate limit asks to wait, and on resume only the
//! runs that have no result yet.

use std::collections::{HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::questions::Question;
use crate::agent::Mode;

/// The sample sizes offered; `None` is the whole set.
pub const SAMPLE_SIZES: [Option<usize>; 4] = [Some(20), Some(50), Some(100), None];
/// The paper's step limit on HotpotQA.
pub const PAPER_MAX_STEPS: u32 = 7;
pub const DEFAULT_CONCURRENCY: u32 = 3;
pub const MAX_CONCURRENCY: u32 = 8;

/// Which question set an evaluation uses, for the reference figures and attribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetKind {
    #[default]
    HotpotQa,
    Tools,
    Own,
}

/// An evaluation as the user set it up. Kept with its questions, so a resume after a reload
/// needs nothing else (an imported file is not read again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalSpec {
    pub id: String,
    /// Milliseconds since the Unix epoch.
    pub created: f64,
    pub set: SetKind,
    /// The set's name as shown, e.g. a file name.
    pub set_name: String,
    pub questions: Vec<Question>,
    pub modes: Vec<Mode>,
    /// The model of each chosen mode, in `modes` order.
    pub models: Vec<String>,
    pub max_steps: u32,
    pub concurrency: u32,
    /// ReAct → CoT: a question ReAct leaves unanswered within its steps takes Think-only's
    /// answer (run for it if Think-only is not among the modes).
    pub fallback: bool,
    /// The model that grades each answer against the gold answer; empty: no judge.
    #[serde(default)]
    pub judge_model: String,
}

impl EvalSpec {
    pub fn model_for(&self, mode: Mode) -> &str {
        self.modes
            .iter()
            .position(|&m| m == mode)
            .and_then(|i| self.models.get(i))
            .or_else(|| self.models.first())
            .map_or("", String::as_str)
    }
}

/// The first `size` questions of a set (all for `None`): the set's own order, so the same
/// sample size always means the same questions (the paper's 500 are already shuffled).
pub fn sample(questions: &[Question], size: Option<usize>) -> Vec<Question> {
    let n = size.map_or(questions.len(), |s| s.min(questions.len()));
    questions[..n].to_vec()
}

/// One run of an evaluation: a question (its index) in a mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Job {
    pub question: usize,
    pub mode: Mode,
}

impl Job {
    /// Its key in storage, within the evaluation.
    pub fn key(&self) -> String {
        format!("{:05}-{}", self.question, self.mode.id())
    }
}

/// Every run the spec asks for, question by question: partial results cover every mode.
pub fn jobs(spec: &EvalSpec) -> Vec<Job> {
    (0..spec.questions.len())
        .flat_map(|question| spec.modes.iter().map(move |&mode| Job { question, mode }))
        .collect()
}

/// Hands out the runs still to do.
#[derive(Debug, Clone)]
pub struct Scheduler {
    queue: VecDeque<Job>,
    in_flight: Vec<Job>,
    done: HashSet<Job>,
    limit: usize,
    /// No run starts before this time (ms): a rate limit asked to wait.
    hold_until: f64,
    fallback_to_think: bool,
}

impl Scheduler {
    /// The runs of `spec` that `done` does not already hold.
    pub fn new(spec: &EvalSpec, done: impl IntoIterator<Item = Job>) -> Self {
        let done: HashSet<Job> = done.into_iter().collect();
        Self {
            queue: jobs(spec)
                .into_iter()
                .filter(|j| !done.contains(j))
                .collect(),
            in_flight: Vec::new(),
            done,
            limit: spec.concurrency.clamp(1, MAX_CONCURRENCY) as usize,
            hold_until: 0.0,
            fallback_to_think: spec.fallback && !spec.modes.contains(&Mode::Think),
        }
    }

    /// The next run to start at `now`, if one may start.
    pub fn next(&mut self, now: f64) -> Option<Job> {
        if self.in_flight.len() >= self.limit || now < self.hold_until {
            return None;
        }
        let job = self.queue.pop_front()?;
        self.in_flight.push(job);
        Some(job)
    }

    /// A run ended with a result; `answered` is false when it gave no answer within its
    /// steps (none, or one forced at the limit).
    pub fn finished(&mut self, job: Job, answered: bool) {
        self.in_flight.retain(|j| *j != job);
        self.done.insert(job);
        if self.fallback_to_think && job.mode == Mode::ReAct && !answered {
            let think = Job {
                question: job.question,
                mode: Mode::Think,
            };
            if !self.done.contains(&think) && !self.queue.contains(&think) {
                self.queue.push_front(think);
            }
        }
    }

    /// A run was stopped before its end: it has no result and goes back to the front.
    pub fn abandoned(&mut self, job: Job) {
        if let Some(i) = self.in_flight.iter().position(|j| *j == job) {
            self.in_flight.remove(i);
            self.queue.push_front(job);
        }
    }

    /// A rate limit asked to wait until `until` (ms): no new run starts before then.
    pub fn hold(&mut self, until: f64) {
        self.hold_until = self.hold_until.max(until);
    }

    pub fn hold_until(&self) -> f64 {
        self.hold_until
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub fn remaining(&self) -> usize {
        self.queue.len() + self.in_flight.len()
    }

    pub fn is_finished(&self) -> bool {
        self.remaining() == 0
    }
}

/// Runs that keep failing the same way (a wrong token, a model the endpoint does not have)
/// stop the evaluation after this many in a row, rather than failing all the rest too.
pub const GIVE_UP_AFTER: usize = 3;

/// Counts the same error in a row.
#[derive(Debug, Clone, Default)]
pub struct FailureStreak {
    last: Option<String>,
    count: usize,
}

impl FailureStreak {
    /// Notes a run's error (`None`: it did not fail); true when the evaluation should stop.
    pub fn note(&mut self, error: Option<&str>) -> bool {
        match error {
            Some(e) if self.last.as_deref() == Some(e) => self.count += 1,
            Some(e) => {
                self.last = Some(e.to_string());
                self.count = 1;
            }
            None => {
                self.last = None;
                self.count = 0;
            }
        }
        self.count >= GIVE_UP_AFTER
    }
}

/// When the rest should be done: the mean time per finished run so far, over the runs left.
pub fn eta_ms(finished: usize, remaining: usize, elapsed_ms: f64) -> Option<f64> {
    (finished > 0 && remaining > 0).then(|| elapsed_ms / finished as f64 * remaining as f64)
}

/// An evaluation of `questions` plain questions (`Q0?` answered `A0`…) for the tests here
/// and in the modules that read evaluations.
#[cfg(test)]
pub(crate) fn test_spec(
    questions: usize,
    modes: &[Mode],
    concurrency: u32,
    fallback: bool,
) -> EvalSpec {
    use crate::evaluation::questions::Check;
    EvalSpec {
        id: "e".into(),
        created: 0.0,
        set: SetKind::Own,
        set_name: "t".into(),
        questions: (0..questions)
            .map(|i| Question {
                id: format!("q{i}"),
                question: format!("Q{i}?"),
                answer: format!("A{i}"),
                check: Check::Text,
            })
            .collect(),
        modes: modes.to_vec(),
        models: vec!["m".into()],
        max_steps: 7,
        concurrency,
        fallback,
        judge_model: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three modes, so that a question's jobs fit the limit of three in flight.
    const THREE_MODES: [Mode; 3] = [Mode::Think, Mode::Act, Mode::ReAct];

    fn drain(s: &mut Scheduler, now: f64) -> Vec<Job> {
        std::iter::from_fn(|| s.next(now)).collect()
    }

    #[test]
    fn keeps_at_most_the_limit_in_flight_and_goes_question_by_question() {
        let spec = test_spec(4, &THREE_MODES, 3, false);
        let mut s = Scheduler::new(&spec, []);
        let first = drain(&mut s, 0.0);
        assert_eq!(first.len(), 3);
        assert!(first.iter().all(|j| j.question == 0));
        assert_eq!(s.next(0.0), None, "the limit holds");
        s.finished(first[1], true);
        assert_eq!(
            s.next(0.0),
            Some(Job {
                question: 1,
                mode: Mode::Think
            })
        );
        assert_eq!(s.remaining(), 4 * 3 - 1);
    }

    #[test]
    fn a_resume_does_not_redo_what_is_done() {
        let spec = test_spec(10, &THREE_MODES, 3, false);
        let done: Vec<Job> = jobs(&spec).into_iter().take(4).collect();
        let mut s = Scheduler::new(&spec, done.clone());
        assert_eq!(s.remaining(), 26);
        let mut started = Vec::new();
        while let Some(j) = s.next(0.0) {
            started.push(j);
            s.finished(j, true);
        }
        assert_eq!(started.len(), 26);
        assert!(started.iter().all(|j| !done.contains(j)));
        assert!(s.is_finished());
    }

    #[test]
    fn a_stopped_run_is_done_again_and_a_rate_limit_holds_new_starts() {
        let spec = test_spec(2, &[Mode::ReAct], 2, false);
        let mut s = Scheduler::new(&spec, []);
        let a = s.next(0.0).unwrap();
        s.hold(5_000.0);
        assert_eq!(s.next(4_999.0), None, "held by the rate limit");
        let b = s.next(5_000.0).unwrap();
        s.abandoned(a);
        assert_eq!(s.remaining(), 2);
        s.finished(b, true);
        assert_eq!(s.next(5_000.0), Some(a));
    }

    #[test]
    fn fallback_runs_think_only_for_what_react_left_unanswered() {
        let spec = test_spec(2, &[Mode::ReAct], 1, true);
        let mut s = Scheduler::new(&spec, []);
        let q0 = s.next(0.0).unwrap();
        s.finished(q0, false);
        let think = s.next(0.0).unwrap();
        assert_eq!(
            think,
            Job {
                question: 0,
                mode: Mode::Think
            }
        );
        s.finished(think, true);
        let q1 = s.next(0.0).unwrap();
        s.finished(q1, true);
        assert!(s.is_finished(), "answered questions need no fallback");
        // With Think-only among the modes its own runs serve as the fallback.
        let spec = super::tests::test_spec(1, &[Mode::Think, Mode::ReAct], 1, true);
        let mut s = Scheduler::new(&spec, []);
        let t = s.next(0.0).unwrap();
        s.finished(t, true);
        let r = s.next(0.0).unwrap();
        s.finished(r, false);
        assert!(s.is_finished());
    }

    #[test]
    fn the_same_failure_three_times_in_a_row_stops_the_evaluation() {
        let mut streak = FailureStreak::default();
        assert!(!streak.note(Some("HTTP 401")));
        assert!(!streak.note(Some("HTTP 401")));
        assert!(!streak.note(None), "a success in between resets it");
        assert!(!streak.note(Some("HTTP 401")));
        assert!(
            !streak.note(Some("HTTP 500")),
            "a different error starts over"
        );
        assert!(!streak.note(Some("HTTP 500")));
        assert!(streak.note(Some("HTTP 500")));
    }

    #[test]
    fn sample_takes_the_sets_own_order_and_eta_scales_the_mean() {
        let spec = test_spec(30, &[Mode::Act], 3, false);
        assert_eq!(sample(&spec.questions, Some(20)).len(), 20);
        assert_eq!(sample(&spec.questions, Some(50)).len(), 30);
        assert_eq!(sample(&spec.questions, None)[0].id, "q0");
        assert_eq!(eta_ms(4, 6, 8_000.0), Some(12_000.0));
        assert_eq!(eta_ms(0, 6, 8_000.0), None);
        assert_eq!(
            Job {
                question: 7,
                mode: Mode::ReAct
            }
            .key(),
            "00007-react"
        );
    }
}
