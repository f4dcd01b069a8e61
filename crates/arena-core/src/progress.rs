//! What a panel says while the user waits: how long the model has been silent, which tool is
//! running and for how long, how much of Pyodide has arrived. Pure: read from the run record,
//! the clock and the download counter.

use crate::agent::record::{RunRecord, Status};
use crate::browser_model::Backend;

/// Bytes of a download so far, and in all when the server said so.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Download {
    pub loaded: u64,
    pub total: Option<u64>,
    pub done: bool,
}

/// Whose call the model in this browser is answering: the run (its record's id) and its mode,
/// and whether the model is still being loaded for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelHolder {
    pub run_id: String,
    pub mode: String,
    pub loading: bool,
}

/// The panel's progress line at `now_ms` (epoch ms); empty when nothing is awaited.
pub fn wait_line(
    record: &RunRecord,
    now_ms: f64,
    python_download: Option<Download>,
    model_holder: Option<&ModelHolder>,
) -> String {
    match record.status {
        Status::Waiting => {
            let waited = seconds(now_ms - waiting_since(record));
            if record.config.backend != Backend::Browser {
                return format!("Waiting for the model’s first token… {waited}");
            }
            match model_holder {
                Some(holder) if holder.run_id != record.id => format!(
                    "Waiting for the local model: it is answering {} (one call at a time)… {waited}",
                    holder.mode
                ),
                Some(holder) if holder.loading => {
                    format!("Loading the local model into memory… {waited}")
                }
                Some(_) => format!("The local model is reading the prompt… {waited}"),
                None => format!("Waiting for the local model… {waited}"),
            }
        }
        Status::RunningTool => {
            let Some(step) = record.steps().last() else {
                return String::new();
            };
            let mut running: Vec<&str> = step
                .tool_runs
                .iter()
                .filter(|r| r.output.is_none() && !r.tool.is_empty())
                .map(|r| r.tool.as_str())
                .collect();
            running.dedup();
            if running.is_empty() {
                return String::new();
            }
            let since = step.t_reply.unwrap_or(step.t_start);
            let mut line = format!(
                "Running {}… {}",
                running.join(", "),
                seconds(now_ms - since)
            );
            if let Some(d) = python_download.filter(|d| !d.done && running.contains(&"python")) {
                line.push_str(" · loading Python: ");
                line.push_str(&downloaded(d));
            }
            line
        }
        _ => String::new(),
    }
}

/// When the current silence began: the latest step's start, else the turn's, else the run's.
fn waiting_since(record: &RunRecord) -> f64 {
    let turn = record.last_turn();
    let step = record
        .steps()
        .last()
        .filter(|s| s.t_first_token.is_none())
        .map(|s| s.t_start);
    step.or_else(|| turn.map(|t| t.t_start))
        .filter(|t| *t > 0.0)
        .unwrap_or(record.created)
}

/// Whole seconds elapsed (never negative: the clock may lag the record by a tick).
pub fn seconds(ms: f64) -> String {
    format!("{} s", (ms.max(0.0) / 1000.0).floor() as u64)
}

/// "1.2 MB of 6.0 MB", or "1.2 MB" when the size is unknown.
pub fn downloaded(d: Download) -> String {
    match d.total.filter(|t| *t >= d.loaded && *t > 0) {
        Some(total) => format!("{} of {}", bytes(d.loaded), bytes(total)),
        None => bytes(d.loaded),
    }
}

/// A byte count for people: B, kB, MB (decimal units, as download sizes usually are).
pub fn bytes(n: u64) -> String {
    if n < 1_000 {
        format!("{n} B")
    } else if n < 1_000_000 {
        format!("{:.0} kB", n as f64 / 1e3)
    } else {
        format!("{:.1} MB", n as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::record::RunConfig;
    use crate::agent::AgentEvent;

    fn record_at(events: &[(f64, AgentEvent)]) -> RunRecord {
        let mut r = RunRecord::new("r", 1_000.0, RunConfig::default());
        for (at, e) in events {
            r.apply(*at, e);
        }
        r
    }

    fn started(t: f64) -> Vec<(f64, AgentEvent)> {
        vec![
            (
                t,
                AgentEvent::TurnStarted {
                    question: "q".into(),
                },
            ),
            (
                t + 100.0,
                AgentEvent::StepStarted {
                    step: 1,
                    forced: false,
                },
            ),
        ]
    }

    #[test]
    fn waiting_counts_from_the_step_start() {
        let r = record_at(&started(10_000.0));
        assert_eq!(
            wait_line(&r, 13_600.0, None, None),
            "Waiting for the model’s first token… 3 s"
        );
    }

    #[test]
    fn waiting_before_the_turn_counts_from_the_run_start() {
        let mut r = RunRecord::new("r", 1_000.0, RunConfig::default());
        r.status = Status::Waiting;
        assert_eq!(
            wait_line(&r, 3_100.0, None, None),
            "Waiting for the model’s first token… 2 s"
        );
    }

    #[test]
    fn a_clock_behind_the_record_says_zero() {
        let r = record_at(&started(10_000.0));
        assert!(wait_line(&r, 9_000.0, None, None).ends_with("… 0 s"));
    }

    #[test]
    fn streaming_and_finished_runs_say_nothing() {
        let mut events = started(0.0);
        events.push((500.0, AgentEvent::Token("Thought".into())));
        let r = record_at(&events);
        assert_eq!(wait_line(&r, 9_000.0, None, None), "");
        assert_eq!(wait_line(&RunRecord::default(), 9_000.0, None, None), "");
    }

    fn running(tool: &str) -> RunRecord {
        let mut events = started(0.0);
        events.push((500.0, AgentEvent::Token("Action".into())));
        events.push((
            2_000.0,
            AgentEvent::Action {
                tool: tool.into(),
                input: "x".into(),
            },
        ));
        let mut r = record_at(&events);
        r.turns[0].steps[0].t_reply = Some(2_000.0);
        r
    }

    #[test]
    fn a_running_tool_is_named_with_its_time() {
        let r = running("web_search");
        assert_eq!(
            wait_line(&r, 7_500.0, None, None),
            "Running web_search… 5 s"
        );
    }

    #[test]
    fn python_shows_the_pyodide_download_while_it_lasts() {
        let r = running("python");
        let d = Download {
            loaded: 1_260_000,
            total: Some(6_000_000),
            done: false,
        };
        assert_eq!(
            wait_line(&r, 3_000.0, Some(d), None),
            "Running python… 1 s · loading Python: 1.3 MB of 6.0 MB"
        );
        let done = Download { done: true, ..d };
        assert_eq!(
            wait_line(&r, 3_000.0, Some(done), None),
            "Running python… 1 s"
        );
        // Another tool does not mention a download it does not wait for.
        let other = running("calculator");
        assert_eq!(
            wait_line(&other, 3_000.0, Some(d), None),
            "Running calculator… 1 s"
        );
    }

    #[test]
    fn byte_counts_read_naturally() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(999), "999 B");
        assert_eq!(bytes(12_345), "12 kB");
        assert_eq!(bytes(6_543_210), "6.5 MB");
        let unknown = Download {
            loaded: 2_000,
            total: None,
            done: false,
        };
        assert_eq!(downloaded(unknown), "2 kB");
        // A total smaller than what arrived (a compressed Content-Length) is not shown.
        let wrong = Download {
            total: Some(1_000),
            ..unknown
        };
        assert_eq!(downloaded(wrong), "2 kB");
    }

    #[test]
    fn a_panel_on_the_model_in_this_browser_says_whose_turn_it_is() {
        let config = RunConfig {
            backend: Backend::Browser,
            mode: crate::agent::Mode::Act,
            ..RunConfig::default()
        };
        let mut r = RunRecord::new("r", 1_000.0, config);
        r.status = Status::Waiting;
        let holder = |run_id: &str, mode: &str, loading: bool| ModelHolder {
            run_id: run_id.into(),
            mode: mode.into(),
            loading,
        };
        assert_eq!(
            wait_line(&r, 4_000.0, None, Some(&holder("other", "ReAct", false))),
            "Waiting for the local model: it is answering ReAct (one call at a time)… 3 s"
        );
        // Another run of the same mode (Evaluate runs several) holds it: still a wait.
        assert_eq!(
            wait_line(&r, 4_000.0, None, Some(&holder("other", "Act-only", false))),
            "Waiting for the local model: it is answering Act-only (one call at a time)… 3 s"
        );
        assert_eq!(
            wait_line(&r, 4_000.0, None, Some(&holder("r", "Act-only", true))),
            "Loading the local model into memory… 3 s"
        );
        assert_eq!(
            wait_line(&r, 4_000.0, None, Some(&holder("r", "Act-only", false))),
            "The local model is reading the prompt… 3 s"
        );
        assert_eq!(
            wait_line(&r, 4_000.0, None, None),
            "Waiting for the local model… 3 s"
        );
    }
}
