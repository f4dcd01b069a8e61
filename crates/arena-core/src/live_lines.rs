//! Streamed text shown as it arrives, cut into blocks of whole lines: the browser lays out a
//! block once, so a long reply is not laid out again on every frame, only its last lines.

/// The end of the longest run of whole lines in `text[from..]` that can be shown as a block of
/// its own: a cut just after a line break that follows other text (not a blank line, which a
/// block could not end with visibly). The block is `text[from..cut - 1]`, without that line
/// break, which the boundary between blocks stands for; `None` when there is no such cut.
pub fn whole_lines_end(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = bytes.len();
    while at > from + 1 {
        if bytes[at - 1] == b'\n' && bytes[at - 2] != b'\n' {
            return Some(at);
        }
        at -= 1;
    }
    None
}

/// `whole_lines_end`'s block cut again into blocks of at most `max_bytes` where the text
/// allows (a longer line is a block of its own): the cuts, in order, the last being
/// `whole_lines_end`'s. A long text arriving at once so becomes many blocks, and the browser
/// lays out only those in view, not one block of all of it.
pub fn block_cuts(text: &str, from: usize, max_bytes: usize) -> Vec<usize> {
    let Some(end) = whole_lines_end(text, from) else {
        return Vec::new();
    };
    let bytes = text.as_bytes();
    // A block ends at a cut: just after a line break that follows other text.
    let is_cut = |at: usize| bytes[at - 1] == b'\n' && bytes[at - 2] != b'\n';
    let mut cuts = Vec::new();
    let mut start = from;
    while start < end {
        let limit = (start + max_bytes).min(end);
        let cut = (start + 2..=limit)
            .rev()
            .find(|&at| is_cut(at))
            .or_else(|| (limit + 1..=end).find(|&at| is_cut(at)))
            .unwrap_or(end);
        cuts.push(cut);
        start = cut;
    }
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks `block_cuts` makes of `text[from..]`.
    fn blocks_of(text: &str, from: usize, max: usize) -> Vec<&str> {
        let mut start = from;
        block_cuts(text, from, max)
            .into_iter()
            .map(|cut| {
                let block = &text[start..cut - 1];
                start = cut;
                block
            })
            .collect()
    }

    #[test]
    fn a_long_run_of_lines_is_cut_into_small_blocks() {
        let text = "line one\nline two\nline three\nrest";
        assert_eq!(
            blocks_of(text, 0, 12),
            ["line one", "line two", "line three"]
        );
        assert_eq!(blocks_of(text, 0, 100), ["line one\nline two\nline three"]);
        assert_eq!(
            blocks_of("a very long line\nb\n", 0, 4),
            ["a very long line", "b"],
            "a line longer than the limit is a block of its own"
        );
        assert_eq!(
            blocks_of("p\n\nq\n", 0, 2),
            ["p", "\nq"],
            "never a cut after a blank line"
        );
        assert_eq!(blocks_of("a\nb\nc", 2, 1), ["b"], "from the given start");
        assert!(block_cuts("no line break", 0, 4).is_empty());
    }

    /// The blocks and the rest a stream of `text` in pieces of `step` bytes shows, joined as
    /// the page's innerText joins blocks (a line break between them).
    fn shown(text: &str, step: usize) -> (Vec<String>, String) {
        let (mut blocks, mut from, mut end) = (Vec::new(), 0, 0);
        while end < text.len() {
            end = (end + step).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let seen = &text[..end];
            if let Some(cut) = whole_lines_end(seen, from) {
                blocks.push(seen[from..cut - 1].to_string());
                from = cut;
            }
        }
        (blocks, text[from..].to_string())
    }

    #[test]
    fn cuts_after_the_last_line_break_that_ends_text() {
        assert_eq!(whole_lines_end("a\nb", 0), Some(2));
        assert_eq!(whole_lines_end("a\nb\n", 0), Some(4));
        assert_eq!(
            whole_lines_end("a\n\n", 0),
            Some(2),
            "not after a blank line"
        );
        assert_eq!(whole_lines_end("\n\n", 0), None);
        assert_eq!(whole_lines_end("abc", 0), None);
        assert_eq!(whole_lines_end("a\nb\nc", 2), Some(4));
        assert_eq!(
            whole_lines_end("a\nb", 2),
            None,
            "nothing new since the last cut"
        );
    }

    #[test]
    fn the_blocks_joined_are_the_text() {
        for text in [
            "Thought: one\nAction: calculator\nAction Input: 2+2\n",
            "para\n\nnext para\n\n\nthird\n- a\n- b\n```\ncode\n\n```\nend",
            "\n\nleading blank lines\nünï\ncödé ✓\n",
        ] {
            for step in [1, 2, 5, 64] {
                let (blocks, rest) = shown(text, step);
                let mut joined = blocks.join("\n");
                if !blocks.is_empty() {
                    joined.push('\n');
                }
                joined.push_str(&rest);
                assert_eq!(joined, text, "step {step}");
                assert!(
                    blocks.iter().all(|b| !b.ends_with('\n') && !b.is_empty()),
                    "a block never ends with a line break it could not show: {blocks:?}"
                );
            }
        }
    }

    // proptest is a host-only dev-dependency.
    #[cfg(not(target_arch = "wasm32"))]
    mod any_text {
        use super::*;

        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]
            /// Any text cut into small blocks: they join into whole_lines_end's block, none is
            /// empty or ends with a line break, and each is within the limit or a single cut.
            #[test]
            fn small_blocks_join_into_the_whole_lines(text in "[a\n ü]{0,80}", from in 0usize..8, max in 1usize..12) {
                let from = (0..=from.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
                let blocks = blocks_of(&text, from, max);
                let whole = whole_lines_end(&text, from).map(|cut| &text[from..cut - 1]);
                proptest::prop_assert_eq!(whole.map(str::to_string), (!blocks.is_empty()).then(|| blocks.join("\n")));
                for b in &blocks {
                    proptest::prop_assert!(!b.is_empty() && !b.ends_with('\n'));
                    let inner_cut = (2..b.len()).any(|at| b.is_char_boundary(at) && b.as_bytes()[at - 1] == b'\n' && b.as_bytes()[at - 2] != b'\n');
                    proptest::prop_assert!(b.len() < max || !inner_cut, "block {:?} over {} could have been cut", b, max);
                }
            }

            /// Any text, streamed in any piece size: the blocks and the rest show all of it,
            /// in order, and no block ends with a line break it could not show.
            #[test]
            fn any_stream_shows_its_whole_text(text in "[a\n ü\r]{0,60}", step in 1usize..9) {
                let (blocks, rest) = shown(&text, step);
                let mut joined = blocks.join("\n");
                if !blocks.is_empty() {
                    joined.push('\n');
                }
                joined.push_str(&rest);
                proptest::prop_assert_eq!(joined, text);
                proptest::prop_assert!(blocks.iter().all(|b| !b.is_empty() && !b.ends_with('\n')));
            }
        }
    }
}
