//! What an exported run is called and how it reads as Markdown. The JSON export is the
//! `RunFile` itself; both are built from the records and the run's settings, which hold no
//! token.

use crate::agent::metrics::{format_ms, format_usd, run_metrics, time_split, RunMetrics};
use crate::agent::record::{RunRecord, Status, Step, Turn};
use crate::browser_model::{Backend, RUNTIME_VERSION};
use crate::dates::{date, date_time};
use crate::run_file::RunFile;

/// Longest part of a file name taken from the question.
const SLUG_CHARS: usize = 40;

/// The question, as a file name can carry it: lower-case ASCII words joined by hyphens.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for word in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let extra = usize::from(!out.is_empty()) + word.len();
        if out.len() + extra > SLUG_CHARS {
            if out.is_empty() {
                out.push_str(&word[..SLUG_CHARS]);
            }
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    if out.is_empty() {
        "run".into()
    } else {
        out
    }
}

/// "react-arena-2026-11-23-what-is-6-times-7": the day the run was made and its question.
pub fn file_stem(created_ms: f64, title: &str) -> String {
    format!("react-arena-{}-{}", date(created_ms), slug(title))
}

/// A fence that no run of backticks in `text` can close early.
fn fenced(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{}\n{fence}\n", text.trim_end())
}

/// Model prose set apart as a quote, so its own headings do not break the document's.
fn quoted(text: &str) -> String {
    let mut out: String = text
        .trim()
        .lines()
        .map(|l| {
            if l.is_empty() {
                ">\n".to_string()
            } else {
                format!("> {l}\n")
            }
        })
        .collect();
    if out.is_empty() {
        out.push_str(">\n");
    }
    out
}

/// A table cell: one line, no column break.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn tokens(m: &RunMetrics) -> String {
    format!(
        "{} prompt + {} completion tokens{}",
        m.tokens_in,
        m.tokens_out,
        if m.estimated { " (estimated)" } else { "" }
    )
}

/// The figures of a turn, as one line.
fn figures(m: &RunMetrics) -> String {
    let mut parts = vec![
        format!("{} step{}", m.steps, if m.steps == 1 { "" } else { "s" }),
        format!(
            "{} tool call{}",
            m.tool_calls,
            if m.tool_calls == 1 { "" } else { "s" }
        ),
    ];
    if let Some(ttft) = m.ttft_ms {
        parts.push(format!("first token {}", format_ms(ttft)));
    }
    if let Some(total) = m.total_ms {
        parts.push(format!("{} in all ({})", format_ms(total), time_split(m)));
    }
    parts.push(tokens(m));
    parts.push(match m.cost_usd {
        Some(cost) => format!("cost {}", format_usd(cost)),
        None => "cost unknown (no price for the model)".into(),
    });
    parts.join(" · ")
}

/// The record as it stood at the end of turn `index`: the figures of that turn.
fn metrics_of_turn(record: &RunRecord, index: usize) -> RunMetrics {
    let upto = RunRecord {
        turns: record.turns[..=index].to_vec(),
        ..record.clone()
    };
    run_metrics(&upto, record.config.pricing)
}

fn step_markdown(step: &Step, out: &mut String) {
    let title = if step.forced {
        "Final answer (step limit reached)".to_string()
    } else {
        format!("Step {}", step.number)
    };
    out.push_str(&format!("#### {title}\n\n"));
    for notice in &step.notices {
        out.push_str(&format!("*Notice:* {}\n\n", cell(notice)));
    }
    if !step.reasoning.trim().is_empty() {
        out.push_str("**Reasoning**\n\n");
        out.push_str(&quoted(&step.reasoning));
        out.push('\n');
    }
    if let Some(thought) = &step.thought {
        out.push_str("**Thought**\n\n");
        out.push_str(&quoted(thought));
        out.push('\n');
    }
    if !step.settled && !step.live.trim().is_empty() {
        out.push_str("**Reply as it streamed (unfinished)**\n\n");
        out.push_str(&fenced(&step.live));
        out.push('\n');
    }
    for run in &step.tool_runs {
        if run.program {
            out.push_str("**Program** (CodeAct: it ran in the page's Python sandbox)\n\n");
            out.push_str(&fenced(&run.input));
            out.push('\n');
        } else if !run.tool.is_empty() {
            let label = if run.in_program {
                "Tool call from the program"
            } else {
                "Action"
            };
            out.push_str(&format!("**{label}:** `{}`", run.tool));
            if let Some(source) = &run.mcp {
                // In a code span: a name from a file cannot become Markdown.
                let described = source.describe().replace('`', "'");
                out.push_str(&format!(" (`{described}`)"));
            }
            out.push_str("\n\n");
            out.push_str(&fenced(&run.input));
            out.push('\n');
        }
        match &run.output {
            Some(text) => {
                let label = match (&run.failure, run.is_error) {
                    (Some(failed), _) => format!("Observation (error: {})", failed.kind.label()),
                    (None, true) => "Observation (error)".to_string(),
                    (None, false) => "Observation".to_string(),
                };
                out.push_str(&format!("**{label}**\n\n"));
                out.push_str(&fenced(text));
                out.push('\n');
                if let Some(detail) = run.failure.as_ref().and_then(|f| f.detail.as_ref()) {
                    out.push_str("*Detail (the model did not read it):*\n\n");
                    out.push_str(&fenced(detail));
                    out.push('\n');
                }
            }
            None => out.push_str("*(the tool call did not finish)*\n\n"),
        }
    }
}

fn turn_markdown(record: &RunRecord, index: usize, turn: &Turn, out: &mut String) {
    let heading = if record.turns.len() > 1 {
        format!("### Question {}\n\n", index + 1)
    } else {
        "### Question\n\n".to_string()
    };
    out.push_str(&heading);
    out.push_str(&quoted(&turn.question));
    out.push('\n');
    for (n, attempt) in turn.earlier.iter().enumerate() {
        out.push_str(&format!(
            "#### Attempt {} of {} (not sent to the model again)\n\n",
            n + 1,
            turn.earlier.len() + 1
        ));
        attempt_markdown(attempt, out);
    }
    if !turn.earlier.is_empty() {
        out.push_str(&format!(
            "#### Attempt {0} of {0}\n\n",
            turn.earlier.len() + 1
        ));
    }
    attempt_markdown(turn, out);
    out.push_str(&format!(
        "*Figures:* {}\n\n",
        figures(&metrics_of_turn(record, index))
    ));
}

/// A turn's steps and how it ended.
fn attempt_markdown(turn: &Turn, out: &mut String) {
    for step in &turn.steps {
        step_markdown(step, out);
    }
    match (&turn.answer, &turn.error) {
        (Some(answer), _) => {
            let label = if answer.forced {
                format!("Answer (forced after the step limit, step {})", answer.step)
            } else {
                format!("Answer (step {})", answer.step)
            };
            out.push_str(&format!("**{label}**\n\n"));
            out.push_str(&quoted(&answer.text));
            out.push('\n');
        }
        (None, Some(error)) => out.push_str(&format!("**Error:** {}\n\n", cell(error))),
        (None, None) if turn.stopped => out.push_str("**Stopped** by the user.\n\n"),
        (None, None) => out.push_str("*(no answer)*\n\n"),
    }
}

fn comparison(records: &[RunRecord], out: &mut String) {
    out.push_str("## Comparison\n\n");
    out.push_str("| Mode | Answer | Steps | Tool calls | Time | Tokens | Cost |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for r in records {
        let m = run_metrics(r, r.config.pricing);
        let answer = m.answer.clone().unwrap_or_else(|| match r.status {
            Status::Stopped => "(stopped)".into(),
            Status::Error => "(error)".into(),
            _ => "(no answer)".into(),
        });
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            r.config.mode.label(),
            cell(&answer),
            m.steps,
            m.tool_calls,
            m.total_ms.map(format_ms).unwrap_or_else(|| "–".into()),
            tokens(&m),
            m.cost_usd.map(format_usd).unwrap_or_else(|| "–".into()),
        ));
    }
    out.push('\n');
}

/// The run as a document to read: per mode, each question, each step's thought, actions and
/// observations, the answer, and the figures.
pub fn markdown(file: &RunFile) -> String {
    let mut out = format!("# ReAct Arena run: {}\n\n", cell(&file.title));
    out.push_str(&format!("- Run: {}\n", date_time(file.created)));
    out.push_str(&match file.settings.backend {
        Backend::Endpoint => format!("- Endpoint: `{}`\n", file.settings.base_url.trim()),
        Backend::Browser => format!(
            "- Model: in the browser (wllama {RUNTIME_VERSION}), from `{}`\n",
            file.settings.browser_model_url.trim()
        ),
    });
    let modes: Vec<&str> = file.records.iter().map(|r| r.config.mode.label()).collect();
    out.push_str(&format!("- Modes: {}\n\n", modes.join(", ")));
    if file.records.len() > 1 {
        comparison(&file.records, &mut out);
    }
    for record in &file.records {
        let c = &record.config;
        out.push_str(&format!("## {}\n\n", c.mode.label()));
        let mut setup = vec![format!("model `{}`", c.model)];
        if c.mode.uses_tools() {
            setup.push(format!("protocol {:?}", c.protocol).to_lowercase());
            setup.push(format!("at most {} steps", c.max_steps));
            if !c.tools.is_empty() {
                setup.push(format!("tools {}", c.tools.join(", ")));
            }
        }
        setup.push(format!("temperature {}", c.temperature));
        out.push_str(&format!("*Setup:* {}\n\n", setup.join(" · ")));
        if let Some(prompt) = &c.edited_prompt {
            out.push_str("*System prompt (edited in Settings, sent as written):*\n\n");
            out.push_str(&fenced(prompt));
            out.push('\n');
        }
        for (i, turn) in record.turns.iter().enumerate() {
            turn_markdown(record, i, turn, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::events::AgentEvent;
    use crate::agent::protocols::action_protocol::Protocol;
    use crate::agent::record::RunConfig;
    use crate::agent::Mode;
    use crate::llm::models::Pricing;
    use crate::llm::{ChatMessage, Usage};
    use crate::settings::Settings;

    /// Nov 14, 2023 22:13:20 UTC.
    const T0: f64 = 1_700_000_000_000.0;

    fn scripted_react() -> RunRecord {
        let config = RunConfig {
            mode: Mode::ReAct,
            model: "mock/model".into(),
            max_steps: 5,
            tools: vec!["calculator".into()],
            pricing: Some(Pricing {
                input: 1.0,
                output: 2.0,
            }),
            ..RunConfig::default()
        };
        let mut r = RunRecord::new("r1", T0, config);
        let mut at = |ms: f64, e: AgentEvent| r.apply(T0 + ms, &e);
        at(
            0.0,
            AgentEvent::SystemPrompt {
                text: "sys".into(),
                protocol: Protocol::Text,
            },
        );
        at(
            0.0,
            AgentEvent::TurnStarted {
                question: "What is 6 times 7?".into(),
            },
        );
        at(
            0.0,
            AgentEvent::StepStarted {
                step: 1,
                forced: false,
            },
        );
        at(300.0, AgentEvent::Token("Thought: multiply".into()));
        at(
            800.0,
            AgentEvent::Usage(Usage {
                prompt_tokens: 100,
                completion_tokens: 20,
                total_tokens: 120,
            }),
        );
        at(
            800.0,
            AgentEvent::Appended(ChatMessage::assistant("Thought: multiply")),
        );
        at(800.0, AgentEvent::Thought("I should multiply.".into()));
        at(
            800.0,
            AgentEvent::Action {
                tool: "calculator".into(),
                input: "6 * 7".into(),
            },
        );
        at(
            1500.0,
            AgentEvent::Observation {
                text: "42 ```tricky```".into(),
                is_error: false,
                failure: None,
            },
        );
        at(
            1500.0,
            AgentEvent::StepStarted {
                step: 2,
                forced: false,
            },
        );
        at(
            2000.0,
            AgentEvent::Usage(Usage {
                prompt_tokens: 130,
                completion_tokens: 5,
                total_tokens: 135,
            }),
        );
        at(
            2000.0,
            AgentEvent::Appended(ChatMessage::assistant("Answer: 42")),
        );
        at(
            2000.0,
            AgentEvent::Answer {
                text: "**42**".into(),
                forced: false,
                step: 2,
            },
        );
        r
    }

    #[test]
    fn the_markdown_tells_the_run_step_by_step_with_its_figures() {
        let mut think = RunRecord::new("r0", T0, RunConfig::default());
        think.config.mode = Mode::Think;
        think.apply(
            T0,
            &AgentEvent::TurnStarted {
                question: "What is 6 times 7?".into(),
            },
        );
        think.apply(T0, &AgentEvent::Error("HTTP 401: check the token".into()));
        let file = RunFile::new(
            "run-1".into(),
            T0,
            Settings::default(),
            vec![think, scripted_react()],
        );
        let md = markdown(&file);
        // 230 tokens in at $1/M and 25 out at $2/M, as the app writes dollars.
        let cost = format_usd(0.000_28);
        let react_row = format!(
            "| ReAct | **42** | 2 | 1 | 2.0 s | 230 prompt + 25 completion tokens | {cost} |"
        );
        let figures = format!("*Figures:* 2 steps · 1 tool call · first token 300 ms · 2.0 s in all (model 1.3 s, tools 700 ms) · 230 prompt + 25 completion tokens · cost {cost}");
        for expected in [
            "# ReAct Arena run: What is 6 times 7?",
            "- Run: 2023-11-14 22:13 UTC",
            "## Comparison",
            &react_row,
            "| Think-only | (error) |",
            "## Think-only",
            "**Error:** HTTP 401: check the token",
            "## ReAct",
            "*Setup:* model `mock/model` · protocol text · at most 5 steps · tools calculator",
            "> What is 6 times 7?",
            "#### Step 1",
            "**Thought**\n\n> I should multiply.",
            "**Action:** `calculator`\n\n```text\n6 * 7\n```",
            "**Observation**\n\n````text\n42 ```tricky```\n````",
            "#### Step 2",
            "**Answer (step 2)**\n\n> **42**",
            &figures,
        ] {
            assert!(md.contains(expected), "missing {expected:?} in\n{md}");
        }
        // Modes in panel order.
        assert!(md.find("## Think-only").unwrap() < md.find("## ReAct").unwrap());
    }

    /// A failed call says its kind, and the detail the model never read is the reader's.
    #[test]
    fn a_failed_call_says_its_kind_and_detail() {
        let mut r = scripted_react();
        let run = &mut r.turns[0].steps[0].tool_runs[0];
        run.is_error = true;
        run.output = Some("Error: Wikipedia did not answer within 8 s.".into());
        run.failure = Some(crate::tools::failure::Failed {
            kind: crate::tools::FailureKind::TimedOut,
            detail: Some("GET https://en.wikipedia.org/w/api.php?q=x".into()),
        });
        let file = RunFile::new("run-2".into(), T0, Settings::default(), vec![r]);
        let md = markdown(&file);
        for expected in [
            "**Observation (error: timed out)**\n\n```text\nError: Wikipedia did not answer",
            "*Detail (the model did not read it):*\n\n```text\nGET https://en.wikipedia.org/w/api.php?q=x\n```",
        ] {
            assert!(md.contains(expected), "missing {expected:?} in\n{md}");
        }
        // The JSON export keeps the kind, and an old file without one still reads.
        let json = serde_json::to_string(&file).unwrap();
        assert!(
            json.contains(r#""failure":{"kind":"timed_out","detail":"GET https"#),
            "{json}"
        );
        // A kind from a newer version reads as one this version does not know.
        let newer: RunFile =
            serde_json::from_str(&json.replace("\"timed_out\"", "\"quota_spent\"")).unwrap();
        let kind = newer.records[0].turns[0].steps[0].tool_runs[0]
            .failure
            .as_ref()
            .map(|f| f.kind);
        assert_eq!(kind, Some(crate::tools::FailureKind::Other));
        let back: RunFile = serde_json::from_str(&json).unwrap();
        assert_eq!(
            back.records[0].turns[0].steps[0].tool_runs[0].failure,
            file.records[0].turns[0].steps[0].tool_runs[0].failure
        );
    }

    #[test]
    fn a_run_on_the_model_in_this_browser_says_so_and_costs_nothing() {
        let mut react = scripted_react();
        react.config.backend = Backend::Browser;
        react.config.pricing = Some(crate::llm::models::Pricing {
            input: 0.0,
            output: 0.0,
        });
        let settings = Settings {
            backend: Backend::Browser,
            browser_model_url: "http://127.0.0.1:9/m/SmolLM2-135M-Instruct.Q4_1.gguf".into(),
            ..Settings::default()
        };
        let md = markdown(&RunFile::new("run-1".into(), T0, settings, vec![react]));
        assert!(
            md.contains("- Model: in the browser (wllama 3.13.0), from `http://127.0.0.1:9/m/SmolLM2-135M-Instruct.Q4_1.gguf`"),
            "{md}"
        );
        assert!(!md.contains("- Endpoint:"), "{md}");
        assert!(md.contains("cost $0.0000"), "{md}");
    }

    #[test]
    fn each_question_of_a_conversation_has_its_own_figures() {
        let mut r = scripted_react();
        r.apply(
            T0 + 10_000.0,
            &AgentEvent::TurnStarted {
                question: "And 7 × 8?".into(),
            },
        );
        r.apply(T0 + 10_000.0, &AgentEvent::Stopped);
        let md = markdown(&RunFile::new("x".into(), T0, Settings::default(), vec![r]));
        assert!(
            md.contains("### Question 1\n\n> What is 6 times 7?"),
            "{md}"
        );
        assert!(md.contains("### Question 2\n\n> And 7 × 8?"), "{md}");
        assert!(md.contains("**Stopped** by the user."), "{md}");
        assert!(md.contains("*Figures:* 0 steps"), "{md}");
        assert!(
            !md.contains("## Comparison"),
            "one mode: nothing to compare"
        );
    }

    #[test]
    fn file_names_carry_the_day_and_the_question() {
        assert_eq!(
            file_stem(T0, "What is 6 × 7, in Paris?"),
            "react-arena-2023-11-14-what-is-6-7-in-paris"
        );
        assert_eq!(file_stem(0.0, "¿¡!"), "react-arena-1970-01-01-run");
        let long = file_stem(T0, &"word ".repeat(30));
        assert!(
            long.len() <= "react-arena-2023-11-14-".len() + SLUG_CHARS,
            "{long}"
        );
        assert!(!long.ends_with('-'));
        assert_eq!(
            file_stem(T0, &"x".repeat(100)),
            format!("react-arena-2023-11-14-{}", "x".repeat(SLUG_CHARS))
        );
    }

    /// A file's times are anyone's to write: absurd ones read "unknown" and cost no time
    /// (the old calendar counted the years one at a time, for ever, at 1e300).
    #[test]
    fn absurd_times_in_a_file_read_unknown_at_once() {
        let started = std::time::Instant::now();
        let mut record = scripted_react();
        for step in record.turns.iter_mut().flat_map(|t| t.steps.iter_mut()) {
            step.t_reply = Some(1e300);
            step.t_tools_done = Some(-1e300);
        }
        let file = RunFile::new("x".into(), 1e300, Settings::default(), vec![record]);
        let md = markdown(&file);
        assert!(md.contains("- Run: unknown\n"), "{md}");
        assert!(
            !md.contains("0000000000"),
            "no absurd figure is written: {md}"
        );
        assert_eq!(file_stem(1e300, "Q"), "react-arena-unknown-q");
        assert_eq!(file_stem(-1.0, "Q"), "react-arena-unknown-q");
        // Only catches a hang (the old calendar counted 1e300 years one at a time).
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    /// Every key of the JSON whose name speaks of a secret holds no text: the token has no
    /// place in the file, whatever the settings and records hold.
    #[test]
    fn the_json_export_has_no_field_for_a_token() {
        fn check(value: &serde_json::Value, path: &str) {
            match value {
                serde_json::Value::Object(map) => {
                    for (key, v) in map {
                        let k = key.to_lowercase();
                        let secretish = ["token", "auth", "bearer", "secret", "key", "password"]
                            .iter()
                            .any(|w| k.contains(w));
                        assert!(
                            !(secretish && (v.is_string() || v.is_object() || v.is_array())),
                            "{path}.{key} could carry a secret: {v}"
                        );
                        check(v, &format!("{path}.{key}"));
                    }
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| check(v, path)),
                _ => {}
            }
        }
        let settings = Settings {
            remember_token: true,
            ..Settings::default()
        };
        let json = RunFile::new("x".into(), T0, settings, vec![scripted_react()]).to_json();
        check(&serde_json::from_str(&json).unwrap(), "");
        assert!(
            json.contains("\"remember_token\":true"),
            "the check saw the settings"
        );
        assert!(
            json.contains("\"prompt_tokens\":100"),
            "the check saw the usage"
        );
    }

    /// Settings stored by a hand or an older version with a token in them lose it on the
    /// way in: what is exported cannot carry it.
    #[test]
    fn a_token_slipped_into_the_stored_settings_is_not_exported() {
        let marker = "hf_test_marker_0000";
        let stored = format!(
            r#"{{"model":"m","token":"{marker}","hf_token":"{marker}","api_key":"{marker}"}}"#
        );
        let settings = Settings::from_json(&stored);
        assert_eq!(settings.model, "m", "the stored settings were read");
        let file = RunFile::new("x".into(), T0, settings, vec![scripted_react()]);
        assert!(!file.to_json().contains(marker));
        assert!(!markdown(&file).contains(marker));
    }
}
