//! Keeping a long run within the model's context: when the conversation would pass the
//! context window (or the endpoint says it did), the earlier part is summarised by the model
//! and the summary is sent in its place (`RunRecord::messages`). Pure helpers; the loop makes
//! the call.

use crate::llm::{ChatMessage, LlmError, Role};

/// Characters per token for the estimate (a rule of thumb for English text).
const CHARS_PER_TOKEN: usize = 4;

/// The summariser's instructions; also what a test endpoint recognises the call by.
pub const SUMMARY_PROMPT: &str = "You condense an AI agent's conversation so it fits the model's context. \
Write a short summary of the conversation below: the user's questions, what was looked up or computed and \
the results (keep every number, name, date and source that may matter), and what is still open. \
Plain text, no preamble, at most 200 words.";

/// The endpoint refused the request because it was too long for the model's context. The
/// wording varies by server: llama.cpp ("exceeds the available context size"), OpenAI and
/// vLLM ("maximum context length"), TGI ("tokens + `max_new_tokens` must be <=").
pub fn is_context_overflow(e: &LlmError) -> bool {
    let LlmError::Http {
        status: 400 | 413 | 422,
        message: Some(message),
        ..
    } = e
    else {
        return false;
    };
    let m = message.to_lowercase();
    (m.contains("context")
        && ["exceed", "length", "too long", "maximum", "size"]
            .iter()
            .any(|w| m.contains(w)))
        || (m.contains("tokens") && m.contains("must be <="))
}

/// A rough count of the tokens these messages and tool definitions take.
pub fn estimate_tokens(messages: &[ChatMessage], tools_chars: usize) -> usize {
    let chars: usize = messages
        .iter()
        .map(|m| {
            // Role and framing cost a few tokens per message.
            16 + m.content.chars().count()
                + m.tool_calls
                    .iter()
                    .map(|c| c.name.len() + c.arguments.chars().count())
                    .sum::<usize>()
        })
        .sum();
    (chars + tools_chars).div_ceil(CHARS_PER_TOKEN)
}

/// Whether a call with these messages would leave less room than `max_tokens` for the reply.
pub fn would_overflow(
    messages: &[ChatMessage],
    tools_chars: usize,
    max_tokens: u32,
    context_length: Option<u32>,
) -> bool {
    context_length.is_some_and(|window| {
        estimate_tokens(messages, tools_chars) + max_tokens as usize > window as usize
    })
}

/// How much of the conversation (in characters) a summary request may carry: half the
/// window, or 6,000 tokens' worth when the window is not known.
pub fn summary_budget_chars(context_length: Option<u32>) -> usize {
    context_length.map_or(24_000, |n| n as usize * 2)
}

/// The summariser's request: its instructions and the conversation as text, the oldest part
/// dropped first if even that is longer than `budget_chars`.
pub fn summary_request(older: &[ChatMessage], budget_chars: usize) -> Vec<ChatMessage> {
    let mut text = String::new();
    for m in older {
        let who = match m.role {
            Role::System => "System",
            Role::User => "User",
            Role::Assistant => "Assistant",
            Role::Tool => "Tool result",
        };
        text.push_str(who);
        text.push_str(": ");
        text.push_str(m.content.trim());
        for call in &m.tool_calls {
            text.push_str(&format!(" [calls {}({})]", call.name, call.arguments));
        }
        text.push_str("\n\n");
    }
    let count = text.chars().count();
    if count > budget_chars {
        let skip = count - budget_chars;
        text = format!(
            "[…the oldest part is left out…]\n{}",
            text.chars().skip(skip).collect::<String>()
        );
    }
    vec![ChatMessage::system(SUMMARY_PROMPT), ChatMessage::user(text)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, message: &str) -> LlmError {
        LlmError::Http {
            status,
            message: Some(message.into()),
            retry_after: None,
        }
    }

    #[test]
    fn context_errors_are_told_apart_from_other_refusals() {
        for m in [
            "request (1566 tokens) exceeds the available context size (1024 tokens), try increasing it",
            "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
            "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 512 `max_new_tokens`",
        ] {
            assert!(is_context_overflow(&http(400, m)), "{m}");
        }
        assert!(!is_context_overflow(&http(400, "Invalid model id")));
        assert!(!is_context_overflow(&http(429, "context window busy")));
        assert!(!is_context_overflow(&LlmError::Network("context".into())));
    }

    #[test]
    fn overflow_counts_the_reply_budget() {
        let messages = [ChatMessage::user("x".repeat(4000 - 16))];
        assert_eq!(estimate_tokens(&messages, 0), 1000);
        assert!(!would_overflow(&messages, 0, 24, Some(1024)));
        assert!(would_overflow(&messages, 0, 25, Some(1024)));
        assert!(
            would_overflow(&messages, 400, 0, Some(1024)),
            "tool definitions count"
        );
        assert!(
            !would_overflow(&messages, 0, 100_000, None),
            "unknown window: no guess"
        );
    }

    #[test]
    fn the_summary_request_keeps_the_newest_part_within_budget() {
        let older = [
            ChatMessage::user("What is the weather in Paris?"),
            ChatMessage::assistant("Action: weather\nAction Input: Paris"),
            ChatMessage::user(format!("Observation: {}12.3 °C", "filler ".repeat(100))),
        ];
        let request = summary_request(&older, 10_000);
        assert_eq!(request[0].content, SUMMARY_PROMPT);
        assert!(request[1]
            .content
            .starts_with("User: What is the weather in Paris?"));
        let cut = summary_request(&older, 60);
        assert!(cut[1]
            .content
            .starts_with("[…the oldest part is left out…]"));
        assert!(cut[1].content.contains("12.3 °C"), "{}", cut[1].content);
        assert!(!cut[1].content.contains("Paris?"));
    }
}
