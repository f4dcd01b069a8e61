//! How much a run file may hold. A file, an import or an address is anyone's to write, and a
//! few KB of deflated JSON can name a million empty steps: each limit is checked before the
//! run is drawn, and each stands far above what a real run holds (a run has one record per
//! mode, at most 20 steps and a final answer a question, about 13 objects and lists a step).

use crate::agent::record::{RunRecord, Step};

/// Objects and lists in the whole file, counted on its text before it is parsed.
pub const MAX_NESTED_VALUES: usize = 100_000;
/// Records (one per mode: a run has three at most).
pub const MAX_RECORDS: usize = 12;
/// Questions of one mode's conversation.
pub const MAX_TURNS: usize = 200;
/// Steps of one question (the settings allow 20 and a final answer).
pub const MAX_STEPS_PER_TURN: usize = 100;
/// Steps in the whole file.
pub const MAX_STEPS: usize = 5_000;
/// Tool calls of one step.
pub const MAX_CALLS_PER_STEP: usize = 64;
/// Messages, and notices, a step added.
pub const MAX_MESSAGES_PER_STEP: usize = 100;
/// System prompts of one mode's run (one more at each protocol switch).
pub const MAX_PROMPTS: usize = 200;
/// Characters of any one text: a question, a reply, an observation, a prompt.
pub const MAX_TEXT_CHARS: usize = 1_000_000;

/// Counts the objects and lists in JSON text without parsing it, stopping at `limit` + 1: a
/// linear scan of the bytes (brackets inside strings do not count), so a file of a million
/// `{}` costs a pass over its text and no memory.
pub fn nested_values_over(json: &str, limit: usize) -> bool {
    let mut count = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in json.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'{' || b == b'[' {
            count += 1;
            if count > limit {
                return true;
            }
        }
    }
    false
}

/// The message for a file over one of the limits: what was found, and the limit.
fn over(what: &str, limit: usize) -> String {
    format!(
        "The run holds more {what} than this app reads (at most {}); a real run holds far fewer, so the file was not shown.",
        thousands(limit)
    )
}

/// "100,000".
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The text of a file before parsing: at most `MAX_NESTED_VALUES` objects and lists.
pub fn check_text(json: &str) -> Result<(), String> {
    if nested_values_over(json, MAX_NESTED_VALUES) {
        return Err(over("objects and lists", MAX_NESTED_VALUES));
    }
    Ok(())
}

/// A parsed file's title and records: every count and text within its limit.
pub fn check(title: &str, records: &[RunRecord]) -> Result<(), String> {
    if records.len() > MAX_RECORDS {
        return Err(over("records", MAX_RECORDS));
    }
    text("title", title)?;
    let mut steps = 0usize;
    for record in records {
        check_record(record)?;
        steps += record.turns.iter().map(|t| t.steps.len()).sum::<usize>();
        if steps > MAX_STEPS {
            return Err(over("steps", MAX_STEPS));
        }
    }
    Ok(())
}

fn check_record(record: &RunRecord) -> Result<(), String> {
    if record.turns.len() > MAX_TURNS {
        return Err(over("questions in a conversation", MAX_TURNS));
    }
    if record.prompts.len() > MAX_PROMPTS {
        return Err(over("system prompts", MAX_PROMPTS));
    }
    if record.config.tools.len() > MAX_CALLS_PER_STEP {
        return Err(over("tools", MAX_CALLS_PER_STEP));
    }
    text("system prompt", &record.config.system_prompt)?;
    for prompt in &record.prompts {
        text("system prompt", &prompt.text)?;
    }
    if let Some(c) = &record.compaction {
        text("summary", &c.summary)?;
    }
    for turn in &record.turns {
        if turn.steps.len() > MAX_STEPS_PER_TURN {
            return Err(over("steps for one question", MAX_STEPS_PER_TURN));
        }
        text("question", &turn.question)?;
        if let Some(answer) = &turn.answer {
            text("answer", &answer.text)?;
        }
        if let Some(error) = &turn.error {
            text("error", error)?;
        }
        turn.steps.iter().try_for_each(check_step)?;
    }
    Ok(())
}

fn check_step(step: &Step) -> Result<(), String> {
    if step.tool_runs.len() > MAX_CALLS_PER_STEP {
        return Err(over("tool calls in one step", MAX_CALLS_PER_STEP));
    }
    if step.messages.len() > MAX_MESSAGES_PER_STEP {
        return Err(over("messages in one step", MAX_MESSAGES_PER_STEP));
    }
    if step.notices.len() > MAX_MESSAGES_PER_STEP {
        return Err(over("notices in one step", MAX_MESSAGES_PER_STEP));
    }
    text("reply", &step.live)?;
    text("reasoning", &step.reasoning)?;
    if let Some(thought) = &step.thought {
        text("thought", thought)?;
    }
    for notice in &step.notices {
        text("notice", notice)?;
    }
    for run in &step.tool_runs {
        text("tool input", &run.input)?;
        text("tool name", &run.tool)?;
        if let Some(output) = &run.output {
            text("observation", output)?;
        }
        if let Some(detail) = run.failure.as_ref().and_then(|f| f.detail.as_ref()) {
            text("failure detail", detail)?;
        }
    }
    for message in &step.messages {
        text("message", &message.content)?;
        if message.tool_calls.len() > MAX_CALLS_PER_STEP {
            return Err(over("tool calls in one message", MAX_CALLS_PER_STEP));
        }
        for call in &message.tool_calls {
            text("tool call", &call.arguments)?;
            text("tool name", &call.name)?;
        }
    }
    Ok(())
}

/// A text within `MAX_TEXT_CHARS` (its bytes bound its characters: counted only when long).
fn text(what: &str, s: &str) -> Result<(), String> {
    if s.len() > MAX_TEXT_CHARS && s.chars().count() > MAX_TEXT_CHARS {
        return Err(format!(
            "A {what} in the run is longer than this app reads (at most {} characters); the file was not shown.",
            thousands(MAX_TEXT_CHARS)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_values_are_counted_outside_strings_only() {
        assert!(!nested_values_over(r#"{"a":[1,{}]}"#, 3));
        assert!(nested_values_over(r#"{"a":[1,{}]}"#, 2));
        // Brackets in strings, and escaped quotes, do not count.
        assert!(!nested_values_over(r#"{"a":"[{[{\"[{"}"#, 1));
        let million = format!("[{}]", vec!["{}"; 1_000_000].join(","));
        assert!(nested_values_over(&million, MAX_NESTED_VALUES));
    }

    #[test]
    fn figures_read_with_thousands_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
