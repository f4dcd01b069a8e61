//! `scripts/fuzz`: a small, self-contained, coverage-free fuzzer (stable Rust has no libFuzzer)
//! for the SSE decoder and the stream reader, the action parsers (text, JSON, native, think
//! tags) and the Markdown sanitiser.
//!
//! Inputs are spliced from dictionaries of each format's own fragments, built by small
//! grammars (SSE streams, JSON, labelled replies, Markdown with links) and mutated, plus random
//! bytes and characters. Each target checks invariants, not just "no panic": pushing a stream
//! in random pieces decodes like pushing it whole and like a simple reference decoder, the
//! think splitter matches a reference model, an action always names a one-line tool, the
//! sanitised HTML has no live tag, handler or script URL. A panic or a broken invariant is a
//! finding: its input is shrunk (dropping pieces while it still fails) and printed. Prints
//! executions and findings per target; exits 1 on any finding.
//!
//! Usage: fuzz [--seconds N] [--min-execs M] [--target NAME[,NAME…]|all] [--seed S]
//! Each target runs until both N seconds have passed and M inputs were run (defaults 20 s and
//! 1,000,000). The same seed and target replay the same inputs.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(host::main());
}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    use std::cell::RefCell;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::time::{Duration, Instant};

    use react_arena::agent::json_protocol::{parse_json_reaction, JsonReaction};
    use react_arena::agent::native::{bare_json_answer, bare_json_call, call_input};
    use react_arena::agent::protocol::{parse_reply, parse_think, Reply};
    use react_arena::agent::think_split::{Piece, ThinkSplitter, LEADING_REASONING_LIMIT};
    use react_arena::llm::chunk::{read_payload, ChatDelta, Payload};
    use react_arena::llm::sse::{SseDecoder, SseEvent};
    use react_arena::llm::stream::ChatStreamReader;
    use react_arena::llm::tool_calls::{ToolCall, ToolCallAssembler};
    use react_arena::llm::LlmError;
    use react_arena::markdown::render_markdown;

    const USAGE: &str = "usage: fuzz [--seconds N] [--min-execs M] [--target NAME[,NAME...]|all] [--seed S]";

    // -----------------------------------------------------------------------------------------
    // Randomness.

    /// splitmix64: small, fast and good enough to drive a fuzzer.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }

        fn one_in(&mut self, n: usize) -> bool {
            self.below(n) == 0
        }

        fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
            items[self.below(items.len())]
        }

        /// How many pieces an input has: mostly a few, sometimes hundreds, rarely thousands
        /// (to catch work that grows faster than the input).
        fn size(&mut self, small: usize) -> usize {
            match self.below(4096) {
                0 => 500 + self.below(4500),
                1..=64 => self.below(400),
                _ => self.below(small + 1),
            }
        }

        fn char(&mut self) -> char {
            let c = match self.below(8) {
                0..=2 => 0x20 + self.below(0x5F) as u32, // printable ASCII
                3 => self.below(0x20) as u32,            // controls, tab, newlines, NUL
                4 => 0x80 + self.below(0x780) as u32,    // Latin, Greek, Cyrillic, combining
                5 => [
                    0x200B, 0x200D, 0x202E, 0xFEFF, 0xFFFD, 0x2028, 0x00A0, 0x3000, 0xFF1A, 0x7F,
                ][self.below(10)],
                6 => 0x1F600 + self.below(0x50) as u32, // emoji
                _ => self.below(0x11_0000) as u32,
            };
            char::from_u32(c).unwrap_or('\u{FFFD}')
        }
    }

    fn hash_name(name: &str) -> u64 {
        name.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
        })
    }

    // -----------------------------------------------------------------------------------------
    // Cases.

    /// One input: its pieces (shrinking drops pieces), where to cut it when pushing it in
    /// parts (byte offsets into the joined input), and a target-specific knob.
    #[derive(Clone, Debug)]
    struct Case {
        tokens: Vec<Vec<u8>>,
        cuts: Vec<usize>,
        knob: u64,
    }

    impl Case {
        fn new(rng: &mut Rng, tokens: Vec<Vec<u8>>) -> Self {
            let len: usize = tokens.iter().map(Vec::len).sum();
            let mut cuts: Vec<usize> = if rng.one_in(8) {
                // Small even pieces, down to a byte at a time.
                let step = 1 + rng.below(4);
                (step..len).step_by(step).collect()
            } else {
                (0..rng.below(8)).map(|_| rng.below(len + 1)).collect()
            };
            cuts.sort_unstable();
            cuts.dedup();
            Case {
                tokens,
                cuts,
                knob: rng.next(),
            }
        }

        fn bytes(&self) -> Vec<u8> {
            self.tokens.concat()
        }

        /// The input as text (the text targets build it from UTF-8 pieces only).
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.bytes()).into_owned()
        }

        /// The case without tokens `at..at + n`; cuts keep their place in what remains.
        fn without(&self, at: usize, n: usize) -> Case {
            let start: usize = self.tokens[..at].iter().map(Vec::len).sum();
            let gone: usize = self.tokens[at..at + n].iter().map(Vec::len).sum();
            let mut tokens = self.tokens.clone();
            tokens.drain(at..at + n);
            let mut cuts: Vec<usize> = self
                .cuts
                .iter()
                .map(|&c| {
                    if c <= start {
                        c
                    } else {
                        start.max(c.saturating_sub(gone))
                    }
                })
                .collect();
            cuts.dedup();
            Case {
                tokens,
                cuts,
                knob: self.knob,
            }
        }
    }

    /// Splits `data` at the cuts that fall inside it.
    fn pieces<'a>(data: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
        let mut out = Vec::new();
        let mut last = 0;
        for &c in cuts {
            if c <= last || c >= data.len() {
                continue;
            }
            out.push(&data[last..c]);
            last = c;
        }
        out.push(&data[last..]);
        out
    }

    fn text_pieces<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut last = 0;
        for &c in cuts {
            if c <= last || c >= text.len() || !text.is_char_boundary(c) {
                continue;
            }
            out.push(&text[last..c]);
            last = c;
        }
        out.push(&text[last..]);
        out
    }

    fn tok(s: &str) -> Vec<u8> {
        s.as_bytes().to_vec()
    }

    /// Random pieces from a dictionary, with random characters mixed in.
    fn soup(rng: &mut Rng, words: &[&str], small: usize) -> Vec<Vec<u8>> {
        (0..rng.size(small))
            .map(|_| {
                if rng.one_in(6) {
                    tok(rng.char().encode_utf8(&mut [0; 4]))
                } else {
                    tok(rng.pick(words))
                }
            })
            .collect()
    }

    /// A few random edits: drop, repeat, swap or insert pieces.
    fn mutate(rng: &mut Rng, tokens: &mut Vec<Vec<u8>>, words: &[&str], raw_bytes: bool) {
        for _ in 0..rng.below(4) {
            let n = tokens.len();
            match rng.below(5) {
                0 if n > 0 => {
                    tokens.remove(rng.below(n));
                }
                1 if n > 0 => {
                    let t = tokens[rng.below(n)].clone();
                    tokens.insert(rng.below(n + 1), t);
                }
                2 if n > 1 => {
                    let (a, b) = (rng.below(n), rng.below(n));
                    tokens.swap(a, b);
                }
                3 if raw_bytes => {
                    let junk = (0..1 + rng.below(3)).map(|_| rng.next() as u8).collect();
                    tokens.insert(rng.below(n + 1), junk);
                }
                _ => {
                    let word = tok(rng.pick(words));
                    tokens.insert(rng.below(n + 1), word);
                }
            }
        }
    }

    /// A JSON string literal of random text, as pieces (escapes included).
    fn json_string(rng: &mut Rng, values: &[&str]) -> Vec<Vec<u8>> {
        let mut out = vec![tok("\"")];
        for _ in 0..rng.below(6) {
            match rng.below(4) {
                0 => out.push(tok(rng.pick(&[
                    "\\n",
                    "\\\"",
                    "\\\\",
                    "\\u00e9",
                    "\\ud83d\\ude00",
                    "\\ud800",
                    "\\t",
                    "\\/",
                    "\\x",
                ]))),
                1 => {
                    let c = rng.char();
                    if c != '"' && c != '\\' && c >= ' ' {
                        out.push(tok(c.encode_utf8(&mut [0; 4])));
                    }
                }
                _ => {
                    let s = serde_json::to_string(rng.pick(values)).unwrap_or_default();
                    out.push(tok(&s[1..s.len() - 1]));
                }
            }
        }
        out.push(tok("\""));
        out
    }

    // -----------------------------------------------------------------------------------------
    // Targets: SSE decoder and stream reader.

    const SSE_WORDS: &[&str] = &[
        "data: ",
        "data:",
        "data",
        "\n",
        "\r\n",
        "\r",
        "\n\n",
        ":",
        ": keep-alive",
        ":comment",
        "event: x",
        "event: error",
        "event:",
        "id: 1",
        "retry: 10",
        "[DONE]",
        " [DONE] ",
        "{\"choices\":[{\"delta\":{\"content\":\"",
        "\"}}]}",
        "{\"choices\":[{\"delta\":{\"reasoning\":\"r\"}}]}",
        "{\"choices\":[{\"delta\":{\"reasoning_content\":\"",
        "\"tool_calls\":[{\"index\":",
        "0,\"id\":\"c1\",\"function\":{\"name\":\"calculator\",\"arguments\":\"",
        "{\"error\":{\"message\":\"x\"}}",
        "{\"error\":\"x\"}",
        "{\"error\":null}",
        "{\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2,\"total_tokens\":3}}",
        "\u{feff}",
        "{",
        "}",
        "[",
        "]",
        "\"",
        "\\",
        "\\u00e9",
        "\\ud83d",
        "null",
        "é",
        "😀",
        " ",
    ];

    const TEXT_VALUES: &[&str] = &[
        "hi",
        "Answer: 42",
        "Action: calculator\nAction Input: 6*7",
        "<think>",
        "</think>",
        "é😀",
        "",
        " ",
        "\n",
        "data: x\n\n",
        "[DONE]",
        "\"quoted\"",
        "{\"input\": \"1+1\"}",
    ];

    /// One `data:` payload of a chat-completions stream, as pieces.
    fn chunk_payload(rng: &mut Rng) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let delta = |rng: &mut Rng, out: &mut Vec<Vec<u8>>, field: &str| {
            out.push(tok("{\"choices\":[{\"index\":0,\"delta\":{"));
            if rng.one_in(3) {
                out.push(tok("\"role\":\"assistant\","));
            }
            out.push(tok(&format!("\"{field}\":")));
            match rng.below(8) {
                0 => out.push(tok("null")),
                1 => out.push(tok("1e999")),
                _ => out.extend(json_string(rng, TEXT_VALUES)),
            }
            out.push(tok("}"));
            if rng.one_in(3) {
                out.push(tok(",\"finish_reason\":null"));
            }
            out.push(tok("}]}"));
        };
        match rng.below(12) {
            0..=2 => delta(rng, &mut out, "content"),
            3 => delta(rng, &mut out, "reasoning"),
            4 => delta(rng, &mut out, "reasoning_content"),
            5 | 6 => {
                out.push(tok("{\"choices\":[{\"delta\":{\"tool_calls\":["));
                for i in 0..1 + rng.below(2) {
                    if i > 0 {
                        out.push(tok(","));
                    }
                    out.push(tok(&format!("{{\"index\":{}", rng.below(3))));
                    if rng.one_in(2) {
                        out.push(tok(",\"id\":\"call_1\",\"type\":\"function\""));
                    }
                    out.push(tok(",\"function\":{"));
                    if rng.one_in(2) {
                        out.push(tok("\"name\":\"calculator\","));
                    }
                    out.push(tok("\"arguments\":"));
                    out.extend(json_string(rng, &["{\"input\": \"", "6*7", "\"}", "{", "}"]));
                    out.push(tok("}}"));
                }
                out.push(tok("]}}]}"));
            }
            7 => out.push(tok(
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}",
            )),
            8 => {
                out.push(tok(rng.pick(&[
                    "{\"error\":{\"message\":",
                    "{\"error\":{\"code\":500,\"message\":",
                    "{\"error\":",
                ])));
                out.extend(json_string(rng, TEXT_VALUES));
                out.push(tok(rng.pick(&["}}", "}", ""])));
            }
            9 => out.push(tok(rng.pick(&[
                "[DONE]",
                "{\"choices\":null}",
                "{\"choices\":[{\"delta\":null}]}",
                "{}",
                "[]",
                "\"str\"",
            ]))),
            10 => out.push(tok(&"[".repeat(1 + rng.below(300)))),
            _ => out.extend(soup(rng, SSE_WORDS, 6)),
        }
        out
    }

    /// A chat-completions event stream, as pieces.
    fn sse_stream(rng: &mut Rng) -> Vec<Vec<u8>> {
        let fixed_eol = rng.pick(&["\n", "\r\n", "\r"]);
        let mixed = rng.one_in(3);
        let eol = |rng: &mut Rng| {
            tok(if mixed {
                rng.pick(&["\n", "\r\n", "\r"])
            } else {
                fixed_eol
            })
        };
        let mut out = Vec::new();
        if rng.one_in(8) {
            out.push(tok("\u{feff}"));
        }
        for _ in 0..rng.size(6) {
            if rng.one_in(4) {
                out.push(tok(rng.pick(&[": keep-alive", ":", ": ping"])));
                out.push(eol(rng));
            }
            if rng.one_in(6) {
                out.push(tok(rng.pick(&["event: error", "event: x", "event:", "id: 3"])));
                out.push(eol(rng));
            }
            for _ in 0..1 + rng.below(2) {
                out.push(tok(rng.pick(&["data: ", "data:", "data:  "])));
                out.extend(chunk_payload(rng));
                out.push(eol(rng));
            }
            if !rng.one_in(8) {
                out.push(eol(rng));
            }
        }
        if rng.one_in(2) {
            out.push(tok("data: [DONE]"));
            if !rng.one_in(3) {
                out.push(eol(rng));
                out.push(eol(rng));
            }
        }
        if rng.one_in(3) {
            mutate(rng, &mut out, SSE_WORDS, true);
        }
        out
    }

    fn gen_sse(rng: &mut Rng) -> Case {
        let tokens = match rng.below(3) {
            0 => (0..rng.size(40))
                .map(|_| {
                    if rng.one_in(5) {
                        (0..1 + rng.below(3)).map(|_| rng.next() as u8).collect()
                    } else {
                        tok(rng.pick(SSE_WORDS))
                    }
                })
                .collect(),
            _ => sse_stream(rng),
        };
        Case::new(rng, tokens)
    }

    fn decode(parts: &[&[u8]]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        for p in parts {
            out.extend(d.push(p));
        }
        out.extend(d.finish());
        out
    }

    /// The event-stream format read the plain way: the whole input split into lines.
    fn reference_sse(input: &[u8]) -> Vec<SseEvent> {
        let input = input.strip_prefix(b"\xef\xbb\xbf").unwrap_or(input);
        let mut lines = Vec::new();
        let (mut i, mut start) = (0, 0);
        while i < input.len() {
            match input[i] {
                b'\n' => {
                    lines.push(&input[start..i]);
                    i += 1;
                    start = i;
                }
                b'\r' => {
                    lines.push(&input[start..i]);
                    i += 1;
                    if input.get(i) == Some(&b'\n') {
                        i += 1;
                    }
                    start = i;
                }
                _ => i += 1,
            }
        }
        let tail = &input[start..];
        if !tail.is_empty() {
            lines.push(tail);
        }
        let mut out = Vec::new();
        let (mut data, mut has_data, mut event) = (String::new(), false, None);
        let mut dispatch = |data: &mut String, has_data: &mut bool, event: &mut Option<String>| {
            let name = event.take();
            if std::mem::take(has_data) {
                out.push(SseEvent {
                    event: name,
                    data: std::mem::take(data),
                });
            }
        };
        for line in lines {
            if line.is_empty() {
                dispatch(&mut data, &mut has_data, &mut event);
                continue;
            }
            if line[0] == b':' {
                continue;
            }
            let (field, value): (&[u8], &[u8]) = match line.iter().position(|&b| b == b':') {
                Some(c) => {
                    let v = &line[c + 1..];
                    (&line[..c], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (line, b""),
            };
            match field {
                b"data" => {
                    if has_data {
                        data.push('\n');
                    }
                    data.push_str(&String::from_utf8_lossy(value));
                    has_data = true;
                }
                b"event" => event = Some(String::from_utf8_lossy(value).into_owned()),
                _ => {}
            }
        }
        dispatch(&mut data, &mut has_data, &mut event);
        out
    }

    fn check_sse(case: &Case) -> Result<(), String> {
        let data = case.bytes();
        let whole = decode(&[&data]);
        let want = reference_sse(&data);
        if whole != want {
            return Err(format!(
                "sse reference | pushed whole: {whole:?}; reference decoder: {want:?}"
            ));
        }
        let split = decode(&pieces(&data, &case.cuts));
        if split != whole {
            return Err(format!(
                "sse split | in pieces: {split:?}; whole: {whole:?}"
            ));
        }
        if case.knob % 4 == 0 {
            let bytes: Vec<&[u8]> = data.chunks(1).collect();
            let one_by_one = decode(&bytes);
            if one_by_one != whole {
                return Err(format!(
                    "sse bytewise | a byte at a time: {one_by_one:?}; whole: {whole:?}"
                ));
            }
        }
        Ok(())
    }

    type StreamOutcome = (Vec<ChatDelta>, Result<(), LlmError>, bool);

    fn read_stream(parts: &[&[u8]]) -> StreamOutcome {
        let mut reader = ChatStreamReader::new();
        let mut out = Vec::new();
        let mut result = Ok(());
        for p in parts {
            result = reader.push(p, &mut |d| out.push(d));
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result = reader.finish(&mut |d| out.push(d));
        }
        (out, result, reader.is_done())
    }

    /// What the reader should give: the reference events, each payload read once, nothing
    /// after `[DONE]`, an error ending the stream, the skipped count at the end.
    fn reference_stream(input: &[u8]) -> StreamOutcome {
        let mut out = Vec::new();
        let mut malformed = 0;
        let mut done = false;
        for ev in reference_sse(input) {
            if done {
                continue;
            }
            match read_payload(&ev.data) {
                Err(e) => return (out, Err(e), false),
                Ok(Payload::Done) => done = true,
                Ok(Payload::Malformed) => malformed += 1,
                Ok(Payload::Deltas(ds)) => out.extend(ds),
            }
        }
        if malformed > 0 {
            out.push(ChatDelta::Skipped(malformed));
        }
        (out, Ok(()), done)
    }

    fn check_stream(case: &Case) -> Result<(), String> {
        let data = case.bytes();
        let whole = read_stream(&[&data]);
        let want = reference_stream(&data);
        // `is_done` is only comparable when the stream was read to its end.
        let comparable = |o: &StreamOutcome| (o.0.clone(), o.1.clone(), o.1.is_ok() && o.2);
        if comparable(&whole) != comparable(&want) {
            return Err(format!(
                "stream reference | pushed whole: {whole:?}; reference: {want:?}"
            ));
        }
        let split = read_stream(&pieces(&data, &case.cuts));
        if comparable(&split) != comparable(&whole) {
            return Err(format!(
                "stream split | in pieces: {split:?}; whole: {whole:?}"
            ));
        }
        // The tool-call fragments assemble into calls whose arguments are the fragments joined.
        let mut assembler = ToolCallAssembler::default();
        let mut joined: Vec<(usize, String)> = Vec::new();
        for d in &whole.0 {
            if let ChatDelta::ToolCall(t) = d {
                assembler.push(t);
                match joined.iter_mut().find(|(i, _)| *i == t.index) {
                    Some((_, a)) => a.push_str(&t.arguments),
                    None => joined.push((t.index, t.arguments.clone())),
                }
            }
        }
        joined.sort_by_key(|(i, _)| *i);
        let calls = assembler.finish();
        let got: Vec<&str> = calls.iter().map(|c| c.arguments.as_str()).collect();
        let want: Vec<&str> = joined.iter().map(|(_, a)| a.as_str()).collect();
        if got != want {
            return Err(format!(
                "tool call assembly | arguments {got:?}, fragments joined {want:?}"
            ));
        }
        for call in &calls {
            if call.id.is_empty() {
                return Err(format!("tool call assembly | a call without an id: {call:?}"));
            }
            if let Err(e) = call_input(call) {
                if e.is_empty() {
                    return Err("call_input | an empty error message".into());
                }
            }
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Targets: the action parsers.

    const PROTOCOL_WORDS: &[&str] = &[
        "Thought:",
        "Action:",
        "Action Input:",
        "Answer:",
        "Final Answer:",
        "Observation:",
        "**Action:**",
        "### Action",
        "1. Thought:",
        "Thought 2:",
        "action_input:",
        "Tool:",
        "Question:",
        "```json",
        "```python",
        "```",
        "<think>",
        "</think>",
        "<thinking>",
        "<reasoning>",
        "</reasoning>",
        "<answer>",
        "</answer>",
        "<tool_call>",
        "</tool_call>",
        "<|channel|>",
        "<|message|>",
        "<|end|>",
        "<|call|>",
        "<|start|>",
        "<|im_end|>",
        "</s>",
        "analysis",
        "assistantfinal",
        "assistantcommentary",
        "final",
        "commentary to=functions.calculator",
        " to=",
        "{\"action\":",
        "{\"name\":",
        "\"action_input\":",
        "\"arguments\":",
        "\"parameters\":",
        "\"input\":",
        "[",
        "]",
        "(",
        ")",
        "{",
        "}",
        "\"",
        "'",
        "`",
        "\\",
        "\\n",
        "é",
        "😀",
        "\n",
        "\r\n",
        " ",
        "\t",
        ".",
        "calculator",
        "web_search",
        "Finish[",
        "query=",
        "6*7",
        "**",
        "None",
        "N/A",
        "answer",
        "Final Answer",
        ",",
        ":",
        "：",
    ];

    const LABEL_WORDS: &[&str] = &[
        "Thought",
        "Action",
        "Action Input",
        "Answer",
        "Final Answer",
        "Observation",
        "action_input",
        "ACTION",
        "Tool",
        "Tool Input",
        "Tool Name",
        "Input",
        "Question",
        "Reasoning",
        "Obs",
        "Final Response",
        "Act",
        "Action Output",
    ];

    const VALUE_WORDS: &[&str] = &[
        "calculator",
        "web_search",
        "wikipedia",
        "python",
        "weather",
        "calculator[6*7]",
        "calculator(6*7)",
        "web_search(query=\"rust\")",
        "calculator: 2+2",
        "None",
        "none needed",
        "N/A",
        "Final Answer",
        "Finish[42]",
        "42",
        "\"6*7\"",
        "`6*7`",
        "{\"query\": \"x\"}",
        "{\"a\": 1, \"b\": 2}",
        "```json",
        "```python",
        "```",
        "print(1)",
        "[calculator]",
        "**calculator**",
        "calculator (to multiply)",
        "é😀",
        "",
        "{\"action\": \"calculator\", \"action_input\": \"2+2\"}",
        "{\"name\": \"calculator\", \"parameters\": {\"input\": \"1\"}}",
        "<tool_call>{\"name\": \"calculator\", \"arguments\": {\"input\": \"1\"}}</tool_call>",
        "<answer>4</answer>",
        "<|channel|>final<|message|>",
        "<|channel|>commentary to=functions.calculator<|message|>",
        "<|end|>",
        "So. Final Answer: 4",
        "x Action Input: y",
        "<think>hmm</think>",
        "(",
        ")",
        "[",
        "]",
        "\"",
    ];

    /// A reply written line by line: decorated labels, separators and values.
    fn reply_lines(rng: &mut Rng) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for _ in 0..rng.size(8) {
            out.push(tok(rng.pick(&[
                "", "", "", "**", "### ", "1. ", "> ", "- ", "`", "__", "2) ", "  ",
            ])));
            out.push(tok(rng.pick(LABEL_WORDS)));
            out.push(tok(rng.pick(&[
                ":", ": ", " : ", "：", ":**", "**:", "", " 2:", "\t:", ":__",
            ])));
            for _ in 0..rng.below(3) {
                if rng.one_in(5) {
                    out.push(tok(rng.char().encode_utf8(&mut [0; 4])));
                } else {
                    out.push(tok(rng.pick(VALUE_WORDS)));
                }
                if rng.one_in(2) {
                    out.push(tok(" "));
                }
            }
            out.push(tok(rng.pick(&["\n", "\n", "\n", "\r\n", "", " ", "\n\n"])));
        }
        if rng.one_in(3) {
            mutate(rng, &mut out, PROTOCOL_WORDS, false);
        }
        out
    }

    fn gen_reply(rng: &mut Rng) -> Case {
        let tokens = if rng.one_in(2) {
            reply_lines(rng)
        } else {
            soup(rng, PROTOCOL_WORDS, 40)
        };
        Case::new(rng, tokens)
    }

    fn check_reply(case: &Case) -> Result<(), String> {
        let text = case.text();
        match parse_reply(&text) {
            Reply::Action { tool, input, .. } => {
                if tool.trim().is_empty() || tool.contains(['\n', '\r']) {
                    return Err(format!("action tool | tool {tool:?}, not one non-empty line"));
                }
                if input.trim().is_empty() {
                    return Err(format!("action input | empty input for {tool:?}"));
                }
            }
            Reply::Answer { answer, .. } => {
                if answer.trim().is_empty() {
                    return Err("answer | an empty answer".into());
                }
            }
            Reply::Invalid { problem, .. } => {
                if problem.trim().is_empty() {
                    return Err("invalid | no problem told".into());
                }
            }
        }
        let _ = parse_think(&text);
        Ok(())
    }

    const JSON_KEYS: &[&str] = &[
        "action",
        "tool",
        "name",
        "function",
        "arguments",
        "args",
        "action_input",
        "input",
        "argument",
        "answer",
        "text",
        "content",
        "explanation",
        "thought",
        "reason",
        "reasoning",
        "parameters",
        "tool_input",
        "query",
        "id",
    ];

    const JSON_VALUES: &[&str] = &[
        "calculator",
        "web_search",
        "answer",
        "Answer",
        "Final Answer",
        "final_answer",
        "final-answer",
        "finish",
        "none",
        "None",
        "N/A",
        "null",
        "",
        " ",
        "6*7",
        "{\"input\": \"1\"}",
        "{\"a\": 1}",
        "[1, 2]",
        "é😀",
        "line\nbreak",
        "Observation: x",
        "```",
        "`calculator`",
        "**x**",
    ];

    const JSON_WORDS: &[&str] = &[
        "{", "}", "[", "]", ",", ":", "\"", "\"action\"", "\"arguments\"", "\"answer\"", "null",
        "1e999", "-0", "true", "'", "```json\n", "```", "\n", " ", "\\", "\\u0000", "<tool_call>",
        "</tool_call>", "[{\"action\": \"answer\", \"arguments\": [\"4\"]}]",
    ];

    /// A random JSON value, as pieces; sometimes a little off (trailing commas, bare keys).
    fn json_value(rng: &mut Rng, depth: usize, out: &mut Vec<Vec<u8>>) {
        match rng.below(if depth > 3 { 4 } else { 8 }) {
            0 => out.push(tok(rng.pick(&[
                "0",
                "1",
                "-1",
                "3.5",
                "1e999",
                "12345678901234567890",
                "-0",
            ]))),
            1 => out.push(tok(rng.pick(&["true", "false", "null"]))),
            2 | 3 => out.extend(json_string(rng, JSON_VALUES)),
            4..=6 => {
                out.push(tok("{"));
                for i in 0..rng.below(4) {
                    if i > 0 {
                        out.push(tok(", "));
                    }
                    let key = rng.pick(JSON_KEYS);
                    out.push(tok(&if rng.one_in(16) {
                        key.to_string()
                    } else {
                        format!("\"{key}\"")
                    }));
                    out.push(tok(": "));
                    json_value(rng, depth + 1, out);
                }
                if rng.one_in(16) {
                    out.push(tok(","));
                }
                out.push(tok("}"));
            }
            _ => {
                out.push(tok("["));
                for i in 0..rng.below(4) {
                    if i > 0 {
                        out.push(tok(", "));
                    }
                    json_value(rng, depth + 1, out);
                }
                if rng.one_in(16) {
                    out.push(tok(","));
                }
                out.push(tok("]"));
            }
        }
    }

    fn gen_json(rng: &mut Rng) -> Case {
        let tokens = if rng.one_in(4) {
            soup(rng, JSON_WORDS, 40)
        } else {
            let mut out = Vec::new();
            out.push(tok(rng.pick(&[
                "",
                "",
                "",
                "```json\n",
                "```\n",
                "<tool_call>",
                "Sure! ",
                "Thought: x\n",
                "  ",
            ])));
            for i in 0..1 + rng.below(2) {
                if i > 0 {
                    out.push(tok(rng.pick(&["\n", ",", " ", ""])));
                }
                json_value(rng, 0, &mut out);
            }
            out.push(tok(rng.pick(&[
                "",
                "",
                "",
                "\n```",
                "```",
                "</tool_call>",
                " Done.",
                "\n",
            ])));
            if rng.one_in(3) {
                mutate(rng, &mut out, JSON_WORDS, false);
            }
            out
        };
        Case::new(rng, tokens)
    }

    fn is_final_answer_name(name: &str) -> bool {
        let n: String = name
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase();
        n == "finalanswer" || n == "answer"
    }

    fn check_json(case: &Case) -> Result<(), String> {
        let text = case.text();
        match parse_json_reaction(&text) {
            JsonReaction::Actions(actions) => {
                if actions.is_empty() {
                    return Err("json actions | an empty list of actions".into());
                }
                for a in &actions {
                    let t = a.tool.trim().to_ascii_lowercase();
                    if t.is_empty() || t == "none" || t == "null" {
                        return Err(format!("json action tool | names no tool: {a:?}"));
                    }
                }
            }
            JsonReaction::Answer { text: answer, .. } => {
                if answer.trim().is_empty() || answer.trim() != answer {
                    return Err(format!("json answer | answer {answer:?} empty or untrimmed"));
                }
            }
            JsonReaction::Invalid { problem } => {
                if problem.trim().is_empty() {
                    return Err("json invalid | no problem told".into());
                }
            }
        }
        if let Some((name, _)) = bare_json_call(&text) {
            if name.is_empty() || name.trim() != name || is_final_answer_name(&name) {
                return Err(format!("bare json call | tool name {name:?}"));
            }
        }
        let _ = bare_json_answer(&text);
        let call = |arguments: String| ToolCall {
            id: "call_0".into(),
            name: "calculator".into(),
            arguments,
        };
        let args = text.trim();
        match call_input(&call(text.clone())) {
            Err(e) if e.trim().is_empty() => return Err("call_input | empty error".into()),
            Ok(s) if !args.is_empty()
                && !args.starts_with(['{', '['])
                && serde_json::from_str::<serde_json::Value>(args).is_err()
                && s != args =>
            {
                return Err(format!(
                    "call_input raw | raw arguments give {s:?}, not themselves"
                ));
            }
            _ => {}
        }
        // Arguments of the documented shape give their input back exactly.
        let wrapped = serde_json::json!({ "input": text }).to_string();
        if call_input(&call(wrapped)) != Ok(text.clone()) {
            return Err("call_input wrapped | {\"input\": text} does not give text".into());
        }
        let bare = serde_json::json!({ "name": "calculator", "arguments": { "input": text } });
        if bare_json_call(&bare.to_string()) != Some(("calculator".into(), text.clone())) {
            return Err("bare json call wrapped | a well-formed call is not read back".into());
        }
        Ok(())
    }

    const THINK_WORDS: &[&str] = &[
        "<think>",
        "</think>",
        "<thinking>",
        "</thinking>",
        "<THINK>",
        "</Think>",
        "<ThInKiNg>",
        "<",
        ">",
        "/",
        "<thi",
        "nk>",
        "</",
        "think",
        "ing>",
        "<<",
        "a",
        "xyz ",
        "é",
        "😀",
        "\n",
        " ",
        "Answer: 4",
    ];

    fn gen_think(rng: &mut Rng) -> Case {
        let tokens = soup(rng, THINK_WORDS, 30);
        Case::new(rng, tokens)
    }

    const THINK_TAGS: [(&str, bool); 4] = [
        ("<think>", true),
        ("</think>", false),
        ("<thinking>", true),
        ("</thinking>", false),
    ];

    fn add_piece(out: &mut Vec<Piece>, reasoning: bool, text: &str) {
        if text.is_empty() {
            return;
        }
        match (out.last_mut(), reasoning) {
            (Some(Piece::Reasoning(t)), true) | (Some(Piece::Content(t)), false) => {
                t.push_str(text)
            }
            (_, true) => out.push(Piece::Reasoning(text.into())),
            (_, false) => out.push(Piece::Content(text.into())),
        }
    }

    /// The documented split, computed on the whole text: tags found left to right and removed;
    /// an opening tag starts reasoning, a closing one ends it; the text before the first tag is
    /// reasoning when that tag closes and the text is no longer than the limit.
    fn reference_think(text: &str, limit: usize) -> Vec<Piece> {
        let b = text.as_bytes();
        let mut segments: Vec<(&str, Option<bool>)> = Vec::new();
        let (mut i, mut start) = (0, 0);
        while i < b.len() {
            let tag = (b[i] == b'<')
                .then(|| {
                    THINK_TAGS.iter().find(|(t, _)| {
                        b.len() - i >= t.len() && b[i..i + t.len()].eq_ignore_ascii_case(t.as_bytes())
                    })
                })
                .flatten();
            match tag {
                Some((t, opens)) => {
                    segments.push((&text[start..i], Some(*opens)));
                    i += t.len();
                    start = i;
                }
                None => i += 1,
            }
        }
        segments.push((&text[start..], None));
        let mut out = Vec::new();
        let (lead, first) = segments[0];
        let lead_reasoning = limit > 0 && first == Some(false) && lead.chars().count() <= limit;
        add_piece(&mut out, lead_reasoning, lead);
        let mut inside = first.unwrap_or(false);
        for &(seg, tag) in &segments[1..] {
            add_piece(&mut out, inside, seg);
            if let Some(opens) = tag {
                inside = opens;
            }
        }
        out
    }

    fn well_formed(pieces: &[Piece]) -> bool {
        pieces.iter().all(|p| !p.text().is_empty())
            && pieces
                .windows(2)
                .all(|w| w[0].is_reasoning() != w[1].is_reasoning())
    }

    fn check_think(case: &Case) -> Result<(), String> {
        let text = case.text();
        let limit = [0, 1, 2, 5, 16, LEADING_REASONING_LIMIT][(case.knob % 6) as usize];
        let run = |parts: &[&str]| -> Result<Vec<Piece>, String> {
            let mut s = ThinkSplitter::with_lead_limit(limit);
            let mut all = Vec::new();
            for p in parts {
                let got = s.push(p);
                if !well_formed(&got) {
                    return Err(format!("think push | push gave {got:?}"));
                }
                all.extend(got);
            }
            let end = s.finish();
            if !well_formed(&end) {
                return Err(format!("think finish | finish gave {end:?}"));
            }
            if s.in_reasoning() {
                return Err("think finish | still in reasoning after finish".into());
            }
            all.extend(end);
            let mut merged = Vec::new();
            for p in &all {
                add_piece(&mut merged, p.is_reasoning(), p.text());
            }
            Ok(merged)
        };
        let whole = run(&[&text])?;
        let want = reference_think(&text, limit);
        if whole != want {
            return Err(format!(
                "think reference | limit {limit}: whole {whole:?}; reference {want:?}"
            ));
        }
        let split = run(&text_pieces(&text, &case.cuts))?;
        if split != whole {
            return Err(format!(
                "think split | limit {limit}: in pieces {split:?}; whole {whole:?}"
            ));
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Target: the Markdown sanitiser.

    const MARKDOWN_WORDS: &[&str] = &[
        "<script>",
        "</script>",
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[a](javascript:alert(1))",
        "[a](JaVaScRiPt:x)",
        "[a]( javascript:x)",
        "[a](data:text/html,x)",
        "[a](vbscript:x)",
        "![i](http://h/x.png)",
        "![i](javascript:x)",
        "[![i](x.png)](javascript:x)",
        "<javascript:alert(1)>",
        "<http://h/>",
        "<a@b.c>",
        "<a href=",
        "<a href=\"javascript:x\">",
        "</a>",
        "<iframe",
        "<svg onload=",
        "<svg/onload=alert(1)>",
        "<!--",
        "-->",
        "<![CDATA[",
        "<?php",
        "<div>",
        "<style>",
        "`",
        "```",
        "```\" onload=\"x\n",
        "    ",
        "*",
        "_",
        "~~",
        "\\",
        "&lt;",
        "&#106;",
        "&#x6A;",
        "&colon;",
        "&Tab;",
        "&amp;",
        "&quot;",
        "\n",
        "\n\n",
        "- ",
        "1. ",
        "> ",
        "# ",
        "| a | b |\n|---|:-:|\n",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        "\"",
        "'",
        " ",
        "java\tscript:",
        "&#x6A;avascript:",
        "[x]: javascript:y\n[z][x]",
        "[x]\n\n[x]: data:x\n",
        " \"title\"",
        " 'on'",
        " onmouseover=\"x\"",
        "javascript:",
        "http://h",
        "x",
    ];

    /// A link destination meant to get past the scheme check.
    fn link_dest(rng: &mut Rng) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        if rng.one_in(3) {
            out.push(tok(rng.pick(&[" ", "\t", "\u{0}", "\u{1}", "\u{a0}", "\u{200b}", "<"])));
        }
        out.push(tok(rng.pick(&[
            "javascript",
            "JaVaScRiPt",
            "java\tscript",
            "java\nscript",
            "jav&#x09;ascript",
            "java&#115;cript",
            "&#106;avascript",
            "&#x6a;avascript",
            "java\\script",
            "java%73cript",
            "data",
            "DATA",
            "vbscript",
            "http",
            "https",
            "mailto",
            "ftp",
            "",
            "//h",
            "#f",
            "/p",
            "?q",
            "javascriptjavascript",
        ])));
        out.push(tok(rng.pick(&[":", "&colon;", "&#58;", "&#x3a;", "%3a", "\\:", ":"])));
        out.push(tok(rng.pick(&[
            "alert(1)",
            "x",
            "//h/x.png",
            "text/html,<script>alert(1)</script>",
            "text/html;base64,PHNjcmlwdD4=",
            "",
            "a b",
        ])));
        if rng.one_in(4) {
            out.push(tok(rng.pick(&[" \"t\"", " 'on x'", " (\")", ">"])));
        }
        out
    }

    fn markdown_blocks(rng: &mut Rng) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for _ in 0..rng.size(6) {
            out.push(tok(rng.pick(&["", "", "# ", "> ", "- ", "1. ", "    ", "| "])));
            for _ in 0..1 + rng.below(3) {
                match rng.below(7) {
                    0 => {
                        out.push(tok(rng.pick(&["[", "![", "[![i](", "[a "])));
                        out.push(tok(rng.pick(&["a", "", "*b*", "`c`", "<i>", "é"])));
                        out.push(tok("]("));
                        out.extend(link_dest(rng));
                        out.push(tok(")"));
                        if rng.one_in(3) {
                            out.push(tok(rng.pick(&[")", "](x)", "]"])));
                        }
                    }
                    1 => {
                        out.push(tok("[r]: "));
                        out.extend(link_dest(rng));
                        out.push(tok("\n\n[t][r] ![t][r] [r]\n"));
                    }
                    2 => {
                        out.push(tok("<"));
                        out.extend(link_dest(rng));
                        out.push(tok(">"));
                    }
                    3 => {
                        out.push(tok("```"));
                        out.push(tok(rng.pick(&["", "rust", "\" onload=\"x", "<img>", "a&b"])));
                        out.push(tok("\n<script>x</script>\n```\n"));
                    }
                    _ => out.push(tok(rng.pick(MARKDOWN_WORDS))),
                }
            }
            out.push(tok(rng.pick(&["\n", "\n\n", " "])));
        }
        if rng.one_in(3) {
            mutate(rng, &mut out, MARKDOWN_WORDS, false);
        }
        out
    }

    fn gen_markdown(rng: &mut Rng) -> Case {
        let tokens = if rng.one_in(2) {
            markdown_blocks(rng)
        } else {
            soup(rng, MARKDOWN_WORDS, 40)
        };
        Case::new(rng, tokens)
    }

    struct HtmlTag {
        name: String,
        closing: bool,
        attrs: Vec<(String, String)>,
        raw: String,
    }

    /// Reads the tags of the sanitiser's output. Text there is escaped, so every `<` must open a
    /// well-formed tag; anything else is raw HTML getting through.
    fn html_tags(html: &str) -> Result<Vec<HtmlTag>, String> {
        let b = html.as_bytes();
        let mut tags = Vec::new();
        let mut i = 0;
        while let Some(rel) = html[i..].find('<') {
            let start = i + rel;
            let mut j = start + 1;
            let closing = b.get(j) == Some(&b'/');
            if closing {
                j += 1;
            }
            let name_start = j;
            while j < b.len() && b[j].is_ascii_alphanumeric() {
                j += 1;
            }
            if j == name_start {
                let end = (start + 40).min(html.len());
                let end = (end..=html.len())
                    .find(|&e| html.is_char_boundary(e))
                    .unwrap_or(html.len());
                return Err(format!("stray < | a '<' that opens no tag: {:?}", &html[start..end]));
            }
            let name = html[name_start..j].to_ascii_lowercase();
            let mut attrs = Vec::new();
            loop {
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                match b.get(j) {
                    None => return Err(format!("unterminated tag | <{name} never closes")),
                    Some(b'>') => {
                        j += 1;
                        break;
                    }
                    Some(b'/') if b.get(j + 1) == Some(&b'>') => {
                        j += 2;
                        break;
                    }
                    _ => {}
                }
                let a = j;
                while j < b.len() && !b[j].is_ascii_whitespace() && !b"=>/".contains(&b[j]) {
                    j += 1;
                }
                if j == a {
                    return Err(format!("bad attribute | in <{name} at byte {j}"));
                }
                let attr = html[a..j].to_ascii_lowercase();
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                let mut value = String::new();
                if b.get(j) == Some(&b'=') {
                    j += 1;
                    while j < b.len() && b[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    let v = match b.get(j) {
                        Some(&q @ (b'"' | b'\'')) => {
                            let end = html[j + 1..]
                                .find(q as char)
                                .map(|e| j + 1 + e)
                                .ok_or_else(|| format!("unterminated attribute | {attr} in <{name}"))?;
                            let v = &html[j + 1..end];
                            j = end + 1;
                            v
                        }
                        _ => {
                            let v0 = j;
                            while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b'>' {
                                j += 1;
                            }
                            &html[v0..j]
                        }
                    };
                    value = v.to_string();
                }
                attrs.push((attr, value));
            }
            tags.push(HtmlTag {
                name,
                closing,
                attrs,
                raw: html[start..j].to_string(),
            });
            i = j;
        }
        Ok(tags)
    }

    /// Decodes character references the simple way browsers do in attribute values.
    fn decode_entities(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(at) = rest.find('&') {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            let decoded = rest[1..].find(';').filter(|&e| e <= 10).and_then(|e| {
                let name = &rest[1..1 + e];
                let c = match name {
                    "amp" => Some('&'),
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    "colon" => Some(':'),
                    "Tab" | "tab" => Some('\t'),
                    "NewLine" | "newline" => Some('\n'),
                    "nbsp" => Some('\u{a0}'),
                    _ => {
                        let num = name.strip_prefix('#')?;
                        let n = match num.strip_prefix(['x', 'X']) {
                            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                            None => num.parse().ok()?,
                        };
                        Some(char::from_u32(n).unwrap_or('\u{fffd}'))
                    }
                }?;
                Some((c, e + 2))
            });
            match decoded {
                Some((c, len)) => {
                    out.push(c);
                    rest = &rest[len..];
                }
                None => {
                    out.push('&');
                    rest = &rest[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// The URL's scheme as a browser reads it: C0 controls and spaces trimmed, tabs and
    /// newlines removed, lowercased.
    fn url_scheme(raw: &str) -> Option<String> {
        let url: String = decode_entities(raw)
            .trim_matches(|c: char| c <= ' ')
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect();
        let (scheme, _) = url.split_once(':')?;
        let mut chars = scheme.chars();
        let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        valid.then(|| scheme.to_ascii_lowercase())
    }

    const ALLOWED_TAGS: &[&str] = &[
        "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code", "ol",
        "ul", "li", "em", "strong", "del", "a", "table", "thead", "tbody", "tr", "th", "td",
    ];

    const ALLOWED_ATTRS: &[&str] = &["href", "title", "class", "rel", "target", "start", "style"];

    fn check_markdown(case: &Case) -> Result<(), String> {
        let text = case.text();
        let html = render_markdown(&text);
        let lower = html.to_ascii_lowercase();
        for live in ["<script", "<img", "<iframe", "<svg", "<object", "<embed", "<style", "<link"] {
            if lower.contains(live) {
                return Err(format!("live tag | {live}> in the output: {html:?}"));
            }
        }
        for tag in html_tags(&html)? {
            if !ALLOWED_TAGS.contains(&tag.name.as_str()) {
                return Err(format!("unexpected tag | {}", tag.raw));
            }
            if tag.closing {
                continue;
            }
            for (attr, value) in &tag.attrs {
                if attr.starts_with("on") {
                    return Err(format!("event handler | {}", tag.raw));
                }
                if !ALLOWED_ATTRS.contains(&attr.as_str()) {
                    return Err(format!("unexpected attribute | {}", tag.raw));
                }
                if attr == "style" && !value.starts_with("text-align:") {
                    return Err(format!("style attribute | {}", tag.raw));
                }
                if attr == "href" {
                    if let Some(s) = url_scheme(value) {
                        if matches!(s.as_str(), "javascript" | "data" | "vbscript") {
                            return Err(format!("script url | {}", tag.raw));
                        }
                    }
                }
            }
            if tag.name == "a" {
                let has = |k: &str, v: &str| tag.attrs.iter().any(|(a, x)| a == k && x == v);
                if !has("rel", "noopener noreferrer") || !has("target", "_blank") {
                    return Err(format!("link not opened apart | {}", tag.raw));
                }
            }
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Running.

    type Check = fn(&Case) -> Result<(), String>;

    struct Target {
        name: &'static str,
        gen: fn(&mut Rng) -> Case,
        check: Check,
        /// Inputs are text: shrink by characters, not bytes.
        text: bool,
    }

    const TARGETS: &[Target] = &[
        Target {
            name: "sse",
            gen: gen_sse,
            check: check_sse,
            text: false,
        },
        Target {
            name: "stream",
            gen: gen_sse,
            check: check_stream,
            text: false,
        },
        Target {
            name: "reply",
            gen: gen_reply,
            check: check_reply,
            text: true,
        },
        Target {
            name: "json",
            gen: gen_json,
            check: check_json,
            text: true,
        },
        Target {
            name: "think",
            gen: gen_think,
            check: check_think,
            text: true,
        },
        Target {
            name: "markdown",
            gen: gen_markdown,
            check: check_markdown,
            text: true,
        },
    ];

    thread_local! {
        /// What the last panic said, for the finding's report.
        static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
        /// Under `panic = "abort"` the process dies in the hook: the input is printed there.
        static CURRENT: RefCell<Option<(&'static str, Vec<u8>)>> = const { RefCell::new(None) };
    }

    fn install_quiet_hook() {
        std::panic::set_hook(Box::new(|info| {
            let msg = info.to_string().replace('\n', " ");
            if cfg!(panic = "abort") {
                if let Some((target, input)) = CURRENT.with(|c| c.borrow().clone()) {
                    eprintln!(
                        "FINDING in {target}: {msg}\n  input: {}\n  (built with panic=abort: \
                         the fuzzer stops here; scripts/fuzz builds with panic=unwind)",
                        show(&input)
                    );
                }
            }
            LAST_PANIC.with(|p| *p.borrow_mut() = msg);
        }));
    }

    fn run_check(t: &Target, case: &Case) -> Result<(), String> {
        if cfg!(panic = "abort") {
            CURRENT.with(|c| *c.borrow_mut() = Some((t.name, case.bytes())));
        }
        match catch_unwind(AssertUnwindSafe(|| (t.check)(case))) {
            Ok(r) => r,
            Err(_) => Err(format!(
                "panic | {}",
                LAST_PANIC.with(|p| std::mem::take(&mut *p.borrow_mut()))
            )),
        }
    }

    fn kind(problem: &str) -> &str {
        problem.split(" | ").next().unwrap_or(problem)
    }

    fn show(bytes: &[u8]) -> String {
        match std::str::from_utf8(bytes) {
            Ok(s) => format!("{s:?}"),
            Err(_) => format!("b\"{}\"", bytes.escape_ascii()),
        }
    }

    /// Drops pieces (halves, quarters, … single pieces, then single characters or bytes) and
    /// cuts while the same kind of problem remains.
    fn shrink(t: &Target, case: &Case, problem: &str) -> (Case, String) {
        let want = kind(problem).to_string();
        let mut best = case.clone();
        let mut best_problem = problem.to_string();
        let mut budget = 20_000u32;
        let fails = |c: &Case, budget: &mut u32| -> Option<String> {
            if *budget == 0 {
                return None;
            }
            *budget -= 1;
            run_check(t, c).err().filter(|p| kind(p) == want)
        };
        for exploded in [false, true] {
            if exploded {
                // Split every piece into characters (text) or bytes.
                let mut tokens = Vec::new();
                for tk in &best.tokens {
                    match std::str::from_utf8(tk) {
                        Ok(s) if t.text => {
                            tokens.extend(s.chars().map(|c| tok(c.encode_utf8(&mut [0; 4]))))
                        }
                        _ => tokens.extend(tk.iter().map(|&b| vec![b])),
                    }
                }
                best.tokens = tokens;
            }
            let mut progress = true;
            while progress && budget > 0 {
                progress = false;
                let mut n = best.tokens.len().div_ceil(2);
                while n >= 1 {
                    let mut at = 0;
                    while at + n <= best.tokens.len() {
                        let candidate = best.without(at, n);
                        match fails(&candidate, &mut budget) {
                            Some(p) => {
                                best = candidate;
                                best_problem = p;
                                progress = true;
                            }
                            None => at += n,
                        }
                    }
                    n /= 2;
                }
                let mut c = 0;
                while c < best.cuts.len() {
                    let mut candidate = best.clone();
                    candidate.cuts.remove(c);
                    match fails(&candidate, &mut budget) {
                        Some(p) => {
                            best = candidate;
                            best_problem = p;
                            progress = true;
                        }
                        None => c += 1,
                    }
                }
            }
        }
        (best, best_problem)
    }

    struct Row {
        name: &'static str,
        execs: u64,
        secs: f64,
        findings: u64,
        slowest: Duration,
    }

    fn fuzz(t: &Target, seed: u64, seconds: f64, min_execs: u64) -> Row {
        let mut rng = Rng(seed ^ hash_name(t.name));
        let started = Instant::now();
        let (mut execs, mut findings) = (0u64, 0u64);
        let mut slowest = Duration::ZERO;
        let mut reported: Vec<String> = Vec::new();
        loop {
            if execs >= min_execs
                && execs % 256 == 0
                && started.elapsed().as_secs_f64() >= seconds
            {
                break;
            }
            let case = (t.gen)(&mut rng);
            let t0 = Instant::now();
            let outcome = run_check(t, &case);
            slowest = slowest.max(t0.elapsed());
            execs += 1;
            let Err(problem) = outcome else {
                continue;
            };
            findings += 1;
            let k = kind(&problem).to_string();
            if reported.contains(&k) || reported.len() >= 5 {
                continue;
            }
            reported.push(k);
            let (small, small_problem) = shrink(t, &case, &problem);
            eprintln!(
                "FINDING in {} (execution {execs}, seed {seed}): {small_problem}\n  input \
                 ({} bytes, shrunk from {}): {}\n  cuts {:?}, knob {}\n",
                t.name,
                small.bytes().len(),
                case.bytes().len(),
                show(&small.bytes()),
                small.cuts,
                small.knob,
            );
        }
        Row {
            name: t.name,
            execs,
            secs: started.elapsed().as_secs_f64(),
            findings,
            slowest,
        }
    }

    struct Options {
        seconds: f64,
        min_execs: u64,
        targets: Vec<&'static Target>,
        seed: u64,
    }

    fn parse_args(args: &[String]) -> Result<Options, String> {
        let mut o = Options {
            seconds: 20.0,
            min_execs: 1_000_000,
            targets: TARGETS.iter().collect(),
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64),
        };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            if flag == "-h" || flag == "--help" {
                return Err(String::new());
            }
            let value = it
                .next()
                .ok_or_else(|| format!("{flag} needs a value"))?;
            let bad = || format!("bad value for {flag}: {value:?}");
            match flag.as_str() {
                "--seconds" => {
                    o.seconds = value.parse().map_err(|_| bad())?;
                    if !o.seconds.is_finite() || o.seconds < 0.0 {
                        return Err(bad());
                    }
                }
                "--min-execs" => o.min_execs = value.parse().map_err(|_| bad())?,
                "--seed" => o.seed = value.parse().map_err(|_| bad())?,
                "--target" => {
                    if value == "all" {
                        o.targets = TARGETS.iter().collect();
                    } else {
                        o.targets = value
                            .split(',')
                            .map(|n| {
                                TARGETS.iter().find(|t| t.name == n).ok_or_else(|| {
                                    let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
                                    format!("unknown target {n:?}; targets: {}, all", names.join(", "))
                                })
                            })
                            .collect::<Result<_, _>>()?;
                    }
                }
                _ => return Err(format!("unknown option {flag:?}")),
            }
        }
        Ok(o)
    }

    pub fn main() -> i32 {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let o = match parse_args(&args) {
            Ok(o) => o,
            Err(e) if e.is_empty() => {
                println!("{USAGE}");
                return 0;
            }
            Err(e) => {
                eprintln!("fuzz: {e}\n{USAGE}");
                return 2;
            }
        };
        if cfg!(panic = "abort") {
            eprintln!(
                "fuzz: built with panic=abort, so a panic ends the run (its input is printed \
                 first); scripts/fuzz builds with panic=unwind"
            );
        }
        eprintln!(
            "fuzz: seed {}, each target for at least {} s and {} executions",
            o.seed, o.seconds, o.min_execs
        );
        let default_hook = std::panic::take_hook();
        install_quiet_hook();
        let mut rows = Vec::new();
        for t in &o.targets {
            let row = fuzz(t, o.seed, o.seconds, o.min_execs);
            eprintln!(
                "fuzz: {} done: {} executions, {} findings",
                row.name, row.execs, row.findings
            );
            rows.push(row);
        }
        let _ = std::panic::take_hook();
        std::panic::set_hook(default_hook);

        println!(
            "{:<10} {:>12} {:>10} {:>9} {:>12}  seed",
            "target", "executions", "execs/s", "findings", "slowest ms"
        );
        for r in &rows {
            println!(
                "{:<10} {:>12} {:>10.0} {:>9} {:>12.2}  {}",
                r.name,
                r.execs,
                r.execs as f64 / r.secs.max(1e-9),
                r.findings,
                r.slowest.as_secs_f64() * 1000.0,
                o.seed
            );
        }
        let total: u64 = rows.iter().map(|r| r.findings).sum();
        if total > 0 {
            println!("{total} findings (details above)");
            1
        } else {
            0
        }
    }
}
