//! Reading a model's reply in the text protocol:
//! `Thought:` / `Action:` / `Action Input:` / `Answer:` (or `Final Answer:`).
//!
//! Models vary the format freely, and this reader accepts what they really write:
//! - labels in any case and spacing, bold (`**Action:**`), as headings (`### Action`), numbered
//!   (`1. Thought:`, `Thought 2:`), or run together on one line (`Action: x Action Input: y`);
//! - `Action: tool[input]`, `tool(input)`, `tool(query="…")`, `tool: input`;
//! - inputs as plain text, quoted, in backticks, in code fences, as JSON with one field
//!   (`{"query": "…"}` → the string; several fields stay JSON text), on the lines after
//!   `Action Input:`, and multi-line code for code tools;
//! - `Action: None` followed by an answer; `Finish[answer]` and `Action: Final Answer`;
//! - JSON tool calls with no label (LangChain's `{"action": …, "action_input": …}`, Hermes
//!   `<tool_call>`, Llama's `{"name": …, "parameters": …}`) when the reply has no labels at all;
//! - reasoning in `<think>…</think>` and gpt-oss harmony channels, which is ignored.
//!
//! A model sometimes writes its own `Observation:`; everything from such a line on is dropped,
//! never trusted. When a reply holds several actions, the first is taken and the model is told.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Answer {
        thought: Option<String>,
        answer: String,
    },
    Action {
        thought: Option<String>,
        tool: String,
        input: String,
        /// Something to tell the model with the observation, e.g. that only the first of
        /// several actions was run, or that the observation it wrote itself was ignored.
        note: Option<String>,
    },
    /// Neither a usable action nor an answer; `problem` is told to the model.
    Invalid {
        thought: Option<String>,
        problem: String,
    },
}

/// Reads an Act-only or ReAct reply.
pub fn parse_reply(text: &str) -> Reply {
    let prepared = prepare(text);
    let content = prepared.content.as_str();
    let (sections, cut) = split_sections(content, true);
    let thought = thought_of(&sections);

    if let Some(call) = prepared.harmony_call {
        return blob_reply(thought, call, cut, Vec::new());
    }

    let mut no_tool = false;
    let mut empty_answer = false;
    for (i, section) in sections.iter().enumerate() {
        match section.label {
            Some(Label::Answer) => {
                let answer = clean_answer(&section.text);
                if !answer.is_empty() {
                    return Reply::Answer { thought, answer };
                }
                empty_answer = true;
            }
            Some(Label::Action) => match resolve_action(&sections, i) {
                Outcome::NoTool => no_tool = true,
                Outcome::Finish(answer) if !answer.is_empty() => {
                    return Reply::Answer { thought, answer }
                }
                Outcome::Finish(_) => empty_answer = true,
                Outcome::Problem(problem) => return Reply::Invalid { thought, problem },
                Outcome::Call { tool, input } => {
                    let mut notes = Vec::new();
                    let count = count_actions(content);
                    if count > 1 {
                        notes.push(several_actions_note(count, &tool));
                    }
                    if cut {
                        notes.push(OWN_OBSERVATION_NOTE.to_string());
                    }
                    let answered = sections[i + 1..].iter().any(|s| {
                        s.label == Some(Label::Answer) && !clean_answer(&s.text).is_empty()
                    });
                    if answered {
                        notes.push(EARLY_ANSWER_NOTE.to_string());
                    }
                    return Reply::Action {
                        thought,
                        tool,
                        input,
                        note: join_notes(notes),
                    };
                }
            },
            _ => {}
        }
    }

    // No usable label: a JSON tool call, an answer in tags, or a harmony final message.
    if let Some((at, call)) = find_json_call(content) {
        let (before, _) = split_sections(&content[..at], true);
        return blob_reply(thought_of(&before), call, cut, Vec::new());
    }
    if let Some((at, tool, input)) = bare_call(content) {
        let (before, _) = split_sections(&content[..at], true);
        let call = BlobCall {
            tool,
            input,
            count: 1,
        };
        return blob_reply(thought_of(&before), call, cut, Vec::new());
    }
    if let Some(answer) = tagged_answer(content) {
        let thought = match find_ci(content, "<answer>") {
            Some(at) => thought_of(&split_sections(&content[..at], true).0),
            None => thought,
        };
        return Reply::Answer { thought, answer };
    }
    // A harmony `final` message with no labels is the model's answer to the user.
    if prepared.final_channel && !no_tool && !empty_answer && !cut {
        let answer = thought.as_deref().map(clean_answer).unwrap_or_default();
        if !answer.is_empty() {
            return Reply::Answer {
                thought: None,
                answer,
            };
        }
    }

    let problem = if empty_answer {
        "The 'Answer:' line is empty.".to_string()
    } else if no_tool {
        "The 'Action:' line names no tool.".to_string()
    } else if sections.iter().any(|s| s.label == Some(Label::ActionInput)) {
        "The reply has an 'Action Input:' line but no 'Action:' line naming the tool.".to_string()
    } else if text.trim().is_empty() {
        "The reply was empty.".to_string()
    } else if content.trim().is_empty() && prepared.had_reasoning {
        "The reply has only reasoning, with neither an 'Action:' line nor an 'Answer:' line after it."
            .to_string()
    } else if cut {
        "The reply has neither an 'Action:' line nor an 'Answer:' line before the 'Observation:' \
         it wrote itself (observations come only from the tools)."
            .to_string()
    } else {
        "The reply has neither an 'Action:' line nor an 'Answer:' line.".to_string()
    };
    Reply::Invalid { thought, problem }
}

/// Reads a Think-only reply: the reasoning and, if present, the labelled answer.
pub fn parse_think(text: &str) -> (Option<String>, Option<String>) {
    let prepared = prepare(text);
    let (sections, _) = split_sections(&prepared.content, true);
    let thought = thought_of(&sections);
    let answer = sections
        .iter()
        .filter(|s| s.label == Some(Label::Answer))
        .map(|s| clean_answer(&s.text))
        .find(|a| !a.is_empty())
        .or_else(|| tagged_answer(&prepared.content));
    (thought, answer)
}

const OWN_OBSERVATION_NOTE: &str =
    "The Observation you wrote yourself was ignored: observations come only from the tools.";
const EARLY_ANSWER_NOTE: &str = "The Answer you wrote before seeing the tool's result was ignored.";

fn several_actions_note(count: usize, tool: &str) -> String {
    format!("Your reply had {count} actions; only the first ({tool}) was run.")
}

fn join_notes(notes: Vec<String>) -> Option<String> {
    (!notes.is_empty()).then(|| notes.join(" "))
}

// ---------------------------------------------------------------------------------------------
// Preparation: reasoning blocks, harmony channels, stray special tokens.

struct Prepared {
    /// What is left to read as the protocol.
    content: String,
    /// `<think>` blocks or harmony analysis were removed.
    had_reasoning: bool,
    /// The content came from a harmony `final` channel: the model's message to the user.
    final_channel: bool,
    /// A harmony tool call (`to=functions.x`), when it comes before any final message.
    harmony_call: Option<BlobCall>,
}

/// Special tokens that leak into content when a server does not strip them.
const STRAY_TOKENS: [&str; 9] = [
    "<|eot_id|>",
    "<|eom_id|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<end_of_turn>",
    "<|python_tag|>",
    "<|return|>",
    "</s>",
];

fn prepare(text: &str) -> Prepared {
    // Old Mac line ends (a lone CR) are line ends too: `str::lines` only splits on LF.
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let (mut content, mut had_reasoning) = strip_reasoning_tags(&text);
    let mut final_channel = false;
    let mut harmony_call = None;
    if let Some(h) = read_harmony(&content) {
        had_reasoning |= h.had_analysis;
        final_channel = h.final_text.is_some();
        harmony_call = h.call;
        content = match h.final_text {
            Some(f) if h.prefix.trim().is_empty() => f,
            Some(f) => format!("{}\n{f}", h.prefix),
            None => h.prefix,
        };
    }
    for token in STRAY_TOKENS {
        if content.contains(token) {
            content = content.replace(token, "\n");
        }
    }
    Prepared {
        content,
        had_reasoning,
        final_channel,
        harmony_call,
    }
}

/// Removes `<think>…</think>` (and `<thinking>`, `<reasoning>`) blocks. A closing tag with no
/// opening one ends reasoning that the chat template opened; an opening tag that never closes
/// starts reasoning that runs to the end.
fn strip_reasoning_tags(text: &str) -> (String, bool) {
    let mut out = text.to_string();
    let mut had = false;
    for tag in ["think", "thinking", "reasoning"] {
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        if find_ci(&out, &open).is_none() && find_ci(&out, &close).is_none() {
            continue;
        }
        had = true;
        let mut kept = String::new();
        let mut rest = out.as_str();
        loop {
            let o = find_ci(rest, &open);
            let c = find_ci(rest, &close);
            if let Some(c) = c.filter(|&c| o.is_none_or(|o| c < o)) {
                // A close before any open: all so far was reasoning.
                kept.clear();
                rest = &rest[c + close.len()..];
            } else if let Some(o) = o {
                kept.push_str(&rest[..o]);
                let after = &rest[o + open.len()..];
                match find_ci(after, &close) {
                    Some(c) => rest = &after[c + close.len()..],
                    None => break,
                }
            } else {
                kept.push_str(rest);
                break;
            }
        }
        out = kept;
    }
    (out, had)
}

struct Harmony {
    /// Text outside any channel, plus commentary preambles.
    prefix: String,
    final_text: Option<String>,
    call: Option<BlobCall>,
    had_analysis: bool,
}

/// gpt-oss writes `<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final
/// <|message|>…`; some servers strip the special tokens, leaving `analysis…assistantfinal…`.
fn read_harmony(text: &str) -> Option<Harmony> {
    let normalised;
    let text = if text.contains("<|channel|>") {
        text
    } else if text.trim_start().starts_with("analysis")
        && (text.contains("assistantfinal") || text.contains("assistantcommentary"))
    {
        let t = text.trim_start();
        normalised = format!(
            "<|channel|>analysis<|message|>{}",
            t["analysis".len()..]
                .replace("assistantfinal", "<|end|><|channel|>final<|message|>")
                .replace("assistantcommentary", "<|end|><|channel|>commentary")
        );
        normalised.as_str()
    } else {
        return None;
    };

    let mut parts = text.split("<|channel|>");
    let mut prefix = strip_harmony_tokens(parts.next().unwrap_or(""));
    let mut final_text: Option<String> = None;
    let mut call: Option<BlobCall> = None;
    let mut calls = 0;
    let mut had_analysis = false;
    // `<|start|>assistant to=functions.x<|channel|>commentary…`: the recipient comes first.
    let mut pending_to: Option<String> = recipient(&prefix);
    if let Some(at) = prefix.find("to=").filter(|_| pending_to.is_some()) {
        prefix.truncate(at);
    }
    for part in parts {
        let (header, body) = match part.find("<|message|>") {
            Some(m) => (&part[..m], &part[m + "<|message|>".len()..]),
            None => {
                // Stripped tokens: the payload starts at the first JSON character.
                let m = part.find(['{', '"']).unwrap_or(part.len());
                (&part[..m], &part[m..])
            }
        };
        let body_end = ["<|end|>", "<|call|>", "<|return|>", "<|start|>"]
            .iter()
            .filter_map(|t| body.find(t))
            .min()
            .unwrap_or(body.len());
        let trailing_to = recipient(&body[body_end..]);
        let body = &body[..body_end];
        let channel = header
            .trim_start()
            .split(|c: char| c.is_whitespace() || c == '<')
            .next()
            .unwrap_or("");
        let to = recipient(header).or(pending_to.take());
        pending_to = trailing_to;
        if let Some(name) = to {
            if !name.is_empty() {
                calls += 1;
                if call.is_none() && final_text.is_none() {
                    call = Some(BlobCall {
                        tool: name,
                        input: input_from_text(body, ""),
                        count: 1,
                    });
                }
            }
            continue;
        }
        match channel {
            "analysis" => had_analysis = true,
            "final" => {
                let f = final_text.get_or_insert_with(String::new);
                if !f.is_empty() {
                    f.push('\n');
                }
                f.push_str(&strip_harmony_tokens(body));
            }
            _ => {
                // commentary without a recipient: a preamble the model shows the user.
                prefix.push('\n');
                prefix.push_str(&strip_harmony_tokens(body));
            }
        }
    }
    if let Some(c) = call.as_mut() {
        c.count = calls;
    }
    Some(Harmony {
        prefix,
        final_text,
        call,
        had_analysis,
    })
}

/// The tool named by `to=functions.calculator` (or `to=calculator`) in a harmony header.
fn recipient(header: &str) -> Option<String> {
    let to = header.find("to=")?;
    let name: String = header[to + 3..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))
        .collect();
    let name = name.strip_prefix("functions.").unwrap_or(&name);
    Some(clean_tool_name(name))
}

fn strip_harmony_tokens(s: &str) -> String {
    let mut out = s.to_string();
    for t in [
        "<|start|>assistant",
        "<|start|>",
        "<|end|>",
        "<|message|>",
        "<|call|>",
        "<|return|>",
        "<|constrain|>",
    ] {
        if out.contains(t) {
            out = out.replace(t, "\n");
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Labels and sections.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    Thought,
    Action,
    ActionInput,
    Answer,
    /// Written by the model itself: everything from here on is dropped.
    Observation,
    /// The model restating the question, or starting a new one after its answer.
    Question,
}

/// Labels as word sequences, in matching order: longer ones first so "Action Input" is not
/// read as "Action". Words may be joined by a space, `_`, `-` or nothing.
const LABELS: [(&[&str], Label); 22] = [
    (&["final", "answer"], Label::Answer),
    (&["action", "input"], Label::ActionInput),
    (&["action", "output"], Label::Observation),
    (&["action", "result"], Label::Observation),
    (&["tool", "input"], Label::ActionInput),
    (&["tool", "output"], Label::Observation),
    (&["tool", "result"], Label::Observation),
    (&["tool", "name"], Label::Action),
    (&["action"], Label::Action),
    (&["act"], Label::Action),
    (&["tool"], Label::Action),
    (&["input"], Label::ActionInput),
    (&["thought"], Label::Thought),
    (&["thoughts"], Label::Thought),
    (&["thinking"], Label::Thought),
    (&["reasoning"], Label::Thought),
    (&["answer"], Label::Answer),
    (&["observation"], Label::Observation),
    (&["observations"], Label::Observation),
    (&["obs"], Label::Observation),
    (&["question"], Label::Question),
    (&["final", "response"], Label::Answer),
];

/// Recognises `Thought:`, `**Action 2:**`, `## Final Answer:`, `1. action input :`, `### Action`
/// at a line start. Returns the label and the text after it on the line.
fn label_of(line: &str) -> Option<(Label, &str)> {
    let mut s = line.trim_start();
    let mut heading = false;
    let mut bold = false;
    // Decorations and list markers, possibly several: "> 1. **Thought:**".
    loop {
        let before = s.len();
        let t = s.trim_start_matches(['#', '*', '_', '>', '-', '•', '`', ' ', '\t']);
        heading |= s[..s.len() - t.len()].contains('#');
        bold |= s[..s.len() - t.len()].contains(['*', '_']);
        s = t;
        let digits = s.trim_start_matches(|c: char| c.is_ascii_digit());
        if digits.len() < s.len() {
            if let Some(after) = digits.strip_prefix(['.', ')']) {
                if after.starts_with([' ', '\t', '*']) {
                    s = after;
                }
            }
        }
        if s.len() == before {
            break;
        }
    }
    for (words, label) in LABELS {
        let Some(rest) = match_words(s, words) else {
            continue;
        };
        let r = rest.trim_start_matches([' ', '\t', '*', '_', '`']);
        let r = r.trim_start_matches(|c: char| c.is_ascii_digit() || c == '#'); // "Thought 2:"
        let r = r.trim_start_matches([' ', '\t', '*', '_', '`']);
        if let Some(after) = r.strip_prefix([':', '：']) {
            let after = after.trim_start();
            // The closing half of `**Action:**`; a bare `*` is the input's own.
            let after = if bold || rest.starts_with(['*', '_']) {
                after.trim_start_matches('*')
            } else {
                after
            };
            let after = match after.strip_prefix("__") {
                Some(a) if a.is_empty() || a.starts_with(' ') => a,
                _ => after,
            };
            return Some((label, after.trim()));
        }
        if r.trim().is_empty() && (heading || bold || rest.starts_with(['*', '_'])) {
            return Some((label, ""));
        }
    }
    None
}

/// `s` starts with `words` (any case, joined by nothing, spaces, `_` or `-`) and then a
/// non-alphanumeric character: returns what follows.
fn match_words<'a>(s: &'a str, words: &[&str]) -> Option<&'a str> {
    let mut rest = s;
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            rest = rest.trim_start_matches([' ', '_', '-']);
        }
        if !starts_with_ci(rest, word) {
            return None;
        }
        rest = &rest[word.len()..];
    }
    match rest.chars().next() {
        Some(c) if c.is_alphanumeric() => None,
        _ => Some(rest),
    }
}

struct Section {
    label: Option<Label>,
    text: String,
}

/// Splits the reply into labelled sections. With `cut`, a line the model labelled
/// `Observation:` ends the reply (the returned flag says so); without, it is one more section.
fn split_sections(text: &str, cut: bool) -> (Vec<Section>, bool) {
    let mut sections: Vec<Section> = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let input_open = sections.last().and_then(|s| s.label) == Some(Label::ActionInput);
        if in_fence && input_open {
            // Inside a fenced input only an invented observation counts as a label.
            if cut && matches!(label_of(line), Some((Label::Observation, _))) {
                return (sections, true);
            }
            if let Some(s) = sections.last_mut() {
                s.text.push('\n');
                s.text.push_str(line);
            }
            if line.matches("```").count() % 2 == 1 {
                in_fence = false;
            }
            continue;
        }
        in_fence = false;
        for (i, (label, piece)) in pieces(line).into_iter().enumerate() {
            match label {
                Some(Label::Observation) if cut => return (sections, true),
                Some(label) => sections.push(Section {
                    label: Some(label),
                    text: piece.to_string(),
                }),
                None => match sections.last_mut() {
                    Some(s) => {
                        if i == 0 {
                            s.text.push('\n');
                        }
                        s.text.push_str(piece);
                    }
                    None => sections.push(Section {
                        label: None,
                        text: piece.to_string(),
                    }),
                },
            }
        }
        if sections.last().and_then(|s| s.label) == Some(Label::ActionInput)
            && line.matches("```").count() % 2 == 1
        {
            in_fence = true;
        }
    }
    (sections, false)
}

/// One line as labelled pieces: `Thought: x. Action: y Action Input: z` gives three.
fn pieces(line: &str) -> Vec<(Option<Label>, &str)> {
    let mut out = Vec::new();
    let mut rest = line;
    let mut first = true;
    loop {
        let (label, text) = match label_of(rest) {
            Some((label, text)) => (Some(label), text),
            None if first => (None, rest),
            None => {
                // Not reached: splits are only made where a label starts.
                out.push((None, rest));
                break;
            }
        };
        first = false;
        let split = match label {
            Some(Label::Action) => inline_input_pos(text),
            None | Some(Label::Thought) => inline_label_pos(text),
            _ => None,
        };
        match split {
            Some(at) if at > 0 => {
                out.push((label, text[..at].trim_end()));
                rest = &text[at..];
            }
            _ => {
                out.push((label, text));
                break;
            }
        }
    }
    out
}

/// In an `Action:` line, where a run-on `Action Input:` starts.
fn inline_input_pos(s: &str) -> Option<usize> {
    [
        "action input",
        "action_input",
        "actioninput",
        "action-input",
    ]
    .iter()
    .filter_map(|n| find_ci(s, n))
    .filter(|&p| p > 0 && matches!(label_of(&s[p..]), Some((Label::ActionInput, _))))
    .min()
}

/// In prose or a thought, a label after the end of a sentence: `… so. Final Answer: 4`.
fn inline_label_pos(s: &str) -> Option<usize> {
    let mut best: Option<usize> = None;
    for needle in ["Final Answer", "Answer", "Action", "Observation"] {
        let mut from = 0;
        while let Some(i) = s[from..].find(needle) {
            let p = from + i;
            from = p + needle.len();
            let start = if s[..p].ends_with("**") { p - 2 } else { p };
            let before = &s[..start];
            if !before.ends_with(char::is_whitespace) {
                continue;
            }
            let last = before.trim_end().trim_end_matches('*').chars().last();
            if !matches!(last, Some('.' | '!' | '?' | ')')) {
                continue;
            }
            if label_of(&s[start..]).is_none() {
                continue;
            }
            best = Some(best.map_or(start, |b| b.min(start)));
            break;
        }
    }
    best
}

/// Everything before the first action or answer that is a thought, or unlabelled prose.
fn thought_of(sections: &[Section]) -> Option<String> {
    let parts: Vec<String> = sections
        .iter()
        .take_while(|s| matches!(s.label, None | Some(Label::Thought | Label::Question)))
        .filter(|s| s.label != Some(Label::Question))
        .map(|s| {
            s.text
                .lines()
                .filter(|l| !l.trim().starts_with("```"))
                .collect::<Vec<_>>()
                .join("\n")
                .trim()
                .to_string()
        })
        .filter(|t| !t.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

// ---------------------------------------------------------------------------------------------
// Actions.

enum Outcome {
    Call {
        tool: String,
        input: String,
    },
    /// `Finish[…]`, `Action: Final Answer`: an answer dressed as an action.
    Finish(String),
    /// `Action: None` and the like.
    NoTool,
    Problem(String),
}

fn resolve_action(sections: &[Section], at: usize) -> Outcome {
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
        if is_finish(&tool) {
            return Outcome::Finish(input_from_text(&input_section.text, ""));
        }
        let input = input_from_text(&input_section.text, &tool);
        if input.is_empty() {
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
        if is_finish(&tool) {
            return Outcome::Finish(input);
        }
        if input.is_empty() {
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
fn input_section(sections: &[Section], at: usize) -> Option<&Section> {
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

fn names_no_tool(tool: &str) -> bool {
    let t = tool.trim().to_ascii_lowercase();
    let starts_word = |w: &str| {
        t.strip_prefix(w)
            .is_some_and(|r| !r.starts_with(|c: char| c.is_alphanumeric()))
    };
    t.is_empty()
        || matches!(
            t.as_str(),
            "n/a" | "na" | "null" | "nil" | "nothing" | "no" | "-" | "—" | "..." | "…"
        )
        || starts_word("none")
        || starts_word("n/a")
        || t.starts_with("no tool")
        || t.starts_with("no action")
        || t.starts_with("not needed")
}

fn is_finish(tool: &str) -> bool {
    let t = tool.to_ascii_lowercase().replace(['_', '-'], " ");
    matches!(
        t.trim(),
        "final answer" | "finalanswer" | "finish" | "answer" | "final response"
    )
}

/// The tool named on an `Action:` line that has a separate `Action Input:`:
/// `[calculator]`, `**calculator**`, `calculator (to multiply)`, `calculator.`.
fn tool_name_from_line(line: &str) -> String {
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

fn clean_tool_name(name: &str) -> String {
    let line = name.lines().next().unwrap_or("");
    line.trim_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '`' | '"' | '\'' | '*' | '_' | '.' | ',' | ';' | ':' | '<' | '>' | '[' | ']'
            )
    })
    .to_string()
}

/// A plausible tool name: a word or three, no sentence.
fn name_like(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_alphabetic)
        && name.chars().count() <= 40
        && name.split_whitespace().count() <= 3
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '))
}

/// `calculator[2+2]`, `calculator(3*3)`, `web_search(query="x")`, `calculator: 4*4`.
/// Text after the closing bracket is commentary and ignored.
fn call_form(s: &str) -> Option<(String, String)> {
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
fn bare_call(content: &str) -> Option<(usize, String, String)> {
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
fn matching_close(s: &str, close: char, mind_quotes: bool) -> Option<usize> {
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
fn call_arguments(inner: &str, tool: &str) -> String {
    let s = inner.trim();
    let ident_end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    if ident_end > 0 {
        let after = s[ident_end..].trim_start();
        if let Some(value) = after.strip_prefix('=') {
            let value = value.trim();
            if let Some(unquoted) = whole_quoted(value) {
                return cut_observation(&unquoted);
            }
        }
    }
    input_from_text(s, tool)
}

/// `"…"` (a JSON string, escapes decoded) or `'…'` holding no other quote of its kind.
fn whole_quoted(s: &str) -> Option<String> {
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
fn is_code_tool(tool: &str) -> bool {
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
fn input_from_text(text: &str, tool: &str) -> String {
    cut_observation(&raw_input(text, tool))
}

fn raw_input(text: &str, tool: &str) -> String {
    let code = is_code_tool(tool);
    let body = text.trim_start();
    if body.starts_with("```") {
        let inner = unfence(body);
        let t = inner.trim();
        if t.starts_with(['{', '"']) {
            if let Some((value, raw)) = first_json(t) {
                return json_input(&value, raw);
            }
        }
        return if code {
            inner.trim_matches('\n').trim_end().to_string()
        } else {
            t.to_string()
        };
    }
    if body.starts_with(['{', '[', '"']) {
        if let Some((value, raw)) = first_json(body) {
            // Only a value that ends its line (or, for a non-code tool, is followed by
            // commentary after a space): `"hello".upper()` and `[1] + [2]` are code.
            let after = body[raw.len()..].lines().next().unwrap_or("");
            if after.trim().is_empty() || (!code && after.starts_with(char::is_whitespace)) {
                return json_input(&value, raw);
            }
        }
        if let Some(v) = python_dict_one_field(body.lines().next().unwrap_or("")) {
            return v;
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
            return unquote(joined.trim());
        }
        return joined.trim_end().to_string();
    }
    let line = body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    unquote(line)
}

/// A quoted or backticked single value loses its quotes.
fn unquote(s: &str) -> String {
    let s = s.trim();
    whole_quoted(s).map_or_else(|| s.to_string(), |v| v.trim().to_string())
}

/// A line of commentary rather than code: a sentence.
fn looks_like_prose(line: &str) -> bool {
    line.split_whitespace().count() >= 3
        && line.chars().next().is_some_and(char::is_alphabetic)
        && line.ends_with(['.', '!', '?'])
        && !line.contains(['(', '=', '[', '"', '\'', '#'])
}

/// The body of a code fence (``` with an optional language tag); unclosed fences run to the end.
fn unfence(s: &str) -> &str {
    let ticks = s.len() - s.trim_start_matches('`').len();
    let after = &s[ticks..];
    let line_end = after.find('\n').unwrap_or(after.len());
    let tag = after[..line_end].trim();
    let is_tag = tag.is_empty()
        || (tag.chars().next().is_some_and(char::is_alphabetic)
            && tag
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '+' | '-' | '.' | '#')));
    let body = if is_tag && line_end < after.len() {
        &after[line_end + 1..]
    } else if is_tag && !tag.is_empty() {
        ""
    } else {
        after
    };
    match body.find("```") {
        Some(end) => &body[..end],
        None => body,
    }
}

/// The first JSON value at the start of `s`, and the text it spans.
fn first_json(s: &str) -> Option<(Value, &str)> {
    let mut stream = serde_json::Deserializer::from_str(s).into_iter::<Value>();
    match stream.next() {
        Some(Ok(value)) => {
            let end = stream.byte_offset();
            Some((value, s.get(..end)?))
        }
        _ => None,
    }
}

/// JSON given as an input: a string, or an object with one scalar field, is unwrapped; any
/// other JSON stays JSON text as written.
fn json_input(value: &Value, raw: &str) -> String {
    match value {
        Value::String(s) => s.trim().to_string(),
        Value::Object(map) if map.len() == 1 => match map.values().next() {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
            _ => raw.trim().to_string(),
        },
        _ => raw.trim().to_string(),
    }
}

/// `{'query': 'Eiffel Tower'}`: a Python dict with one string field, as small models write.
fn python_dict_one_field(line: &str) -> Option<String> {
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
fn cut_observation(input: &str) -> String {
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
fn count_actions(content: &str) -> usize {
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
            !names_no_tool(&tool) && !is_finish(&tool)
        })
        .count()
}

// ---------------------------------------------------------------------------------------------
// JSON tool calls.

struct BlobCall {
    tool: String,
    input: String,
    /// How many calls the reply held.
    count: usize,
}

fn blob_outcome(call: BlobCall) -> Outcome {
    if names_no_tool(&call.tool) {
        Outcome::NoTool
    } else if is_finish(&call.tool) {
        Outcome::Finish(clean_answer(&call.input))
    } else if call.input.is_empty() {
        Outcome::Problem(format!("The input for {} is empty.", call.tool))
    } else {
        Outcome::Call {
            tool: call.tool,
            input: call.input,
        }
    }
}

fn blob_reply(thought: Option<String>, call: BlobCall, cut: bool, mut notes: Vec<String>) -> Reply {
    let count = call.count;
    match blob_outcome(call) {
        Outcome::Call { tool, input } => {
            if count > 1 {
                notes.insert(0, several_actions_note(count, &tool));
            }
            if cut {
                notes.push(OWN_OBSERVATION_NOTE.to_string());
            }
            Reply::Action {
                thought,
                tool,
                input,
                note: join_notes(notes),
            }
        }
        Outcome::Finish(answer) if !answer.is_empty() => Reply::Answer { thought, answer },
        Outcome::Finish(_) => Reply::Invalid {
            thought,
            problem: "The final answer is empty.".into(),
        },
        Outcome::NoTool => Reply::Invalid {
            thought,
            problem: "The tool call names no tool.".into(),
        },
        Outcome::Problem(problem) => Reply::Invalid { thought, problem },
    }
}

/// A JSON tool call: `{"action": "calculator", "action_input": "2+2"}`,
/// `{"name": "calculator", "arguments": {"expression": "2+2"}}`, OpenAI-style
/// `{"function": {"name": …, "arguments": "{…}"}}`, or a list of them; fenced or not.
fn parse_blob(s: &str) -> Option<BlobCall> {
    let s = s.trim_start();
    let body = if s.starts_with("```") { unfence(s) } else { s };
    let (value, _) = first_json(body.trim())?;
    blob_of_value(&value)
}

fn blob_of_value(value: &Value) -> Option<BlobCall> {
    match value {
        Value::Array(items) => {
            let calls: Vec<BlobCall> = items.iter().filter_map(blob_of_value).collect();
            let count = calls.len();
            calls.into_iter().next().map(|mut c| {
                c.count = count;
                c
            })
        }
        Value::Object(map) => {
            if let Some(inner @ Value::Object(_)) = map.get("function") {
                return blob_of_value(inner);
            }
            let tool = ["action", "name", "tool", "tool_name", "function", "command"]
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str))?;
            let tool = clean_tool_name(tool);
            let input = [
                "action_input",
                "input",
                "arguments",
                "args",
                "parameters",
                "params",
                "tool_input",
                "query",
            ]
            .iter()
            .find_map(|k| map.get(*k))
            .map(blob_input)?;
            Some(BlobCall {
                tool,
                input: cut_observation(&input),
                count: 1,
            })
        }
        _ => None,
    }
}

fn blob_input(v: &Value) -> String {
    match v {
        // OpenAI puts the arguments object in a string.
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(inner @ Value::Object(_)) => json_input(&inner, s),
            _ => s.trim().to_string(),
        },
        Value::Null => String::new(),
        other => json_input(other, &other.to_string()),
    }
}

/// A JSON tool call in a reply without labels: in `<tool_call>` tags, a code fence, or a line
/// of its own. Returns where it starts.
fn find_json_call(content: &str) -> Option<(usize, BlobCall)> {
    if let Some(at) = find_ci(content, "<tool_call>") {
        let count = content.matches("<tool_call>").count();
        let after = &content[at + "<tool_call>".len()..];
        if let Some(mut call) = parse_blob(after) {
            call.count = call.count.max(count);
            return Some((at, call));
        }
    }
    let mut offset = 0;
    let mut tried = 0;
    for line in content.split_inclusive('\n') {
        let t = line.trim_start();
        if (t.starts_with(['{', '[']) || t.starts_with("```")) && tried < 20 {
            tried += 1;
            let at = offset + (line.len() - t.len());
            if let Some(call) = parse_blob(&content[at..]) {
                return Some((at, call));
            }
        }
        offset += line.len();
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Answers.

/// The answer text: trimmed, without a stray fence, bold or quotes wrapped around all of it,
/// or a lone `\boxed{…}`.
fn clean_answer(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let fences = lines
        .iter()
        .filter(|l| l.trim_start().starts_with("```"))
        .count();
    if fences % 2 == 1 && lines.last().is_some_and(|l| l.trim().starts_with("```")) {
        lines.pop();
    }
    let joined = lines.join("\n");
    let mut s = joined.trim();
    for wrap in ["**", "__"] {
        if let Some(inner) = s.strip_prefix(wrap).and_then(|r| r.strip_suffix(wrap)) {
            if !inner.contains(wrap) {
                s = inner.trim();
            }
        }
    }
    if s.matches("**").count() % 2 == 1 {
        if let Some(inner) = s.strip_suffix("**") {
            s = inner.trim();
        } else if let Some(inner) = s.strip_prefix("**") {
            s = inner.trim();
        }
    }
    let mut out = if s.lines().count() == 1 {
        unquote(s)
    } else {
        s.to_string()
    };
    if let Some(boxed) = lone_boxed(&out) {
        out = boxed;
    }
    out
}

/// `\boxed{42}`, `$\boxed{42}$`, `\[ \boxed{42} \]` as the whole answer.
fn lone_boxed(s: &str) -> Option<String> {
    let mut t = s.trim();
    for (open, close) in [("$$", "$$"), ("$", "$"), ("\\[", "\\]"), ("\\(", "\\)")] {
        if let Some(inner) = t.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            t = inner.trim();
            break;
        }
    }
    let inner = t.strip_prefix("\\boxed{")?;
    let end = brace_end(inner)?;
    inner[end + 1..]
        .trim()
        .is_empty()
        .then(|| inner[..end].trim().to_string())
}

fn brace_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// An answer marked without a label: `<answer>…</answer>` or the last `\boxed{…}`.
fn tagged_answer(content: &str) -> Option<String> {
    if let Some(at) = find_ci(content, "<answer>") {
        let after = &content[at + "<answer>".len()..];
        let inner = find_ci(after, "</answer>").map_or(after, |e| &after[..e]);
        let a = clean_answer(inner);
        if !a.is_empty() {
            return Some(a);
        }
    }
    let at = content.rfind("\\boxed{")?;
    let inner = &content[at + "\\boxed{".len()..];
    let end = brace_end(inner)?;
    let a = inner[..end].trim().to_string();
    (!a.is_empty()).then_some(a)
}

// ---------------------------------------------------------------------------------------------
// ASCII-case-insensitive search; the needles are ASCII, so every match is on char boundaries.

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.as_bytes()
        .get(..prefix.len())
        .is_some_and(|h| h.eq_ignore_ascii_case(prefix.as_bytes()))
}

fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.is_empty() || h.len() < n.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_carriage_return_ends_a_line() {
        match parse_reply("Action: calculator\r6*7\rAction Input: 6*7") {
            Reply::Action { tool, input, .. } => {
                assert_eq!(tool, "calculator");
                assert_eq!(input, "6*7");
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(parse_reply("Thought: x\rAnswer: 4"), Reply::Answer { answer, .. } if answer == "4")
        );
    }

    fn action(tool: &str, input: &str) -> (String, String) {
        (tool.to_string(), input.to_string())
    }

    fn as_action(r: Reply) -> (String, String) {
        match r {
            Reply::Action { tool, input, .. } => (tool, input),
            other => panic!("expected an action, got {other:?}"),
        }
    }

    fn note_of(r: Reply) -> Option<String> {
        match r {
            Reply::Action { note, .. } => note,
            other => panic!("expected an action, got {other:?}"),
        }
    }

    fn answer_of(text: &str) -> String {
        match parse_reply(text) {
            Reply::Answer { answer, .. } => answer,
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    fn problem(text: &str) -> String {
        match parse_reply(text) {
            Reply::Invalid { problem, .. } => problem,
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    #[test]
    fn canonical_react_action() {
        let r = parse_reply("Thought: I need to compute.\nAction: calculator\nAction Input: 6*7");
        assert_eq!(
            r,
            Reply::Action {
                thought: Some("I need to compute.".into()),
                tool: "calculator".into(),
                input: "6*7".into(),
                note: None,
            }
        );
    }

    #[test]
    fn action_variants() {
        let cases = [
            (
                "action: calculator\naction input: 1+1",
                ("calculator", "1+1"),
            ),
            (
                "ACTION: Calculator\nACTION INPUT: 1+1",
                ("Calculator", "1+1"),
            ),
            (
                "**Action:** calculator\n**Action Input:** 1+1",
                ("calculator", "1+1"),
            ),
            (
                "**Action**: calculator\n**Action Input**: 1+1",
                ("calculator", "1+1"),
            ),
            (
                "Thought 1: hmm\nAction 1: calculator\nAction Input 1: 1+1",
                ("calculator", "1+1"),
            ),
            (
                "1. Thought: hmm\n2. Action: calculator\n3. Action Input: 1+1",
                ("calculator", "1+1"),
            ),
            (
                "### Action\ncalculator\n### Action Input\n1+1",
                ("calculator", "1+1"),
            ),
            ("Action: calculator[2+2]", ("calculator", "2+2")),
            ("Action: calculator(3*3)", ("calculator", "3*3")),
            (
                "Action: calculator(sqrt(2)*3) to get it",
                ("calculator", "sqrt(2)*3"),
            ),
            (
                "Act 1: Search[Apple Remote's maker]",
                ("Search", "Apple Remote's maker"),
            ),
            (
                "Action: web_search(query=\"Eiffel Tower\")",
                ("web_search", "Eiffel Tower"),
            ),
            (
                "Action: `calculator`\nAction Input: \"5-1\"",
                ("calculator", "5-1"),
            ),
            (
                "Action: calculator\nAction Input: `5-1`",
                ("calculator", "5-1"),
            ),
            (
                "Action: calculator\nAction Input: ```\n2^8\n```",
                ("calculator", "2^8"),
            ),
            (
                "Action: calculator\nAction Input: ```text\n2^8\n```",
                ("calculator", "2^8"),
            ),
            (
                "Action: calculator\nAction Input: ```2^8```",
                ("calculator", "2^8"),
            ),
            ("Action:calculator\nAction Input:7/2", ("calculator", "7/2")),
            (
                "  Action :  calculator  \n  Action Input :  7/2  ",
                ("calculator", "7/2"),
            ),
            ("Action: calculator\nAction_Input: 9", ("calculator", "9")),
            ("Action: calculator\nInput: 9", ("calculator", "9")),
            ("Action: calculator: 4*4", ("calculator", "4*4")),
            ("Action: calculator.\nAction Input: 1", ("calculator", "1")),
            ("Action: [calculator]\nAction Input: 1", ("calculator", "1")),
            (
                "Action: calculator (to multiply)\nAction Input: 6*7",
                ("calculator", "6*7"),
            ),
            (
                "Action: calculator Action Input: 6*7",
                ("calculator", "6*7"),
            ),
            (
                "Action: calculator, Action Input: 6*7",
                ("calculator", "6*7"),
            ),
            (
                "Thought: I will compute. Action: calculator\nAction Input: 6*7",
                ("calculator", "6*7"),
            ),
            (
                "Action Input: 6*7\nAction: calculator",
                ("calculator", "6*7"),
            ),
            (
                "Action: wikipedia\nAction Input: search: Paris",
                ("wikipedia", "search: Paris"),
            ),
            (
                "Action: calculator\nAction Input:\n6*7\n",
                ("calculator", "6*7"),
            ),
            (
                "Action: calculator\nAction Input: 6*7\nI will wait for the result.",
                ("calculator", "6*7"),
            ),
        ];
        for (text, (tool, input)) in cases {
            assert_eq!(
                as_action(parse_reply(text)),
                action(tool, input),
                "{text:?}"
            );
        }
    }

    #[test]
    fn json_inputs() {
        let cases = [
            (
                "Action: web_search\nAction Input: {\"query\": \"Eiffel Tower\"}",
                "Eiffel Tower",
            ),
            (
                "Action: calculator\nAction Input: {\"expression\": \"2+2\"}",
                "2+2",
            ),
            (
                "Action: calculator\nAction Input: {\"input\": \"2+2\"}",
                "2+2",
            ),
            (
                "Action: calculator\nAction Input: {'expression': '2+2'}",
                "2+2",
            ),
            (
                "Action: calculator\nAction Input: ```json\n{\"expression\": \"2+2\"}\n```",
                "2+2",
            ),
            (
                "Action: calculator\nAction Input:\n```json\n{\n  \"expression\": \"2+2\"\n}\n```",
                "2+2",
            ),
            ("Action: calculator\nAction Input: \"2+2\" (the sum)", "2+2"),
            (
                "Action: weather\nAction Input: {\"city\": \"Paris\", \"units\": \"metric\"}",
                "{\"city\": \"Paris\", \"units\": \"metric\"}",
            ),
        ];
        for (text, input) in cases {
            assert_eq!(as_action(parse_reply(text)).1, input, "{text:?}");
        }
    }

    #[test]
    fn json_tool_calls_without_labels() {
        let cases = [
            "```json\n{\"action\": \"calculator\", \"action_input\": \"6*7\"}\n```",
            "Action:\n```json\n{\"action\": \"calculator\", \"action_input\": \"6*7\"}\n```",
            "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6*7\"}}\n</tool_call>",
            "{\"name\": \"calculator\", \"parameters\": {\"expression\": \"6*7\"}}",
            "<|python_tag|>{\"name\": \"calculator\", \"parameters\": {\"expression\": \"6*7\"}}<|eom_id|>",
            "{\"function\": {\"name\": \"calculator\", \"arguments\": \"{\\\"expression\\\": \\\"6*7\\\"}\"}}",
        ];
        for text in cases {
            assert_eq!(
                as_action(parse_reply(text)),
                action("calculator", "6*7"),
                "{text:?}"
            );
        }
        assert_eq!(
            answer_of("```json\n{\"action\": \"Final Answer\", \"action_input\": \"42\"}\n```"),
            "42"
        );
    }

    #[test]
    fn code_inputs_keep_their_lines() {
        let r = parse_reply(
            "Action: python\nAction Input: ```python\nimport math\nprint(math.factorial(5))\n```\nThis prints 120.",
        );
        assert_eq!(as_action(r).1, "import math\nprint(math.factorial(5))");
        let r = parse_reply(
            "Action: python\nAction Input:\nfor i in range(3):\n    print(i)\n\nThis will print the numbers.",
        );
        assert_eq!(as_action(r).1, "for i in range(3):\n    print(i)");
        let r = parse_reply("Action: python\nAction Input: \"hello\".upper()");
        assert_eq!(as_action(r).1, "\"hello\".upper()");
        // A label-like line inside a fenced program is code, not a label.
        let r = parse_reply(
            "Action: python\nAction Input:\n```\nanswer = 6*7\nprint('Answer:', answer)\n```",
        );
        assert_eq!(as_action(r).1, "answer = 6*7\nprint('Answer:', answer)");
    }

    #[test]
    fn answers() {
        for (text, want) in [
            ("Thought: done\nAnswer: 42", "42"),
            ("Final Answer: Paris", "Paris"),
            ("final answer: Paris", "Paris"),
            ("**Answer:** The capital is Paris.", "The capital is Paris."),
            ("Answer:\nline one\nline two", "line one\nline two"),
            ("## Final Answer: 12", "12"),
            ("Final Answer: **42**", "42"),
            ("**Final Answer: 42**", "42"),
            ("Answer: The answer is 42.", "The answer is 42."),
            ("Answer: $\\boxed{42}$", "42"),
            ("Thought: so.\nFinal Answer: \"Paris\"", "Paris"),
            ("Thought: 6*7 is 42. Final Answer: 42", "42"),
            ("Action: None\nAnswer: 42", "42"),
            ("Action: N/A\nAction Input: N/A\nFinal Answer: 42", "42"),
            ("Action: Finish[1,800 to 7,000 ft]", "1,800 to 7,000 ft"),
            ("Action: Final Answer\nAction Input: 42", "42"),
            ("Thought: hmm\n<answer>42</answer>", "42"),
            ("So the result is \\boxed{42}.", "42"),
            ("Answer: 42\nQuestion: what is 2+2?\nThought: ...", "42"),
        ] {
            assert_eq!(answer_of(text), want, "{text:?}");
        }
    }

    #[test]
    fn own_observation_is_cut_and_never_trusted() {
        let r = parse_reply(
            "Thought: t\nAction: calculator\nAction Input: 2+2\nObservation: 5\nAnswer: 5",
        );
        let note = note_of(r.clone()).unwrap();
        assert!(note.contains("Observation you wrote yourself"), "{note}");
        assert_eq!(as_action(r), action("calculator", "2+2"));
        // An answer written after an invented observation is not taken either.
        assert!(problem("Thought: t\nObservation: it is 5\nAnswer: 5").contains("neither"));
        // Nor is one hidden in a fenced input, or in JSON.
        let r = parse_reply("Action: python\nAction Input: ```\nprint(1)\nObservation: 1\n```");
        assert_eq!(as_action(r).1, "print(1)");
        let r = parse_reply("Action: x\nAction Input: {\"q\": \"a\\nObservation: b\"}");
        assert_eq!(as_action(r).1, "a");
        for text in [
            "Action: calculator\nAction Input: 1\nAction Output: 2",
            "Action: c\nAction Input: 1\n**Observation 1:** 2",
            "Act 1: Search[x]\nObs 1: y",
        ] {
            assert!(note_of(parse_reply(text)).is_some(), "{text:?}");
        }
    }

    #[test]
    fn first_of_several_actions_is_taken_and_the_model_told() {
        let r = parse_reply(
            "Action: calculator\nAction Input: 1+1\nAction: calculator\nAction Input: 2+2",
        );
        assert_eq!(
            note_of(r.clone()).as_deref(),
            Some("Your reply had 2 actions; only the first (calculator) was run.")
        );
        assert_eq!(as_action(r), action("calculator", "1+1"));
        assert_eq!(
            answer_of("Answer: 3\nAction: calculator\nAction Input: 1+2"),
            "3"
        );
        let r = parse_reply("Action: calculator\nAction Input: 1+1\nFinal Answer: 2");
        assert!(note_of(r).unwrap().contains("Answer you wrote"));
    }

    #[test]
    fn trailing_commentary_after_input_is_not_part_of_it() {
        let r = parse_reply("Action: calculator\nAction Input: 2+2\nThought: then I will answer");
        assert_eq!(as_action(r), action("calculator", "2+2"));
        let r = parse_reply("Action: web_search\nAction Input: Eiffel Tower height\n\n(Waiting.)");
        assert_eq!(as_action(r), action("web_search", "Eiffel Tower height"));
    }

    #[test]
    fn invalid_replies_say_what_is_wrong() {
        assert!(problem("I think the answer is 4.").contains("neither"));
        assert!(problem("Thought: I now know the final answer.").contains("neither"));
        assert!(problem("").contains("empty"));
        assert!(problem("Action: None").contains("names no tool"));
        assert!(problem("Thought: x\nAction: calculator").contains("no 'Action Input:'"));
        assert!(problem("Answer:   ").contains("empty"));
        assert!(problem("Action:\nAction Input: 2").contains("names no tool"));
        assert!(problem("Thought: x\nAction Input: 2").contains("no 'Action:'"));
        assert!(problem("Action: calculator\nAction Input:").contains("empty"));
        assert!(problem("<think>Let me see, Action: calculator").contains("only reasoning"));
    }

    #[test]
    fn reasoning_blocks_are_ignored() {
        let r = parse_reply(
            "<think>\nAction: wrong\nAction Input: 0\n</think>\nThought: t\nAction: calculator\nAction Input: 6*7",
        );
        assert_eq!(as_action(r), action("calculator", "6*7"));
        let r = parse_reply("Okay, so Answer: no\n</think>\n\nAnswer: 42");
        assert!(matches!(r, Reply::Answer { answer, thought: None } if answer == "42"));
        assert_eq!(
            answer_of("<|channel|>analysis<|message|>Need 6*7.<|end|><|start|>assistant<|channel|>final<|message|>Answer: 42<|return|>"),
            "42"
        );
        assert_eq!(answer_of("analysisWe need 6*7 = 42.assistantfinal42"), "42");
        let r = parse_reply(
            "<|channel|>analysis<|message|>Use calculator.<|end|><|start|>assistant<|channel|>commentary to=functions.calculator <|constrain|>json<|message|>{\"expression\":\"6*7\"}<|call|>",
        );
        assert_eq!(as_action(r), action("calculator", "6*7"));
        assert_eq!(
            parse_think("<think>long</think>\nThought: short\nAnswer: 4"),
            (Some("short".into()), Some("4".into()))
        );
    }

    #[test]
    fn unlabelled_prose_before_an_action_is_the_thought() {
        match parse_reply("Let me compute that.\nAction: calculator\nAction Input: 1") {
            Reply::Action { thought, .. } => {
                assert_eq!(thought.as_deref(), Some("Let me compute that."))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn words_that_merely_start_with_a_label_are_not_labels() {
        assert_eq!(
            answer_of("Actionable advice: none\nAnswers vary: yes\nAnswer: ok"),
            "ok"
        );
        assert_eq!(answer_of("Actually: hmm\nInputs: a\nAnswer: ok"), "ok");
    }

    #[test]
    fn think_replies() {
        assert_eq!(
            parse_think("Thought: Paris is the capital.\nAnswer: Paris"),
            (Some("Paris is the capital.".into()), Some("Paris".into()))
        );
        assert_eq!(
            parse_think("Just prose."),
            (Some("Just prose.".into()), None)
        );
        assert_eq!(parse_think("Answer: 4"), (None, Some("4".into())));
        assert_eq!(parse_think("<think>all of it"), (None, None));
    }

    #[test]
    fn unicode_does_not_break_label_matching() {
        let r = parse_reply("Thought: é😀\nAction: calculator\nAction Input: π*2");
        assert_eq!(as_action(r), action("calculator", "π*2"));
        assert!(matches!(parse_reply("é"), Reply::Invalid { .. }));
        assert!(matches!(parse_reply("Acti€n: x"), Reply::Invalid { .. }));
        for text in [
            "Action: é[",
            "Action: é(é",
            "Action Input: \"é",
            "```é",
            "<think>é</think>é",
            "analysisé assistantfinalé",
            "<|channel|>é<|message|>",
        ] {
            let _ = parse_reply(text);
            let _ = parse_think(text);
        }
    }
}
