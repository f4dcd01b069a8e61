//! `HttpClient` for the browser: `fetch` with a per-call time limit and a cap on the size of
//! the body. The tools never get the model token: this client sends only the headers a tool
//! asks for.

use futures::future::{select, Either, LocalBoxFuture};
use gloo_net::http::Request;
use web_sys::AbortController;

use crate::read_body::read_capped;
use crate::timer::sleep;
use arena_core::tools::http::{FetchError, HttpClient, HttpResponse, MAX_RESPONSE_BYTES};

pub struct BrowserHttp {
    pub timeout_secs: u32,
}

impl HttpClient for BrowserHttp {
    fn get<'a>(
        &'a self,
        url: &'a str,
        headers: &'a [(&'a str, &'a str)],
    ) -> LocalBoxFuture<'a, Result<HttpResponse, FetchError>> {
        Box::pin(async move {
            let controller = AbortController::new().ok();
            let mut request =
                Request::get(url).abort_signal(controller.as_ref().map(|c| c.signal()).as_ref());
            for (name, value) in headers {
                request = request.header(name, value);
            }
            let exchange = Box::pin(async move {
                let response = request
                    .send()
                    .await
                    .map_err(|e| FetchError::Network(short(&e.to_string())))?;
                let status = response.status();
                // Decoded as UTF-8 with replacement characters: bad bytes cannot break us.
                let body = read_capped(response.body(), MAX_RESPONSE_BYTES)
                    .await
                    .map_err(|e| FetchError::Network(short(&e)))?;
                if body.cut {
                    // A cut body would only fail to parse; say what happened instead.
                    return Err(FetchError::TooLarge {
                        limit_bytes: MAX_RESPONSE_BYTES,
                    });
                }
                Ok(HttpResponse {
                    status,
                    body: body.text,
                })
            });
            let limit = Box::pin(sleep(self.timeout_secs.saturating_mul(1000)));
            match select(exchange, limit).await {
                Either::Left((result, _)) => result,
                Either::Right(((), _)) => {
                    if let Some(c) = controller {
                        c.abort();
                    }
                    Err(FetchError::Timeout {
                        seconds: self.timeout_secs,
                    })
                }
            }
        })
    }
}

/// Browser network errors are terse ("Failed to fetch"); keep them so.
fn short(detail: &str) -> String {
    detail.chars().take(120).collect()
}
