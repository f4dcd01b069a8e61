//! Accessibility: axe-core (from node_modules, injected by the test, never shipped) checks the
//! page in headless Chromium when idle, after a finished All run, with the settings open, and
//! in the dark theme. No violation of impact "serious" or "critical" is allowed; every
//! violation found is printed with its nodes.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use support::browser::{browser_test, Rig};
use support::cdp::emulate_color_scheme;

const SETTLE: Duration = Duration::from_secs(30);

fn axe_source() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (scripts/test installs it with npm ci)",
            path.display()
        )
    })
}

/// Runs axe on the whole page and returns its violations (id, impact, help, nodes).
async fn axe(rig: &Rig) -> Vec<Value> {
    if rig.js("return typeof window.axe;").await != "object" {
        rig.js(&format!("{}\nreturn true;", axe_source())).await;
    }
    let script = "const done = arguments[arguments.length - 1];\
         axe.run(document, { resultTypes: ['violations'] }).then(r => done(r.violations.map(v => ({\
           id: v.id, impact: v.impact, help: v.help,\
           nodes: v.nodes.map(n => ({ target: n.target, html: n.html, why: n.failureSummary })) }))),\
           e => done([{ id: 'axe-error', impact: 'critical', help: String(e), nodes: [] }]));";
    let found = rig.client.execute_async(script, vec![]).await.unwrap();
    found.as_array().cloned().unwrap_or_default()
}

/// Prints every violation and the counts by impact; fails on serious or critical ones.
fn assert_no_serious(state: &str, violations: &[Value]) -> BTreeMap<String, usize> {
    let mut by_impact = BTreeMap::new();
    for v in violations {
        let impact = v["impact"].as_str().unwrap_or("unknown").to_string();
        *by_impact.entry(impact).or_insert(0) += v["nodes"].as_array().map_or(1, Vec::len);
    }
    println!("axe-core, {state}: violations by impact (nodes) {by_impact:?}");
    for v in violations {
        println!(
            "  [{}] {}: {}\n{:#}",
            v["impact"], v["id"], v["help"], v["nodes"]
        );
    }
    let serious: Vec<&Value> = violations
        .iter()
        .filter(|v| matches!(v["impact"].as_str(), Some("serious" | "critical")))
        .collect();
    assert!(
        serious.is_empty(),
        "{state}: {} serious or critical axe-core violations:\n{:#}",
        serious.len(),
        Value::Array(serious.into_iter().cloned().collect())
    );
    by_impact
}

#[test]
fn axe_finds_no_serious_violations_idle_after_a_run_and_in_settings() {
    browser_test(|rig: Rig| async move {
        rig.mock.script_six_times_seven(
            "Thought: Six groups of seven make forty-two.\nAnswer: It is **42**:\n\n```\n6 * 7\n```",
            0,
        );
        rig.open_app(3).await;
        emulate_color_scheme(&rig.client, "light").await;
        assert_no_serious("the idle page", &axe(&rig).await);

        rig.ask("What is 6 times 7?", "all").await;
        let panels = rig.wait_until_settled(SETTLE).await;
        assert!(panels.iter().all(|p| p.status == "done"), "{panels:#?}");
        assert_no_serious("after a finished All run", &axe(&rig).await);

        rig.open_settings().await;
        assert_no_serious("with the settings open", &axe(&rig).await);

        // The dark theme keeps the same contrast.
        emulate_color_scheme(&rig.client, "dark").await;
        assert_no_serious("dark theme, after a run, settings open", &axe(&rig).await);
    });
}

#[test]
fn axe_finds_no_serious_violations_on_a_first_visit() {
    browser_test(|rig: Rig| async move {
        rig.client.goto(&rig.app_url).await.unwrap();
        rig.js("localStorage.clear(); sessionStorage.clear();")
            .await;
        rig.client.goto(&rig.app_url).await.unwrap();
        rig.wait_for(
            "the app",
            SETTLE,
            "return !!document.querySelector('#run');",
        )
        .await;
        assert_no_serious("a first visit without a token", &axe(&rig).await);
    });
}
