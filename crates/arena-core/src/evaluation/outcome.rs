//! One run's result in an evaluation, read from its record: the answer, its score and the
//! run's figures. The record itself is kept beside it, for the drill-down.

use serde::{Deserialize, Serialize};

use super::judge::Judgement;
use super::plan::{EvalSpec, Job};
use super::questions::score;
use super::score::Score;
use crate::agent::metrics::run_metrics;
use crate::agent::record::RunRecord;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    pub job: Job,
    /// The answer the run gave, if any.
    pub answer: Option<String>,
    /// The answer was asked for once the step limit was reached.
    pub forced: bool,
    pub score: Score,
    pub steps: usize,
    pub tool_calls: usize,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// `None` when the model's price is unknown.
    pub cost_usd: Option<f64>,
    pub ms: f64,
    /// Why the run ended without an answer, when it failed.
    pub error: Option<String>,
    /// The judge's grade, when the evaluation has a judge. Its cost is in `cost_usd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<Judgement>,
}

impl JobResult {
    /// The result with the judge's grade, its cost added to the run's.
    pub fn judged(mut self, judgement: Judgement) -> Self {
        self.cost_usd = match (self.cost_usd, judgement.cost_usd) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
        self.judge = Some(judgement);
        self
    }

    /// The run, or the judge's call on it, failed: it is run again with the failed ones.
    pub fn failed(&self) -> bool {
        self.error.is_some() || self.judge.as_ref().is_some_and(|j| j.call_failed)
    }

    /// Answered within its steps: what ReAct → CoT falls back on when false.
    pub fn answered_in_steps(&self) -> bool {
        self.answer.is_some() && !self.forced
    }
}

/// The result of `job` from the record its run left.
pub fn job_result(spec: &EvalSpec, job: Job, record: &RunRecord) -> JobResult {
    let metrics = run_metrics(record, record.config.pricing);
    let turn = record.last_turn();
    let answer = turn
        .and_then(|t| t.answer.as_ref())
        .map(|a| a.text.trim().to_string())
        .filter(|a| !a.is_empty());
    let forced = turn
        .and_then(|t| t.answer.as_ref())
        .is_some_and(|a| a.forced);
    let question = &spec.questions[job.question];
    JobResult {
        job,
        score: score(question, answer.as_deref()),
        answer,
        forced,
        steps: metrics.steps,
        tool_calls: metrics.tool_calls,
        tokens_in: metrics.tokens_in,
        tokens_out: metrics.tokens_out,
        cost_usd: metrics.cost_usd,
        ms: metrics.total_ms.unwrap_or(0.0),
        error: record.error().map(str::to_string),
        judge: None,
    }
}
