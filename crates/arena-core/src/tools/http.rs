//! The one seam between web tools and the network: a GET that returns status and text.
//! Tools build URLs and read bodies in pure code; the browser implements the trait with
//! `fetch` (`ui::tool_fetch`), host tests with `FakeHttp`.

use futures::future::LocalBoxFuture;

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

/// Percent-encodes a query component. Unreserved characters and `*` stay as they are, as
/// browsers' form encoding leaves them (APIs document `origin=*` literally).
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'*' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
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
