//! Kept runs, the pure part: what the history list shows of a stored run, its title, which
//! runs are kept, how a run that a reload cut is shown again, and what a refused write means
//! to the user. The browser side is `ui::keep` (IndexedDB) and `ui::history` (the list).

use serde::{Deserialize, Serialize};

use crate::agent::metrics::run_metrics;
use crate::agent::mode::ModeChoice;
use crate::agent::record::{Blind, RunRecord, Status};
use crate::agent::{AgentEvent, Mode};
use crate::panel_lines::error_line;
use crate::run_file::RunFile;
use crate::settings::Settings;

/// How many runs are kept; saving a new one deletes the least recently saved beyond this.
pub const KEEP_RUNS: usize = 100;

/// A streaming run is written at most this often (and once more when a panel's run ends):
/// a reload loses at most this much of what streamed, and the page serialises the run at
/// most twice a second instead of on every frame.
pub const SAVE_EVERY_MS: u32 = 500;

const TITLE_CHARS: usize = 80;
const OUTCOME_CHARS: usize = 140;
const UNTITLED: &str = "Untitled run";

/// One line of the history list: small, so the list loads without reading the runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunSummary {
    pub id: String,
    pub title: String,
    /// Milliseconds since the Unix epoch.
    pub created: f64,
    /// When it was last saved (a follow-up saves it again), epoch ms.
    pub updated: f64,
    pub turns: usize,
    pub modes: Vec<ModeOutcome>,
}

/// How one mode of a kept run ended, in a few words, with the figures and vote the
/// leaderboard reads (so it need not read the runs themselves).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeOutcome {
    pub mode: Mode,
    pub outcome: String,
    #[serde(default)]
    pub model: String,
    #[serde(default)]
    pub answered: bool,
    /// The run's time, when it ended.
    #[serde(default)]
    pub ms: Option<f64>,
    #[serde(default)]
    pub tokens: u64,
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// A blind run's panel: its letter and the user's vote, once given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blind: Option<Blind>,
    /// The run sent a system prompt edited in Settings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prompt_edited: bool,
}

impl ModeOutcome {
    fn of(record: &RunRecord) -> Self {
        let m = run_metrics(record, record.config.pricing);
        let ended = !record.status.is_active() && record.status != Status::Idle;
        ModeOutcome {
            mode: record.config.mode,
            outcome: outcome(record),
            model: record.config.model.clone(),
            answered: record.answer().is_some(),
            ms: m.total_ms.filter(|_| ended),
            tokens: m.tokens_in + m.tokens_out,
            cost_usd: m.cost_usd,
            blind: record.blind.clone(),
            prompt_edited: record.config.edited_prompt.is_some(),
        }
    }

    /// What the history list may say of this mode: nothing that names it while a blind
    /// run waits for its vote.
    pub fn hidden(&self) -> bool {
        self.blind.as_ref().is_some_and(Blind::hides)
    }
}

impl RunSummary {
    pub fn of(file: &RunFile, updated: f64) -> Self {
        RunSummary {
            id: file.id.clone(),
            title: file.title.clone(),
            created: file.created,
            updated,
            turns: file
                .records
                .iter()
                .map(|r| r.turns.len())
                .max()
                .unwrap_or(0),
            modes: file.records.iter().map(ModeOutcome::of).collect(),
        }
    }
}

/// The latest turn's answer, shortened, or what became of the turn.
fn outcome(record: &RunRecord) -> String {
    if let Some(answer) = record.answer() {
        return shortened(&answer.text, OUTCOME_CHARS);
    }
    if let Some(error) = error_line(record) {
        return format!("Error: {}", shortened(&error, OUTCOME_CHARS));
    }
    match record.status {
        Status::Stopped => "(stopped)".into(),
        // Saved while it ran: the page was closed or reloaded then (or it runs in another tab).
        s if s.is_active() => "(not finished)".into(),
        _ => "(no answer)".into(),
    }
}

/// `text` on one line, at most `max` characters (an ellipsis marks a cut). Only the start of
/// the text is read: the history line of a run with a long answer is made while it streams.
pub fn shortened(text: &str, max: usize) -> String {
    // The words joined by single spaces, read lazily: one character more than fits says the
    // line must be cut.
    let mut line: String = text
        .split_whitespace()
        .enumerate()
        .flat_map(|(i, word)| (i > 0).then_some(' ').into_iter().chain(word.chars()))
        .take(max.saturating_add(1))
        .collect();
    if line.chars().count() <= max {
        return line;
    }
    let end = line
        .char_indices()
        .nth(max.saturating_sub(1))
        .map_or(line.len(), |(i, _)| i);
    line.truncate(end);
    line.truncate(line.trim_end().len());
    line.push('…');
    line
}

/// A new run's title: its first question.
pub fn default_title(records: &[RunRecord]) -> String {
    let question = records
        .iter()
        .find_map(|r| r.turns.first())
        .map_or("", |t| t.question.as_str());
    let title = shortened(question, TITLE_CHARS);
    if title.is_empty() {
        UNTITLED.into()
    } else {
        title
    }
}

/// The title after the user typed `input`; an empty field keeps the old title.
pub fn renamed(input: &str, old: &str) -> String {
    let title = shortened(input, TITLE_CHARS * 2);
    if title.is_empty() {
        old.to_string()
    } else {
        title
    }
}

/// The stored form of a run the panels show.
pub fn kept_file(
    id: &str,
    created: f64,
    title: &str,
    settings: &Settings,
    records: Vec<RunRecord>,
) -> RunFile {
    RunFile {
        title: title.to_string(),
        ..RunFile::new(id.to_string(), created, settings.clone(), records)
    }
}

/// A kept run as it is shown again: a mode that was still going when it was saved went no
/// further (the page was reloaded or closed), and says so.
pub fn reopened(file: RunFile, at: f64) -> RunFile {
    let records = file
        .records
        .into_iter()
        .map(|mut r| {
            r.apply(at, &AgentEvent::Interrupted);
            r
        })
        .collect();
    RunFile { records, ..file }
}

/// Sorts the list as it is shown: the most recently saved first.
pub fn sort_newest_first(runs: &mut [RunSummary]) {
    runs.sort_by(|a, b| b.updated.total_cmp(&a.updated).then(a.id.cmp(&b.id)));
}

/// Puts a saved run's line in the list (in place of its older line), newest first.
pub fn upsert(runs: &mut Vec<RunSummary>, summary: RunSummary) {
    runs.retain(|r| r.id != summary.id);
    runs.push(summary);
    sort_newest_first(runs);
}

/// The runs to delete so that only the `keep` most recently saved remain.
pub fn runs_to_drop(runs: &[RunSummary], keep: usize) -> Vec<String> {
    let mut sorted = runs.to_vec();
    sort_newest_first(&mut sorted);
    sorted.into_iter().skip(keep).map(|r| r.id).collect()
}

/// The run to show when the page loads: the one saved last.
pub fn latest(runs: &[RunSummary]) -> Option<&RunSummary> {
    runs.iter().max_by(|a, b| a.updated.total_cmp(&b.updated))
}

/// The mode selector's choice for a run of these modes, so that Run follows up on it.
pub fn mode_choice_for(modes: &[Mode]) -> ModeChoice {
    match modes {
        [one] => ModeChoice::One(*one),
        _ => ModeChoice::All,
    }
}

/// "2026-11-23 09:27" from the parts of a local date.
pub fn format_when(year: u32, month: u32, day: u32, hour: u32, minute: u32) -> String {
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}")
}

/// What a refused IndexedDB open or write means, from the browser's error name and message.
pub fn storage_refusal(name: &str, message: &str) -> String {
    let why = if message.trim().is_empty() {
        name.to_string()
    } else {
        format!("{name}: {}", message.trim())
    };
    let consequence = "It still shows and works here, but will be gone after a reload.";
    match name {
        "QuotaExceededError" => format!(
            "This run is not kept: the browser refused to store it ({why}). Storage for this \
             site is full: delete runs in History or free disk space. {consequence}"
        ),
        "SecurityError" | "InvalidStateError" | "NotSupportedError" | "UnknownError" => format!(
            "Runs are not kept: this browser does not let the page store them ({why}); storage \
             may be disabled or the window private. {consequence}"
        ),
        _ => {
            format!("This run is not kept: the browser refused to store it ({why}). {consequence}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `shortened` must give: the whole text on one line, cut to `max` characters.
    fn shortened_whole(text: &str, max: usize) -> String {
        let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.chars().count() <= max {
            return line;
        }
        let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
        cut.truncate(cut.trim_end().len());
        cut.push('…');
        cut
    }

    #[test]
    fn shortened_reads_only_the_start_but_says_the_same() {
        let texts = [
            "",
            "   ",
            "one",
            "one two",
            "  one \n\t two  three ",
            "abcdefghij",
            "abcde fghij",
            "abcd efghij",
            "ab  cd",
            "héllo wörld ünïcode ✓✓✓ 漢字 かな",
            "a b c d e f g h i j k l m n o p",
            "word-without-spaces-that-goes-on-and-on",
        ];
        for text in texts {
            for max in 0..14 {
                assert_eq!(
                    shortened(text, max),
                    shortened_whole(text, max),
                    "{text:?} at {max}"
                );
            }
        }
        // A long answer: the same line as reading it all.
        let long = "The answer is **long** and\n\nit goes on. ".repeat(50_000);
        assert_eq!(shortened(&long, 60), shortened_whole(&long, 60));
    }
    use crate::agent::record::{RunConfig, INTERRUPTED_NOTICE};

    fn record(mode: Mode, question: &str, events: &[AgentEvent]) -> RunRecord {
        let mut r = RunRecord::new(
            format!("r-{}", mode.id()),
            5.0,
            RunConfig {
                mode,
                ..RunConfig::default()
            },
        );
        r.apply(
            1.0,
            &AgentEvent::TurnStarted {
                question: question.into(),
            },
        );
        r.apply(
            2.0,
            &AgentEvent::StepStarted {
                step: 1,
                forced: false,
            },
        );
        for e in events {
            r.apply(3.0, e);
        }
        r
    }

    fn answer(text: &str) -> AgentEvent {
        AgentEvent::Answer {
            text: text.into(),
            forced: false,
            step: 1,
        }
    }

    fn summary(id: &str, updated: f64) -> RunSummary {
        RunSummary {
            id: id.into(),
            updated,
            ..RunSummary::default()
        }
    }

    #[test]
    fn a_run_is_titled_by_its_first_question_on_one_line() {
        let q = "  What is\n the weather\tin Paris?  ";
        let records = [record(Mode::Think, q, &[])];
        assert_eq!(default_title(&records), "What is the weather in Paris?");
        let long = "why ".repeat(40);
        let title = default_title(&[record(Mode::Act, &long, &[])]);
        assert_eq!(title.chars().count(), TITLE_CHARS);
        assert!(title.ends_with("why…"), "{title}");
        assert_eq!(default_title(&[]), "Untitled run");
        assert_eq!(default_title(&[RunRecord::default()]), "Untitled run");
    }

    #[test]
    fn renaming_to_nothing_keeps_the_old_title() {
        assert_eq!(renamed("  Paris  weather ", "old"), "Paris weather");
        assert_eq!(renamed("   ", "old"), "old");
    }

    #[test]
    fn the_summary_says_each_modes_answer_or_what_became_of_it() {
        let records = vec![
            record(Mode::Think, "q", &[answer("  It is\n 12 °C. ")]),
            record(
                Mode::Act,
                "q",
                &[AgentEvent::Error("401: check the token".into())],
            ),
            record(Mode::ReAct, "q", &[AgentEvent::Token("Thought: hm".into())]),
        ];
        let file = kept_file("run-1", 7.0, "Weather", &Settings::default(), records);
        let s = RunSummary::of(&file, 9.0);
        assert_eq!((s.id.as_str(), s.title.as_str()), ("run-1", "Weather"));
        assert_eq!((s.created, s.updated, s.turns), (7.0, 9.0, 1));
        let outcomes: Vec<(Mode, &str)> = s
            .modes
            .iter()
            .map(|m| (m.mode, m.outcome.as_str()))
            .collect();
        assert_eq!(
            outcomes,
            [
                (Mode::Think, "It is 12 °C."),
                (Mode::Act, "Error: 401: check the token"),
                (Mode::ReAct, "(not finished)"),
            ]
        );
        let stopped = record(Mode::Think, "q", &[AgentEvent::Stopped]);
        assert_eq!(outcome(&stopped), "(stopped)");
    }

    #[test]
    fn a_blind_run_s_line_names_no_model_in_an_error_until_the_vote() {
        let said = AgentEvent::Error("Provider said (404): lab/actor-8b is unknown".into());
        let mut r = record(Mode::Act, "q", &[said]);
        r.config.model = "lab/actor-8b".into();
        r.blind = Some(Blind {
            label: "B".into(),
            vote: None,
        });
        assert_eq!(
            outcome(&r),
            "Error: Provider said (404): the model is unknown"
        );
        r.blind.as_mut().unwrap().vote = Some(crate::agent::record::BlindVote::Tie);
        assert_eq!(
            outcome(&r),
            "Error: Provider said (404): lab/actor-8b is unknown"
        );
    }

    #[test]
    fn a_run_saved_mid_stream_reopens_stopped_where_it_was_with_a_notice() {
        let streaming = record(
            Mode::ReAct,
            "q",
            &[AgentEvent::Token("Thought: half".into())],
        );
        let done = record(Mode::Think, "q", &[answer("42")]);
        let file = kept_file(
            "run-1",
            1.0,
            "t",
            &Settings::default(),
            vec![done.clone(), streaming],
        );
        let back = reopened(file, 50.0);
        assert_eq!(back.records[0], done, "a finished mode is left as it was");
        let r = &back.records[1];
        assert_eq!(r.status, Status::Stopped);
        assert!(r.turns[0].stopped);
        assert_eq!(
            r.turns[0].steps[0].live, "Thought: half",
            "what streamed stays"
        );
        assert_eq!(r.turns[0].steps[0].notices, [INTERRUPTED_NOTICE]);
        // Reopening again changes nothing more.
        assert_eq!(reopened(back.clone(), 60.0), back);
    }

    #[test]
    fn only_the_most_recently_saved_runs_are_kept() {
        let runs: Vec<RunSummary> = (0..5)
            .map(|i| summary(&format!("r{i}"), i as f64))
            .collect();
        assert_eq!(runs_to_drop(&runs, 3), ["r1", "r0"]);
        assert!(runs_to_drop(&runs, 5).is_empty());
        assert_eq!(latest(&runs).map(|r| r.id.as_str()), Some("r4"));
        assert_eq!(latest(&[]), None);
    }

    #[test]
    fn a_saved_run_replaces_its_line_and_goes_to_the_top() {
        let mut runs = vec![summary("a", 1.0), summary("b", 2.0)];
        sort_newest_first(&mut runs);
        assert_eq!(runs[0].id, "b");
        upsert(&mut runs, summary("a", 3.0));
        let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        upsert(&mut runs, summary("c", 0.5));
        assert_eq!(runs.len(), 3);
        assert_eq!(runs[2].id, "c");
    }

    #[test]
    fn a_reopened_run_selects_its_modes() {
        assert_eq!(mode_choice_for(&[Mode::Act]), ModeChoice::One(Mode::Act));
        assert_eq!(mode_choice_for(&Mode::ALL), ModeChoice::All);
    }

    #[test]
    fn refusals_say_what_happened_and_what_it_means() {
        let full = storage_refusal("QuotaExceededError", "The quota has been exceeded.");
        assert!(full.starts_with("This run is not kept: the browser refused to store it (QuotaExceededError: The quota has been exceeded.)"), "{full}");
        assert!(full.contains("delete runs in History"), "{full}");
        let disabled = storage_refusal("SecurityError", "");
        assert!(disabled.contains("(SecurityError)"), "{disabled}");
        assert!(disabled.contains("private"), "{disabled}");
        assert!(storage_refusal("AbortError", "x").contains("still shows and works"));
    }

    #[test]
    fn times_read_as_local_date_and_minute() {
        assert_eq!(format_when(2026, 1, 5, 9, 7), "2026-01-05 09:07");
    }

    #[test]
    fn a_summary_round_trips_and_tolerates_missing_fields() {
        let s = summary("x", 4.0);
        let back: RunSummary = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let partial: RunSummary = serde_json::from_str(r#"{"id":"y"}"#).unwrap();
        assert_eq!(partial.id, "y");
    }
}
