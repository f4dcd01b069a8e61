//! The one seam between web tools and the network: a GET that returns status and text.
//! Tools build URLs and read bodies in pure code; the browser implements the trait with
//! `fetch` (`ui::tool_fetch`), host tests with `FakeHttp`.

use futures::future::LocalBoxFuture;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    /// The body as text; invalid UTF-8 was replaced at the edge.
    pub body: String,
}

impl HttpResponse {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Longest response body a tool reads; a longer one is not read at all. The largest answers
/// the tools ask for (a whole Wikipedia article as plain text) are well under it.
pub const MAX_RESPONSE_BYTES: usize = 2 * 1024 * 1024;

/// Why a request got no usable response.
#[derive(Debug, Clone, PartialEq)]
pub enum FetchError {
    /// The per-call time limit passed.
    Timeout { seconds: u32 },
    /// DNS, connection, CORS or similar: the browser gives no detail.
    Network(String),
    /// The body was longer than this many bytes; reading stopped there.
    TooLarge { limit_bytes: usize },
}

impl FetchError {
    /// A sentence for the model and the user, naming the service.
    pub fn describe(&self, service: &str) -> String {
        match self {
            FetchError::Timeout { seconds } => {
                format!("{service} did not answer within {seconds} s.")
            }
            FetchError::Network(detail) if detail.is_empty() => {
                format!("{service} could not be reached (network error).")
            }
            FetchError::Network(detail) => {
                format!("{service} could not be reached ({detail}).")
            }
            FetchError::TooLarge { limit_bytes } => format!(
                "{service} answered, but the response was larger than {limit_bytes} bytes, so it was not read."
            ),
        }
    }
}

pub trait HttpClient {
    /// GET `url` with extra request headers.
    fn get<'a>(
        &'a self,
        url: &'a str,
        headers: &'a [(&'a str, &'a str)],
    ) -> LocalBoxFuture<'a, Result<HttpResponse, FetchError>>;
}

/// The bytes to percent-encode for a value that must read back exactly: all but RFC 3986's
/// unreserved characters (`A-Z a-z 0-9 - . _ ~`). Non-ASCII bytes are always encoded.
pub const ALL_BUT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A query component's: `*` stays too, as browsers' form encoding leaves it (APIs document
/// `origin=*` literally).
const COMPONENT: &AsciiSet = &ALL_BUT_UNRESERVED.remove(b'*');

/// Percent-encodes a query component: unreserved characters and `*` stay as they are.
pub fn encode_component(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
}

/// `base?k=v&k=v`, encoding the values; `base` may already hold a query.
pub fn url_with_query(base: &str, pairs: &[(&str, &str)]) -> String {
    let mut url = base.trim().to_string();
    let mut sep = if url.contains('?') { '&' } else { '?' };
    for (k, v) in pairs {
        url.push(sep);
        url.push_str(k);
        url.push('=');
        url.push_str(&encode_component(v));
        sep = '&';
    }
    url
}

/// Whether `encoded` is percent-encoding that left only ASCII letters, digits and `kept` as
/// they are: every other byte is `%` and two upper-case hex digits. For the encoders' tests.
#[cfg(test)]
pub(crate) fn encoded_keeping_only(encoded: &str, kept: &str) -> bool {
    let bytes = encoded.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let upper_hex = |b: Option<&u8>| {
                    b.is_some_and(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(b))
                };
                if !(upper_hex(bytes.get(i + 1)) && upper_hex(bytes.get(i + 2))) {
                    return false;
                }
                i += 3;
            }
            b if b.is_ascii_alphanumeric() || kept.as_bytes().contains(&b) => i += 1,
            _ => return false,
        }
    }
    true
}

/// A scripted `HttpClient` for host tests: answers by URL substring, records what was asked.
#[cfg(test)]
pub mod fake {
    use super::*;
    use std::cell::RefCell;

    /// A request as the fake saw it: URL and headers.
    pub type SeenRequest = (String, Vec<(String, String)>);

    #[derive(Default)]
    pub struct FakeHttp {
        routes: Vec<(String, Result<HttpResponse, FetchError>)>,
        pub requests: RefCell<Vec<SeenRequest>>,
    }

    impl FakeHttp {
        pub fn new() -> Self {
            Self::default()
        }

        /// Answers URLs containing `needle` (the first matching route wins).
        pub fn route(mut self, needle: &str, status: u16, body: &str) -> Self {
            let response = HttpResponse {
                status,
                body: body.to_string(),
            };
            self.routes.push((needle.to_string(), Ok(response)));
            self
        }

        pub fn fail(mut self, needle: &str, error: FetchError) -> Self {
            self.routes.push((needle.to_string(), Err(error)));
            self
        }

        pub fn urls(&self) -> Vec<String> {
            self.requests
                .borrow()
                .iter()
                .map(|(u, _)| u.clone())
                .collect()
        }
    }

    impl HttpClient for FakeHttp {
        fn get<'a>(
            &'a self,
            url: &'a str,
            headers: &'a [(&'a str, &'a str)],
        ) -> LocalBoxFuture<'a, Result<HttpResponse, FetchError>> {
            self.requests.borrow_mut().push((
                url.to_string(),
                headers
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ));
            let answer = self
                .routes
                .iter()
                .find(|(needle, _)| url.contains(needle.as_str()))
                .map(|(_, r)| r.clone())
                .unwrap_or(Ok(HttpResponse {
                    status: 404,
                    body: format!("no fake route for {url}"),
                }));
            Box::pin(async move { answer })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_query_values() {
        assert_eq!(
            encode_component("São Paulo & co/2"),
            "S%C3%A3o%20Paulo%20%26%20co%2F2"
        );
        assert_eq!(
            url_with_query("https://x.test/w/api.php", &[("a", "1"), ("q", "b c")]),
            "https://x.test/w/api.php?a=1&q=b%20c"
        );
        assert_eq!(
            url_with_query("http://h/?x=1", &[("y", "2")]),
            "http://h/?x=1&y=2"
        );
    }

    #[test]
    fn a_component_keeps_unreserved_characters_and_the_star() {
        assert_eq!(encode_component("a-b_c.d~e*f"), "a-b_c.d~e*f");
        assert_eq!(
            encode_component("!$'()+,/:;=?@[]#%\"\n"),
            "%21%24%27%28%29%2B%2C%2F%3A%3B%3D%3F%40%5B%5D%23%25%22%0A"
        );
        assert!(encoded_keeping_only("a%2Fb*", "*"));
        assert!(!encoded_keeping_only("a/b", "*"));
        assert!(!encoded_keeping_only("a%2fb", "*"));
        assert!(!encoded_keeping_only("a%2", "*"));
    }

    // proptest is a host-only dev-dependency.
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]
        /// Any text, printable ASCII or not, is encoded with only the unreserved characters and
        /// `*` left as they are, and decodes back to itself.
        #[test]
        fn a_component_reads_back_and_keeps_only_its_set(s in "(?s)([ -~]|.){0,40}") {
            let encoded = encode_component(&s);
            proptest::prop_assert!(encoded_keeping_only(&encoded, "-._~*"), "{:?}", encoded);
            let decoded = percent_encoding::percent_decode_str(&encoded).decode_utf8();
            proptest::prop_assert_eq!(decoded.as_deref(), Ok(s.as_str()));
        }
    }

    #[test]
    fn a_cut_response_is_named_not_parsed() {
        let e = FetchError::TooLarge {
            limit_bytes: MAX_RESPONSE_BYTES,
        };
        assert_eq!(
            e.describe("Wikipedia"),
            "Wikipedia answered, but the response was larger than 2097152 bytes, so it was not read."
        );
    }
}
