//! Proves the Hugging Face Hub stand-in (tests/hub_standin.py, started by tests/support/hub.rs)
//! from the host: the Hub's two official clients (npm `@huggingface/hub`, PyPI `huggingface_hub`)
//! publish, list and read dataset repos on it as they would on the Hub; a page on another origin
//! may call it; and its faults (a flood of datasets, a huge file, slowness, 401/403/429) behave
//! as the browser tests will rely on.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::Method;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};
use support::hub::{hub_python, start_hub, ALICE_TOKEN, BOB_TOKEN, CAROL_TOKEN, UNKNOWN_TOKEN};

/// A page served from another 127.0.0.1 port.
const PAGE_ORIGIN: &str = "http://127.0.0.1:1";

/// Faults are global to the stand-in and the client checks call the same endpoints: the tests
/// of this binary take turns.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Runs a client check script and returns its JSON summary line; panics with its output if it
/// fails.
async fn run_check(program: &str, script: &str) -> Value {
    let hub = start_hub();
    let output = tokio::process::Command::new(program)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hub/").to_string() + script)
        .arg(&hub.base_url)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(120), output)
        .await
        .unwrap_or_else(|_| panic!("{script} did not finish within 120 s"))
        .unwrap_or_else(|e| panic!("cannot run {program} {script}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let summary: Value = stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str(line).ok())
        .unwrap_or_else(|| {
            panic!("{script} printed no JSON line\nstdout: {stdout}\nstderr: {stderr}")
        });
    assert!(
        output.status.success() && summary["ok"] == true,
        "{script} failed ({}):\n{summary:#}\nstderr: {stderr}",
        output.status
    );
    summary
}

fn lower_list(value: Option<&str>) -> Vec<String> {
    value
        .unwrap_or("")
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

fn json_body(reply: &support::mcp::Reply) -> Value {
    serde_json::from_str(&reply.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", reply.body))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_publishes_lists_and_reads() {
    let _turn = SERIAL.lock().await;
    let summary = run_check(&hub_python(), "clients_check.py").await;
    assert_eq!(summary["client"], "huggingface_hub");
    assert_eq!(summary["commits"].as_array().unwrap().len(), 2);
    eprintln!("huggingface_hub {}: {summary}", summary["version"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_client_publishes_lists_and_reads() {
    let _turn = SERIAL.lock().await;
    let summary = run_check("node", "clients_check.mjs").await;
    assert_eq!(summary["client"], "@huggingface/hub");
    assert_eq!(summary["version"], "2.17.5");
    eprintln!("@huggingface/hub {}: {summary}", summary["version"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_another_origin_may_call_it() {
    let _turn = SERIAL.lock().await;
    let hub = start_hub();
    for (method, path) in [
        ("POST", "/api/datasets/alice/votes/commit/main"),
        ("GET", "/api/whoami-v2"),
    ] {
        let preflight = hub
            .call(
                Method::OPTIONS,
                path,
                None,
                &[
                    ("origin", PAGE_ORIGIN),
                    ("access-control-request-method", method),
                    (
                        "access-control-request-headers",
                        "authorization,content-type",
                    ),
                ],
                "",
            )
            .await;
        assert_eq!(preflight.status, 204, "{path}");
        assert_eq!(
            preflight.header("access-control-allow-origin"),
            Some(PAGE_ORIGIN)
        );
        let methods = lower_list(preflight.header("access-control-allow-methods"));
        for m in ["get", "head", "post"] {
            assert!(methods.contains(&m.to_string()), "{methods:?}");
        }
        let headers = lower_list(preflight.header("access-control-allow-headers"));
        for h in ["authorization", "content-type"] {
            assert!(headers.contains(&h.to_string()), "{headers:?}");
        }
    }
    // The replies themselves: the origin echoed and the headers a page must read exposed, on
    // success and on error alike.
    hub.seed(
        "alice",
        "cors-check",
        false,
        &[("votes/a.jsonl", "{\"winner\":\"react\"}\n")],
    )
    .await;
    for (path, status) in [
        ("/datasets/alice/cors-check/resolve/main/votes/a.jsonl", 200),
        (
            "/datasets/alice/cors-check/resolve/main/votes/none.jsonl",
            404,
        ),
    ] {
        let reply = hub
            .call(
                Method::GET,
                path,
                Some(ALICE_TOKEN),
                &[("origin", PAGE_ORIGIN)],
                "",
            )
            .await;
        assert_eq!(reply.status, status, "{path}: {}", reply.body);
        assert_eq!(
            reply.header("access-control-allow-origin"),
            Some(PAGE_ORIGIN)
        );
        let exposed = lower_list(reply.header("access-control-expose-headers"));
        for h in [
            "x-repo-commit",
            "etag",
            "x-error-code",
            "x-error-message",
            "link",
            "content-length",
        ] {
            assert!(
                exposed.contains(&h.to_string()),
                "{h} not exposed: {exposed:?}"
            );
        }
    }
    let anonymous = hub.call(Method::GET, "/api/datasets", None, &[], "").await;
    assert_eq!(anonymous.header("access-control-allow-origin"), Some("*"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_records_what_a_page_sent() {
    let _turn = SERIAL.lock().await;
    let hub = start_hub();
    hub.clear_log().await;
    let commit = hub
        .seed("alice", "log-check", false, &[("README.md", "# log\n")])
        .await;
    let body = concat!(
        r#"{"key":"header","value":{"summary":"Vote","description":""}}"#,
        "\n",
        r#"{"key":"file","value":{"path":"votes/v.jsonl","content":"e30K","encoding":"base64"}}"#
    );
    let reply = hub
        .call(
            Method::POST,
            "/api/datasets/alice/log-check/commit/main",
            Some(ALICE_TOKEN),
            &[
                ("origin", PAGE_ORIGIN),
                ("content-type", "application/x-ndjson"),
            ],
            body,
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let done = json_body(&reply);
    let oid = done["commitOid"].as_str().unwrap();
    assert_eq!(oid.len(), 40);
    assert_ne!(oid, commit);
    assert_eq!(done["success"], true);
    assert_eq!(
        done["commitUrl"],
        format!("{}/datasets/alice/log-check/commit/{oid}", hub.base_url)
    );
    let file = hub
        .call(
            Method::GET,
            "/datasets/alice/log-check/resolve/main/votes/v.jsonl",
            None,
            &[],
            "",
        )
        .await;
    assert_eq!((file.status, file.body.as_str()), (200, "{}\n"));
    assert_eq!(file.header("x-repo-commit"), Some(oid));

    let log = hub.log().await;
    assert_eq!(log.len(), 2, "{log:#?}");
    assert_eq!(log[0].method, "POST");
    assert_eq!(log[0].path, "/api/datasets/alice/log-check/commit/main");
    assert_eq!(log[0].origin.as_deref(), Some(PAGE_ORIGIN));
    assert!(log[0].has_authorization);
    assert_eq!(
        log[0].authorization.as_deref(),
        Some(&*format!("Bearer {ALICE_TOKEN}"))
    );
    assert_eq!(log[0].content_type.as_deref(), Some("application/x-ndjson"));
    assert_eq!(log[0].body.as_deref(), Some(body));
    assert!(!log[1].has_authorization);
    assert_eq!(log[1].body, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_repos_and_missing_files_answer_as_the_hub_does() {
    let _turn = SERIAL.lock().await;
    let hub = start_hub();
    hub.seed(
        "bob",
        "hidden",
        true,
        &[("README.md", "---\ntags: [react-arena]\n---\n")],
    )
    .await;
    for token in [None, Some(ALICE_TOKEN)] {
        let info = hub
            .call(Method::GET, "/api/datasets/bob/hidden", token, &[], "")
            .await;
        assert_eq!(info.status, 404, "{token:?}");
        assert_eq!(info.header("x-error-code"), Some("RepoNotFound"));
        assert_eq!(json_body(&info)["error"], "Repository not found");
        let file = hub
            .call(
                Method::HEAD,
                "/datasets/bob/hidden/resolve/main/README.md",
                token,
                &[],
                "",
            )
            .await;
        assert_eq!(file.status, 404);
        assert_eq!(file.header("x-error-code"), Some("RepoNotFound"));
    }
    let mine = hub
        .call(
            Method::GET,
            "/api/datasets/bob/hidden",
            Some(BOB_TOKEN),
            &[],
            "",
        )
        .await;
    assert_eq!(mine.status, 200);
    assert_eq!(json_body(&mine)["private"], true);
    assert_eq!(json_body(&mine)["tags"], json!(["react-arena"]));
    let missing = hub
        .call(
            Method::HEAD,
            "/datasets/bob/hidden/resolve/main/nope.txt",
            Some(BOB_TOKEN),
            &[],
            "",
        )
        .await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.header("x-error-code"), Some("EntryNotFound"));
    assert_eq!(missing.header("x-repo-commit").map(str::len), Some(40));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_datasets_come_in_one_reply() {
    let _turn = SERIAL.lock().await;
    let hub = start_hub();
    hub.fault(json!({ "many_datasets": 10000 })).await;
    let started = Instant::now();
    let reply = hub
        .call(
            Method::GET,
            "/api/datasets?filter=react-arena&limit=5",
            None,
            &[],
            "",
        )
        .await;
    hub.fault(json!({ "clear": true })).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("link"), None);
    let list = json_body(&reply);
    let list = list.as_array().unwrap();
    assert!(list.len() >= 10000, "{} entries", list.len());
    let crowd = list
        .iter()
        .filter(|d| d["id"].as_str().unwrap().starts_with("crowd"))
        .count();
    assert_eq!(crowd, 10000);
    for d in list {
        assert!(
            d["tags"]
                .as_array()
                .unwrap()
                .contains(&json!("react-arena")),
            "{d}"
        );
        assert_eq!(d["private"], false);
        assert!(d["_id"].is_string() && d["lastModified"].is_string() && d["sha"].is_string());
    }
    eprintln!(
        "10,000 datasets: {} bytes in {:?}",
        reply.body.len(),
        started.elapsed()
    );
    // Cleared: `limit` holds again.
    let after = hub
        .call(Method::GET, "/api/datasets?limit=1", None, &[], "")
        .await;
    assert!(json_body(&after).as_array().unwrap().len() <= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_file_streams_and_can_be_dropped() {
    const BYTES: u64 = 209_715_200;
    let _turn = SERIAL.lock().await;
    let hub = start_hub();
    hub.seed("alice", "huge-votes", false, &[("README.md", "# votes\n")])
        .await;
    hub.fault(json!({ "huge_file": {
        "repo": "alice/huge-votes", "path": "votes/big.jsonl", "bytes": BYTES, "declared_size": 100
    } }))
    .await;

    // The tree listing tells the declared size, not the real one.
    let tree = hub
        .call(
            Method::GET,
            "/api/datasets/alice/huge-votes/tree/main/votes",
            None,
            &[],
            "",
        )
        .await;
    assert_eq!(tree.status, 200, "{}", tree.body);
    let tree = json_body(&tree);
    assert_eq!(tree[0]["path"], "votes/big.jsonl");
    assert_eq!(tree[0]["size"], 100);

    // The file says its real length, and streams it.
    let url = hub.url("/datasets/alice/huge-votes/resolve/main/votes/big.jsonl");
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let request = hyper::Request::get(&url)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let started = Instant::now();
    let response = tokio::time::timeout(Duration::from_secs(10), client.request(request))
        .await
        .expect("no reply head within 10 s")
        .unwrap();
    assert_eq!(response.status(), 200);
    let length = response.headers()["content-length"].to_str().unwrap();
    assert_eq!(length.parse::<u64>().unwrap(), BYTES);
    assert!(response.headers().contains_key("x-repo-commit"));
    let mut body = response.into_body();
    let mut first = Vec::new();
    while first.len() < 1 << 20 {
        let frame = tokio::time::timeout(Duration::from_secs(10), body.frame())
            .await
            .expect("the stream stalled")
            .expect("the stream ended early")
            .unwrap();
        if let Ok(data) = frame.into_data() {
            first.extend_from_slice(&data);
        }
    }
    drop(body);
    let read_in = started.elapsed();
    let text = String::from_utf8_lossy(&first);
    let lines: Vec<&str> = text.split('\n').collect();
    for line in &lines[..lines.len() - 1] {
        let vote: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(vote["winner"].is_string(), "{vote}");
    }
    // A range from the far end, and the stand-in still answers at once after the hang-up.
    let tail = hub
        .call(
            Method::GET,
            "/datasets/alice/huge-votes/resolve/main/votes/big.jsonl",
            None,
            &[("range", "bytes=-300")],
            "",
        )
        .await;
    assert_eq!(tail.status, 206);
    assert_eq!(
        tail.header("content-range"),
        Some(&*format!("bytes {}-{}/{BYTES}", BYTES - 300, BYTES - 1))
    );
    assert!(tail.body.ends_with("\"}\n"), "{}", tail.body);
    let whoami = hub
        .call(Method::GET, "/api/whoami-v2", Some(ALICE_TOKEN), &[], "")
        .await;
    assert_eq!(whoami.status, 200);
    hub.fault(json!({ "clear": true })).await;
    eprintln!("huge file: first MiB in {read_in:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_repo_waits_and_notices_a_hang_up() {
    let _turn = SERIAL.lock().await;
    let hub = start_hub();
    hub.seed("alice", "slow-votes", false, &[("README.md", "# slow\n")])
        .await;
    hub.fault(json!({ "slow": { "repo": "alice/slow-votes", "seconds": 1 } }))
        .await;
    let started = Instant::now();
    let info = hub
        .call(Method::GET, "/api/datasets/alice/slow-votes", None, &[], "")
        .await;
    assert_eq!(info.status, 200);
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
    let other = Instant::now();
    hub.call(Method::GET, "/api/datasets/alice/log-check", None, &[], "")
        .await;
    assert!(
        other.elapsed() < Duration::from_millis(900),
        "another repo is not slowed"
    );

    // A client that gives up after 300 ms: the stand-in notices and stops waiting.
    hub.fault(json!({ "slow": { "repo": "alice/slow-votes", "seconds": 30 } }))
        .await;
    hub.clear_log().await;
    let url = hub.url("/datasets/alice/slow-votes/resolve/main/README.md");
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let request = hyper::Request::get(&url)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let gave_up = tokio::time::timeout(Duration::from_millis(300), client.request(request)).await;
    assert!(gave_up.is_err(), "the slow reply came early");
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let log = hub.log().await;
        if log
            .iter()
            .any(|r| r.path.ends_with("/slow-votes/resolve/main/README.md") && r.client_hung_up)
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the hang-up went unnoticed: {log:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    hub.fault(json!({ "clear": true })).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_carry_the_hubs_bodies_and_headers() {
    let _turn = SERIAL.lock().await;
    let hub = start_hub();
    // Faults on a path, as the Hub would answer them.
    for code in [401u16, 403, 429] {
        hub.fault(
            json!({ "status": { "path_prefix": "/api/whoami-v2", "code": code, "times": 1 } }),
        )
        .await;
        let reply = hub
            .call(
                Method::GET,
                "/api/whoami-v2",
                Some(ALICE_TOKEN),
                &[("origin", PAGE_ORIGIN)],
                "",
            )
            .await;
        assert_eq!(reply.status, code);
        assert!(reply.content_type().starts_with("application/json"));
        let error = json_body(&reply)["error"].as_str().unwrap().to_string();
        assert!(!error.is_empty());
        assert_eq!(reply.header("x-error-message"), Some(error.as_str()));
        assert_eq!(
            reply.header("access-control-allow-origin"),
            Some(PAGE_ORIGIN)
        );
        match code {
            401 => assert_eq!(error, "Invalid credentials in Authorization header"),
            403 => assert!(error.starts_with("Forbidden"), "{error}"),
            _ => {
                let retry = reply
                    .header("retry-after")
                    .expect("429 without Retry-After");
                assert!(retry.parse::<u32>().unwrap() > 0);
                assert!(reply.header("ratelimit").unwrap().contains("r=0"));
                assert!(reply.header("ratelimit-policy").is_some());
                let exposed = lower_list(reply.header("access-control-expose-headers"));
                assert!(exposed.contains(&"retry-after".to_string()), "{exposed:?}");
            }
        }
        // `times: 1`: the next call is answered again.
        let again = hub
            .call(Method::GET, "/api/whoami-v2", Some(ALICE_TOKEN), &[], "")
            .await;
        assert_eq!(again.status, 200, "{}", again.body);
        assert_eq!(json_body(&again)["name"], "alice");
    }

    // The same statuses without a fault.
    let unknown = hub
        .call(Method::GET, "/api/whoami-v2", Some(UNKNOWN_TOKEN), &[], "")
        .await;
    assert_eq!(unknown.status, 401);
    assert_eq!(
        json_body(&unknown)["error"],
        "Invalid credentials in Authorization header"
    );
    let none = hub.call(Method::GET, "/api/whoami-v2", None, &[], "").await;
    assert_eq!(none.status, 401);
    hub.seed("carol", "own", false, &[("README.md", "# carol\n")])
        .await;
    hub.seed(
        "alice",
        "errors-check",
        false,
        &[("README.md", "# alice\n")],
    )
    .await;
    let line = r#"{"key":"header","value":{"summary":"x","description":""}}"#;
    for repo in ["carol/own", "alice/errors-check"] {
        let carol = hub
            .call(
                Method::POST,
                &format!("/api/datasets/{repo}/commit/main"),
                Some(CAROL_TOKEN),
                &[("content-type", "application/x-ndjson")],
                line,
            )
            .await;
        assert_eq!(carol.status, 403, "{repo}: {}", carol.body);
        assert!(json_body(&carol)["error"]
            .as_str()
            .unwrap()
            .starts_with("Forbidden"));
    }
    let bob = hub
        .call(
            Method::POST,
            "/api/datasets/carol/own/commit/main",
            Some(BOB_TOKEN),
            &[("content-type", "application/x-ndjson")],
            line,
        )
        .await;
    assert_eq!(bob.status, 403);
    let created = hub
        .call(
            Method::POST,
            "/api/repos/create",
            Some(ALICE_TOKEN),
            &[("content-type", "application/json")],
            r#"{"name":"own","organization":"carol","type":"dataset"}"#,
        )
        .await;
    assert_eq!(created.status, 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dataset_list_pages_by_link_and_commits_keep_history() {
    let _turn = SERIAL.lock().await;
    let hub = start_hub();
    let readme = "---\nlicense: mit\ntags:\n- react-arena\n- pager\n---\n# votes\n";
    for name in ["one", "two", "three"] {
        hub.seed("pager", name, false, &[("README.md", readme)])
            .await;
    }
    let mut path = "/api/datasets?author=pager&filter=pager&limit=2".to_string();
    let mut ids = Vec::new();
    let mut pages = 0;
    loop {
        let reply = hub.call(Method::GET, &path, None, &[], "").await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        pages += 1;
        for d in json_body(&reply).as_array().unwrap() {
            assert_eq!(d["tags"], json!(["react-arena", "pager", "license:mit"]));
            ids.push(d["id"].as_str().unwrap().to_string());
        }
        // GitHub-style `Link: <absolute url>; rel="next"`, as both clients parse it.
        let Some(link) = reply.header("link") else {
            break;
        };
        let next = link
            .strip_prefix('<')
            .and_then(|l| l.split_once(">; rel=\"next\""))
            .map(|(url, _)| url)
            .unwrap_or_else(|| panic!("odd Link: {link}"));
        path = next
            .strip_prefix(&hub.base_url)
            .unwrap_or_else(|| panic!("Link leaves the stand-in: {next}"))
            .to_string();
        assert!(path.contains("cursor="), "{path}");
    }
    ids.sort();
    assert_eq!(pages, 2);
    assert_eq!(ids, ["pager/one", "pager/three", "pager/two"]);

    // The older JSON commit form, then the history: `main` moved, the first commit still reads.
    let first = hub
        .seed("alice", "json-form", false, &[("a.txt", "first\n")])
        .await;
    let reply = hub
        .call(
            Method::POST,
            "/api/datasets/alice/json-form/commit/main",
            Some(ALICE_TOKEN),
            &[("content-type", "application/json")],
            &json!({
                "summary": "JSON form",
                "files": [{ "path": "b/c.txt", "content": "second\n", "encoding": "utf-8" }],
                "deletedFiles": [{ "path": "a.txt" }],
            })
            .to_string(),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let second = json_body(&reply)["commitOid"].as_str().unwrap().to_string();
    let files = |info: &Value| -> Vec<String> {
        info["siblings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["rfilename"].as_str().unwrap().to_string())
            .collect()
    };
    let now = json_body(
        &hub.call(Method::GET, "/api/datasets/alice/json-form", None, &[], "")
            .await,
    );
    assert_eq!(
        (now["sha"].as_str(), files(&now)),
        (Some(&*second), vec!["b/c.txt".to_string()])
    );
    let then = json_body(
        &hub.call(
            Method::GET,
            &format!("/api/datasets/alice/json-form/revision/{first}"),
            None,
            &[],
            "",
        )
        .await,
    );
    assert_eq!(files(&then), vec!["a.txt".to_string()]);
    let old = hub
        .call(
            Method::GET,
            &format!("/datasets/alice/json-form/resolve/{first}/a.txt"),
            None,
            &[],
            "",
        )
        .await;
    assert_eq!((old.status, old.body.as_str()), (200, "first\n"));
    let tree = json_body(
        &hub.call(
            Method::GET,
            "/api/datasets/alice/json-form/tree/main?recursive=true",
            None,
            &[],
            "",
        )
        .await,
    );
    let entries: Vec<(String, String)> = tree
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_string(),
                e["path"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("directory".to_string(), "b".to_string()),
            ("file".to_string(), "b/c.txt".to_string())
        ]
    );
}
