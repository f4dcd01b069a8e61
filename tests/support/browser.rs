//! Headless Chromium driven over WebDriver (Debian's chromium + chromium-driver), and a
//! static server for the Trunk-built `dist/`.

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use futures::FutureExt;
use react_arena::origin::Origin;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::process::{Child, Command};
use tower_http::services::ServeDir;

use super::mock::{MockEndpoint, Recorded};

/// The token the tests type; it must only ever appear in an Authorization header.
pub const MARKER_TOKEN: &str = "hf_test_marker_0000";

/// Browser tests share two cores: one at a time keeps their timings meaningful.
static ONE_BROWSER_AT_A_TIME: Mutex<()> = Mutex::new(());

type RequestLog = Arc<Mutex<Vec<Recorded>>>;

/// Logs of the tool fixture servers of the running test: the token must never reach them.
static TOOL_SERVER_LOGS: Mutex<Vec<RequestLog>> = Mutex::new(Vec::new());

pub fn watch_for_token(log: RequestLog) {
    TOOL_SERVER_LOGS.lock().unwrap().push(log);
}

/// Every browser test ends with this check over all the traffic it caused: the marker token
/// appears only as the bearer token of requests to the model endpoint.
fn assert_token_only_where_it_belongs(model_requests: &[Recorded]) {
    let bearer = format!("Bearer {MARKER_TOKEN}");
    for r in model_requests {
        assert!(!r.uri.contains(MARKER_TOKEN), "token in a URL: {}", r.uri);
        assert!(
            !r.body.contains(MARKER_TOKEN),
            "token in a request body to {}",
            r.uri
        );
        for (name, value) in &r.headers {
            if value.contains(MARKER_TOKEN) {
                assert!(
                    name == "authorization" && *value == bearer,
                    "token in header {name}"
                );
            }
        }
    }
    for log in TOOL_SERVER_LOGS.lock().unwrap().iter() {
        for r in log.lock().unwrap().iter() {
            assert!(
                !r.uri.contains(MARKER_TOKEN),
                "token sent to a tool: {}",
                r.uri
            );
            for (name, value) in &r.headers {
                assert!(
                    !value.contains(MARKER_TOKEN),
                    "token in header {name} to tool {}",
                    r.uri
                );
            }
        }
    }
}

fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into())
}

fn chromedriver() -> String {
    std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into())
}

/// The Trunk-built app. Browser tests fail (they never skip) when it is missing.
pub fn dist_dir() -> PathBuf {
    let dir = std::env::var("REACT_ARENA_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("dist"));
    assert!(
        dir.join("index.html").is_file(),
        "no built app in {}: run `trunk build --release` first (scripts/test does)",
        dir.display()
    );
    dir
}

/// Serves a directory over HTTP on a free port of 127.0.0.1.
pub async fn serve_dir(dir: PathBuf) -> SocketAddr {
    serve_static(ServeDir::new(dir)).await
}

/// Serves files as `files` is set up (precompressed twins, say) on a free port of 127.0.0.1.
pub async fn serve_static(files: ServeDir) -> SocketAddr {
    let app = axum::Router::new().fallback_service(files);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn fresh_profile_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = std::env::temp_dir().join(format!(
        "react-arena-chromium-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Everything a browser test needs: the mock model endpoint, the app, and a browser page.
pub struct Rig {
    pub mock: MockEndpoint,
    pub app_url: String,
    pub client: Client,
}

/// Runs one browser test: starts the mock, the app server, ChromeDriver and Chromium, runs
/// `test`, and always shuts the browser down, even when the test fails.
pub fn browser_test<F, Fut>(test: F)
where
    F: FnOnce(Rig) -> Fut,
    Fut: Future<Output = ()>,
{
    browser_test_with_flags(&[], test)
}

/// [`browser_test`] with Chromium started with `flags` as well (`--enable-unsafe-webgpu`
/// offers the page its software WebGPU adapter, SwiftShader).
pub fn browser_test_with_flags<F, Fut>(flags: &[&str], test: F)
where
    F: FnOnce(Rig) -> Fut,
    Fut: Future<Output = ()>,
{
    run_browser_test(flags, false, test)
}

/// [`browser_test`] with ChromeDriver keeping the page's network events (its performance
/// log), read with `support::network_log`: every request the page makes, finished or not.
pub fn browser_test_logging_network<F, Fut>(test: F)
where
    F: FnOnce(Rig) -> Fut,
    Fut: Future<Output = ()>,
{
    run_browser_test(&[], true, test)
}

fn run_browser_test<F, Fut>(flags: &[&str], log_network: bool, test: F)
where
    F: FnOnce(Rig) -> Fut,
    Fut: Future<Output = ()>,
{
    let _turn = ONE_BROWSER_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    TOOL_SERVER_LOGS.lock().unwrap().clear();
    runtime.block_on(async move {
        let mock = MockEndpoint::start().await;
        let app = serve_dir(dist_dir()).await;
        let (mut driver, client, profile) = start_browser(flags, log_network).await;
        let rig = Rig {
            mock,
            app_url: format!("http://{app}/"),
            client: client.clone(),
        };
        let model_endpoint = rig.mock.clone();
        let outcome = std::panic::AssertUnwindSafe(test(rig)).catch_unwind().await;
        // A frozen page holds the session's end back: the test fails, the suite goes on.
        let _ = tokio::time::timeout(Duration::from_secs(10), client.close()).await;
        let _ = driver.kill().await;
        let _ = std::fs::remove_dir_all(profile);
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
        assert_token_only_where_it_belongs(&model_endpoint.requests());
    });
}

async fn start_browser(flags: &[&str], log_network: bool) -> (Child, Client, PathBuf) {
    let port = free_port();
    let driver = Command::new(chromedriver())
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromedriver()));
    let deadline = Instant::now() + Duration::from_secs(20);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not listen on {port}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let profile = fresh_profile_dir();
    let mut caps = serde_json::Map::new();
    let mut args = json!([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,900",
        "--enable-precise-memory-info",
        // The https test endpoint has a self-signed certificate.
        "--ignore-certificate-errors",
        // A GitHub Pages host served from this machine (the shared-origin note).
        "--host-resolver-rules=MAP owner.github.io 127.0.0.1",
        format!("--user-data-dir={}", profile.display()),
    ]);
    let args_list = args.as_array_mut().unwrap();
    // A test of WebGPU wants the browser's GPU process as it is.
    if flags.contains(&"--enable-unsafe-webgpu") {
        args_list.retain(|a| a != "--disable-gpu");
    }
    args_list.extend(flags.iter().map(|f| json!(f)));
    caps.insert(
        "goog:chromeOptions".into(),
        json!({ "binary": chromium(), "args": args }),
    );
    if log_network {
        caps.insert("goog:loggingPrefs".into(), json!({ "performance": "ALL" }));
    }
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let client = ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("WebDriver session");
    (driver, client, profile)
}

/// What a user sees in one panel, read in one go.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct PanelView {
    pub mode: String,
    pub status: String,
    pub counter: String,
    pub live: String,
    pub reasoning: String,
    pub thoughts: Vec<String>,
    pub actions: Vec<String>,
    pub observations: Vec<String>,
    pub error_observations: usize,
    pub answer: String,
    pub answer_forced: bool,
    pub error: String,
    pub usage: String,
    /// All the panel's visible text.
    pub text: String,
}

impl PanelView {
    /// The answer's own text, without its label and Copy button.
    #[allow(dead_code)] // not every test binary reads it
    pub fn answer_text(&self) -> &str {
        self.answer
            .split_once("\nCopy")
            .map_or("", |(_, text)| text.trim())
    }
}

/// How long an element or a state that follows an action may take to be drawn (a chunk to
/// arrive, an effect to run) before the test fails: generous, for a busy machine.
const APPEARS_WITHIN: Duration = Duration::from_secs(20);

/// What the page's alert says, "" when there is none.
const READ_ALERT: &str = "return document.querySelector('#app-alert span')?.textContent ?? ''";

/// How many runs and follow-ups the page started (`data-runs` on the panels' element).
const RUNS_STARTED: &str = "return document.querySelector('#panels').dataset.runs;";

const READ_PANELS: &str = r#"
const all = (p, sel) => Array.from(p.querySelectorAll(sel)).map(e => e.innerText);
const one = (p, sel) => { const e = p.querySelector(sel); return e ? e.innerText : ""; };
return Array.from(document.querySelectorAll("section.panel")).map(p => ({
  mode: p.dataset.mode,
  status: p.dataset.status,
  counter: one(p, ".step-counter"),
  live: all(p, ".live").join("\n"),
  reasoning: all(p, ".reasoning-text").join("\n"),
  thoughts: all(p, ".thought"),
  actions: all(p, ".action"),
  observations: all(p, ".observation"),
  error_observations: p.querySelectorAll(".observation.error").length,
  answer: one(p, ".answer"),
  answer_forced: !!p.querySelector(".answer.forced"),
  error: one(p, ".panel-error"),
  usage: one(p, "footer.usage"),
  text: p.innerText,
}));
"#;

/// Keeps every download the page starts (the blob and the file name) instead of saving it.
pub const CAPTURE_DOWNLOADS: &str = r#"
window.__blobs = {};
window.__downloads = [];
const createObjectURL = URL.createObjectURL;
URL.createObjectURL = (blob) => {
  const url = createObjectURL.call(URL, blob);
  window.__blobs[url] = blob;
  return url;
};
HTMLAnchorElement.prototype.click = function () {
  window.__downloads.push({ name: this.download, href: this.href, at: performance.now() });
};
"#;

pub const READ_DOWNLOADS: &str = r#"
const done = arguments[arguments.length - 1];
Promise.all(window.__downloads.map(async (d) => {
  const blob = window.__blobs[d.href];
  return { name: d.name, at: d.at, mime: blob ? blob.type : "", text: blob ? await blob.text() : "" };
})).then(done, (e) => done("read failed: " + e));
"#;

/// Copies a test's screenshot over the README's `docs/<name>` when
/// `REACT_ARENA_UPDATE_SCREENSHOT` is set: the README shows what the tests saw on the build.
pub fn keep_for_docs(shot: &std::path::Path, name: &str) {
    if std::env::var_os("REACT_ARENA_UPDATE_SCREENSHOT").is_some() {
        let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::copy(shot, docs.join(name)).unwrap();
    }
}

/// A file the page downloaded, as `CAPTURE_DOWNLOADS` kept it.
#[derive(Debug, Deserialize)]
pub struct Download {
    pub name: String,
    pub mime: String,
    pub text: String,
    /// When the page started it (`performance.now()`).
    pub at: f64,
}

/// base64url of deflate-raw of the text `arguments[0]`, made by the page itself.
const DEFLATED: &str = r#"
const done = arguments[arguments.length - 1];
const text = arguments[0];
const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
new Response(stream).arrayBuffer().then((b) => {
  let s = ""; for (const x of new Uint8Array(b)) s += String.fromCharCode(x);
  done(btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""));
});
"#;

/// A recording the app ships (`public/recordings/`), read as the app reads it.
pub fn shipped(file: &str) -> react_arena::run_file::RunFile {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("public/recordings")
        .join(file);
    react_arena::run_file::RunFile::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

impl Rig {
    /// `text` as a `#run=` address carries it (base64url of deflate-raw), made by the page.
    pub async fn deflated(&self, text: &str) -> String {
        let v = self
            .client
            .execute_async(DEFLATED, vec![Value::String(text.to_string())])
            .await
            .unwrap();
        v.as_str().unwrap().to_string()
    }

    /// Every download the page started since `CAPTURE_DOWNLOADS` ran, in order.
    pub async fn downloads(&self) -> Vec<Download> {
        let value = self
            .client
            .execute_async(READ_DOWNLOADS, vec![])
            .await
            .unwrap();
        serde_json::from_value(value).expect("the downloads")
    }

    pub async fn js(&self, script: &str) -> Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Opens the app with these settings and token already stored, as a returning user would:
    /// one who has already confirmed that the token may go to the settings' base URL.
    pub async fn open_app_with(&self, settings: Value, token: &str, remember: bool) {
        let trusted: Vec<String> = settings["base_url"]
            .as_str()
            .and_then(Origin::of)
            .map(|o| o.to_string())
            .into_iter()
            .collect();
        self.open_app_trusting(settings, token, remember, &trusted)
            .await;
    }

    /// Opens the app with these settings, token and confirmed token hosts already stored.
    pub async fn open_app_trusting(
        &self,
        settings: Value,
        token: &str,
        remember: bool,
        trusted_hosts: &[String],
    ) {
        self.client.goto(&self.app_url).await.unwrap();
        let store = if remember {
            "localStorage"
        } else {
            "sessionStorage"
        };
        let script = format!(
            "localStorage.clear(); sessionStorage.clear();\
             localStorage.setItem('react-arena.settings', {settings});\
             localStorage.setItem('react-arena.token-hosts', {hosts});\
             if ({token:?}) {store}.setItem('react-arena.token', {token:?});",
            settings = serde_json::to_string(&settings.to_string()).unwrap(),
            hosts = serde_json::to_string(&json!(trusted_hosts).to_string()).unwrap(),
        );
        self.js(&script).await;
        self.client.goto(&self.app_url).await.unwrap();
        self.wait_for(
            "the app to render",
            Duration::from_secs(20),
            "return !!document.querySelector('#run')",
        )
        .await;
    }

    /// Writes `text` to a file `name` in the temporary folder and chooses it in the file
    /// input `input_css`, as a user picking it would; returns the file's path.
    pub async fn choose_file(&self, input_css: &str, name: &str, text: &str) -> PathBuf {
        let path = std::env::temp_dir().join(name);
        std::fs::write(&path, text).unwrap();
        self.wait_for(
            &format!("{input_css} to choose a file in"),
            APPEARS_WITHIN,
            &format!("return !!document.querySelector({})", json!(input_css)),
        )
        .await;
        self.client
            .find(Locator::Css(input_css))
            .await
            .unwrap_or_else(|e| panic!("no {input_css} to choose a file in: {e}"))
            .send_keys(path.to_str().unwrap())
            .await
            .unwrap();
        path
    }

    /// Waits until the welcome lists the shipped recordings.
    pub async fn wait_for_recordings(&self) {
        self.wait_for(
            "the recordings to be listed",
            Duration::from_secs(10),
            "return document.querySelectorAll('.recording-card').length >= 3",
        )
        .await;
    }

    /// Presses Play on the shipped recording `file` once the recordings are listed.
    pub async fn play_recording(&self, file: &str) {
        self.wait_for_recordings().await;
        self.click(&format!(
            ".recording-card[data-file='{file}'] .play-recording"
        ))
        .await;
    }

    /// Chooses the replay speed by its id (`1`, `4`, `instant`…).
    pub async fn choose_speed(&self, id: &str) {
        self.click(&format!("#replay-speed option[value='{id}']"))
            .await;
    }

    /// Opens `url` with no token and nothing stored, as a first visitor.
    pub async fn open_fresh(&self, url: &str) {
        self.client.goto(&self.app_url).await.unwrap();
        self.js("localStorage.clear(); sessionStorage.clear();")
            .await;
        self.client.goto(url).await.unwrap();
        self.wait_for(
            "the app to render",
            Duration::from_secs(20),
            "return !!document.querySelector('#run')",
        )
        .await;
    }

    /// Until a replay has ended and every panel shows its run (drawn by the engine's chunk,
    /// which may arrive after an instant replay has ended); then what the panels show.
    pub async fn wait_for_replay_end(&self, timeout: Duration) -> Vec<PanelView> {
        self.wait_for(
            "the recording to play to its end",
            timeout,
            "const b = document.querySelector('#recording-banner'); return !!b && b.dataset.playing === 'false' && Array.from(document.querySelectorAll('section.panel')).every(p => p.querySelector('ol.steps, .part-missing'));",
        )
        .await;
        self.panels().await
    }

    /// Opens the app pointed at the mock endpoint, with the marker token.
    pub async fn open_app(&self, max_steps: u32) {
        self.open_app_overriding(json!({ "max_steps": max_steps }))
            .await;
    }

    /// Opens the app pointed at the mock endpoint, with the marker token, and with the given
    /// settings replacing the defaults (max 5 steps, 512 max tokens, temperature 0).
    pub async fn open_app_overriding(&self, overrides: Value) {
        let mut settings = json!({
            "model": "mock/model",
            "base_url": self.mock.base_url(),
            "temperature": 0.0,
            "max_tokens": 512,
            "max_steps": 5,
            "remember_token": false,
        });
        for (key, value) in overrides
            .as_object()
            .expect("settings overrides are an object")
        {
            settings[key] = value.clone();
        }
        self.open_app_with(settings, MARKER_TOKEN, false).await;
    }

    /// Switches to the Evaluate view and waits for its setup.
    #[allow(dead_code)] // not every test binary evaluates
    pub async fn show_evaluate(&self) {
        self.click("#view-evaluate").await;
        self.wait_for(
            "the Evaluate view",
            Duration::from_secs(30),
            "return !!document.querySelector('#eval-start')",
        )
        .await;
    }

    /// In the Evaluate view: the user's own question set, `questions` (question, gold answer)
    /// chosen as a JSON file named `name`, once the view has read it.
    #[allow(dead_code)] // not every test binary evaluates
    pub async fn choose_own_questions(&self, name: &str, questions: &[(&str, &str)]) {
        let file: Vec<Value> = questions
            .iter()
            .map(|(q, a)| json!({ "question": q, "answer": a }))
            .collect();
        self.click("#eval-set-own").await;
        let name = format!("{}-{name}", std::process::id());
        self.choose_file("#eval-file", &name, &serde_json::to_string(&file).unwrap())
            .await;
        self.wait_for(
            "the file to be read",
            Duration::from_secs(10),
            &format!(
                "return document.querySelector('#eval-set-size').innerText === '{} questions'",
                questions.len()
            ),
        )
        .await;
    }

    /// Waits until the history list itself is drawn (its summary counts the runs): until then
    /// a closed summary stands in for it, and a click on that one would be lost.
    #[allow(dead_code)] // not every test binary opens the history
    pub async fn wait_for_history_list(&self) {
        self.wait_for(
            "the history list",
            Duration::from_secs(40),
            "return /^History \\(\\d+\\)$/.test(document.querySelector('#history > summary')?.textContent ?? '')",
        )
        .await;
    }

    /// Starts noting the longest main-thread task (a `longtask` observer); read it with
    /// [`Rig::longest_task`].
    #[allow(dead_code)] // not every test binary measures tasks
    pub async fn watch_long_tasks(&self) {
        self.js("window.__longestTask = 0; new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longestTask = Math.max(window.__longestTask, e.duration); }).observe({ type: 'longtask' });")
            .await;
    }

    /// The longest main-thread task (ms) since [`Rig::watch_long_tasks`].
    #[allow(dead_code)]
    pub async fn longest_task(&self) -> f64 {
        self.js("return window.__longestTask || 0")
            .await
            .as_f64()
            .unwrap_or(0.0)
    }

    /// Clicks the first element matching `css`, once there is one: what an effect, a chunk or
    /// a reply draws comes a moment after the action that asks for it, later on a busy machine.
    pub async fn click(&self, css: &str) {
        self.wait_for(
            &format!("{css} to click"),
            APPEARS_WITHIN,
            &format!("return !!document.querySelector({})", json!(css)),
        )
        .await;
        let element = self.client.find(Locator::Css(css)).await;
        let element = element.unwrap_or_else(|e| panic!("no {css} to click: {e}"));
        element.click().await.unwrap();
    }

    /// Where the token is stored: [sessionStorage, localStorage].
    pub async fn stored_token(&self) -> Value {
        self.js("return [sessionStorage.getItem('react-arena.token'), localStorage.getItem('react-arena.token')]")
            .await
    }

    /// Opens the settings drawer if it is closed.
    pub async fn open_settings(&self) {
        if self
            .js("return document.querySelector('#settings').open")
            .await
            != Value::Bool(true)
        {
            let summary = self
                .client
                .find(Locator::Css("#settings > summary"))
                .await
                .unwrap();
            summary.click().await.unwrap();
        }
        // Without a token the model, tools and prompts wait under their own summary.
        self.js(
            "const more = document.querySelector('#settings-more'); if (more) more.open = true;",
        )
        .await;
        // The tool section is drawn once the parts chunk is in.
        self.wait_for(
            "the settings' tool section",
            Duration::from_secs(20),
            "return !!document.querySelector('#protocol')",
        )
        .await;
    }

    /// Makes the page cross-origin isolated as a user does: Settings, with the model in this
    /// browser chosen, register the page's isolation worker and offer "Reload to use N
    /// threads", which is pressed. Returns what Settings said before the reload.
    pub async fn isolate(&self) -> String {
        self.open_settings().await;
        self.wait_for(
            "the offer to reload for more threads",
            Duration::from_secs(30),
            "return !!document.querySelector('#browser-model-reload')",
        )
        .await;
        let before = self
            .js("return document.querySelector('#browser-model-place').innerText")
            .await;
        assert_eq!(self.js("return window.crossOriginIsolated").await, false);
        // Clicked after this script returns: the reload does not cut the command short.
        self.js("setTimeout(() => document.querySelector('#browser-model-reload').click(), 0)")
            .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        self.wait_for(
            "the reloaded page, cross-origin isolated",
            Duration::from_secs(30),
            "return window.crossOriginIsolated === true && !!document.querySelector('#run')",
        )
        .await;
        before.as_str().unwrap_or_default().to_string()
    }

    /// Waits up to `timeout` for the page's alert and returns what it says (without its
    /// dismiss button).
    pub async fn alert_text(&self, timeout: Duration) -> String {
        self.wait_for_value("the page's alert", timeout, READ_ALERT, |said| {
            said.as_str().is_some_and(|s| !s.is_empty())
        })
        .await
        .as_str()
        .unwrap()
        .to_string()
    }

    /// Waits up to `timeout` until the page's alert says `part`, and returns all it says: the
    /// alert an action raises may come after the action returns, and may replace one shown
    /// before.
    pub async fn alert_saying(&self, part: &str, timeout: Duration) -> String {
        self.wait_for_value(
            &format!("the alert to say {part:?}"),
            timeout,
            READ_ALERT,
            |said| said.as_str().is_some_and(|s| s.contains(part)),
        )
        .await
        .as_str()
        .unwrap()
        .to_string()
    }

    /// Reads `script` until what it returns passes `ok`, and returns that; fails after
    /// `timeout` with the last value read. For state the page draws or keeps a moment after
    /// what caused it (storage, counters, classes, text drawn by an effect).
    pub async fn wait_for_value(
        &self,
        what: &str,
        timeout: Duration,
        script: &str,
        ok: impl Fn(&Value) -> bool,
    ) -> Value {
        self.wait_until(what, timeout, || self.js(script), ok).await
    }

    /// Calls `read` until what it returns passes `ok`, and returns that; fails after `timeout`
    /// with the last value read. For reads made on the test's side (IndexedDB dumps, the
    /// downloads, a server's log).
    pub async fn wait_until<T, F, Fut>(
        &self,
        what: &str,
        timeout: Duration,
        mut read: F,
        ok: impl Fn(&T) -> bool,
    ) -> T
    where
        T: std::fmt::Debug,
        F: FnMut() -> Fut,
        Fut: Future<Output = T>,
    {
        let deadline = Instant::now() + timeout;
        loop {
            let value = read().await;
            if ok(&value) {
                return value;
            }
            if Instant::now() > deadline {
                panic!("timed out after {timeout:?} waiting for {what}; last read: {value:#?}");
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Waits until the page has started `count` downloads since `CAPTURE_DOWNLOADS` ran (a
    /// file is made after the click that asks for it), and returns them in order.
    pub async fn wait_for_downloads(&self, count: usize, timeout: Duration) -> Vec<Download> {
        self.wait_until(
            &format!("{count} downloads"),
            timeout,
            || self.downloads(),
            |d| d.len() >= count,
        )
        .await
    }

    /// Polls a JS predicate until it returns true.
    pub async fn wait_for(&self, what: &str, timeout: Duration, predicate: &str) {
        let deadline = Instant::now() + timeout;
        loop {
            if self.js(predicate).await == Value::Bool(true) {
                return;
            }
            if Instant::now() > deadline {
                let panels = self.panels().await;
                panic!("timed out after {timeout:?} waiting for {what}; panels: {panels:#?}");
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    pub async fn panels(&self) -> Vec<PanelView> {
        serde_json::from_value(self.js(READ_PANELS).await).expect("panel snapshot")
    }

    pub async fn panel(&self, mode: &str) -> PanelView {
        self.panels()
            .await
            .into_iter()
            .find(|p| p.mode == mode)
            .unwrap_or_else(|| panic!("no {mode} panel on the page"))
    }

    /// Types a question, picks a mode (think / act / react / all) and presses Run.
    pub async fn ask(&self, question: &str, mode: &str) {
        let field = self.client.find(Locator::Css("#question")).await.unwrap();
        field.clear().await.unwrap();
        field.send_keys(question).await.unwrap();
        self.client
            .find(Locator::Css(&format!("#mode option[value='{mode}']")))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        // After a run has settled, Run is drawn back a moment later.
        self.wait_for(
            "the Run button to be ready (to say Run)",
            APPEARS_WITHIN,
            "return document.querySelector('#run')?.innerText === 'Run'",
        )
        .await;
        let run = self.client.find(Locator::Css("#run")).await.unwrap();
        let before = self.js(RUNS_STARTED).await;
        run.click().await.unwrap();
        // A loaded machine may report the click before the page has taken it.
        self.wait_for(
            "the press of Run to start a run",
            Duration::from_secs(10),
            &format!("{} !== {before};", RUNS_STARTED.trim_end_matches(';')),
        )
        .await;
    }

    /// Waits until no panel is waiting, streaming or running a tool.
    pub async fn wait_until_settled(&self, timeout: Duration) -> Vec<PanelView> {
        self.wait_for(
            "every panel to finish",
            timeout,
            "return Array.from(document.querySelectorAll('section.panel'))\
               .every(p => ['done', 'error', 'stopped', 'idle'].includes(p.dataset.status));",
        )
        .await;
        self.panels().await
    }

    /// Waits until every answer is drawn as Markdown: until the parser's chunk has arrived an
    /// answer is shown as plain text (`.md.plain`), where no link or markup can be checked.
    pub async fn wait_for_answers_drawn(&self) {
        self.wait_for(
            "the answers drawn as Markdown",
            Duration::from_secs(30),
            "const mds = Array.from(document.querySelectorAll('section.panel .answer .md'));\
             return mds.length > 0 && mds.every(md => !md.classList.contains('plain') && md.childNodes.length > 0);",
        )
        .await;
    }

    /// Opens the Embed dialog and returns the address that carries the shown run (`#run=`).
    pub async fn embed_address(&self) -> String {
        self.click("#embed-open").await;
        self.wait_for(
            "the embed address",
            Duration::from_secs(10),
            "return (document.querySelector('#embed-url').dataset.url || '').includes('#run=')",
        )
        .await;
        let url = self
            .js("return document.querySelector('#embed-url').dataset.url")
            .await;
        url.as_str().unwrap().to_string()
    }

    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.client.screenshot().await.unwrap();
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        // A name may hold a folder of its own (layout/…).
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, png).unwrap();
        path
    }
}

/// A page on another origin that frames the app and notes every height message.
pub async fn host_page(app_url: &str) -> std::net::SocketAddr {
    host_page_framing(&format!("{app_url}?embed=1")).await
}

/// A page on another origin that frames `url`, 360 px wide, sizes the frame by each height
/// message, and notes them in `window.heights`.
pub async fn host_page_framing(url: &str) -> std::net::SocketAddr {
    static PAGES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let page = PAGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("react-arena-host-{}-{page}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("index.html"),
        format!(
            r#"<!doctype html><html><body style="margin:0">
<iframe id="frame" src="{url}" style="width:360px;height:300px;border:0"></iframe>
<script>
window.heights = [];
addEventListener("message", (e) => {{
  if (e.data && e.data.type === "react-arena:height") {{
    window.heights.push(e.data.height);
    document.getElementById("frame").style.height = e.data.height + "px";
  }}
}});
</script></body></html>"#
        ),
    )
    .unwrap();
    serve_dir(dir).await
}
