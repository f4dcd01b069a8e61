//! The lines a panel shows beside its steps: the step counter, the figures and the error. Read
//! from the record alone, so the three panels of a blind run say the same of the same output
//! until the vote: Think-only's one-step limit, the prompt tokens that count each mode's own
//! system prompt, and an endpoint's error naming the model would each name the panel.

use crate::agent::metrics::{format_ms, format_usd, run_metrics, step_line, time_split, turn_ms};
use crate::agent::record::{RunRecord, Status};

/// The panel's step counter: the latest step of the run's limit ("Step 2 / 5"), with "+ final
/// answer" once the limit forced one; empty before the first step. `default_steps` stands in
/// for a limit the record does not say (the step limit in Settings). A blind run's counter
/// leaves the limit out until the vote.
pub fn step_counter(record: &RunRecord, default_steps: u32) -> String {
    let n = record.step_number();
    // The run's own limit: going on past it raised it in the record.
    let max_steps = match (record.config.mode.uses_tools(), record.config.max_steps) {
        (false, _) => 1,
        (true, 0) => default_steps,
        (true, n) => n,
    };
    match (n, record.awaits_vote()) {
        (0, _) => String::new(),
        (n, true) if n > max_steps => format!("Step {max_steps} + final answer"),
        (n, true) => format!("Step {n}"),
        (n, false) if n > max_steps => format!("Step {max_steps} / {max_steps} + final answer"),
        (n, false) => format!("Step {n} / {max_steps}"),
    }
}

/// Longest tool input a panel shows (in bytes, cut on a character boundary): a call's input
/// may be megabytes, and laying out all of it froze the page for a second or more. The whole
/// input stays in the record: Inspect, exports and replays have it.
pub const SHOWN_INPUT_BYTES: usize = 2_000;

/// A call's input as its panel shows it: whole when short, else its head and its whole size.
pub fn shown_input(input: &str) -> String {
    if input.len() <= SHOWN_INPUT_BYTES {
        return input.to_string();
    }
    let mut cut = SHOWN_INPUT_BYTES;
    while !input.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}… ({} bytes in all: Inspect shows the whole input)",
        &input[..cut],
        input.len()
    )
}

/// The panel's figures once its run has ended: time, tokens, cost. Empty while it runs, and
/// for a blind run until the vote (as the comparison table is).
pub fn figures_line(record: &RunRecord) -> String {
    if record.steps().is_empty() || record.status.is_active() || record.awaits_vote() {
        return String::new();
    }
    let m = run_metrics(record, record.config.pricing);
    let mut parts = Vec::new();
    if let Some(total) = m.total_ms {
        parts.push(format!("{} ({})", format_ms(total), time_split(&m)));
    }
    if let Some(ttft) = m.ttft_ms {
        parts.push(format!("first token {}", format_ms(ttft)));
    }
    parts.push(format!(
        "{} prompt + {} completion tokens{}",
        m.tokens_in,
        m.tokens_out,
        if m.estimated { " (estimated)" } else { "" }
    ));
    if let Some(rate) = m.tokens_per_sec {
        parts.push(format!("{rate:.1} tokens/s"));
    }
    if m.prompt_reused > 0 || m.prompt_read > 0 {
        parts.push(format!(
            "prompt: {} read, {} reused",
            m.prompt_read, m.prompt_reused
        ));
    }
    if let Some(place) = &m.runs_on {
        parts.push(place.describe());
    }
    if let Some(cost) = m.cost_usd {
        parts.push(format_usd(cost));
    }
    parts.join(" · ")
}

/// The figures of the step at `index` of the latest turn (`step_line`), but none for a blind
/// run until the vote.
pub fn step_figures(record: &RunRecord, index: usize) -> Option<String> {
    if record.awaits_vote() {
        return None;
    }
    record.steps().get(index).and_then(step_line)
}

/// What a panel says of its latest turn's error. A blind run's, until the vote, has its model
/// id put as "the model": an endpoint's message often names the model it could not serve.
pub fn error_line(record: &RunRecord) -> Option<String> {
    let error = record.error()?;
    if !record.awaits_vote() {
        return Some(error.to_string());
    }
    let id = record.config.model.trim();
    // With a routing suffix (`org/model:provider`) the endpoint may name the model without it.
    let base = id.split(':').next().unwrap_or(id);
    let mut said = error.to_string();
    for name in [id, base] {
        // An id this short is more likely a piece of a word than a name.
        if name.chars().count() >= 3 {
            said = said.replace(name, "the model");
        }
    }
    Some(said)
}

/// What a phone's tab says of its mode's run, short enough for a third of 360 px: "Waiting",
/// "Streaming · step 2", "Tool · step 2", "Done · 3.4 s", "Error", "Stopped"; empty when idle.
/// A blind run's tab leaves the time out until the vote, as its figures do.
pub fn tab_state(record: &RunRecord) -> String {
    let step = record.step_number();
    let at_step = |what: &str| match step {
        0 => what.to_string(),
        n => format!("{what} · step\u{a0}{n}"),
    };
    match record.status {
        Status::Idle => String::new(),
        Status::Waiting => at_step("Waiting"),
        Status::Streaming => at_step("Streaming"),
        Status::RunningTool => at_step("Tool"),
        Status::Done => match record.last_turn().and_then(turn_ms) {
            Some(ms) if !record.awaits_vote() => format!("Done · {}", short_duration(ms)),
            _ => "Done".into(),
        },
        Status::Error => "Error".into(),
        Status::Stopped => "Stopped".into(),
    }
}

/// "850 ms", "3.4 s", "95 s" (a no-break space before the unit, so a narrow tab does not
/// wrap between them): whole numbers only, so that no float formatting comes with it.
fn short_duration(ms: f64) -> String {
    if !crate::dates::is_plausible_duration(ms) {
        return crate::dates::UNKNOWN.into();
    }
    let ms = ms.round() as u64;
    match ms {
        0..=999 => format!("{ms}\u{a0}ms"),
        1_000..=59_949 => {
            let tenths = (ms + 50) / 100;
            format!("{}.{}\u{a0}s", tenths / 10, tenths % 10)
        }
        _ => format!("{}\u{a0}s", (ms + 500) / 1000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::record::{Blind, BlindVote, RunConfig, Status};
    use crate::agent::{AgentEvent, Mode};
    use crate::llm::{ChatMessage, RunsOn, RuntimeTimings, Usage};

    /// A run of `mode` with a step limit of `max_steps` that answered in its first step.
    fn answered(mode: Mode, max_steps: u32) -> RunRecord {
        let config = RunConfig {
            mode,
            max_steps,
            ..RunConfig::default()
        };
        let mut r = RunRecord::new("r", 1_000.0, config);
        let events = [
            AgentEvent::TurnStarted {
                question: "q".into(),
            },
            AgentEvent::StepStarted {
                step: 1,
                forced: false,
            },
            AgentEvent::Token("Thought: x\nAnswer: 42".into()),
            AgentEvent::Usage(Usage {
                prompt_tokens: 120,
                completion_tokens: 8,
                total_tokens: 128,
            }),
            AgentEvent::Appended(ChatMessage::assistant("Thought: x\nAnswer: 42")),
            AgentEvent::Thought("x".into()),
            AgentEvent::Answer {
                text: "42".into(),
                forced: false,
                step: 1,
            },
        ];
        for (i, e) in events.iter().enumerate() {
            r.apply(1_100.0 + 100.0 * i as f64, e);
        }
        r
    }

    fn blind(mut r: RunRecord, vote: Option<BlindVote>) -> RunRecord {
        r.blind = Some(Blind {
            label: "A".into(),
            vote,
        });
        r
    }

    #[test]
    fn a_tab_says_the_state_its_step_and_once_done_its_time() {
        let mut r = answered(Mode::ReAct, 5);
        // Its step started at 1,200 ms and its reply was in at 1,500 ms.
        assert_eq!(tab_state(&r), "Done · 300\u{a0}ms");
        r.status = Status::Streaming;
        assert_eq!(tab_state(&r), "Streaming · step\u{a0}1");
        r.status = Status::RunningTool;
        assert_eq!(tab_state(&r), "Tool · step\u{a0}1");
        r.status = Status::Error;
        assert_eq!(tab_state(&r), "Error");
        assert_eq!(tab_state(&RunRecord::default()), "");
        let waiting = RunRecord {
            status: Status::Waiting,
            ..RunRecord::default()
        };
        assert_eq!(tab_state(&waiting), "Waiting");
    }

    #[test]
    fn a_blind_tab_says_no_time_until_the_vote() {
        let r = answered(Mode::Think, 1);
        assert_eq!(tab_state(&blind(r.clone(), None)), "Done");
        assert_eq!(
            tab_state(&blind(r, Some(BlindVote::Best))),
            "Done · 300\u{a0}ms"
        );
    }

    #[test]
    fn short_durations_round_to_what_fits_a_tab() {
        let cases = [
            (0.0, "0\u{a0}ms"),
            (999.4, "999\u{a0}ms"),
            (999.6, "1.0\u{a0}s"),
            (3_449.0, "3.4\u{a0}s"),
            (3_450.0, "3.5\u{a0}s"),
            (59_949.0, "59.9\u{a0}s"),
            (59_950.0, "60\u{a0}s"),
            (95_400.0, "95\u{a0}s"),
        ];
        for (ms, said) in cases {
            assert_eq!(short_duration(ms), said, "{ms}");
        }
        assert_eq!(short_duration(f64::NAN), crate::dates::UNKNOWN);
        assert_eq!(short_duration(-5.0), crate::dates::UNKNOWN);
    }

    #[test]
    fn the_counter_names_the_step_and_the_limit() {
        assert_eq!(step_counter(&answered(Mode::Think, 1), 5), "Step 1 / 1");
        assert_eq!(step_counter(&answered(Mode::Act, 5), 5), "Step 1 / 5");
        // A record that does not say its limit takes the one in Settings.
        assert_eq!(step_counter(&answered(Mode::ReAct, 0), 3), "Step 1 / 3");
        assert_eq!(step_counter(&RunRecord::default(), 5), "");
    }

    #[test]
    fn a_blind_run_counts_steps_alike_in_every_mode_until_the_vote() {
        let counters: Vec<String> = Mode::ALL
            .iter()
            .map(|&m| step_counter(&blind(answered(m, m.uses_tools() as u32 * 4 + 1), None), 5))
            .collect();
        assert_eq!(counters, ["Step 1", "Step 1", "Step 1", "Step 1"]);
        let voted = blind(answered(Mode::Think, 1), Some(BlindVote::Tie));
        assert_eq!(step_counter(&voted, 5), "Step 1 / 1");
    }

    #[test]
    fn a_forced_answer_is_counted_past_the_limit() {
        let mut r = answered(Mode::ReAct, 1);
        r.apply(
            2_000.0,
            &AgentEvent::StepStarted {
                step: 2,
                forced: true,
            },
        );
        assert_eq!(step_counter(&r, 5), "Step 1 / 1 + final answer");
        assert_eq!(step_counter(&blind(r, None), 5), "Step 1 + final answer");
    }

    #[test]
    fn the_runtime_s_own_figures_and_where_it_ran_are_shown_and_kept() {
        let mut r = answered(Mode::ReAct, 5);
        assert!(!figures_line(&r).contains("prompt:"), "no timings, no line");
        let timings = |cache_n, runs_on| {
            AgentEvent::Timings(RuntimeTimings {
                cache_n,
                prompt_n: 6,
                prompt_per_second: 13.04,
                predicted_n: 8,
                predicted_per_second: 3.4,
                runs_on,
                ..RuntimeTimings::default()
            })
        };
        let two_threads = RunsOn {
            threads: 2,
            ..RunsOn::default()
        };
        // A retried call's figures replace the first's.
        r.apply(2_000.0, &timings(0, None));
        r.apply(2_001.0, &timings(62, Some(two_threads.clone())));
        let line = figures_line(&r);
        assert!(line.contains("prompt: 6 read, 62 reused"), "{line}");
        assert!(line.ends_with("CPU, 2 threads"), "{line}");
        let step = step_figures(&r, 0).unwrap();
        assert!(
            step.ends_with("read 6 prompt tokens (62 reused) at 13.0 tok/s · 8 out at 3.4 tok/s"),
            "{step}"
        );
        // The record keeps them: a kept run or an export read back says the same.
        let back: RunRecord = serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(figures_line(&back), line);
        // An endpoint that sends no timings keeps a record without the field.
        let plain = serde_json::to_string(&answered(Mode::ReAct, 5)).unwrap();
        assert!(!plain.contains("timings"), "{plain}");
    }

    #[test]
    fn a_blind_run_shows_its_figures_once_voted() {
        let r = answered(Mode::Act, 5);
        let line = figures_line(&r);
        assert!(line.contains("120 prompt + 8 completion tokens"), "{line}");
        assert!(step_figures(&r, 0).is_some_and(|s| s.contains("120 in + 8 out tokens")));
        let waiting = blind(r.clone(), None);
        assert_eq!(figures_line(&waiting), "");
        assert_eq!(step_figures(&waiting, 0), None);
        let voted = blind(r, Some(BlindVote::NotBest));
        assert_eq!(figures_line(&voted), line);
        assert!(step_figures(&voted, 0).is_some());
    }

    #[test]
    fn a_blind_run_s_error_does_not_name_its_model_until_the_vote() {
        let config = RunConfig {
            model: "lab/actor-8b:fastest".into(),
            ..RunConfig::default()
        };
        let mut r = RunRecord::new("r", 0.0, config);
        r.apply(
            0.0,
            &AgentEvent::TurnStarted {
                question: "q".into(),
            },
        );
        let said = "Not found (HTTP 404). Provider said (404): lab/actor-8b does not exist";
        r.apply(1.0, &AgentEvent::Error(said.into()));
        assert_eq!(error_line(&r).as_deref(), Some(said));
        let waiting = blind(r.clone(), None);
        assert_eq!(
            error_line(&waiting).as_deref(),
            Some("Not found (HTTP 404). Provider said (404): the model does not exist")
        );
        assert_eq!(
            error_line(&blind(r, Some(BlindVote::AllBad))).as_deref(),
            Some(said)
        );
        assert_eq!(error_line(&answered(Mode::Act, 5)), None);
    }

    #[test]
    fn a_running_panel_shows_no_figures() {
        let mut r = answered(Mode::Act, 5);
        r.status = Status::Streaming;
        assert_eq!(figures_line(&r), "");
    }

    /// Issue 47: a 7 MB input laid out whole made a second-long task in the page.
    #[test]
    fn a_long_input_is_shown_cut_with_its_size() {
        assert_eq!(shown_input("{\"a\": 1}"), "{\"a\": 1}");
        let exact = "é".repeat(SHOWN_INPUT_BYTES / 2);
        assert_eq!(shown_input(&exact), exact);
        let long = format!("x{}", "é".repeat(3_000_000));
        let shown = shown_input(&long);
        assert!(shown.len() < SHOWN_INPUT_BYTES + 80, "{}", shown.len());
        assert!(
            shown.ends_with("… (6000001 bytes in all: Inspect shows the whole input)"),
            "{shown:.100}"
        );
        assert!(shown.starts_with("xéé"));
    }
}
