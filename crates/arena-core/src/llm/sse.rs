//! Incremental Server-Sent Events decoder (the WHATWG event-stream format).
//!
//! Bytes may arrive split anywhere: inside a line, between `\r` and `\n`, or inside a UTF-8
//! sequence. Only complete lines are decoded, so a split multi-byte character is never
//! mangled. Work is linear in the input: each byte is looked at a bounded number of times.

/// One dispatched event: its `event:` name (if any) and its joined `data:` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    data: String,
    has_data: bool,
    event: Option<String>,
    /// The previous chunk ended in `\r`; a `\n` starting the next chunk belongs to that line end.
    after_cr: bool,
    at_stream_start: bool,
    started: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the events completed by them.
    pub fn push(&mut self, mut bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        if !self.started && !bytes.is_empty() {
            self.started = true;
            self.at_stream_start = true;
        }
        while !bytes.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if bytes[0] == b'\n' {
                    bytes = &bytes[1..];
                    continue;
                }
            }
            match bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    self.line.extend_from_slice(&bytes[..end]);
                    self.after_cr = bytes[end] == b'\r';
                    bytes = &bytes[end + 1..];
                    let line = std::mem::take(&mut self.line);
                    self.take_line(&line, &mut out);
                    self.line = line;
                    self.line.clear();
                }
                None => {
                    self.line.extend_from_slice(bytes);
                    bytes = &[];
                }
            }
        }
        out
    }

    /// Ends the stream. A last event without its blank line is still delivered: servers in
    /// the wild end with `data: [DONE]\n` and nothing after it.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            // A non-empty line never dispatches by itself, so nothing is lost here.
            self.take_line(&line, &mut Vec::new());
        }
        self.dispatch()
    }

    fn take_line(&mut self, mut line: &[u8], out: &mut Vec<SseEvent>) {
        if self.at_stream_start {
            self.at_stream_start = false;
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        if line.is_empty() {
            if let Some(ev) = self.dispatch() {
                out.push(ev);
            }
            return;
        }
        if line[0] == b':' {
            return; // comment, e.g. a keep-alive ": ping"
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&String::from_utf8_lossy(value));
                self.has_data = true;
            }
            b"event" => self.event = Some(String::from_utf8_lossy(value).into_owned()),
            _ => {} // id, retry and unknown fields do not matter for chat streams
        }
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        Some(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(chunks: &[&[u8]]) -> Vec<String> {
        let mut d = SseDecoder::new();
        let mut out: Vec<String> = chunks
            .iter()
            .flat_map(|c| d.push(c))
            .map(|e| e.data)
            .collect();
        out.extend(d.finish().map(|e| e.data));
        out
    }

    #[test]
    fn lf_and_crlf_and_cr_line_ends() {
        for sep in ["\n", "\r\n", "\r"] {
            let s = format!("data: a{sep}{sep}data: b{sep}{sep}");
            assert_eq!(decode_all(&[s.as_bytes()]), ["a", "b"], "separator {sep:?}");
        }
    }

    #[test]
    fn every_split_point_gives_the_same_events() {
        let stream = "\u{feff}: keep-alive\r\ndata: {\"x\":\"é😀\"}\r\n\r\nevent: e\ndata: line1\ndata:line2\n\ndata: [DONE]\n\n";
        let whole = decode_all(&[stream.as_bytes()]);
        assert_eq!(whole, ["{\"x\":\"é😀\"}", "line1\nline2", "[DONE]"]);
        let bytes = stream.as_bytes();
        for i in 0..=bytes.len() {
            for j in i..=bytes.len() {
                let got = decode_all(&[&bytes[..i], &bytes[i..j], &bytes[j..]]);
                assert_eq!(got, whole, "split at {i},{j}");
            }
        }
    }

    #[test]
    fn byte_by_byte_crlf_is_not_two_line_ends() {
        let stream = b"data: a\r\ndata: b\r\n\r\n";
        let chunks: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(decode_all(&chunks), ["a\nb"]);
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored() {
        let s = b": hello\nid: 7\nretry: 100\nfoo: bar\ndata: x\n\n:\n\n";
        assert_eq!(decode_all(&[s]), ["x"]);
    }

    #[test]
    fn event_name_is_reported() {
        let mut d = SseDecoder::new();
        let evs = d.push(b"event: error\ndata: {}\n\n");
        assert_eq!(evs[0].event.as_deref(), Some("error"));
    }

    #[test]
    fn last_event_without_blank_line_is_flushed_at_finish() {
        assert_eq!(decode_all(&[b"data: a\n\ndata: [DONE]"]), ["a", "[DONE]"]);
        assert_eq!(decode_all(&[b"data: [DONE]\n"]), ["[DONE]"]);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        assert_eq!(decode_all(&[b"data: a\xffb\n\n"]), ["a\u{fffd}b"]);
    }

    #[test]
    fn data_without_space_and_empty_data() {
        assert_eq!(decode_all(&[b"data:x\n\ndata\n\n"]), ["x", ""]);
    }
}
