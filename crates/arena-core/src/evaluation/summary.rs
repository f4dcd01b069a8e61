//! The results table: per mode (and ReAct → CoT) the scores and what they cost, beside the
//! paper's PaLM-540B figures on HotpotQA. The table, its CSV and the chart are one set of
//! figures, computed here once.

use serde::{Deserialize, Serialize};

use super::csv::{csv_field, csv_row};
use super::judge::{Grade, Judgement};
use super::outcome::JobResult;
use super::plan::{EvalSpec, SetKind};
use super::score::Score;
use crate::agent::metrics::{format_ms, format_usd};
use crate::agent::Mode;

/// A row of the table: a mode, or the hybrid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Row {
    Mode(Mode),
    /// ReAct's answer when it gave one within its steps, else Think-only's.
    ReActThenCot,
}

impl Row {
    pub fn label(self) -> &'static str {
        match self {
            Row::Mode(m) => m.label(),
            Row::ReActThenCot => "ReAct → CoT",
        }
    }

    /// Exact match of PaLM-540B on the paper's 500 HotpotQA questions (Yao et al., ICLR
    /// 2023, table 1): CoT 29.4, Act 25.7, ReAct 27.4, ReAct → CoT-SC 35.1 (the hybrid there
    /// falls back on self-consistency over 21 samples; here on one chain of thought). The
    /// paper has no CodeAct row.
    pub fn paper_em(self) -> Option<f64> {
        match self {
            Row::Mode(Mode::Think) => Some(29.4),
            Row::Mode(Mode::Act) => Some(25.7),
            Row::Mode(Mode::ReAct) => Some(27.4),
            Row::Mode(Mode::CodeAct) => None,
            Row::ReActThenCot => Some(35.1),
        }
    }
}

/// One row's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowSummary {
    pub row: Row,
    /// Questions with a result.
    pub questions: usize,
    /// Percentages over those questions.
    pub em: f64,
    pub f1: f64,
    pub answered: f64,
    pub mean_steps: f64,
    pub tool_calls: usize,
    pub tokens: u64,
    /// `None` when no run's price is known.
    pub cost_usd: Option<f64>,
    pub mean_ms: f64,
    /// The paper's figure, on its question set only.
    pub paper_em: Option<f64>,
    /// Questions the judge graded, and the share of them graded correct (percent).
    #[serde(default)]
    pub judged: usize,
    #[serde(default)]
    pub judge_correct: Option<f64>,
    /// Questions whose judge failed or answered out of format.
    #[serde(default)]
    pub judge_failed: usize,
}

fn add_cost(total: Option<f64>, cost: Option<f64>) -> Option<f64> {
    match (total, cost) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

/// What one row counts for one question: a score and the runs it took.
struct Counted<'a> {
    score: Score,
    answered: bool,
    runs: Vec<&'a JobResult>,
    /// The judgement of the answer counted.
    judge: Option<&'a Judgement>,
}

fn summarize_row(spec: &EvalSpec, row: Row, per_question: Vec<Counted>) -> RowSummary {
    let n = per_question.len();
    let share = |sum: f64| if n == 0 { 0.0 } else { 100.0 * sum / n as f64 };
    let runs = || per_question.iter().flat_map(|c| c.runs.iter().copied());
    RowSummary {
        row,
        questions: n,
        em: share(per_question.iter().map(|c| c.score.em).sum()),
        f1: share(per_question.iter().map(|c| c.score.f1).sum()),
        answered: share(per_question.iter().filter(|c| c.answered).count() as f64),
        mean_steps: if n == 0 {
            0.0
        } else {
            runs().map(|r| r.steps).sum::<usize>() as f64 / n as f64
        },
        tool_calls: runs().map(|r| r.tool_calls).sum(),
        tokens: runs().map(|r| r.tokens_in + r.tokens_out).sum(),
        cost_usd: runs().fold(None, |t, r| add_cost(t, r.cost_usd)),
        mean_ms: if n == 0 {
            0.0
        } else {
            runs().map(|r| r.ms).sum::<f64>() / n as f64
        },
        paper_em: (spec.set == SetKind::HotpotQa)
            .then(|| row.paper_em())
            .flatten(),
        judged: graded(&per_question).count(),
        judge_correct: {
            let n = graded(&per_question).count();
            let correct = graded(&per_question)
                .filter(|g| *g == Grade::Correct)
                .count();
            (n > 0).then(|| 100.0 * correct as f64 / n as f64)
        },
        judge_failed: per_question
            .iter()
            .filter(|c| c.judge.is_some_and(|j| j.grade.is_none()))
            .count(),
    }
}

fn graded<'a>(counted: &'a [Counted<'a>]) -> impl Iterator<Item = Grade> + 'a {
    counted.iter().filter_map(|c| c.judge.and_then(|j| j.grade))
}

fn result_of(results: &[JobResult], question: usize, mode: Mode) -> Option<&JobResult> {
    results
        .iter()
        .find(|r| r.job.question == question && r.job.mode == mode)
}

/// The rows of the table, in the order of the spec's modes, then the hybrid if asked for.
pub fn summarize(spec: &EvalSpec, results: &[JobResult]) -> Vec<RowSummary> {
    let mut rows: Vec<RowSummary> = spec
        .modes
        .iter()
        .map(|&mode| {
            let counted = results
                .iter()
                .filter(|r| r.job.mode == mode)
                .map(|r| Counted {
                    score: r.score,
                    answered: r.answer.is_some(),
                    runs: vec![r],
                    judge: r.judge.as_ref(),
                })
                .collect();
            summarize_row(spec, Row::Mode(mode), counted)
        })
        .collect();
    if spec.fallback && spec.modes.contains(&Mode::ReAct) {
        let counted = (0..spec.questions.len())
            .filter_map(|q| {
                let react = result_of(results, q, Mode::ReAct)?;
                if react.answered_in_steps() {
                    return Some(Counted {
                        score: react.score,
                        answered: true,
                        runs: vec![react],
                        judge: react.judge.as_ref(),
                    });
                }
                // Counted once the chain of thought it falls back on is in.
                let think = result_of(results, q, Mode::Think)?;
                Some(Counted {
                    score: think.score,
                    answered: think.answer.is_some(),
                    runs: vec![react, think],
                    judge: think.judge.as_ref(),
                })
            })
            .collect();
        rows.push(summarize_row(spec, Row::ReActThenCot, counted));
    }
    rows
}

pub const TABLE_HEADER: [&str; 11] = [
    "Mode",
    "Questions",
    "EM",
    "F1",
    "Answered",
    "Mean steps",
    "Tool calls",
    "Tokens",
    "Cost",
    "Mean time",
    "Paper EM",
];

/// The judge's column, after F1, when an answer was judged.
const JUDGE_COLUMN: &str = "Judge: correct";

fn judged(rows: &[RowSummary]) -> bool {
    rows.iter().any(|r| r.judged + r.judge_failed > 0)
}

/// The table's header for these rows.
pub fn table_header(rows: &[RowSummary]) -> Vec<&'static str> {
    let mut header = TABLE_HEADER.to_vec();
    if judged(rows) {
        header.insert(4, JUDGE_COLUMN);
    }
    header
}

/// The table's rows as shown: the page and the CSV export print these same strings.
pub fn table_rows(rows: &[RowSummary]) -> Vec<Vec<String>> {
    let with_judge = judged(rows);
    rows.iter()
        .map(|row| {
            let mut cells = table_cells(row);
            if with_judge {
                let mut cell = row.judge_correct.map_or("—".into(), |c| format!("{c:.1}%"));
                if row.judge_failed > 0 {
                    cell.push_str(&format!(" ({} not judged)", row.judge_failed));
                }
                cells.insert(4, cell);
            }
            cells
        })
        .collect()
}

/// A row's cells, without the judge's.
pub fn table_cells(row: &RowSummary) -> Vec<String> {
    vec![
        row.row.label().to_string(),
        row.questions.to_string(),
        format!("{:.1}", row.em),
        format!("{:.1}", row.f1),
        format!("{:.1}%", row.answered),
        format!("{:.2}", row.mean_steps),
        row.tool_calls.to_string(),
        row.tokens.to_string(),
        row.cost_usd.map_or("—".into(), format_usd),
        format_ms(row.mean_ms),
        row.paper_em.map_or("—".into(), |e| format!("{e:.1}")),
    ]
}

/// The table as CSV.
pub fn table_csv(rows: &[RowSummary]) -> String {
    let header: Vec<String> = table_header(rows).into_iter().map(String::from).collect();
    let mut out = csv_row(&header);
    for cells in table_rows(rows) {
        out.push_str(&csv_row(&cells));
    }
    out
}

/// Every run's answer and score, a line each, as CSV.
pub fn answers_csv(spec: &EvalSpec, results: &[JobResult]) -> String {
    let header = [
        "question_id",
        "question",
        "gold",
        "mode",
        "answer",
        "em",
        "f1",
        "forced",
        "steps",
        "tool_calls",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "ms",
        "error",
        "judge",
        "judge_words",
    ];
    let mut out = csv_row(&header.map(String::from));
    let mut sorted: Vec<&JobResult> = results.iter().collect();
    sorted.sort_by_key(|r| {
        (
            r.job.question,
            spec.modes.iter().position(|&m| m == r.job.mode),
        )
    });
    for r in sorted {
        let q = &spec.questions[r.job.question];
        let cells = [
            q.id.clone(),
            q.question.clone(),
            q.answer.clone(),
            r.job.mode.id().to_string(),
            r.answer.clone().unwrap_or_default(),
            format!("{}", r.score.em),
            format!("{:.4}", r.score.f1),
            r.forced.to_string(),
            r.steps.to_string(),
            r.tool_calls.to_string(),
            r.tokens_in.to_string(),
            r.tokens_out.to_string(),
            r.cost_usd.map_or(String::new(), |c| format!("{c:.6}")),
            format!("{:.0}", r.ms),
            r.error.clone().unwrap_or_default(),
            r.judge.as_ref().map_or(String::new(), Judgement::verdict),
            r.judge.as_ref().map_or(String::new(), |j| j.words.clone()),
        ];
        // `csv_row` quotes; `csv_field` also guards cells a spreadsheet would run.
        let line: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    out
}

/// Everything about an evaluation as one JSON document: the set-up, every result, the table.
pub fn evaluation_json(spec: &EvalSpec, results: &[JobResult]) -> String {
    let doc = serde_json::json!({
        "format": "react-arena-evaluation",
        "version": 1,
        "spec": spec,
        "results": results,
        "table": summarize(spec, results),
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::csv::parse_csv;
    use crate::evaluation::plan::{test_spec, Job};

    fn spec(set: SetKind, modes: &[Mode], fallback: bool) -> EvalSpec {
        EvalSpec {
            set,
            ..test_spec(2, modes, 3, fallback)
        }
    }

    fn result(
        question: usize,
        mode: Mode,
        em: f64,
        answer: Option<&str>,
        forced: bool,
    ) -> JobResult {
        JobResult {
            job: Job { question, mode },
            answer: answer.map(str::to_string),
            forced,
            score: Score { em, f1: em },
            steps: 2,
            tool_calls: 1,
            tokens_in: 100,
            tokens_out: 10,
            cost_usd: Some(0.001),
            ms: 1_000.0,
            error: None,
            judge: None,
        }
    }

    #[test]
    fn rows_average_over_questions_with_results_and_show_the_paper_on_hotpotqa() {
        let spec = spec(SetKind::HotpotQa, &[Mode::Think, Mode::ReAct], true);
        let results = vec![
            result(0, Mode::Think, 1.0, Some("A0"), false),
            result(1, Mode::Think, 0.0, None, false),
            result(0, Mode::ReAct, 0.0, Some("x"), true),
            result(1, Mode::ReAct, 1.0, Some("A1"), false),
        ];
        let rows = summarize(&spec, &results);
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].em, rows[0].answered), (50.0, 50.0));
        assert_eq!(rows[0].paper_em, Some(29.4));
        // The hybrid: question 0 falls back on Think (right), question 1 keeps ReAct (right).
        assert_eq!(rows[2].row, Row::ReActThenCot);
        assert_eq!((rows[2].em, rows[2].questions), (100.0, 2));
        assert_eq!(
            rows[2].mean_steps, 3.0,
            "the fallback's runs count: (2 + 2 + 2) / 2"
        );
        assert_eq!(rows[2].tool_calls, 3);
        let own = super::tests::spec(SetKind::Own, &[Mode::Act], false);
        assert_eq!(summarize(&own, &[])[0].paper_em, None);
        assert_eq!(summarize(&own, &[])[0].em, 0.0);
    }

    #[test]
    fn the_csv_is_the_table_cell_for_cell() {
        let spec = spec(SetKind::HotpotQa, &[Mode::Act], false);
        let results = vec![result(0, Mode::Act, 1.0, Some("A0"), false)];
        let rows = summarize(&spec, &results);
        let parsed = parse_csv(&table_csv(&rows)).unwrap();
        assert_eq!(parsed[0], TABLE_HEADER.map(String::from).to_vec());
        assert_eq!(parsed[1], table_cells(&rows[0]));
        assert_eq!(
            parsed[1],
            [
                "Act-only",
                "1",
                "100.0",
                "100.0",
                "100.0%",
                "2.00",
                "1",
                "110",
                "$0.001000",
                "1.0 s",
                "25.7"
            ]
            .map(String::from)
            .to_vec()
        );
    }

    #[test]
    fn an_answer_that_is_a_formula_does_not_run_in_a_spreadsheet() {
        let spec = spec(SetKind::Own, &[Mode::Act], false);
        let results = vec![result(
            0,
            Mode::Act,
            0.0,
            Some("=HYPERLINK(\"http://x\",\"y\")"),
            false,
        )];
        let csv = answers_csv(&spec, &results);
        let parsed = parse_csv(&csv).unwrap();
        assert!(parsed[1][4].starts_with("'="), "{:?}", parsed[1][4]);
        assert_eq!(parsed[1][0], "q0");
    }

    #[test]
    fn the_judge_counts_per_mode_beside_em_and_in_both_csvs() {
        use super::super::judge::Judgement;
        let spec = spec(SetKind::Own, &[Mode::Think, Mode::Act], false);
        let graded = |grade: Grade| Judgement {
            grade: Some(grade),
            words: "why".into(),
            cost_usd: Some(0.0005),
            ..Judgement::default()
        };
        let results = vec![
            // Wordy but right: EM 0, the judge says correct.
            result(0, Mode::Think, 0.0, Some("It is A0, surely"), false)
                .judged(graded(Grade::Correct)),
            result(1, Mode::Think, 0.0, Some("B"), false).judged(graded(Grade::Incorrect)),
            result(0, Mode::Act, 1.0, Some("A0"), false).judged(graded(Grade::Correct)),
            result(1, Mode::Act, 0.0, Some("?"), false)
                .judged(Judgement::from_reply("I think it is fine")),
        ];
        assert_eq!(
            results[0].cost_usd,
            Some(0.0015),
            "the judge's cost counts in the run's"
        );
        let rows = summarize(&spec, &results);
        assert_eq!(
            (rows[0].judged, rows[0].judge_correct, rows[0].judge_failed),
            (2, Some(50.0), 0)
        );
        assert_eq!(
            (rows[1].judged, rows[1].judge_correct, rows[1].judge_failed),
            (1, Some(100.0), 1)
        );
        assert_eq!(table_header(&rows)[4], "Judge: correct");
        let shown = table_rows(&rows);
        assert_eq!(shown[0][4], "50.0%");
        assert_eq!(shown[1][4], "100.0% (1 not judged)");
        let parsed = parse_csv(&table_csv(&rows)).unwrap();
        assert_eq!(parsed[1], shown[0]);
        let answers = parse_csv(&answers_csv(&spec, &results)).unwrap();
        assert_eq!(answers[0][15..], ["judge", "judge_words"].map(String::from));
        assert_eq!(answers[1][15..], ["correct", "why"].map(String::from));
        assert!(
            answers[4][15].starts_with("The judge answered out of format"),
            "{:?}",
            answers[4]
        );
        // No judge: the table is as before.
        let plain = summarize(&spec, &[result(0, Mode::Act, 1.0, Some("A0"), false)]);
        assert_eq!(table_header(&plain), TABLE_HEADER.to_vec());
    }
}
