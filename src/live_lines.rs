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

#[cfg(test)]
mod tests {
    use super::*;

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
