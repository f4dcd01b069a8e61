//! Labels and sections: where `Thought:`, `Action:`, `Action Input:` and `Answer:` start, in
//! any of the forms models write them.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Label {
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
pub(super) const LABELS: [(&[&str], Label); 22] = [
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
pub(super) fn label_of(line: &str) -> Option<(Label, &str)> {
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
pub(super) fn match_words<'a>(s: &'a str, words: &[&str]) -> Option<&'a str> {
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

pub(super) struct Section {
    pub(super) label: Option<Label>,
    pub(super) text: String,
}

/// Splits the reply into labelled sections. With `cut`, a line the model labelled
/// `Observation:` ends the reply (the returned flag says so); without, it is one more section.
pub(super) fn split_sections(text: &str, cut: bool) -> (Vec<Section>, bool) {
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
pub(super) fn pieces(line: &str) -> Vec<(Option<Label>, &str)> {
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
pub(super) fn inline_input_pos(s: &str) -> Option<usize> {
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
pub(super) fn inline_label_pos(s: &str) -> Option<usize> {
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
pub(super) fn thought_of(sections: &[Section]) -> Option<String> {
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
