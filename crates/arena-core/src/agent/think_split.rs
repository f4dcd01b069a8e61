//! Splitting streamed content that carries its reasoning inline, in `<think>…</think>` (or
//! `<thinking>`, `<reasoning>`, any case: `reasoning_tags`) blocks, into content and reasoning
//! pieces.
//!
//! Tags may arrive split across pushes at any position: only a possible tag prefix at the end
//! of what has arrived is held back. Every recognised tag is removed from the output; an opening
//! tag starts reasoning, a closing tag ends it. A block that is never closed makes everything
//! after its opening tag reasoning.
//!
//! Some servers strip the opening tag, so a reply may start with reasoning and only have
//! `</think>`. Until the first tag arrives the text is therefore buffered: if that first tag is
//! a closing tag, the buffered text was reasoning. The buffer is capped (4,000 characters by
//! default); beyond that it is flushed as content and the rule no longer applies.

use super::reasoning_tags::MARKS;

/// A piece of split content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Content(String),
    Reasoning(String),
}

impl Piece {
    pub fn text(&self) -> &str {
        match self {
            Piece::Content(t) | Piece::Reasoning(t) => t,
        }
    }

    pub fn is_reasoning(&self) -> bool {
        matches!(self, Piece::Reasoning(_))
    }
}

/// How many characters before the first tag may still turn out to be reasoning.
pub const LEADING_REASONING_LIMIT: usize = 4_000;

#[derive(Debug, Clone)]
pub struct ThinkSplitter {
    /// Inside a reasoning block.
    inside: bool,
    /// The end of the text so far when it may be the start of a tag.
    pending: String,
    /// Whether any tag has been seen.
    seen_tag: bool,
    /// Text before the first tag, while it may still be reasoning (see the module docs).
    lead: String,
    lead_chars: usize,
    /// Whether `lead` is still being collected.
    lead_open: bool,
    lead_limit: usize,
}

impl Default for ThinkSplitter {
    fn default() -> Self {
        Self::with_lead_limit(LEADING_REASONING_LIMIT)
    }
}

enum Found {
    /// A whole tag at the position: its byte length and whether it opens a block.
    Tag(usize, bool),
    /// The rest of the text may be the start of a tag.
    Prefix,
    None,
}

impl ThinkSplitter {
    pub fn new() -> Self {
        Self::default()
    }

    /// A splitter that buffers at most `limit` characters before the first tag in case they
    /// are reasoning whose opening tag was stripped; 0 turns that rule off (nothing is
    /// buffered then, so plain content streams at once).
    pub fn with_lead_limit(limit: usize) -> Self {
        Self {
            inside: false,
            pending: String::new(),
            seen_tag: false,
            lead: String::new(),
            lead_chars: 0,
            lead_open: limit > 0,
            lead_limit: limit,
        }
    }

    /// Whether the text so far ends inside a reasoning block.
    pub fn in_reasoning(&self) -> bool {
        self.inside
    }

    /// Feeds the next piece of content; returns what can be told apart so far, adjacent pieces
    /// of the same kind merged.
    pub fn push(&mut self, text: &str) -> Vec<Piece> {
        let mut out = Vec::new();
        let mut buf = std::mem::take(&mut self.pending);
        buf.push_str(text);
        let mut start = 0; // start of the text not yet emitted
        let mut from = 0; // where to look for the next '<'
        while let Some(rel) = buf[from..].find('<') {
            let at = from + rel;
            match tag_at(&buf[at..]) {
                Found::Tag(len, opens) => {
                    self.emit(&mut out, &buf[start..at]);
                    self.tag(&mut out, opens);
                    start = at + len;
                    from = start;
                }
                Found::Prefix => {
                    self.emit(&mut out, &buf[start..at]);
                    self.pending = buf[at..].to_string();
                    return out;
                }
                Found::None => from = at + 1,
            }
        }
        self.emit(&mut out, &buf[start..]);
        out
    }

    /// Ends the stream: flushes a held-back partial tag (as text of the current kind) and any
    /// buffered leading text (as content). The splitter is then fresh again.
    pub fn finish(&mut self) -> Vec<Piece> {
        let mut out = Vec::new();
        let pending = std::mem::take(&mut self.pending);
        self.emit(&mut out, &pending);
        if self.lead_open {
            let lead = std::mem::take(&mut self.lead);
            push_piece(&mut out, false, &lead);
        }
        *self = Self::with_lead_limit(self.lead_limit);
        out
    }

    fn emit(&mut self, out: &mut Vec<Piece>, text: &str) {
        if text.is_empty() {
            return;
        }
        if self.lead_open {
            self.lead.push_str(text);
            self.lead_chars += text.chars().count();
            if self.lead_chars > self.lead_limit {
                self.lead_open = false;
                let lead = std::mem::take(&mut self.lead);
                push_piece(out, false, &lead);
            }
            return;
        }
        push_piece(out, self.inside, text);
    }

    fn tag(&mut self, out: &mut Vec<Piece>, opens: bool) {
        if !self.seen_tag && self.lead_open {
            // The first tag decides what the text before it was.
            self.lead_open = false;
            let lead = std::mem::take(&mut self.lead);
            push_piece(out, !opens, &lead);
        }
        self.seen_tag = true;
        self.inside = opens;
    }
}

fn tag_at(s: &str) -> Found {
    let bytes = s.as_bytes();
    for (tag, opens) in MARKS {
        let tag = tag.as_bytes();
        if bytes.len() >= tag.len() {
            if bytes[..tag.len()].eq_ignore_ascii_case(tag) {
                return Found::Tag(tag.len(), opens);
            }
        } else if tag[..bytes.len()].eq_ignore_ascii_case(bytes) {
            return Found::Prefix;
        }
    }
    Found::None
}

fn push_piece(out: &mut Vec<Piece>, reasoning: bool, text: &str) {
    if text.is_empty() {
        return;
    }
    match (out.last_mut(), reasoning) {
        (Some(Piece::Reasoning(t)), true) | (Some(Piece::Content(t)), false) => t.push_str(text),
        (_, true) => out.push(Piece::Reasoning(text.to_string())),
        (_, false) => out.push(Piece::Content(text.to_string())),
    }
}

/// Splits a whole text at once.
pub fn split_all(text: &str) -> Vec<Piece> {
    let mut s = ThinkSplitter::new();
    let mut out = s.push(text);
    for p in s.finish() {
        push_piece(&mut out, p.is_reasoning(), p.text());
    }
    out
}

/// Merges a sequence of pieces (e.g. from several pushes) so that no two neighbours share a
/// kind.
pub fn merge(pieces: impl IntoIterator<Item = Piece>) -> Vec<Piece> {
    let mut out = Vec::new();
    for p in pieces {
        push_piece(&mut out, p.is_reasoning(), p.text());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(t: &str) -> Piece {
        Piece::Content(t.into())
    }
    fn r(t: &str) -> Piece {
        Piece::Reasoning(t.into())
    }

    /// (input, expected whole-text split)
    fn examples() -> Vec<(String, Vec<Piece>)> {
        vec![
            ("plain answer".into(), vec![c("plain answer")]),
            ("".into(), vec![]),
            (
                "<think>hmm</think>The answer is 4.".into(),
                vec![r("hmm"), c("The answer is 4.")],
            ),
            (
                "<THINK>Hmm.</Think>\n\nAnswer: 4".into(),
                vec![r("Hmm."), c("\n\nAnswer: 4")],
            ),
            ("<thinking>a</thinking>b".into(), vec![r("a"), c("b")]),
            (
                "\n<think>\nsteps\n</think>\nAction: calculator".into(),
                vec![c("\n"), r("\nsteps\n"), c("\nAction: calculator")],
            ),
            (
                "<think>never closed, still thinking".into(),
                vec![r("never closed, still thinking")],
            ),
            (
                "stripped opening</think>Answer: 5".into(),
                vec![r("stripped opening"), c("Answer: 5")],
            ),
            (
                "a < b and c <thinker> <th".into(),
                vec![c("a < b and c <thinker> <th")],
            ),
            (
                "x<think>y</think>z<think>w</think>v".into(),
                vec![c("x"), r("y"), c("z"), r("w"), c("v")],
            ),
            (
                "é😀<think>π≈3</think>ü".into(),
                vec![c("é😀"), r("π≈3"), c("ü")],
            ),
            (
                "<think>a<think>b</think>c</think>d".into(),
                vec![r("ab"), c("cd")],
            ),
            (
                "pre<think>unfinished </thin".into(),
                vec![c("pre"), r("unfinished </thin")],
            ),
            ("<<think>>".into(), vec![c("<"), r(">")]),
            ("<</think>>".into(), vec![r("<"), c(">")]),
            ("</think>".into(), vec![]),
            ("<think></think>".into(), vec![]),
            ("<thinking>x</think>y".into(), vec![r("x"), c("y")]),
        ]
    }

    fn run(chunks: &[&str]) -> Vec<Piece> {
        let mut s = ThinkSplitter::new();
        let mut all = Vec::new();
        for ch in chunks {
            let got = s.push(ch);
            assert_no_neighbours_alike(&got);
            all.extend(got);
        }
        all.extend(s.finish());
        merge(all)
    }

    fn assert_no_neighbours_alike(pieces: &[Piece]) {
        for w in pieces.windows(2) {
            assert_ne!(w[0].is_reasoning(), w[1].is_reasoning(), "{pieces:?}");
        }
        assert!(pieces.iter().all(|p| !p.text().is_empty()), "{pieces:?}");
    }

    #[test]
    fn whole_examples() {
        for (text, want) in examples() {
            assert_eq!(split_all(&text), want, "{text:?}");
            assert_eq!(run(&[&text]), want, "{text:?}");
        }
    }

    #[test]
    fn every_two_way_split_gives_the_same_output() {
        for (text, want) in examples() {
            for (i, _) in text.char_indices().chain([(text.len(), ' ')]) {
                let (a, b) = text.split_at(i);
                assert_eq!(run(&[a, b]), want, "{text:?} split at {i}");
            }
        }
    }

    #[test]
    fn one_char_pushes_give_the_same_output() {
        for (text, want) in examples() {
            let chars: Vec<String> = text.chars().map(String::from).collect();
            let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
            assert_eq!(run(&refs), want, "{text:?}");
        }
    }

    #[test]
    fn only_a_possible_tag_prefix_is_held_back() {
        let mut s = ThinkSplitter::with_lead_limit(0);
        assert_eq!(s.push("Hello <"), vec![c("Hello ")]);
        assert_eq!(s.push("b> x <thi"), vec![c("<b> x ")]);
        assert_eq!(s.push("nk"), vec![]);
        assert_eq!(s.push(">deep"), vec![r("deep")]);
        assert!(s.in_reasoning());
        assert_eq!(s.push("</THINK"), vec![]);
        assert_eq!(s.push(">out <"), vec![c("out ")]);
        assert_eq!(s.finish(), vec![c("<")]);
    }

    #[test]
    fn text_before_the_first_tag_waits_for_it() {
        let mut s = ThinkSplitter::new();
        assert_eq!(s.push("The model reasons"), vec![]);
        assert_eq!(s.push(" here"), vec![]);
        assert_eq!(
            s.push("</think>Answer"),
            vec![r("The model reasons here"), c("Answer")]
        );
        // Later text streams at once.
        assert_eq!(s.push(" more"), vec![c(" more")]);
        assert_eq!(s.finish(), vec![]);

        let mut s = ThinkSplitter::new();
        assert_eq!(s.push("Intro "), vec![]);
        assert_eq!(s.push("<think>x"), vec![c("Intro "), r("x")]);

        let mut s = ThinkSplitter::new();
        assert_eq!(s.push("no tags at all"), vec![]);
        assert_eq!(s.finish(), vec![c("no tags at all")]);
    }

    #[test]
    fn a_closing_tag_after_an_opening_one_does_not_reclassify_earlier_content() {
        assert_eq!(
            split_all("a<think>b</think>c</think>d"),
            vec![c("a"), r("b"), c("cd")]
        );
    }

    #[test]
    fn the_leading_buffer_is_capped() {
        let long = "é".repeat(LEADING_REASONING_LIMIT + 1);
        let mut s = ThinkSplitter::new();
        assert_eq!(s.push(&long[..2 * LEADING_REASONING_LIMIT]), vec![]);
        assert_eq!(s.push(&long[2 * LEADING_REASONING_LIMIT..]), vec![c(&long)]);
        assert_eq!(s.push("then</think>after"), vec![c("thenafter")]);

        // Exactly at the limit the rule still applies.
        let at = "x".repeat(LEADING_REASONING_LIMIT);
        assert_eq!(split_all(&format!("{at}</think>y")), vec![r(&at), c("y")]);
        let over = "x".repeat(LEADING_REASONING_LIMIT + 1);
        assert_eq!(
            split_all(&format!("{over}</think>y")),
            vec![c(&format!("{over}y"))]
        );
    }

    #[test]
    fn lead_limit_zero_streams_plain_content_at_once() {
        let mut s = ThinkSplitter::with_lead_limit(0);
        assert_eq!(s.push("plain"), vec![c("plain")]);
        assert_eq!(s.push("</think>more"), vec![c("more")]);
        assert_eq!(s.finish(), vec![]);
    }

    #[test]
    fn finish_resets() {
        let mut s = ThinkSplitter::new();
        s.push("<think>a");
        assert_eq!(s.finish(), vec![]);
        assert!(!s.in_reasoning());
        assert_eq!(s.push("<think>b</think>"), vec![r("b")]);
    }

    /// The same tags as the reply's preparation strips (`reasoning_tags`), `<reasoning>` too.
    #[test]
    fn reasoning_tags_split_as_think_tags_do() {
        let mut s = ThinkSplitter::new();
        let mut got = s.push("<reasoning>why</REASONING>");
        got.extend(s.push("answer"));
        got.extend(s.finish());
        assert_eq!(merge(got), vec![r("why"), c("answer")]);
    }

    #[test]
    fn three_way_splits_of_a_tricky_example() {
        let text = "lead</thinking>x<Think>y<z</think>w<thin";
        let want = split_all(text);
        assert_eq!(want, vec![r("lead"), c("x"), r("y<z"), c("w<thin")]);
        let bounds: Vec<usize> = (0..=text.len()).collect();
        for &i in &bounds {
            for &j in &bounds[i..] {
                let got = run(&[&text[..i], &text[i..j], &text[j..]]);
                assert_eq!(got, want, "{i} {j}");
            }
        }
    }
}
