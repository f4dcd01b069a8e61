//! Turns the raw bytes of a chat-completions response body into `ChatDelta`s.
//! Transport-agnostic: the browser feeds it what `ReadableStream` yields; tests feed it bytes.

use super::chunk::{read_payload, ChatDelta, Payload};
use super::error::LlmError;
use super::sse::SseDecoder;

#[derive(Debug, Default)]
pub struct ChatStreamReader {
    sse: SseDecoder,
    done: bool,
    /// Payloads that were not JSON of a known shape; shown to the user, never fatal.
    pub malformed: u32,
}

impl ChatStreamReader {
    pub fn new() -> Self {
        Self::default()
    }

    /// True once `[DONE]` arrived.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Feeds bytes; calls `on_delta` for each piece of the reply. An error object in the
    /// stream ends it with `Err`.
    pub fn push(
        &mut self,
        bytes: &[u8],
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError> {
        for ev in self.sse.push(bytes) {
            self.take(&ev.data, on_delta)?;
        }
        Ok(())
    }

    /// The body ended.
    pub fn finish(&mut self, on_delta: &mut dyn FnMut(ChatDelta)) -> Result<(), LlmError> {
        if let Some(ev) = self.sse.finish() {
            self.take(&ev.data, on_delta)?;
        }
        if self.malformed > 0 {
            on_delta(ChatDelta::Skipped(self.malformed));
        }
        Ok(())
    }

    fn take(&mut self, data: &str, on_delta: &mut dyn FnMut(ChatDelta)) -> Result<(), LlmError> {
        if self.done {
            return Ok(());
        }
        match read_payload(data)? {
            Payload::Done => self.done = true,
            Payload::Malformed => self.malformed += 1,
            Payload::Deltas(ds) => ds.into_iter().for_each(&mut *on_delta),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(body: &str, split: usize) -> (Vec<ChatDelta>, Result<(), LlmError>, u32) {
        let mut r = ChatStreamReader::new();
        let mut out = Vec::new();
        let res = body
            .as_bytes()
            .chunks(split.max(1))
            .try_for_each(|c| r.push(c, &mut |d| out.push(d)))
            .and_then(|_| r.finish(&mut |d| out.push(d)));
        (out, res, r.malformed)
    }

    #[test]
    fn a_whole_stream_in_any_chunking() {
        let body = concat!(
            "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"reasoning\":\"think \"}}]}\n\n",
            ": keep-alive\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"Answer: \"}}]}\r\n\r\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"42 ✓\"}}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}\n\n",
            "data: [DONE]\n\n",
        );
        for split in 1..40 {
            let (out, res, malformed) = collect(body, split);
            assert!(res.is_ok());
            assert_eq!(malformed, 0);
            let text: String = out
                .iter()
                .filter_map(|d| match d {
                    ChatDelta::Content(c) => Some(c.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(text, "Answer: 42 ✓", "split {split}");
            assert!(out.contains(&ChatDelta::Reasoning("think ".into())));
            assert!(matches!(out.last(), Some(ChatDelta::Usage(u)) if u.total_tokens == 7));
        }
    }

    #[test]
    fn error_mid_stream_keeps_what_came_before() {
        let body = "data: {\"choices\":[{\"delta\":{\"content\":\"partial\"}}]}\n\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n";
        let (out, res, _) = collect(body, 7);
        assert_eq!(out, vec![ChatDelta::Content("partial".into())]);
        assert_eq!(
            res,
            Err(LlmError::Api {
                message: "overloaded".into()
            })
        );
    }

    #[test]
    fn garbage_lines_are_counted_not_fatal() {
        let body = "data: {oops\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\n";
        let (out, res, malformed) = collect(body, 5);
        assert!(res.is_ok());
        assert_eq!(malformed, 1);
        // The count is reported once, when the stream ends.
        assert_eq!(
            out,
            vec![ChatDelta::Content("ok".into()), ChatDelta::Skipped(1)]
        );
    }

    #[test]
    fn nothing_after_done_is_read() {
        let body = "data: [DONE]\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"late\"}}]}\n\n";
        let (out, _, _) = collect(body, 3);
        assert!(out.is_empty());
    }
}
