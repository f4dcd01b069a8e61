//! Kept evaluations read back from storage, for the Evaluate view and the leaderboard alike:
//! one damaged entry must not hide the others, and a result counts only for a question its
//! evaluation has.

use super::outcome::JobResult;
use super::plan::EvalSpec;

/// The evaluations among the stored texts that still read as one.
pub fn specs_of(texts: &[String]) -> Vec<EvalSpec> {
    texts
        .iter()
        .filter_map(|t| serde_json::from_str(t).ok())
        .collect()
}

/// The results of `spec` among the stored texts: those that read, of questions it has.
pub fn results_of(spec: &EvalSpec, texts: &[String]) -> Vec<JobResult> {
    texts
        .iter()
        .filter_map(|t| serde_json::from_str::<JobResult>(t).ok())
        .filter(|r| r.job.question < spec.questions.len())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Mode;
    use crate::evaluation::plan::{test_spec, Job};
    use crate::evaluation::score::Score;

    fn spec(id: &str, questions: usize) -> EvalSpec {
        EvalSpec {
            id: id.into(),
            ..test_spec(questions, &[Mode::Think], 1, false)
        }
    }

    fn result(question: usize) -> String {
        serde_json::to_string(&JobResult {
            job: Job {
                question,
                mode: Mode::Think,
            },
            answer: Some(format!("A{question}")),
            forced: false,
            score: Score { em: 1.0, f1: 1.0 },
            steps: 1,
            tool_calls: 0,
            tokens_in: 10,
            tokens_out: 2,
            cost_usd: None,
            ms: 5.0,
            error: None,
            judge: None,
        })
        .unwrap()
    }

    #[test]
    fn a_damaged_evaluation_is_skipped_and_the_others_read() {
        let texts = vec![
            serde_json::to_string(&spec("a", 2)).unwrap(),
            "{\"id\": \"b\", \"questions\": \"not a list\"}".to_string(),
            "not json".to_string(),
            serde_json::to_string(&spec("c", 1)).unwrap(),
        ];
        let ids: Vec<String> = specs_of(&texts).into_iter().map(|s| s.id).collect();
        assert_eq!(ids, ["a", "c"]);
    }

    #[test]
    fn results_of_questions_the_evaluation_lacks_or_that_are_damaged_are_left_out() {
        let texts = vec![result(0), "{}".to_string(), result(1), result(2), result(9)];
        let questions: Vec<usize> = results_of(&spec("a", 2), &texts)
            .iter()
            .map(|r| r.job.question)
            .collect();
        assert_eq!(questions, [0, 1]);
    }
}
