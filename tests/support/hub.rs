//! The Hugging Face Hub stand-in (`tests/hub_standin.py`): the Hub's HTTP API for dataset repos
//! on loopback, for the tests of the app's "publish to the Hub" and "community leaderboard"
//! features. `tests/hub_rig.rs` proves it against the Hub's two official clients (npm
//! `@huggingface/hub`, PyPI `huggingface_hub`) with `tests/hub/clients_check.{mjs,py}`.
//!
//! - [`start_hub`]: once per test binary; every test of the binary shares its repos, so each
//!   test names its own repos.
//! - [`HubStandIn::log`], [`HubStandIn::clear_log`], [`HubStandIn::seed`] and
//!   [`HubStandIn::fault`]: the stand-in's test controls (`/_standin/...`, no auth), called from
//!   the host. Faults are global to the stand-in: a test that sets one must not run beside a
//!   test that would trip over it.
//! - The tokens it knows are markers ([`ALICE_TOKEN`], [`BOB_TOKEN`]: write; [`CAROL_TOKEN`]:
//!   read-only), never real credentials.

use std::collections::BTreeMap;
use std::process::{Child, Command};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use axum::http::Method;
use serde::Deserialize;
use serde_json::{json, Value};

use super::mcp::{http, spawn_announcing, Reply};

/// User `alice`, write role.
pub const ALICE_TOKEN: &str = "hf_marker_ALICE_write_0000";
/// User `bob`, write role.
pub const BOB_TOKEN: &str = "hf_marker_BOB_write_0000";
/// User `carol`, read-only token: her writes get 403.
pub const CAROL_TOKEN: &str = "hf_marker_CAROL_read_0000";
/// A token the stand-in does not know: 401.
pub const UNKNOWN_TOKEN: &str = "hf_marker_UNKNOWN_0000";

/// The running stand-in, shared by the tests of one binary.
pub struct HubStandIn {
    /// `http://127.0.0.1:<port>`: the `endpoint` / `hubUrl` to give a client.
    pub base_url: String,
    /// Kept for the life of the test binary; the stand-in exits by itself when the binary does
    /// (it watches its parent process).
    _child: Mutex<Child>,
}

/// One request the stand-in received (`GET /_standin/log`); test controls are not logged.
#[derive(Clone, Debug, Deserialize)]
pub struct LoggedRequest {
    pub method: String,
    /// Path and query, as sent.
    pub path: String,
    pub origin: Option<String>,
    pub has_authorization: bool,
    /// The `Authorization` header's value.
    pub authorization: Option<String>,
    pub content_type: Option<String>,
    /// A POST's body as text (its first MiB); `None` for other methods.
    pub body: Option<String>,
    /// True when the client hung up while a `slow` fault held the request.
    #[serde(default)]
    pub client_hung_up: bool,
}

/// The Python that runs the stand-in and the Python client check: `HUB_PYTHON` (scripts/test
/// sets it), else `.tools/hub-venv/bin/python` (scripts/lib/ensure.sh's `ensure_hub_clients`).
pub fn hub_python() -> String {
    std::env::var("HUB_PYTHON").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/.tools/hub-venv/bin/python").to_string()
    })
}

/// Starts the stand-in once per test binary and returns it; blocks until it listens.
/// `HUB_RIG_LOG=1` shows its request log on stderr.
pub fn start_hub() -> &'static HubStandIn {
    static HUB: OnceLock<HubStandIn> = OnceLock::new();
    HUB.get_or_init(|| {
        let python = hub_python();
        let mut command = Command::new(&python);
        command
            .arg("-u")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hub_standin.py"))
            .arg("0");
        if std::env::var_os("HUB_RIG_LOG").is_some() {
            command.env("HUB_STANDIN_LOG", "1");
        }
        let (child, rx) = spawn_announcing(
            command,
            &format!("the Hub stand-in with {python} (set HUB_PYTHON)"),
            "HUB_RIG_LOG",
        );
        let base_url = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                panic!("the Hub stand-in did not print READY within 60 s (HUB_RIG_LOG=1 shows why)")
            });
        HubStandIn {
            base_url,
            _child: Mutex::new(child),
        }
    })
}

impl HubStandIn {
    /// `base_url` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    async fn control(&self, path: &str, body: &Value) -> Value {
        let reply = http(
            Method::POST,
            &self.url(path),
            &[("content-type", "application/json")],
            &body.to_string(),
        )
        .await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
        serde_json::from_str(&reply.body).unwrap()
    }

    /// Every request received so far (test controls aside), in arrival order.
    pub async fn log(&self) -> Vec<LoggedRequest> {
        let reply = http(Method::GET, &self.url("/_standin/log"), &[], "").await;
        assert_eq!(reply.status, 200, "log: {}", reply.body);
        serde_json::from_str(&reply.body).unwrap()
    }

    pub async fn clear_log(&self) {
        self.control("/_standin/log/clear", &json!({})).await;
    }

    /// (Re)creates the dataset repo `owner/name` with exactly `files` (path, text) in one commit,
    /// and returns that commit's id.
    pub async fn seed(
        &self,
        owner: &str,
        name: &str,
        private: bool,
        files: &[(&str, &str)],
    ) -> String {
        let files: serde_json::Map<String, Value> = files
            .iter()
            .map(|(path, text)| (path.to_string(), Value::from(*text)))
            .collect();
        let reply = self
            .control(
                "/_standin/seed",
                &json!({ "owner": owner, "name": name, "private": private, "files": files }),
            )
            .await;
        reply["commitOid"].as_str().unwrap().to_string()
    }

    /// Like [`HubStandIn::seed`], with `likes` (the Hub lists by likes, most first).
    #[allow(dead_code)] // not every test binary lists repositories by likes
    pub async fn seed_liked(&self, owner: &str, name: &str, likes: u64, files: &[(&str, &str)]) {
        let files: serde_json::Map<String, Value> = files
            .iter()
            .map(|(path, text)| (path.to_string(), Value::from(*text)))
            .collect();
        self.control(
            "/_standin/seed",
            &json!({ "owner": owner, "name": name, "private": false, "files": files, "likes": likes }),
        )
        .await;
    }

    /// The repositories of `tests/fixtures/hub/community.json` (five public, one private),
    /// (re)made.
    #[allow(dead_code)]
    pub async fn seed_community_fixture(&self) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/hub/community.json"
        );
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for (id, repo) in fixture.as_object().unwrap() {
            let (owner, name) = id.split_once('/').unwrap();
            let files: Vec<(&str, &str)> = repo["files"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(p, t)| (p.as_str(), t.as_str().unwrap()))
                .collect();
            self.seed(owner, name, repo["private"].as_bool().unwrap(), &files)
                .await;
        }
    }

    /// Removes every repository: a test that seeds the community view starts from none.
    #[allow(dead_code)]
    pub async fn reset(&self) {
        self.control("/_standin/reset", &json!({})).await;
    }

    /// Sets a fault (see `tests/hub_standin.py`), e.g. `json!({"many_datasets": 10000})`,
    /// `json!({"status": {"path_prefix": "/api/whoami-v2", "code": 429, "times": 1}})` or
    /// `json!({"clear": true})`; returns the faults now set.
    pub async fn fault(&self, fault: Value) -> Value {
        self.control("/_standin/fault", &fault).await
    }

    /// One request with a bearer token (and extra headers), read in full.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Reply {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let mut all: Vec<(&str, &str)> = headers.to_vec();
        if let Some(bearer) = &bearer {
            all.push(("authorization", bearer));
        }
        http(method, &self.url(path), &all, body).await
    }
}

/// The Python reference's count and ratings (`crates/arena-core/tests/bt_reference.py`) over
/// `repos` (the fixture's form: `{"owner/name": {"private", "files"}}`), leaving out
/// `excluded`.
#[allow(dead_code)]
pub fn pooled_reference(repos: &Value, excluded: &[&str]) -> (u64, BTreeMap<String, f64>) {
    let path = std::env::temp_dir().join(format!(
        "hub-pooled-{}-{}.json",
        std::process::id(),
        excluded.len()
    ));
    std::fs::write(&path, repos.to_string()).unwrap();
    let out = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/crates/arena-core/tests/bt_reference.py"
        ))
        .arg(&path)
        .args(excluded)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ratings = v["ratings"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, r)| (k.clone(), r.as_f64().unwrap()))
        .collect();
    (v["votes"].as_u64().unwrap(), ratings)
}
