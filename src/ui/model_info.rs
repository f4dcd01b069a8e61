//! What the model endpoint says about the model (`GET {base}/models`), to pick the action
//! protocol when it is "auto". Asked once per endpoint per page load.

use std::cell::RefCell;
use std::collections::HashMap;

use futures::future::{select, Either};
use gloo_net::http::Request;

use super::timer::sleep;
use crate::agent::action_protocol::supports_tools;

/// `/v1/models` must not hold up a run for long: without an answer, auto means text.
const MODELS_TIMEOUT_MS: u32 = 4_000;

thread_local! {
    /// Base URL → the models list (None: it could not be read).
    static MODELS: RefCell<HashMap<String, Option<String>>> = RefCell::new(HashMap::new());
}

/// Whether `model` takes native tools, per the endpoint's model list; `None`: unknown.
pub async fn model_supports_tools(base_url: &str, token: &str, model: &str) -> Option<bool> {
    let base = base_url.trim().trim_end_matches('/').to_string();
    let cached = MODELS.with(|m| m.borrow().get(&base).cloned());
    let list = match cached {
        Some(list) => list,
        None => {
            let list = fetch_models(&base, token).await;
            MODELS.with(|m| m.borrow_mut().insert(base, list.clone()));
            list
        }
    };
    supports_tools(&list?, model)
}

async fn fetch_models(base: &str, token: &str) -> Option<String> {
    let mut request = Request::get(&format!("{base}/models"));
    if !token.trim().is_empty() {
        // The model endpoint is the one place the token goes.
        request = request.header("Authorization", &format!("Bearer {}", token.trim()));
    }
    let exchange = Box::pin(async move {
        let response = request.send().await.ok()?;
        if !response.ok() {
            return None;
        }
        response.text().await.ok()
    });
    match select(exchange, Box::pin(sleep(MODELS_TIMEOUT_MS))).await {
        Either::Left((list, _)) => list,
        Either::Right(_) => None,
    }
}
