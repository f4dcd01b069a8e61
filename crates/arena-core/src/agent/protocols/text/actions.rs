//! Actions: the tool and its input, from labelled sections or a bare call form.

use super::*;

/// A call's input as the model wrote it: the text shown for it, and the value the tool's
/// schema reads (the JSON the input was written as, or else the text itself).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Written {
    pub(super) shown: String,
    pub(super) args: Value,
}

impl Written {
    pub(super) fn text(text: String) -> Self {
        Self {
            args: Value::String(text.clone()),
            shown: text,
        }
    }
}

pub(super) enum Outcome {
    Call {
        tool: String,
        input: Written,
    },
    /// `Finish[…]`, `Action: Final Answer`: an answer dressed as an action.
    Finish(String),
    /// `Action: None` and the like.
    NoTool,
    Problem(String),
}

pub(super) fn resolve_action(sections: &[Section], at: usize) -> Outcome {
    let text = sections[at].text.as_str();
    let first = text.lines().next().unwrap_or("").trim();

    // A JSON action in the Action section: `Action:\n```json\n{"action": …}\n````.
    let body = text.trim();
    if body.starts_with(['{', '[']) || body.starts_with("```") {
        if let Some(call) = parse_blob(body) {
            return blob_outcome(call);
        }
    }

    let tool_line = if first.is_empty() {
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("```"))
            .unwrap_or("")
    } else {
        first
    };
    if let Some(input_section) = input_section(sections, at) {
        let tool = tool_name_from_line(tool_line);
        if names_no_tool(&tool) {
            return Outcome::NoTool;
        }
        if is_finish_name(&tool) {
            return Outcome::Finish(input_from_text(&input_section.text, "").shown);
        }
        let input = input_from_text(&input_section.text, &tool);
        if input.shown.is_empty() {
            return Outcome::Problem(format!("The 'Action Input:' for {tool} is empty."));
        }
        return Outcome::Call { tool, input };
    }
    let from_tool = text
        .find(tool_line)
        .map_or(tool_line, |p| &text[p..])
        .trim();
    if let Some((tool, input)) = call_form(from_tool) {
        if names_no_tool(&tool) {
            return Outcome::NoTool;
        }
        if is_finish_name(&tool) {
            return Outcome::Finish(input.shown);
        }
        if input.shown.is_empty() {
            return Outcome::Problem(format!("The input for {tool} is empty."));
        }
        return Outcome::Call { tool, input };
    }
    let tool = tool_name_from_line(tool_line);
    if names_no_tool(&tool) {
        return Outcome::NoTool;
    }
    Outcome::Problem(format!(
        "The 'Action:' line ({tool}) has no 'Action Input:' line after it."
    ))
}

/// The `Action Input:` belonging to the action at `at`: after it, or (order swapped) before it,
/// never across another action or answer.
pub(super) fn input_section(sections: &[Section], at: usize) -> Option<&Section> {
    let stop = |s: &&Section| {
        !matches!(
            s.label,
            Some(Label::Action | Label::Answer | Label::Question)
        )
    };
    sections[at + 1..]
        .iter()
        .take_while(stop)
        .find(|s| s.label == Some(Label::ActionInput))
        .or_else(|| {
            sections[..at]
                .iter()
                .rev()
                .take_while(stop)
                .find(|s| s.label == Some(Label::ActionInput))
        })
}

/// The tool named on an `Action:` line that has a separate `Action Input:`:
/// `[calculator]`, `**calculator**`, `calculator (to multiply)`, `calculator.`.
pub(super) fn tool_name_from_line(line: &str) -> String {
    let mut s = line.trim();
    if let Some(inner) = s.strip_prefix('[') {
        s = inner.split(']').next().unwrap_or(inner);
    }
    if let Some(p) = s.find(['(', '[', ':', '{']) {
        if p > 0 {
            s = &s[..p];
        }
    }
    clean_tool_name(s)
}

/// A plausible tool name: a word or three, no sentence.
pub(super) fn name_like(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_alphabetic)
        && name.chars().count() <= 40
        && name.split_whitespace().count() <= 3
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '))
}

/// `calculator[2+2]`, `calculator(3*3)`, `web_search(query="x")`, `calculator: 4*4`.
/// Text after the closing bracket is commentary and ignored.
pub(super) fn call_form(s: &str) -> Option<(String, Written)> {
    let first_line = s.lines().next().unwrap_or("");
    if let Some(open) = first_line.find(['[', '(']) {
        let tool = clean_tool_name(&first_line[..open]);
        if !name_like(&tool) {
            return None;
        }
        let close_char = if first_line[open..].starts_with('[') {
            ']'
        } else {
            ')'
        };
        let inner = &s[open + 1..];
        let end = matching_close(inner, close_char, true)
            .or_else(|| matching_close(inner, close_char, false))?;
        return Some((tool.clone(), call_arguments(&inner[..end], &tool)));
    }
    let (tool, input) = first_line.split_once(':')?;
    let tool = clean_tool_name(tool);
    if !name_like(&tool) || input.trim().is_empty() {
        return None;
    }
    Some((tool.clone(), input_from_text(input, &tool)))
}

/// A reply with no labels whose last line is exactly `calculator[6*7]` or `web_search("x")`:
/// one word glued to its bracket, nothing after. Returns where that line starts.
pub(super) fn bare_call(content: &str) -> Option<(usize, String, Written)> {
    let line = content
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("```"))?;
    let open = line.find(['[', '('])?;
    let tool = &line[..open];
    if tool.is_empty()
        || !tool.starts_with(|c: char| c.is_ascii_alphabetic())
        || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    let close = if line[open..].starts_with('[') {
        ']'
    } else {
        ')'
    };
    let inner = &line[open + 1..];
    let end = matching_close(inner, close, true).or_else(|| matching_close(inner, close, false))?;
    if !inner[end + 1..].trim().is_empty() {
        return None;
    }
    let at = content.rfind(line)?;
    Some((at, tool.to_string(), call_arguments(&inner[..end], tool)))
}

/// Byte index in `s` of the bracket closing an already opened one.
pub(super) fn matching_close(s: &str, close: char, mind_quotes: bool) -> Option<usize> {
    let open = if close == ']' { '[' } else { '(' };
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' if mind_quotes => quote = Some(c),
            c if c == open => depth += 1,
            c if c == close => {
                if depth == 0 {
                    return Some(i);
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    None
}

/// Inside `tool(…)`: one keyword argument or one quoted string is unwrapped.
pub(super) fn call_arguments(inner: &str, tool: &str) -> Written {
    let s = inner.trim();
    let ident_end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    if ident_end > 0 {
        let after = s[ident_end..].trim_start();
        if let Some(value) = after.strip_prefix('=') {
            let value = value.trim();
            if let Some(unquoted) = whole_quoted(value) {
                return Written::text(cut_observation(&unquoted));
            }
        }
    }
    input_from_text(s, tool)
}

/// `"…"` (a JSON string, escapes decoded) or `'…'` holding no other quote of its kind.
pub(super) fn whole_quoted(s: &str) -> Option<String> {
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        if let Ok(v) = serde_json::from_str::<String>(s) {
            return Some(v);
        }
    }
    for q in ['"', '\'', '`'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            if !inner.contains(q) {
                return Some(inner.to_string());
            }
        }
    }
    None
}

/// Tools whose input is a program: multi-line input is kept whole.
pub(super) fn is_code_tool(tool: &str) -> bool {
    let t = tool.to_ascii_lowercase();
    [
        "python",
        "code",
        "repl",
        "javascript",
        "shell",
        "bash",
        "sql",
    ]
    .iter()
    .any(|w| t.contains(w))
}

/// The input in the text after `Action Input:`.
pub(super) fn input_from_text(text: &str, tool: &str) -> Written {
    let written = raw_input(text, tool);
    let shown = cut_observation(&written.shown);
    match written.args {
        // JSON ends at its own closing bracket: nothing after it was part of it.
        Value::String(_) => Written::text(shown),
        args => Written { shown, args },
    }
}

pub(super) fn raw_input(text: &str, tool: &str) -> Written {
    let code = is_code_tool(tool);
    let body = text.trim_start();
    if body.starts_with("```") {
        let inner = unfence(body);
        let t = inner.trim();
        if t.starts_with(['{', '"']) {
            if let Some((value, _)) = first_json(t) {
                return json_input(&value);
            }
        }
        return Written::text(if code {
            inner.trim_matches('\n').trim_end().to_string()
        } else {
            t.to_string()
        });
    }
    if body.starts_with(['{', '[', '"']) {
        if let Some((value, raw)) = first_json(body) {
            // Only a value that ends its line (or, for a non-code tool, is followed by
            // commentary after a space): `"hello".upper()` and `[1] + [2]` are code.
            let after = body[raw.len()..].lines().next().unwrap_or("");
            if after.trim().is_empty() || (!code && after.starts_with(char::is_whitespace)) {
                return json_input(&value);
            }
        }
        if let Some(v) = python_dict_one_field(body.lines().next().unwrap_or("")) {
            return Written::text(v);
        }
    }
    if code {
        let mut lines: Vec<&str> = body.lines().collect();
        while let Some(last) = lines.last() {
            let t = last.trim();
            if t.is_empty() || t == "```" || (looks_like_prose(t) && lines.len() > 1) {
                lines.pop();
            } else {
                break;
            }
        }
        let joined = lines.join("\n");
        if lines.len() == 1 {
            return Written::text(unquote(joined.trim()));
        }
        return Written::text(joined.trim_end().to_string());
    }
    let line = body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    Written::text(unquote(line))
}

/// A quoted or backticked single value loses its quotes.
pub(super) fn unquote(s: &str) -> String {
    let s = s.trim();
    whole_quoted(s).map_or_else(|| s.to_string(), |v| v.trim().to_string())
}

/// A line of commentary rather than code: a sentence.
pub(super) fn looks_like_prose(line: &str) -> bool {
    line.split_whitespace().count() >= 3
        && line.chars().next().is_some_and(char::is_alphabetic)
        && line.ends_with(['.', '!', '?'])
        && !line.contains(['(', '=', '[', '"', '\'', '#'])
}

/// JSON given as an input: the tool's schema reads the value; it is shown as every protocol
/// shows arguments ([`shown_input`]).
pub(super) fn json_input(value: &Value) -> Written {
    let args = without_observations(value);
    Written {
        shown: shown_input(&args).trim().to_string(),
        args,
    }
}

/// `value` with every string in it cut at a line the model labelled as an observation: an
/// observation it wrote itself is never part of a call, inside JSON or not.
pub(super) fn without_observations(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(cut_observation(s)),
        Value::Array(items) => Value::Array(items.iter().map(without_observations).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), without_observations(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `{'query': 'Eiffel Tower'}`: a Python dict with one string field, as small models write.
pub(super) fn python_dict_one_field(line: &str) -> Option<String> {
    let s = line.trim().strip_prefix('{')?.strip_suffix('}')?.trim();
    let q = s.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let rest = &s[1..];
    let key_end = rest.find(q)?;
    let after_key = rest[key_end + 1..].trim_start().strip_prefix(':')?.trim();
    let v = after_key.strip_prefix(['\'', '"'])?;
    let vq = after_key.chars().next()?;
    let inner = v.strip_suffix(vq)?;
    (!inner.contains(vq)).then(|| inner.trim().to_string())
}

/// Nothing from a line the model labelled as an observation on is part of an input.
pub(super) fn cut_observation(input: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for line in input.lines() {
        if matches!(label_of(line), Some((Label::Observation, _))) {
            break;
        }
        kept.push(line);
    }
    if kept.len() == input.lines().count() {
        return input.to_string();
    }
    kept.join("\n").trim_end().to_string()
}

/// How many actions the reply holds, invented observations and all.
pub(super) fn count_actions(content: &str) -> usize {
    let (sections, _) = split_sections(content, false);
    sections
        .iter()
        .filter(|s| s.label == Some(Label::Action))
        .filter(|s| {
            let body = s.text.trim();
            if body.is_empty() {
                return false;
            }
            if body.starts_with(['{', '[']) || body.starts_with("```") {
                return true;
            }
            let line = body.lines().next().unwrap_or("");
            let tool = tool_name_from_line(line);
            !names_no_tool(&tool) && !is_finish_name(&tool)
        })
        .count()
}
