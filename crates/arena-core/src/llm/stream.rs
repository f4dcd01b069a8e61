//! Turns the raw bytes of a chat-completions response body into `ChatDelta`s.
//! Transport-agnostic: the browser feeds it what `ReadableStream` yields; tests feed it bytes.

use super::chunk::{read_payload, ChatDelta, Payload};
use super::error::LlmError;
use super::sse::SseDecoder;

#[derive(Debug, Default)]
pub struct ChatStreamReader {
    sse: SseDecoder,
    done: bool,
    /// Data events read so far. Comments (`: keep-alive`) and blank lines are not events.
    data_events: u64,
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

    /// How many data events arrived: the stream's progress. Keep-alive comments and empty
    /// lines leave it unchanged, so they cannot keep a stalled stream open.
    pub fn data_events(&self) -> u64 {
        self.data_events
    }

    /// Feeds bytes; calls `on_delta` for each piece of the reply. An error object in the
    /// stream ends it with `Err`.
    pub fn push(
        &mut self,
        bytes: &[u8],
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError> {
        for ev in self.sse.push(bytes) {
            self.data_events += 1;
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

/// True when a Content-Type header names an event stream (parameters such as a charset
/// are allowed).
pub fn is_event_stream(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|t| t.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/event-stream"))
}

/// The time limits on one model stream, apart from the clock that drives them: times are
/// milliseconds on any clock that only goes forward (the page's `performance.now()`).
///
/// Only data events count as progress. A stream that sends nothing new for `idle` is cut,
/// whether it is silent or only sends keep-alive comments; a stream that keeps sending data
/// is cut when its total time passes `max`.
#[derive(Debug, Clone)]
pub struct StreamDeadlines {
    idle_secs: u32,
    max_secs: u32,
    started_ms: f64,
    last_data_ms: f64,
    /// Bytes that were not data (comments, blank lines) arrived since the last data event.
    kept_alive: bool,
}

impl StreamDeadlines {
    pub fn new(now_ms: f64, idle_secs: u32, max_secs: u32) -> Self {
        Self {
            idle_secs,
            max_secs,
            started_ms: now_ms,
            last_data_ms: now_ms,
            kept_alive: false,
        }
    }

    /// Bytes arrived; `data` says whether they completed at least one data event.
    pub fn arrived(&mut self, now_ms: f64, data: bool) {
        if data {
            self.last_data_ms = now_ms;
            self.kept_alive = false;
        } else {
            self.kept_alive = true;
        }
    }

    /// The error when a limit has passed; otherwise how long to wait before asking again.
    pub fn check(&self, now_ms: f64) -> Result<u32, LlmError> {
        let total_left = self.started_ms + secs_to_ms(self.max_secs) - now_ms;
        let idle_left = self.last_data_ms + secs_to_ms(self.idle_secs) - now_ms;
        if total_left <= 0.0 {
            return Err(LlmError::TooLong {
                seconds: self.max_secs,
            });
        }
        if idle_left <= 0.0 {
            let seconds = self.idle_secs;
            return Err(if self.kept_alive {
                LlmError::KeepAliveOnly { seconds }
            } else {
                LlmError::Stalled { seconds }
            });
        }
        // A timer a little late is fine; one that fires early only re-arms.
        Ok(total_left.min(idle_left).ceil() as u32)
    }
}

fn secs_to_ms(secs: u32) -> f64 {
    f64::from(secs) * 1000.0
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

    #[test]
    fn only_data_events_count_as_progress() {
        let mut r = ChatStreamReader::new();
        let mut out = Vec::new();
        r.push(b": keep-alive\n\n\n\n: ping\n", &mut |d| out.push(d))
            .unwrap();
        assert_eq!(
            r.data_events(),
            0,
            "comments and blank lines are not progress"
        );
        r.push(
            b"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n",
            &mut |d| out.push(d),
        )
        .unwrap();
        assert_eq!(r.data_events(), 0, "an event counts once it is complete");
        r.push(b"\n: keep-alive\n\n", &mut |d| out.push(d)).unwrap();
        assert_eq!(r.data_events(), 1);
        assert_eq!(out, vec![ChatDelta::Content("a".into())]);
    }

    #[test]
    fn event_stream_content_types() {
        assert!(is_event_stream(Some("text/event-stream")));
        assert!(is_event_stream(Some("Text/Event-Stream; charset=utf-8")));
        for other in [
            Some("text/html; charset=utf-8"),
            Some("application/json"),
            Some("text/event-streaming"),
            Some(""),
            None,
        ] {
            assert!(!is_event_stream(other), "{other:?}");
        }
    }

    #[test]
    fn keep_alives_do_not_hold_a_stream_open() {
        let mut d = StreamDeadlines::new(1_000.0, 2, 600);
        assert_eq!(d.check(1_000.0), Ok(2_000));
        // Keep-alives every half second: the idle deadline does not move.
        for t in [1_500.0, 2_000.0, 2_500.0] {
            d.arrived(t, false);
            assert_eq!(d.check(t), Ok((3_000.0 - t) as u32));
        }
        assert_eq!(
            d.check(3_000.0),
            Err(LlmError::KeepAliveOnly { seconds: 2 })
        );
    }

    #[test]
    fn silence_is_a_stall_and_data_moves_the_idle_deadline() {
        let mut d = StreamDeadlines::new(0.0, 2, 600);
        d.arrived(1_500.0, true);
        assert_eq!(d.check(2_000.0), Ok(1_500), "2 s after the last data");
        assert_eq!(d.check(3_500.0), Err(LlmError::Stalled { seconds: 2 }));
        // Keep-alives after data, then silence: still only kept alive since the data.
        d.arrived(2_000.0, false);
        assert_eq!(
            d.check(3_500.0),
            Err(LlmError::KeepAliveOnly { seconds: 2 })
        );
    }

    #[test]
    fn a_stream_that_never_stops_is_cut_at_its_total_time() {
        let mut d = StreamDeadlines::new(0.0, 2, 5);
        let mut t = 0.0;
        while d.check(t).is_ok() {
            d.arrived(t, true);
            t += 300.0;
        }
        assert_eq!(d.check(t), Err(LlmError::TooLong { seconds: 5 }));
        assert!((5_000.0..5_300.0).contains(&t), "cut at {t} ms");
        // Near the end the timer is armed for what is left of the total, not a full idle wait.
        let mut d = StreamDeadlines::new(0.0, 60, 5);
        d.arrived(4_000.0, true);
        assert_eq!(d.check(4_000.0), Ok(1_000));
    }
}
