//! Requests to the Hugging Face Hub's API: `fetch` with the token only where the caller gives
//! one (a publish the user confirmed; never a read of the community view or of a published
//! run), a cap on the body read, a time limit, and a Stop that aborts every request still
//! going. No cookies: the page's origin is not the Hub's, and `credentials` stays
//! `same-origin`.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::{select, Either};
use gloo_net::http::{Method, RequestBuilder};
use web_sys::AbortController;

use crate::read_body::read_capped;
use crate::timer::sleep;

/// What the Hub answered.
pub struct HubReply {
    pub status: u16,
    pub body: String,
    /// The body went past the cap and was cut there (the download was cancelled).
    pub cut: bool,
    /// Bytes read of the body.
    pub bytes: usize,
    /// The `Retry-After` header of a 429.
    pub retry_after: Option<String>,
}

impl HubReply {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Stops every request made with it, at once and for good.
#[derive(Clone, Default)]
pub struct HubStop {
    inner: Rc<RefCell<(bool, Vec<AbortController>)>>,
}

impl HubStop {
    pub fn stop(&self) {
        let mut inner = self.inner.borrow_mut();
        inner.0 = true;
        for controller in inner.1.drain(..) {
            controller.abort();
        }
    }

    pub fn stopped(&self) -> bool {
        self.inner.borrow().0
    }
}

/// One request.
pub struct HubRequest<'a> {
    pub method: &'a str,
    pub url: &'a str,
    /// `Authorization: Bearer …`, only for a publish the user confirmed.
    pub token: Option<&'a str>,
    /// The body and its type, for a POST.
    pub body: Option<(&'a str, &'a str)>,
    /// Most bytes of the answer read.
    pub cap: usize,
    pub timeout_ms: u32,
}

/// Sends `request`; errs when it could not be sent or read, ran out of time, or was stopped.
pub async fn hub_fetch(request: HubRequest<'_>, stop: &HubStop) -> Result<HubReply, String> {
    if stop.stopped() {
        return Err("Stopped.".into());
    }
    let controller = AbortController::new().map_err(|_| "The request could not be made.")?;
    stop.inner.borrow_mut().1.push(controller.clone());
    let method = if request.method == "POST" {
        Method::POST
    } else {
        Method::GET
    };
    // The query goes in through the builder: gloo adds a stray `&` to a URL that has one.
    let (path, query) = request.url.split_once('?').unwrap_or((request.url, ""));
    let mut builder = RequestBuilder::new(path)
        .method(method)
        .abort_signal(Some(&controller.signal()));
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        builder = builder.query([(name, value)]);
    }
    if let Some(token) = request.token {
        // A redirect is not followed with the token: it could lead anywhere.
        builder = builder
            .header("Authorization", &format!("Bearer {token}"))
            .redirect(web_sys::RequestRedirect::Error);
    }
    let built = match request.body {
        Some((content_type, body)) => builder
            .header("Content-Type", content_type)
            .body(body.to_string()),
        None => builder.build(),
    }
    .map_err(|_| "The request could not be made.".to_string())?;
    let cap = request.cap;
    let exchange = Box::pin(async move {
        let response = built.send().await.map_err(|e| {
            let detail: String = e.to_string().chars().take(120).collect();
            format!("the Hub could not be reached ({detail})")
        })?;
        let status = response.status();
        let retry_after = response.headers().get("retry-after");
        let body = read_capped(response.body(), cap).await?;
        Ok(HubReply {
            status,
            bytes: body.text.len(),
            body: body.text,
            cut: body.cut,
            retry_after,
        })
    });
    let limit = Box::pin(sleep(request.timeout_ms));
    let outcome = match select(exchange, limit).await {
        Either::Left((result, _)) => result,
        Either::Right(((), _)) => {
            controller.abort();
            Err(format!(
                "the Hub did not answer within {} s",
                request.timeout_ms / 1000
            ))
        }
    };
    // Done with: a long read does not keep every request's controller.
    stop.inner.borrow_mut().1.retain(|c| c != &controller);
    if stop.stopped() {
        return Err("Stopped.".into());
    }
    outcome
}
