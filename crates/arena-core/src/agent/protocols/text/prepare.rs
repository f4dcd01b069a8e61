//! Preparation: reasoning blocks, harmony channels and stray special tokens, removed before
//! the protocol is read.

use super::*;
use crate::agent::reasoning_tags::NAMES;

pub(super) struct Prepared {
    /// What is left to read as the protocol.
    pub(super) content: String,
    /// `<think>` blocks or harmony analysis were removed.
    pub(super) had_reasoning: bool,
    /// The content came from a harmony `final` channel: the model's message to the user.
    pub(super) final_channel: bool,
    /// A harmony tool call (`to=functions.x`), when it comes before any final message.
    pub(super) harmony_call: Option<BlobCall>,
}

/// Special tokens that leak into content when a server does not strip them.
pub(super) const STRAY_TOKENS: [&str; 9] = [
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

pub(super) fn prepare(text: &str) -> Prepared {
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
/// starts reasoning that runs to the end. One pass per tag name, each linear in the text (a
/// reply made of thousands of tags must not take quadratic time).
pub(super) fn strip_reasoning_tags(text: &str) -> (String, bool) {
    let mut out = text.to_string();
    let mut had = false;
    for tag in NAMES {
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        let mut kept = String::new();
        let mut inside = false;
        let mut seen = false;
        let mut segment = 0; // start of the text not yet kept or dropped
        let mut from = 0;
        while let Some(rel) = out[from..].find('<') {
            let at = from + rel;
            if starts_with_ci(&out[at..], &close) {
                if !inside {
                    // A close with no open: all so far was reasoning.
                    kept.clear();
                }
                inside = false;
                seen = true;
                segment = at + close.len();
                from = segment;
            } else if starts_with_ci(&out[at..], &open) {
                if !inside {
                    kept.push_str(&out[segment..at]);
                    inside = true;
                }
                seen = true;
                from = at + open.len();
            } else {
                from = at + 1;
            }
        }
        if !seen {
            continue;
        }
        had = true;
        if !inside {
            kept.push_str(&out[segment..]);
        }
        out = kept;
    }
    (out, had)
}

pub(super) struct Harmony {
    /// Text outside any channel, plus commentary preambles.
    pub(super) prefix: String,
    pub(super) final_text: Option<String>,
    pub(super) call: Option<BlobCall>,
    pub(super) had_analysis: bool,
}

/// gpt-oss writes `<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final
/// <|message|>…`; some servers strip the special tokens, leaving `analysis…assistantfinal…`.
pub(super) fn read_harmony(text: &str) -> Option<Harmony> {
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
pub(super) fn recipient(header: &str) -> Option<String> {
    let to = header.find("to=")?;
    let name: String = header[to + 3..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))
        .collect();
    let name = name.strip_prefix("functions.").unwrap_or(&name);
    Some(clean_tool_name(name))
}

pub(super) fn strip_harmony_tokens(s: &str) -> String {
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
