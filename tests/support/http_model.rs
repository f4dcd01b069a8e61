//! A host `ChatModel` over real HTTP, mirroring the browser transport
//! (`crates/arena-web/src/fetch.rs`): same request body, same error mapping, same incremental
//! stream reader. It lets host tests run the agent loops against the mock endpoint over a
//! socket.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

use react_arena::agent::ChatModel;
use react_arena::llm::error::message_from_error_body;
use react_arena::llm::request::{completions_url, request_body, ChatParams};
use react_arena::llm::stream::ChatStreamReader;
use react_arena::llm::{ChatCall, ChatDelta, LlmError};

pub struct HttpChatModel {
    pub base_url: String,
    pub token: String,
    pub params: ChatParams,
}

impl ChatModel for HttpChatModel {
    async fn stream_chat(
        &self,
        call: &ChatCall<'_>,
        on_delta: &mut dyn FnMut(ChatDelta),
    ) -> Result<(), LlmError> {
        let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
        let request = hyper::Request::post(completions_url(&self.base_url))
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {}", self.token))
            .body(Full::new(Bytes::from(request_body(&self.params, call))))
            .unwrap();
        let response = client
            .request(request)
            .await
            .map_err(|e| LlmError::Network(e.to_string()))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u32>().ok());
        let mut body = response.into_body();
        if !(200..300).contains(&status) {
            let bytes = body
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            return Err(LlmError::Http {
                status,
                message: message_from_error_body(&String::from_utf8_lossy(&bytes)),
                retry_after,
            });
        }
        let mut reader = ChatStreamReader::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| LlmError::Network(e.to_string()))?;
            if let Some(data) = frame.data_ref() {
                reader.push(data, on_delta)?;
            }
        }
        reader.finish(on_delta)
    }
}
