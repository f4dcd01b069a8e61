//! The MCP transport in the browser: one `fetch` POST per message, with a time limit and the
//! tools' 2 MiB cap. An answer sent as an SSE stream is read only until the event that answers
//! the request has come; the rest of the stream (a server may keep it open) is cancelled. A
//! call dropped before its answer (Stop) aborts its request.

use futures::future::{select, Either, LocalBoxFuture};
use gloo_net::http::Request;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{AbortController, ReadableStreamDefaultReader, RequestRedirect, ResponseType};

use crate::read_body::{next_chunk, read_capped};
use crate::timer::sleep;
use arena_core::mcp::wire::StreamedAnswer;
use arena_core::mcp::{McpTransport, PostReply, PostRequest};
use arena_core::tools::http::{FetchError, MAX_RESPONSE_BYTES};

pub struct BrowserMcp {
    pub timeout_secs: u32,
}

/// Aborts the request when dropped: a call given up (Stop) stops its download too.
struct AbortOnDrop(AbortController);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl McpTransport for BrowserMcp {
    fn post(&self, request: PostRequest) -> LocalBoxFuture<'static, Result<PostReply, FetchError>> {
        let seconds = self.timeout_secs;
        Box::pin(async move {
            let exchange = Box::pin(exchange(request));
            match select(exchange, Box::pin(sleep(seconds.saturating_mul(1000)))).await {
                Either::Left((result, _)) => result,
                // Dropping the exchange aborts its request.
                Either::Right(_) => Err(FetchError::Timeout { seconds }),
            }
        })
    }

    fn post_detached(&self, request: PostRequest) {
        spawn_local(async move {
            let _ = select(Box::pin(exchange(request)), Box::pin(sleep(5_000))).await;
        });
    }
}

async fn exchange(request: PostRequest) -> Result<PostReply, FetchError> {
    let controller = AbortController::new().map_err(|_| FetchError::Network(String::new()))?;
    let _abort = AbortOnDrop(controller.clone());
    let mut builder = Request::post(&request.url)
        // A redirect would send the token to another address.
        .redirect(RequestRedirect::Manual)
        .abort_signal(Some(&controller.signal()));
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let sent = builder
        .body(request.body)
        .map_err(|e| FetchError::Network(e.to_string()))?
        .send()
        .await
        .map_err(|e| FetchError::Network(e.to_string()))?;
    if sent.type_() == ResponseType::Opaqueredirect {
        return Ok(PostReply {
            status: 302,
            ..PostReply::default()
        });
    }
    let headers = sent.headers();
    let mut reply = PostReply {
        status: sent.status(),
        session_id: headers.get("mcp-session-id"),
        www_authenticate: headers.get("www-authenticate"),
        body: String::new(),
    };
    let Some(id) = request.answer_id else {
        // A notification's answer (202) has nothing to read.
        return Ok(reply);
    };
    let streamed = headers
        .get("content-type")
        .is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream"));
    reply.body = if streamed && (200..300).contains(&reply.status) {
        read_answer(sent.body(), id).await?
    } else {
        let body = read_capped(sent.body(), MAX_RESPONSE_BYTES)
            .await
            .map_err(FetchError::Network)?;
        if body.cut {
            return Err(FetchError::TooLarge {
                limit_bytes: MAX_RESPONSE_BYTES,
            });
        }
        body.text
    };
    Ok(reply)
}

/// Reads an SSE stream until the event answering `id`; empty if the stream ends first.
async fn read_answer(body: Option<web_sys::ReadableStream>, id: u64) -> Result<String, FetchError> {
    let Some(body) = body else {
        return Ok(String::new());
    };
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut finder = StreamedAnswer::new(id);
    let mut read = 0usize;
    let answer = loop {
        let Some(bytes) = next_chunk(&reader).await.map_err(FetchError::Network)? else {
            break finder.finish();
        };
        read += bytes.len();
        if read > MAX_RESPONSE_BYTES {
            let _ = reader.cancel();
            return Err(FetchError::TooLarge {
                limit_bytes: MAX_RESPONSE_BYTES,
            });
        }
        if let Some(answer) = finder.push(&bytes) {
            break Some(answer);
        }
    };
    // The server may keep the stream open for more: it is not wanted.
    let _ = reader.cancel();
    Ok(answer.unwrap_or_default())
}
