//! Shaping tool output for the model: short, with a cap that says what was cut.

/// Observations longer than this many characters are cut.
pub const MAX_OBSERVATION_CHARS: usize = 1500;

/// Cuts `text` to `limit` characters (on a char boundary, preferring a word break) and says
/// how much was cut, so the model knows it did not see everything.
pub fn truncate(text: &str, limit: usize) -> String {
    let total = text.chars().count();
    if total <= limit {
        return text.to_string();
    }
    let cut_at = text
        .char_indices()
        .nth(limit)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..cut_at];
    let head = match head.rfind(char::is_whitespace) {
        Some(i) if i > cut_at / 2 => &head[..i],
        _ => head,
    };
    let dropped = total - head.chars().count();
    format!("{} […{dropped} more characters cut]", head.trim_end())
}

/// Collapses runs of whitespace (API text often carries newlines and double spaces).
pub fn squash_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first `n` sentences of plain text (a sentence ends at `.`, `!` or `?` before a space).
pub fn first_sentences(text: &str, n: usize) -> String {
    let text = squash_whitespace(text);
    let mut count = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if matches!(b, b'.' | b'!' | b'?') && bytes.get(i + 1).is_none_or(|c| *c == b' ') {
            count += 1;
            if count == n {
                return text[..=i].to_string();
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept() {
        assert_eq!(truncate("abc", 10), "abc");
    }

    #[test]
    fn long_text_is_cut_at_a_word_and_says_how_much() {
        let t = "word ".repeat(100);
        let out = truncate(&t, 50);
        assert!(out.starts_with("word word"));
        assert!(out.ends_with("more characters cut]"), "{out}");
        let kept = out.split(" […").next().unwrap().chars().count();
        assert!(kept <= 50);
        let dropped: usize = out
            .split('…')
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(kept + dropped, t.chars().count());
    }

    #[test]
    fn cuts_on_char_boundaries() {
        let t = "é".repeat(40);
        let out = truncate(&t, 10);
        assert!(out.starts_with(&"é".repeat(10)));
    }

    #[test]
    fn sentences() {
        assert_eq!(first_sentences("A b. C d!  E f? G", 2), "A b. C d!");
        assert_eq!(
            first_sentences("Pi is 3.14 roughly. Next.", 1),
            "Pi is 3.14 roughly."
        );
        assert_eq!(first_sentences("no end", 3), "no end");
    }
}
