//! `scripts/fuzz`: a small generational fuzzer (stable Rust has no libFuzzer) for the stream
//! decoder, the action parsers and the Markdown sanitiser. Inputs are spliced from a dictionary
//! of the formats' own fragments plus random bytes; each target checks invariants, not just
//! "no panic". Prints executions and findings per target; exits 1 on any finding.
//!
//! Usage: fuzz [--seconds N] [--min-execs M] [--target sse|parsers|markdown|all] [--seed S]

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    host::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::time::Instant;

    use react_arena::agent::json_protocol::parse_json_reaction;
    use react_arena::agent::native::{bare_json_answer, bare_json_call, call_input};
    use react_arena::agent::protocol::{parse_reply, parse_think, Reply};
    use react_arena::agent::think_split::{merge, split_all, ThinkSplitter};
    use react_arena::llm::sse::SseDecoder;
    use react_arena::llm::stream::ChatStreamReader;
    use react_arena::llm::tool_calls::ToolCall;
    use react_arena::markdown::render_markdown;

    /// The core's seeded generator drives the fuzzer: a seed reproduces a run.
    use react_arena::seeded::SplitMix64 as Rng;

    const SSE_WORDS: &[&[u8]] = &[
        b"data: ",
        b"data:",
        b"\n",
        b"\r\n",
        b"\r",
        b"\n\n",
        b": keep-alive\n",
        b"event: x\n",
        b"[DONE]",
        b"{\"choices\":[{\"delta\":{\"content\":\"",
        b"hi",
        b"\"}}]}",
        b"{\"choices\":[{\"delta\":{\"reasoning\":\"r\"}}]}",
        b"\"tool_calls\":[{\"index\":0,",
        b"{\"error\":{\"message\":\"x\"}}",
        b"{\"choices\":[],\"usage\":{\"prompt_tokens\":1}}",
        b"\xff",
        b"\xc3",
        b"\xef\xbb\xbf",
        b"{",
        b"}",
        b"\"",
        b"\\",
    ];

    const PROTOCOL_WORDS: &[&str] = &[
        "Thought:",
        "Action:",
        "Action Input:",
        "Answer:",
        "Final Answer:",
        "Observation:",
        "```json",
        "```",
        "<think>",
        "</think>",
        "{\"action\":",
        "{\"name\":",
        "\"arguments\":",
        "[",
        "]",
        "(",
        ")",
        "{",
        "}",
        "\"",
        "é",
        "😀",
        "\n",
        " ",
        "calculator",
        "6*7",
        "**",
        "1.",
        "None",
        "answer",
        ",",
        ":",
        "\r",
        "\r\n",
    ];

    const MARKDOWN_WORDS: &[&str] = &[
        "<script>",
        "</script>",
        "<img src=x onerror=alert(1)>",
        "[a](javascript:alert(1))",
        "[a](JaVaScRiPt:x)",
        "[a]( javascript:x)",
        "[a](data:text/html,x)",
        "[a](vbscript:x)",
        "![i](http://h/x.png)",
        "[a](search-frame.html#http://evil/x.js)",
        "[a](//evil/x)",
        "[a](http://127.0.0.1/search-frame.html)",
        "http://127.0.0.1",
        "@",
        "<a href=",
        "<iframe",
        "<svg onload=",
        "`",
        "*",
        "\\",
        "&lt;",
        "&#106;",
        "\n",
        "\n\n",
        "- ",
        "> ",
        "# ",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        "\"",
        "'",
        "java\tscript:",
        "&#x6A;avascript:",
        "[x]: javascript:y\n[z][x]",
        "[a](ms-settings-connectabledevices:x)",
        "[a](https://h/p)",
        "[a](/rel:x)",
    ];

    fn bytes_input(rng: &mut Rng, words: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for _ in 0..rng.below(40) {
            if rng.below(5) == 0 {
                out.push(rng.next_u64() as u8);
            } else {
                out.extend_from_slice(words[rng.below(words.len())]);
            }
        }
        out
    }

    fn text_input(rng: &mut Rng, words: &[&str]) -> String {
        let mut out = String::new();
        for _ in 0..rng.below(40) {
            if rng.below(6) == 0 {
                out.push(char::from_u32(rng.below(0x2FFF) as u32).unwrap_or('?'));
            } else {
                out.push_str(words[rng.below(words.len())]);
            }
        }
        out
    }

    /// Random split points, at byte positions (SSE) or char boundaries (text).
    fn cuts(rng: &mut Rng, len: usize, ok: impl Fn(usize) -> bool) -> Vec<usize> {
        let mut c: Vec<usize> = (0..rng.below(6))
            .map(|_| rng.below(len + 1))
            .filter(|&i| ok(i))
            .collect();
        c.sort_unstable();
        c.dedup();
        c
    }

    fn sse_events(pieces: &[&[u8]]) -> Vec<react_arena::llm::sse::SseEvent> {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        for p in pieces {
            out.extend(d.push(p));
        }
        out.extend(d.finish());
        out
    }

    fn split<'a>(data: &'a [u8], at: &[usize]) -> Vec<&'a [u8]> {
        let mut pieces = Vec::new();
        let mut last = 0;
        for &c in at {
            pieces.push(&data[last..c]);
            last = c;
        }
        pieces.push(&data[last..]);
        pieces
    }

    /// Returns a finding's description, or None.
    fn sse(rng: &mut Rng) -> (String, Option<String>) {
        let data = bytes_input(rng, SSE_WORDS);
        let at = cuts(rng, data.len(), |_| true);
        let shown = String::from_utf8_lossy(&data).into_owned();
        let whole = sse_events(&[&data]);
        let pieces = split(&data, &at);
        if sse_events(&pieces) != whole {
            return (shown, Some(format!("split at {at:?} decodes differently")));
        }
        let mut reader = ChatStreamReader::new();
        for p in &pieces {
            if reader.push(p, &mut |_| {}).is_err() {
                return (shown, None);
            }
        }
        let _ = reader.finish(&mut |_| {});
        (shown, None)
    }

    fn parsers(rng: &mut Rng) -> (String, Option<String>) {
        let text = text_input(rng, PROTOCOL_WORDS);
        if let Reply::Action { tool, input, .. } = parse_reply(&text) {
            if tool.trim().is_empty() || tool.contains('\n') {
                return (text, Some(format!("bad tool name {tool:?}")));
            }
            if input
                .lines()
                .any(|l| l.trim_start().starts_with("Observation:"))
            {
                return (text, Some("input holds a self-written Observation".into()));
            }
        }
        let _ = parse_think(&text);
        let _ = parse_json_reaction(&text);
        let _ = bare_json_call(&text);
        let _ = bare_json_answer(&text);
        let _ = call_input(&ToolCall {
            id: "c".into(),
            name: "calculator".into(),
            arguments: text.clone(),
        });
        let at = cuts(rng, text.len(), |i| text.is_char_boundary(i));
        let mut splitter = ThinkSplitter::new();
        let mut pieces = Vec::new();
        for p in split(text.as_bytes(), &at) {
            pieces.extend(splitter.push(std::str::from_utf8(p).unwrap()));
        }
        pieces.extend(splitter.finish());
        if merge(pieces) != split_all(&text) {
            return (
                text,
                Some(format!("think split at {at:?} differs from one push")),
            );
        }
        (text, None)
    }

    /// The page the fuzzed markdown is shown on: links back into it must not survive.
    const FUZZ_PAGE_ORIGIN: &str = "http://127.0.0.1";

    fn markdown(rng: &mut Rng) -> (String, Option<String>) {
        let text = text_input(rng, MARKDOWN_WORDS);
        let html = render_markdown(&text, FUZZ_PAGE_ORIGIN).to_ascii_lowercase();
        // Text is escaped (`<` becomes `&lt;`), so every `<` left in the output opens a real tag.
        for tag in html
            .split('<')
            .skip(1)
            .map(|t| t.split('>').next().unwrap_or(""))
        {
            if tag.starts_with('/') {
                continue;
            }
            let name = tag.split_whitespace().next().unwrap_or("");
            if ["script", "img", "iframe", "svg", "object", "embed"].contains(&name) {
                return (text, Some(format!("a live <{name}> tag")));
            }
            if tag.split_whitespace().skip(1).any(|a| a.starts_with("on")) {
                return (text, Some(format!("an on* attribute in <{tag}>")));
            }
            for scheme in ["javascript:", "data:", "vbscript:"] {
                if tag.contains(&format!("href=\"{scheme}"))
                    || tag.contains(&format!("src=\"{scheme}"))
                {
                    return (text, Some(format!("a {scheme} URL in <{tag}>")));
                }
            }
            // Links keep only absolute http(s) links to another origin, and mailto.
            if let Some(href) = tag
                .split("href=\"")
                .nth(1)
                .and_then(|h| h.split('"').next())
            {
                let out = href.starts_with("http://") || href.starts_with("https://");
                if !(out || href.starts_with("mailto:")) {
                    return (
                        text,
                        Some(format!("a link that does not leave the app: <{tag}>")),
                    );
                }
                let rest = href.strip_prefix(FUZZ_PAGE_ORIGIN);
                if rest.is_some_and(|r| r.is_empty() || r.starts_with(['/', '?', '#'])) {
                    return (
                        text,
                        Some(format!("a link into the app's own origin: <{tag}>")),
                    );
                }
            }
            if name == "a" && !tag.contains("rel=\"noopener noreferrer\"") {
                return (
                    text,
                    Some(format!("a link without rel=noopener noreferrer: <{tag}>")),
                );
            }
        }
        (text, None)
    }

    type Target = fn(&mut Rng) -> (String, Option<String>);

    pub fn main() {
        let args: Vec<String> = std::env::args().collect();
        let arg = |name: &str| {
            args.iter()
                .position(|a| a == name)
                .and_then(|i| args.get(i + 1))
                .cloned()
        };
        let seconds: f64 = arg("--seconds")
            .and_then(|v| v.parse().ok())
            .unwrap_or(20.0);
        let min_execs: u64 = arg("--min-execs")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1_000_000);
        let which = arg("--target").unwrap_or_else(|| "all".into());
        let seed: u64 = arg("--seed")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        let targets: [(&str, Target); 3] =
            [("sse", sse), ("parsers", parsers), ("markdown", markdown)];

        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let mut rows = Vec::new();
        let mut findings_total = 0;
        for (name, target) in targets
            .into_iter()
            .filter(|(n, _)| which == "all" || which == *n)
        {
            let mut rng = Rng::new(seed ^ name.len() as u64);
            let started = Instant::now();
            let (mut execs, mut findings) = (0u64, 0u64);
            while execs < min_execs || started.elapsed().as_secs_f64() < seconds {
                let mut inner = Rng::new(rng.next_u64());
                let outcome = catch_unwind(AssertUnwindSafe(|| target(&mut inner)));
                execs += 1;
                let problem = match outcome {
                    Ok((_, None)) => continue,
                    Ok((input, Some(p))) => (input, p),
                    Err(_) => ("(see the seed)".to_string(), "panic".to_string()),
                };
                findings += 1;
                if findings <= 3 {
                    eprintln!("FINDING in {name}: {} — input: {:?}", problem.1, problem.0);
                }
            }
            let secs = started.elapsed().as_secs_f64();
            findings_total += findings;
            rows.push((name, execs, execs as f64 / secs, findings));
        }
        std::panic::set_hook(default_hook);

        println!(
            "{:<10} {:>12} {:>12} {:>9}   seed {seed}",
            "target", "executions", "execs/s", "findings"
        );
        for (name, execs, rate, findings) in rows {
            println!("{name:<10} {execs:>12} {rate:>12.0} {findings:>9}");
        }
        if findings_total > 0 {
            std::process::exit(1);
        }
    }
}
