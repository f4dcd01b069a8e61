//! axe-core (from node_modules, injected by the test, never shipped) run on the page.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::browser::Rig;

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
pub async fn axe(rig: &Rig) -> Vec<Value> {
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
pub fn assert_no_serious(state: &str, violations: &[Value]) -> BTreeMap<String, usize> {
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
