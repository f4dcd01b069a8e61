//! What the model endpoint says about its models (`GET {base}/models`): the ids to pick from,
//! and per model its price, context window and tool support. Asked once per endpoint per page
//! load, and only as part of a run or after the user confirmed the host, since it carries the
//! token.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::future::{select, Either};
use gloo_net::http::Request;
use web_sys::{AbortController, RequestRedirect};

use crate::read_body::read_capped;
use crate::timer::sleep;
use arena_core::llm::models::ModelList;

/// `/v1/models` must not hold up a run for long: without an answer, auto means text.
const MODELS_TIMEOUT_MS: u32 = 4_000;
/// A longer model list is not read (auto then means text). Routers that list every model of
/// every provider send a few hundred kilobytes.
const MODELS_MAX_BYTES: usize = 4 * 1024 * 1024;

thread_local! {
    /// Base URL → the model list (None: it could not be read).
    static MODELS: RefCell<HashMap<String, Option<Rc<ModelList>>>> = RefCell::new(HashMap::new());
}

/// The endpoint's model list; `None` when it could not be read, or there is no endpoint (the
/// model in this browser).
pub async fn model_list(base_url: &str, token: &str) -> Option<Rc<ModelList>> {
    let base = base_url.trim().trim_end_matches('/').to_string();
    if base.is_empty() {
        return None;
    }
    if let Some(cached) = MODELS.with(|m| m.borrow().get(&base).cloned()) {
        return cached;
    }
    let list = fetch_models(&base, token)
        .await
        .and_then(|json| ModelList::parse(&json))
        .map(Rc::new);
    MODELS.with(|m| m.borrow_mut().insert(base, list.clone()));
    list
}

/// The model ids of the endpoint, if its list was read already (no request is made here).
pub fn known_model_ids(base_url: &str) -> Vec<String> {
    let base = base_url.trim().trim_end_matches('/');
    MODELS.with(|m| {
        m.borrow()
            .get(base)
            .cloned()
            .flatten()
            .map(|l| l.ids())
            .unwrap_or_default()
    })
}

async fn fetch_models(base: &str, token: &str) -> Option<String> {
    let controller = AbortController::new().ok();
    let mut request = Request::get(&format!("{base}/models"))
        // A redirect would send the token to another address.
        .redirect(RequestRedirect::Manual)
        .abort_signal(controller.as_ref().map(|c| c.signal()).as_ref());
    if !token.trim().is_empty() {
        // The model endpoint is the one place the token goes.
        request = request.header("Authorization", &format!("Bearer {}", token.trim()));
    }
    let exchange = Box::pin(async move {
        let response = request.send().await.ok()?;
        // A redirect (opaque, status 0) is not ok either.
        if !response.ok() {
            return None;
        }
        let body = read_capped(response.body(), MODELS_MAX_BYTES).await.ok()?;
        (!body.cut).then_some(body.text)
    });
    match select(exchange, Box::pin(sleep(MODELS_TIMEOUT_MS))).await {
        Either::Left((list, _)) => list,
        Either::Right(_) => {
            if let Some(c) = controller {
                c.abort();
            }
            None
        }
    }
}
