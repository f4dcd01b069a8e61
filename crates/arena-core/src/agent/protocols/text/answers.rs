//! Answers: the text of `Answer:` / `Final Answer:`, cleaned of boxes, tags and quotes.

use super::*;

/// The answer text: trimmed, without a stray fence, bold or quotes wrapped around all of it,
/// or a lone `\boxed{…}`.
pub(super) fn clean_answer(text: &str) -> String {
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
pub(super) fn lone_boxed(s: &str) -> Option<String> {
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

pub(super) fn brace_end(s: &str) -> Option<usize> {
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
pub(super) fn tagged_answer(content: &str) -> Option<String> {
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
