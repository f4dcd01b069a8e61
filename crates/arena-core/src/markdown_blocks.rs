//! Where a growing Markdown text can be cut so that what comes before is final: the text a
//! model streams only grows, and a top-level block followed by another cannot change any more,
//! so a view renders each such block once and redraws only the last one.

use pulldown_cmark::{Event, Parser};

use crate::markdown::OPTIONS;

/// Where each top-level block of `text` begins: the start of its first line, in order (the
/// first is 0 unless the text is empty or blank). Each span from one start to the next is
/// rendered by itself as it is in the whole text, so a view can draw a long text a few
/// blocks at a time.
pub fn block_starts(text: &str) -> Vec<usize> {
    let mut depth = 0usize;
    let mut starts: Vec<usize> = Vec::new();
    let mut begin = |at: usize| {
        let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
        if starts.last() != Some(&line) {
            starts.push(line);
        }
    };
    for (event, range) in Parser::new_ext(text, OPTIONS).into_offset_iter() {
        match event {
            Event::Start(_) => {
                if depth == 0 {
                    begin(range.start);
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            // Blocks without children (a rule, raw HTML) are blocks too.
            _ if depth == 0 => begin(range.start),
            _ => {}
        }
    }
    if defines_references(text) {
        return vec![0];
    }
    starts
}

/// Whether `text` defines a link reference (`[a]: https://…`): one serves links anywhere in
/// the text, also in blocks drawn apart from it, so such a text is drawn as one block (models
/// hardly write them). The parse is skipped when no `]:` could start one.
fn defines_references(text: &str) -> bool {
    if !text.contains("]:") {
        return false;
    }
    let mut events = Parser::new_ext(text, OPTIONS).into_offset_iter();
    events.by_ref().for_each(drop);
    let defines = events.reference_definitions().iter().next().is_some();
    defines
}

/// The block starts of a growing `text` that cannot move as text is added: those of its
/// complete lines (a line still arriving may read as something else once it is whole). A
/// top-level block followed by another is then final; only the last one can still change
/// (but for a reference definition still to come, which can make a link of text drawn).
pub fn settled_block_starts(text: &str) -> Vec<usize> {
    // A definition on the line still arriving counts already: for a whole text, it is there.
    if defines_references(text) {
        return vec![0];
    }
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    block_starts(&text[..complete])
}

/// The byte offset in a growing `text` up to which its blocks are final.
pub fn finished_prefix(text: &str) -> usize {
    settled_block_starts(text).last().copied().unwrap_or(0)
}

/// How much of a long `text` still to draw a view looks at for its settled blocks: about
/// `bytes`, ending with a whole line. Finding blocks parses what it is given, so a long text
/// arriving at once would otherwise be parsed whole at every pass; read a window at a time,
/// as if it were still streaming, its settled blocks are the same. A text that may define a
/// link reference is read whole (a definition serves links anywhere in it).
pub fn scan_window(text: &str, bytes: usize) -> usize {
    if text.len() <= bytes || text.contains("]:") {
        return text.len();
    }
    let head = &text.as_bytes()[..bytes];
    match head.iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        None => text[bytes..]
            .find('\n')
            .map_or(text.len(), |i| bytes + i + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_ends_with_a_whole_line_and_short_or_referencing_texts_are_read_whole() {
        assert_eq!(scan_window("short", 100), 5);
        let text = "line one\nline two\nline three\n";
        assert_eq!(
            scan_window(text, 12),
            9,
            "after the last newline in the window"
        );
        assert_eq!(&text[..scan_window(text, 12)], "line one\n");
        let long_line = format!("{}\nnext\n", "x".repeat(50));
        assert_eq!(
            scan_window(&long_line, 10),
            51,
            "to the end of a line longer than the window"
        );
        assert_eq!(
            scan_window(&"y".repeat(50), 10),
            50,
            "no newline: all of it"
        );
        let referencing = format!("{}\n[a]: https://example.org\n", "z\n".repeat(100));
        assert_eq!(scan_window(&referencing, 10), referencing.len());
        let unicode = "é".repeat(30) + "\n" + &"é".repeat(30);
        let w = scan_window(&unicode, 61);
        assert!(unicode.is_char_boundary(w));
    }

    #[test]
    fn blocks_settled_in_a_window_are_the_blocks_of_the_whole_text() {
        let text = "# Title\n\nA paragraph with **bold** text\nover two lines.\n\n\
                    - a list\n- of items\n\n```rust\nlet x = 1;\n\nlet y = 2;\n```\n\n\
                    > a quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nThe end.\n"
            .repeat(40);
        let whole = block_starts(&text);
        for bytes in [64, 200, 1000, 4096] {
            let mut done = 0;
            while done < text.len() {
                let rest = &text[done..];
                let window = scan_window(rest, bytes);
                let settled = settled_block_starts(&rest[..window]);
                // Every block but the last in the window is final: it must be a block of the
                // whole text, from the same start to the same end.
                let finished = settled.last().copied().unwrap_or(0);
                for pair in settled.windows(2) {
                    assert!(
                        whole.contains(&(done + pair[0])),
                        "{bytes}: start {}",
                        done + pair[0]
                    );
                    assert!(
                        whole.contains(&(done + pair[1])),
                        "{bytes}: end {}",
                        done + pair[1]
                    );
                }
                if finished == 0 {
                    break; // the view reads the whole rest then
                }
                done += finished;
            }
        }
    }
    use crate::markdown::render_markdown;

    const PAGE: &str = "https://arena.example.org";

    /// Renders `text` as a stream would: each prefix cut into its finished blocks (each
    /// rendered once, by itself, as it finishes) and the rest, drawn again each time.
    fn streamed(text: &str, step: usize) -> String {
        let (mut done, mut html) = (0usize, String::new());
        let mut end = 0;
        while end < text.len() {
            end = (end + step).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            // Each finished block by itself, the finest the view ever cuts.
            let starts = settled_block_starts(&text[done..end]);
            let mut from = 0;
            for &next in starts.iter().skip(1) {
                html.push_str(&render_markdown(&text[done + from..done + next], PAGE));
                from = next;
            }
            done += starts.last().copied().unwrap_or(0).max(from);
        }
        html + &render_markdown(&text[done..], PAGE)
    }

    fn same_as_whole(text: &str) {
        let whole = render_markdown(text, PAGE);
        for step in [1, 2, 3, 7, 64] {
            assert_eq!(streamed(text, step), whole, "step {step} of {text:?}");
        }
    }

    #[test]
    fn blocks_start_at_line_starts() {
        assert_eq!(block_starts(""), Vec::<usize>::new());
        assert_eq!(
            block_starts("One.\n\n  - a\n  - b\n\n```\nx\n\ny\n```"),
            vec![0, 6, 19]
        );
    }

    #[test]
    fn one_block_or_none_is_never_final() {
        assert_eq!(finished_prefix(""), 0);
        assert_eq!(finished_prefix("Hello"), 0);
        assert_eq!(finished_prefix("Hello\nworld\n\n"), 0);
        assert_eq!(finished_prefix("```\ncode\n\nmore"), 0, "an open fence");
    }

    #[test]
    fn a_block_is_final_once_the_next_one_begins() {
        assert_eq!(finished_prefix("One.\n\nTwo\n"), 6);
        assert_eq!(
            finished_prefix("One.\n\nTw"),
            0,
            "a line still arriving decides nothing"
        );
        assert_eq!(
            finished_prefix("| a |\n|---|\n|"),
            0,
            "a partial row does not end a table"
        );
        assert_eq!(
            finished_prefix("Intro:\n- a\n- b"),
            7,
            "a list interrupts a paragraph"
        );
        assert_eq!(finished_prefix("```\nx\n```\nafter\n"), 10);
    }

    #[test]
    fn streaming_block_by_block_draws_what_the_whole_text_draws() {
        for text in [
            "The answer uses **bold** and `code` with a list:\n- item one\n- item two\n```rust\nlet x = 42;\n```\nThen more text follows. The answer uses a list:\n- item one\n",
            "# Title\n\nA paragraph\nover two lines.\n\n> quoted\n> text\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nEnd ~~old~~ new.",
            "Heading\n---\nText\n***\n<div>raw</div>\n\n    indented code\n\nlast",
            "- tight\n- list\n\n- now loose\n\nafter the list",
            "Setext\n=\nnext para\n- x\n-\n- y",
            "Ünïcödé ✓ text\n\n```\nfence with blank\n\nline\n```\n\n日本語の段落",
        ] {
            same_as_whole(text);
        }
    }

    #[test]
    fn hostile_markup_stays_text_when_cut() {
        let text = "<script>\nalert(1)\n</script>\n\nok\n\n<img src=x onerror=alert(1)>\n\n[a](javascript:alert(1))";
        let html = streamed(text, 3);
        assert!(
            !html.contains("<script") && !html.contains("<img") && !html.contains("href"),
            "{html}"
        );
    }

    // proptest is a host-only dev-dependency.
    #[cfg(not(target_arch = "wasm32"))]
    mod any_text {
        use super::*;

        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]
            /// Any text made of Markdown's pieces, streamed in any piece size, draws what the
            /// whole text draws.
            #[test]
            fn any_markdown_streamed_draws_what_the_whole_draws(
                pieces in proptest::collection::vec(proptest::sample::select(vec![
                    "- ", "* ", "1. ", "2) ", "```", "~~~", "\n", "\n\n", "# ", "## ", "> ", "| a |",
                    "|---|", "---", "===", "***", "text", "**b**", "`c`", " ", "    ", "<div>",
                    "</div>", "[a](https://x.example/)", "[a]: https://y.example/", "\\", "ü",
                ]), 0..40),
                step in 1usize..9,
            ) {
                let text: String = pieces.concat();
                let whole = render_markdown(&text, PAGE);
                // Arriving at once (an answer), any text is drawn exactly, a few blocks at a time.
                proptest::prop_assert_eq!(&streamed(&text, text.len().max(1)), &whole, "{:?}", text);
                // Arriving piece by piece, the one known exception is a reference definition
                // coming after text it would make a link of.
                if !defines_references(&text) {
                    proptest::prop_assert_eq!(&streamed(&text, step), &whole, "{:?}", text);
                }
            }
        }
    }
}
