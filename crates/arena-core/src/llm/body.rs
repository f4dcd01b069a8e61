//! A response body read with a size cap, whatever the transport: the browser feeds it what a
//! `ReadableStream` yields and stops reading (and cancels) once it says the cap is passed.

/// Longest error body of the model endpoint that is read: its message is all we show.
pub const ERROR_BODY_MAX_BYTES: usize = 64 * 1024;

/// The bytes of a body up to a cap.
#[derive(Debug)]
pub struct CappedBody {
    cap: usize,
    bytes: Vec<u8>,
    cut: bool,
}

/// A body as text, and whether it was cut at the cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyText {
    pub text: String,
    /// The body was longer than the cap: `text` holds only its start.
    pub cut: bool,
}

impl CappedBody {
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            bytes: Vec::new(),
            cut: false,
        }
    }

    /// Keeps what fits under the cap. Returns false once the body is longer than the cap:
    /// the caller stops reading.
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        let room = self.cap - self.bytes.len();
        if chunk.len() > room {
            self.bytes.extend_from_slice(&chunk[..room]);
            self.cut = true;
        } else {
            self.bytes.extend_from_slice(chunk);
        }
        !self.cut
    }

    /// The body decoded as UTF-8, invalid bytes replaced. A character split by the cap is
    /// dropped rather than shown as a replacement character.
    pub fn into_text(self) -> BodyText {
        let mut bytes = self.bytes;
        if self.cut {
            if let Err(e) = std::str::from_utf8(&bytes) {
                // No error length: the bytes end inside a character.
                if e.error_len().is_none() {
                    bytes.truncate(e.valid_up_to());
                }
            }
        }
        BodyText {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            cut: self.cut,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(cap: usize, chunks: &[&[u8]]) -> (BodyText, usize) {
        let mut body = CappedBody::new(cap);
        let mut pushed = 0;
        for chunk in chunks {
            pushed += 1;
            if !body.push(chunk) {
                break;
            }
        }
        (body.into_text(), pushed)
    }

    #[test]
    fn a_body_under_the_cap_is_read_whole() {
        let (body, _) = read(10, &[b"hello ", b"you!"]);
        assert_eq!(
            body,
            BodyText {
                text: "hello you!".into(),
                cut: false
            }
        );
    }

    #[test]
    fn reading_stops_at_the_cap() {
        let endless = [b"0123456789".as_slice(); 1000];
        let (body, pushed) = read(25, &endless);
        assert_eq!(body.text, "0123456789012345678901234");
        assert!(body.cut);
        assert_eq!(pushed, 3, "no chunk is asked for after the cap");
    }

    #[test]
    fn invalid_utf8_is_replaced_and_a_character_split_by_the_cap_is_dropped() {
        let (body, _) = read(100, &[b"a\xffb"]);
        assert_eq!(body.text, "a\u{fffd}b");
        // "é" is two bytes; the cap falls between them.
        let (body, _) = read(2, &["aé".as_bytes()]);
        assert_eq!(body.text, "a");
        assert!(body.cut);
        let (body, _) = read(3, &["aé".as_bytes(), b"x"]);
        assert_eq!(body.text, "aé");
        assert!(body.cut);
    }
}
