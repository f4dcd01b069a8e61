//! What a first run fetches before its first model request leaves: every file of the page
//! the browser requested from the page's open until then (finished or not, as the browser's
//! own network events list them: `network_log`), each counted as the first load's are, gzip -9
//! of the file in dist/. Two visitors: one whose token is remembered and who presses Run as
//! soon as it can be pressed, and a new one who reads the page while it settles, pastes a
//! token, and presses Run. Both ask from a link that names a question and the default All
//! run (four panels).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::json;

use super::browser::{dist_dir, Rig, MARKER_TOKEN};
use super::cdp::cdp;
use super::first_load::gzip_size;
use super::network_log::{requests_sent, Sent};

/// How the visitor comes with their token.
#[derive(Clone, Copy, Debug)]
pub enum Visitor {
    /// The token is kept on this device: Run is pressed as soon as it is laid out.
    Remembered,
    /// No token kept: the page settles (as it would while they read it), they paste one and
    /// press Run.
    Pasted,
}

/// The files a first run requested before its first model request, and their gzip sizes.
pub struct FirstRun {
    pub files: Vec<(String, u64)>,
    pub gzip_bytes: u64,
}

impl FirstRun {
    /// One line a file, largest first, for a report or a failure.
    pub fn listing(&self) -> String {
        let mut files = self.files.clone();
        files.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        files
            .iter()
            .map(|(file, gz)| format!("  {gz:>8} B  {file}"))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The question the link asks, for every mode of the default All run.
pub const QUESTION_LINK: &str = "?q=What+is+6%C3%977%3F&mode=all";

/// Presses Run as soon as it is laid out and enabled, once (run in every new document).
const PRESS_RUN_AT_ONCE: &str = "(() => { const tick = () => { const b = \
    document.getElementById('run'); if (b && b.getClientRects().length > 0 && !b.disabled) { \
    b.click(); } else { requestAnimationFrame(tick); } }; requestAnimationFrame(tick); })();";

/// Opens the page as `visitor` and runs the link's question until its first model request has
/// left; gives what was requested before it. The run goes on (the caller may wait for it).
pub async fn first_run(rig: &Rig, visitor: Visitor) -> FirstRun {
    let client = &rig.client;
    let remembered = matches!(visitor, Visitor::Remembered);
    // The settings and the confirmed token host are stored from a document of the app's
    // origin that is not the app (the recordings' list), so the app has not run before.
    client
        .goto(&format!("{}recordings/index.json", rig.app_url))
        .await
        .unwrap();
    let settings = json!({ "model": "mock/model", "base_url": rig.mock.base_url(),
        "max_steps": 5, "protocol": "text", "remember_token": remembered });
    let trusted = react_arena::origin::Origin::of(&rig.mock.base_url())
        .map(|o| o.to_string())
        .unwrap();
    let keep_token = if remembered {
        format!("localStorage.setItem('react-arena.token', {MARKER_TOKEN:?});")
    } else {
        String::new()
    };
    rig.js(&format!(
        "localStorage.clear(); sessionStorage.clear();\
         localStorage.setItem('react-arena.settings', {settings});\
         localStorage.setItem('react-arena.token-hosts', {hosts});{keep_token}",
        settings = serde_json::to_string(&settings.to_string()).unwrap(),
        hosts = serde_json::to_string(&json!([trusted]).to_string()).unwrap(),
    ))
    .await;
    cdp(client, "Network.enable", json!({})).await;
    cdp(
        client,
        "Network.setCacheDisabled",
        json!({ "cacheDisabled": true }),
    )
    .await;
    if remembered {
        cdp(
            client,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": PRESS_RUN_AT_ONCE }),
        )
        .await;
    }
    // What the set-up page requested is not the run's.
    requests_sent(client).await;
    let before = rig.mock.chat_requests().len();
    client
        .goto(&format!("{}{QUESTION_LINK}", rig.app_url))
        .await
        .unwrap();
    let mut sent = Vec::new();
    if !remembered {
        rig.wait_for(
            "the Run button",
            Duration::from_secs(60),
            "const b = document.getElementById('run'); return !!b && b.getClientRects().length > 0",
        )
        .await;
        // The visitor reads the page: whatever it fetches meanwhile (the welcome's
        // recordings) is fetched before the run.
        rig.wait_for_recordings().await;
        sent.extend(quiet_network(rig).await);
        rig.js(&format!(
            "const t = document.getElementById('token'); t.value = {MARKER_TOKEN:?}; \
             t.dispatchEvent(new Event('input', {{ bubbles: true }})); \
             document.getElementById('run').click();"
        ))
        .await;
    }
    let started = Instant::now();
    while rig.mock.chat_requests().len() == before {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no model request within 60 s of the first run"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    sent.extend(requests_sent(client).await);
    requested_before_model(&rig.app_url, &sent)
}

/// Reads the log until the page has requested nothing for 1.5 s; gives what it requested.
async fn quiet_network(rig: &Rig) -> Vec<Sent> {
    let mut sent = Vec::new();
    let started = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let new = requests_sent(&rig.client).await;
        if new.is_empty() {
            return sent;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the page still fetches after 60 s: {new:?}"
        );
        sent.extend(new);
    }
}

/// The page's own files among `sent` up to the first model request, each once.
fn requested_before_model(app_url: &str, sent: &[Sent]) -> FirstRun {
    let model = sent
        .iter()
        .position(|s| s.url.contains("/chat/completions"))
        .expect("the model request is in the browser's log");
    let names: BTreeSet<String> = sent[..model]
        .iter()
        .filter_map(|s| s.url.strip_prefix(app_url))
        .map(|path| {
            let path = path.split(['?', '#']).next().unwrap_or_default();
            if path.is_empty() {
                "index.html".to_string()
            } else {
                path.to_string()
            }
        })
        .collect();
    let dist = dist_dir();
    let files: Vec<(String, u64)> = names
        .into_iter()
        .filter(|name| dist.join(name).is_file())
        .map(|name| {
            let gz = gzip_size(&dist.join(&name));
            (name, gz)
        })
        .collect();
    FirstRun {
        gzip_bytes: files.iter().map(|(_, gz)| gz).sum(),
        files,
    }
}
