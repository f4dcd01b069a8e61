//! Figures read off a run's record: time to first token, model and tool time, tokens, cost;
//! the comparison of the modes of one run, and the segments of a timeline. Views only: they
//! change nothing and keep nothing.

use super::record::{RunRecord, Step};
use super::turn::Turn;
use crate::llm::models::Pricing;
use crate::llm::{ChatMessage, RunsOn};

/// Characters per token for an estimate when the endpoint reports no usage (a common rule of
/// thumb for English text with BPE tokenizers).
const CHARS_PER_TOKEN: f64 = 4.0;

fn estimate_tokens(chars: usize) -> u64 {
    (chars as f64 / CHARS_PER_TOKEN).ceil() as u64
}

fn message_chars(m: &ChatMessage) -> usize {
    m.content.chars().count()
        + m.tool_calls
            .iter()
            .map(|c| c.name.len() + c.arguments.chars().count())
            .sum::<usize>()
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepMetrics {
    /// From the request to the first token (content or reasoning), less any wait for the
    /// model in this browser before it.
    pub ttft_ms: Option<f64>,
    /// From the request to the step's last complete reply, less the waits for the model.
    pub model_ms: Option<f64>,
    /// From the first tool call to the last tool result.
    pub tool_ms: Option<f64>,
    /// Waiting for the model in this browser while it answered another panel.
    pub wait_ms: f64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// The endpoint reported no usage for this step: the tokens are an estimate.
    pub estimated: bool,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunMetrics {
    pub steps: usize,
    pub tool_calls: usize,
    /// Time to the first token of the first step.
    pub ttft_ms: Option<f64>,
    /// From the first request to the end of the last step.
    pub total_ms: Option<f64>,
    pub model_ms: f64,
    pub tool_ms: f64,
    /// Waiting for the model in this browser while it answered another panel.
    pub wait_ms: f64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Some step's tokens are estimated.
    pub estimated: bool,
    /// `None` when the model's price is not known.
    pub cost_usd: Option<f64>,
    /// Completion tokens per second of generation (from each step's first token to its
    /// complete reply), over the steps whose usage the model reported.
    pub tokens_per_sec: Option<f64>,
    /// Where the model in this browser ran, as its latest call said.
    pub runs_on: Option<RunsOn>,
    /// Prompt tokens reused from the runtime's cache and read, over the calls that said.
    pub prompt_reused: u64,
    pub prompt_read: u64,
    pub answer: Option<String>,
}

/// A turn's time: from its first step's start to the last reply or tool result.
pub fn turn_ms(turn: &Turn) -> Option<f64> {
    let end = turn
        .steps
        .iter()
        .filter_map(|s| s.t_tools_done.or(s.t_reply))
        .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.max(t))));
    turn.steps.first().and_then(|s| span(s.t_start, end))
}

fn span(from: f64, to: Option<f64>) -> Option<f64> {
    to.map(|t| (t - from).max(0.0))
}

/// The step's waits for the model that a file's times allow: finite, in order, not negative.
pub(crate) fn waits(step: &Step) -> impl Iterator<Item = (f64, f64)> + '_ {
    step.model_waits
        .iter()
        .map(|[from, to]| (*from, *to))
        .filter(|(from, to)| from.is_finite() && to.is_finite() && to >= from)
}

/// How much of the step's waits for the model came before `until`.
fn waited_before(step: &Step, until: f64) -> f64 {
    waits(step)
        .map(|(from, to)| (to.min(until) - from).max(0.0))
        .sum()
}

/// When the step's tool calls began: the first call's start where the record has it; in a
/// file written before it did, the reply, when a tool ran.
fn tools_started(step: &Step) -> Option<f64> {
    step.t_tools_start.or_else(|| {
        step.tool_runs
            .iter()
            .any(|r| !r.tool.is_empty())
            .then_some(step.t_reply)
            .flatten()
    })
}

/// One step's figures. `prompt_chars` is the length of the conversation the step sent, for
/// the estimate when the endpoint reported no usage.
pub fn step_metrics(step: &Step, prompt_chars: usize) -> StepMetrics {
    let replied = step.t_last_reply.or(step.t_reply);
    let wait_ms = replied.map_or(0.0, |end| waited_before(step, end));
    let model_ms = span(step.t_start, replied).map(|ms| (ms - wait_ms).max(0.0));
    let tool_ms = match (tools_started(step), step.t_tools_done) {
        (Some(start), Some(done)) => Some((done - start).max(0.0)),
        _ => None,
    };
    // A call refused before any reply (an HTTP error) produced nothing to count.
    let no_reply = step.t_first_token.is_none()
        && step.live.is_empty()
        && step.reasoning.is_empty()
        && step.messages.is_empty();
    let (tokens_in, tokens_out, estimated) = match step.usage {
        Some(u) => (u.prompt_tokens, u.completion_tokens, false),
        None if no_reply => (0, 0, false),
        None => {
            let reply_chars: usize = step.messages.iter().take(1).map(message_chars).sum();
            let out_chars =
                step.reasoning.chars().count() + reply_chars.max(step.live.chars().count());
            (
                estimate_tokens(prompt_chars),
                estimate_tokens(out_chars),
                true,
            )
        }
    };
    StepMetrics {
        ttft_ms: span(step.t_start, step.t_first_token)
            .zip(step.t_first_token)
            .map(|(ms, first)| (ms - waited_before(step, first)).max(0.0)),
        model_ms,
        tool_ms,
        wait_ms,
        tokens_in,
        tokens_out,
        estimated,
    }
}

/// One step's figures as its panel shows them, once its reply is complete: model time, time to
/// first token, tool time, and the tokens the endpoint reported for it.
pub fn step_line(step: &Step) -> Option<String> {
    let m = step_metrics(step, 0);
    let mut parts = vec![format!("model {}", format_ms(m.model_ms?))];
    if let Some(ttft) = m.ttft_ms {
        parts.push(format!("first token {}", format_ms(ttft)));
    }
    if m.wait_ms > 0.0 {
        parts.push(format!("waiting for the model {}", format_ms(m.wait_ms)));
    }
    if let Some(tools) = m.tool_ms.filter(|_| !step.tool_runs.is_empty()) {
        parts.push(format!("tools {}", format_ms(tools)));
    }
    parts.push(match step.usage {
        Some(u) => format!(
            "{} in + {} out tokens",
            u.prompt_tokens, u.completion_tokens
        ),
        None => "tokens not reported".into(),
    });
    if let Some(t) = &step.timings {
        parts.push(t.line());
    }
    Some(parts.join(" · "))
}

/// The figures of the latest turn of a run (what its panel shows).
pub fn run_metrics(record: &RunRecord, pricing: Option<Pricing>) -> RunMetrics {
    let Some(turn) = record.last_turn() else {
        return RunMetrics::default();
    };
    // The conversation before the latest turn's steps, then each step's additions in turn.
    let earlier: usize = {
        let mut chars = record.config.system_prompt.chars().count();
        for t in &record.turns {
            chars += t.question.chars().count();
            if std::ptr::eq(t, turn) {
                break;
            }
            chars += t
                .steps
                .iter()
                .flat_map(|s| &s.messages)
                .map(message_chars)
                .sum::<usize>();
        }
        chars
    };
    let mut prompt_chars = earlier;
    let (mut generated, mut generating_ms) = (0u64, 0.0);
    let mut m = RunMetrics {
        steps: turn.steps.len(),
        answer: turn.answer.as_ref().map(|a| a.text.clone()),
        ..RunMetrics::default()
    };
    for (i, step) in turn.steps.iter().enumerate() {
        let s = step_metrics(step, prompt_chars);
        prompt_chars += step.messages.iter().map(message_chars).sum::<usize>();
        if i == 0 {
            m.ttft_ms = s.ttft_ms;
        }
        // A CodeAct program is not a tool call; the calls it made are.
        m.tool_calls += step
            .tool_runs
            .iter()
            .filter(|r| !r.tool.is_empty() && !r.program)
            .count();
        m.model_ms += s.model_ms.unwrap_or(0.0);
        m.tool_ms += s.tool_ms.unwrap_or(0.0);
        m.wait_ms += s.wait_ms;
        m.tokens_in += s.tokens_in;
        m.tokens_out += s.tokens_out;
        m.estimated |= s.estimated;
        // Only a step of one call (a retried call sums the usage of both, not their times)
        // whose reply came after its first token (a forced final step can be stamped
        // otherwise) has a time to divide by.
        if let Some(t) = &step.timings {
            m.prompt_reused = m.prompt_reused.saturating_add(t.cache_n);
            m.prompt_read = m.prompt_read.saturating_add(t.prompt_n);
            if t.runs_on.is_some() {
                m.runs_on = t.runs_on.clone();
            }
        }
        if let (Some(usage), Some(first), Some(reply)) =
            (step.usage, step.t_first_token, step.t_reply)
        {
            if reply > first && step.notices.is_empty() {
                generated += usage.completion_tokens;
                generating_ms += reply - first;
            }
        }
    }
    // Half a second of generation at least: a reply of a token or two has no rate worth showing.
    m.tokens_per_sec = (generating_ms >= 500.0).then(|| generated as f64 * 1000.0 / generating_ms);
    m.total_ms = turn_ms(turn);
    m.cost_usd = pricing
        .map(|p| (m.tokens_in as f64 * p.input + m.tokens_out as f64 * p.output) / 1_000_000.0);
    m
}

/// "model 2.0 s, tools 700 ms", with the wait for the model in this browser between them
/// when there was one: how a run's time divides.
pub fn time_split(m: &RunMetrics) -> String {
    let waiting = if m.wait_ms > 0.0 {
        format!(", waiting for the model {}", format_ms(m.wait_ms))
    } else {
        String::new()
    };
    format!(
        "model {}{waiting}, tools {}",
        format_ms(m.model_ms),
        format_ms(m.tool_ms)
    )
}

/// Which run is best in each column of the comparison: fewest steps, tool calls, time,
/// tokens, lowest cost. Ties mark every run that has the best value; runs without a value
/// (no answer, unknown price) are never best.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Best {
    pub steps: bool,
    pub tool_calls: bool,
    pub time: bool,
    pub tokens: bool,
    pub cost: bool,
}

pub fn best_of(runs: &[RunMetrics]) -> Vec<Best> {
    fn marks(values: &[Option<f64>]) -> Vec<bool> {
        let best = values
            .iter()
            .flatten()
            .fold(None, |a: Option<f64>, &v| Some(a.map_or(v, |a| a.min(v))));
        values
            .iter()
            .map(|v| matches!((v, best), (Some(v), Some(b)) if (*v - b).abs() < 1e-9))
            .collect()
    }
    // Only runs that answered compete: a failed run's few steps are not a win.
    let answered = |m: &RunMetrics, v: f64| m.answer.as_ref().map(|_| v);
    let column = |f: &dyn Fn(&RunMetrics) -> Option<f64>| -> Vec<bool> {
        marks(&runs.iter().map(f).collect::<Vec<_>>())
    };
    let steps = column(&|m| answered(m, m.steps as f64));
    let tools = column(&|m| answered(m, m.tool_calls as f64));
    let time = column(&|m| m.total_ms.and_then(|t| answered(m, t)));
    let tokens = column(&|m| answered(m, (m.tokens_in + m.tokens_out) as f64));
    let cost = column(&|m| m.cost_usd.and_then(|c| answered(m, c)));
    (0..runs.len())
        .map(|i| Best {
            steps: steps[i],
            tool_calls: tools[i],
            time: time[i],
            tokens: tokens[i],
            cost: cost[i],
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentKind {
    Model,
    /// Waiting for the model in this browser while it answered another panel.
    Wait,
    Tool,
}

/// A stretch of a run's time, in ms from `origin`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub kind: SegmentKind,
    pub from_ms: f64,
    pub to_ms: f64,
}

/// The latest turn's model, waiting and tool time, measured from `origin` (the start of the
/// earliest mode of the run, so the modes' timelines share one axis).
pub fn timeline(record: &RunRecord, origin: f64) -> Vec<Segment> {
    let mut out = Vec::new();
    // A stretch of no length is still drawn (an instant tool call ran): the view gives it a
    // pixel.
    let mut push = |kind, from: f64, to: f64| {
        out.push(Segment {
            kind,
            from_ms: from - origin,
            to_ms: to.max(from) - origin,
        });
    };
    for step in record.steps() {
        let Some(replied) = step.t_last_reply.or(step.t_reply) else {
            continue;
        };
        // The model's time, cut where the calls waited for it.
        let mut from = step.t_start;
        let mut waited = false;
        for (wait_from, wait_to) in waits(step) {
            let (wait_from, wait_to) = (wait_from.max(from), wait_to.min(replied));
            if wait_to <= wait_from {
                continue;
            }
            if wait_from > from {
                push(SegmentKind::Model, from, wait_from);
            }
            push(SegmentKind::Wait, wait_from, wait_to);
            from = wait_to;
            waited = true;
        }
        if !waited || replied > from {
            push(SegmentKind::Model, from, replied);
        }
        if let (Some(start), Some(done)) = (tools_started(step), step.t_tools_done) {
            push(SegmentKind::Tool, start, done);
        }
    }
    out
}

/// "1.2 s", "850 ms".
pub fn format_ms(ms: f64) -> String {
    // Durations come from run files too, which anyone can write.
    if !crate::dates::is_plausible_duration(ms) {
        crate::dates::UNKNOWN.into()
    } else if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// "$0.1400", "$0.000165": tiny costs keep their significant digits.
pub fn format_usd(usd: f64) -> String {
    if usd > 0.0 && usd < 0.01 {
        format!("${usd:.6}")
    } else {
        format!("${usd:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::events::AgentEvent;
    use crate::llm::Usage;

    /// A record of one step at t=1000: first token at 1300, reply at 1800, tool done at 2500;
    /// then an answer step 2500–3000.
    fn two_steps(usage: bool) -> RunRecord {
        let mut r = RunRecord::default();
        let mut at = |t: f64, e: AgentEvent| r.apply(t, &e);
        at(
            900.0,
            AgentEvent::TurnStarted {
                question: "q".into(),
            },
        );
        at(
            1000.0,
            AgentEvent::StepStarted {
                step: 1,
                forced: false,
            },
        );
        at(1300.0, AgentEvent::Token("Action: calculator".into()));
        if usage {
            at(
                1800.0,
                AgentEvent::Usage(Usage {
                    prompt_tokens: 100,
                    completion_tokens: 20,
                    total_tokens: 120,
                }),
            );
        }
        at(
            1800.0,
            AgentEvent::Appended(ChatMessage::assistant(
                "Action: calculator\nAction Input: 6*7",
            )),
        );
        at(
            1800.0,
            AgentEvent::Action {
                tool: "calculator".into(),
                input: "6*7".into(),
            },
        );
        at(
            2500.0,
            AgentEvent::Observation {
                text: "42".into(),
                is_error: false,
                failure: None,
            },
        );
        at(
            2500.0,
            AgentEvent::Appended(ChatMessage::user("Observation: 42")),
        );
        at(
            2500.0,
            AgentEvent::StepStarted {
                step: 2,
                forced: false,
            },
        );
        at(2700.0, AgentEvent::Token("Answer: 42".into()));
        if usage {
            at(
                3000.0,
                AgentEvent::Usage(Usage {
                    prompt_tokens: 130,
                    completion_tokens: 5,
                    total_tokens: 135,
                }),
            );
        }
        at(
            3000.0,
            AgentEvent::Appended(ChatMessage::assistant("Answer: 42")),
        );
        at(
            3000.0,
            AgentEvent::Answer {
                text: "42".into(),
                forced: false,
                step: 2,
            },
        );
        r
    }

    /// Act-only on the model in this browser, in an All run: the first reply fits no format,
    /// the call is made again with a reminder, and that call waits 5 s for the model (it is
    /// answering another panel) before it replies, again in no format. No tool runs.
    fn a_reminded_step_that_waited(with_wait_event: bool) -> RunRecord {
        let mut r = RunRecord::default();
        let mut at = |t: f64, e: AgentEvent| r.apply(t, &e);
        at(
            0.0,
            AgentEvent::TurnStarted {
                question: "q".into(),
            },
        );
        at(
            0.0,
            AgentEvent::StepStarted {
                step: 1,
                forced: false,
            },
        );
        at(300.0, AgentEvent::Token("I think".into()));
        at(
            1000.0,
            AgentEvent::Appended(ChatMessage::assistant("I think")),
        );
        at(
            1000.0,
            AgentEvent::Notice(
                "No action. Asked the model once more, with a format reminder.".into(),
            ),
        );
        at(
            1000.0,
            AgentEvent::Appended(ChatMessage::user("Reply in the format.")),
        );
        if with_wait_event {
            at(6000.0, AgentEvent::WaitedForModel { ms: 5000.0 });
        }
        at(6400.0, AgentEvent::Token("Still thinking".into()));
        at(
            7000.0,
            AgentEvent::Appended(ChatMessage::assistant("Still thinking")),
        );
        at(
            7000.0,
            AgentEvent::Observation {
                text: "Error: no action.".into(),
                is_error: true,
                failure: None,
            },
        );
        r
    }

    #[test]
    fn a_call_made_again_is_model_time_and_its_wait_for_the_model_is_its_own() {
        // A call made again after the reply (here, with a format reminder) was counted as
        // tool time, with no tool run: "tools 6.0 s" and 0 tool calls.
        let old = run_metrics(&a_reminded_step_that_waited(false), None);
        assert_eq!(old.tool_calls, 0);
        assert_eq!(old.tool_ms, 0.0, "no tool ran: {old:?}");
        assert_eq!(old.model_ms, 7000.0);
        // Its wait for the model in this browser is said as such, not as the model's time.
        let m = run_metrics(&a_reminded_step_that_waited(true), None);
        assert_eq!(m.tool_ms, 0.0);
        assert_eq!(m.wait_ms, 5000.0);
        assert_eq!(m.model_ms, 2000.0);
        assert_eq!(m.total_ms, Some(7000.0));
        assert_eq!(
            time_split(&m),
            "model 2.0 s, waiting for the model 5.0 s, tools 0 ms"
        );
        let kinds: Vec<_> = timeline(&a_reminded_step_that_waited(true), 0.0)
            .iter()
            .map(|s| (s.kind, s.from_ms, s.to_ms))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (SegmentKind::Model, 0.0, 1000.0),
                (SegmentKind::Wait, 1000.0, 6000.0),
                (SegmentKind::Model, 6000.0, 7000.0),
            ]
        );
    }

    #[test]
    fn a_run_file_from_before_the_waits_reads_with_its_tool_time() {
        // Written before steps kept their last reply, tool start and waits: a step that ran
        // a tool counts from its reply, as it did; a step that ran none has no tool time.
        let mut step = two_steps(true).turns[0].steps[0].clone();
        let mut json = serde_json::to_value(&step).unwrap();
        for field in ["t_last_reply", "t_tools_start", "model_waits"] {
            json.as_object_mut().unwrap().remove(field);
        }
        step = serde_json::from_value(json).unwrap();
        assert_eq!((step.t_last_reply, step.t_tools_start), (None, None));
        let m = step_metrics(&step, 0);
        assert_eq!(
            (m.model_ms, m.tool_ms, m.wait_ms),
            (Some(800.0), Some(700.0), 0.0)
        );
        step.tool_runs[0].tool.clear();
        assert_eq!(step_metrics(&step, 0).tool_ms, None);
    }

    #[test]
    fn an_instant_tool_call_still_has_its_bar() {
        let mut r = two_steps(true);
        let step = &mut r.turns[0].steps[0];
        step.t_tools_done = step.t_tools_start;
        let kinds: Vec<_> = timeline(&r, 0.0).iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [SegmentKind::Model, SegmentKind::Tool, SegmentKind::Model]
        );
    }

    #[test]
    fn waits_a_file_cannot_make_absurd() {
        let mut r = a_reminded_step_that_waited(true);
        let step = &mut r.turns[0].steps[0];
        step.model_waits.push([f64::NAN, 1.0]);
        step.model_waits.push([3000.0, 2000.0]);
        step.model_waits.push([f64::NEG_INFINITY, f64::INFINITY]);
        let m = run_metrics(&r, None);
        assert_eq!((m.wait_ms, m.model_ms), (5000.0, 2000.0));
        assert!(timeline(&r, 0.0)
            .iter()
            .all(|s| s.from_ms.is_finite() && s.to_ms.is_finite()));
    }

    #[test]
    fn times_and_tokens_come_from_the_record() {
        let m = run_metrics(&two_steps(true), None);
        assert_eq!(m.steps, 2);
        assert_eq!(m.tool_calls, 1);
        assert_eq!(m.ttft_ms, Some(300.0));
        assert_eq!(m.total_ms, Some(2000.0));
        assert_eq!(m.model_ms, 800.0 + 500.0);
        assert_eq!(m.tool_ms, 700.0);
        assert_eq!((m.tokens_in, m.tokens_out, m.estimated), (230, 25, false));
        assert_eq!(m.answer.as_deref(), Some("42"));
        assert_eq!(m.cost_usd, None);
        // 20 + 5 tokens generated in (1800 - 1300) + (3000 - 2700) ms.
        assert_eq!(m.tokens_per_sec, Some(25.0 * 1000.0 / 800.0));
        // Without usage there is no count to divide.
        assert_eq!(run_metrics(&two_steps(false), None).tokens_per_sec, None);
        // A step stamped with its reply before its first token adds no tokens without time.
        let mut odd = two_steps(true);
        let step = &mut odd.turns[0].steps[1];
        step.t_reply = step.t_first_token.map(|t| t - 100.0);
        let m = run_metrics(&odd, None);
        assert_eq!(m.tokens_per_sec, Some(20.0 * 1000.0 / 500.0));
        // Nor does a step whose call was made twice (a format reminder).
        let mut retried = two_steps(true);
        retried.turns[0].steps[0]
            .notices
            .push("format reminder".into());
        // (What is left, step 2's 300 ms, is too short to give a rate.)
        assert_eq!(run_metrics(&retried, None).tokens_per_sec, None);
    }

    #[test]
    fn cost_is_tokens_times_the_price_per_million() {
        let pricing = Pricing {
            input: 0.5,
            output: 2.0,
        };
        let m = run_metrics(&two_steps(true), Some(pricing));
        // 230 in × $0.50/M + 25 out × $2.00/M = $0.000115 + $0.00005
        assert!((m.cost_usd.unwrap() - 0.000165).abs() < 1e-12, "{m:?}");
        assert_eq!(format_usd(m.cost_usd.unwrap()), "$0.000165");
        assert_eq!(format_usd(0.14), "$0.1400");
        assert_eq!(format_usd(0.0), "$0.0000");
    }

    #[test]
    fn without_usage_tokens_are_estimated_and_marked() {
        let m = run_metrics(&two_steps(false), None);
        assert!(m.estimated);
        // Step 1 sends "q" (1 char; empty system prompt): 1 token; step 2 also sends what
        // step 1 added (36 + 15 chars): ceil(52 / 4) = 13. Out: ceil(36/4) + ceil(10/4).
        assert_eq!(m.tokens_in, 1 + 13);
        assert_eq!(m.tokens_out, 9 + 3);
    }

    #[test]
    fn a_call_refused_before_any_reply_counts_no_tokens() {
        let mut r = RunRecord::default();
        r.apply(
            0.0,
            &AgentEvent::TurnStarted {
                question: "q".repeat(400),
            },
        );
        r.apply(
            1.0,
            &AgentEvent::StepStarted {
                step: 1,
                forced: false,
            },
        );
        r.apply(
            2.0,
            &AgentEvent::Error("HTTP 400: The model is not available.".into()),
        );
        let m = run_metrics(
            &r,
            Some(Pricing {
                input: 1.0,
                output: 1.0,
            }),
        );
        assert_eq!(
            (m.steps, m.tokens_in, m.tokens_out, m.estimated),
            (1, 0, 0, false)
        );
        assert_eq!(m.cost_usd, Some(0.0));
    }

    #[test]
    fn the_best_of_each_column_is_marked_among_runs_that_answered() {
        let run = |steps, tools, ms, tokens, cost, answered: bool| RunMetrics {
            steps,
            tool_calls: tools,
            total_ms: Some(ms),
            tokens_in: tokens,
            cost_usd: Some(cost),
            answer: answered.then(|| "a".to_string()),
            ..RunMetrics::default()
        };
        let best = best_of(&[
            run(1, 0, 900.0, 300, 0.002, true),
            run(3, 2, 2500.0, 900, 0.001, true),
            run(0, 0, 100.0, 10, 0.0, false),
        ]);
        assert_eq!(
            best[0],
            Best {
                steps: true,
                tool_calls: true,
                time: true,
                tokens: true,
                cost: false
            }
        );
        assert_eq!(
            best[1],
            Best {
                cost: true,
                ..Best::default()
            }
        );
        assert_eq!(
            best[2],
            Best::default(),
            "a run with no answer wins nothing"
        );
    }

    #[test]
    fn each_step_has_its_own_line_once_its_reply_is_complete() {
        let r = two_steps(true);
        let steps = r.steps();
        assert_eq!(
            step_line(&steps[0]).as_deref(),
            Some("model 800 ms · first token 300 ms · tools 700 ms · 100 in + 20 out tokens")
        );
        assert_eq!(
            step_line(&steps[1]).as_deref(),
            Some("model 500 ms · first token 200 ms · 130 in + 5 out tokens")
        );
        let bare = two_steps(false);
        assert!(step_line(&bare.steps()[1])
            .unwrap()
            .ends_with("tokens not reported"));
        assert_eq!(
            step_line(&Step::default()),
            None,
            "nothing while the reply streams"
        );
    }

    #[test]
    fn the_timeline_alternates_model_and_tool_time() {
        let segments = timeline(&two_steps(true), 900.0);
        let kinds: Vec<_> = segments
            .iter()
            .map(|s| (s.kind, s.from_ms, s.to_ms))
            .collect();
        assert_eq!(
            kinds,
            [
                (SegmentKind::Model, 100.0, 900.0),
                (SegmentKind::Tool, 900.0, 1600.0),
                (SegmentKind::Model, 1600.0, 2100.0)
            ]
        );
        assert_eq!(format_ms(850.0), "850 ms");
        assert_eq!(format_ms(1250.0), "1.2 s");
        // From a file anyone can write.
        assert_eq!(format_ms(1e300), "unknown");
        assert_eq!(format_ms(-5.0), "unknown");
    }
}
