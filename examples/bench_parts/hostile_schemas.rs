//! `BENCH_ONLY=hostile_schemas`: the schema checker against the hostile schemas of issue 47,
//! in this release build (each case: what the check says, the work it counted (steps, bytes,
//! units against its bound) and its time, the least of 5), then the attacks in the page's
//! wasm in headless Chromium (the run's longest main-thread task).

use std::time::Instant;

use react_arena::tools::args;
use react_arena::tools::schema_check::{check_metered, Meter, Unchecked};
use serde_json::{json, Map, Value};

fn fan_out(leaf: Value) -> Value {
    json!({
        "type": "object",
        "$defs": {
            "a": { "allOf": vec![json!({ "$ref": "#/$defs/b" }); 70] },
            "b": { "allOf": vec![leaf; 70] },
        },
        "properties": { "text": { "$ref": "#/$defs/a" } },
    })
}

/// The cases: a name, the schema, the arguments.
fn cases() -> Vec<(&'static str, Value, Value)> {
    let seven_mb = json!({ "text": "x".repeat(7 << 20) });
    let one_mb = json!({ "text": "x".repeat(1 << 20) });
    let items: Vec<Value> = (0..2_000)
        .map(|i| json!(format!("{i:04}{}", "s".repeat(3_400))))
        .collect();
    let unique = json!({ "type": "array", "uniqueItems": true });
    let plain_list = json!({ "type": "array" });
    let wide: Vec<Value> = (0..1_000)
        .map(|i| json!({ "type": "integer", "minimum": i, "maximum": i }))
        .collect();
    let squared = json!({ "anyOf": vec![json!({ "anyOf": wide }); 1_000] });
    let mut long_name = Map::new();
    long_name.insert("n".repeat(7 << 20), json!(1));
    vec![
        ("fan-out, 7 MB string", fan_out(json!({})), seven_mb.clone()),
        ("fan-out, 1 MB string", fan_out(json!({})), one_mb),
        (
            "fan-out with maxLength, 7 MB string",
            fan_out(json!({ "maxLength": 8 << 20 })),
            seven_mb.clone(),
        ),
        (
            "fan-out with a 7 MB const",
            fan_out(json!({ "const": "x".repeat(7 << 20) })),
            seven_mb,
        ),
        (
            "fan-out of objects, 7 MB field name",
            json!({ "$defs": { "a": { "allOf": vec![json!({ "$ref": "#/$defs/b" }); 70] }, "b": { "allOf": vec![json!({ "type": "object", "propertyNames": { "minLength": 1 } }); 70] } }, "$ref": "#/$defs/a" }),
            Value::Object(long_name),
        ),
        (
            "uniqueItems, 2,000 x 3.4 KB strings",
            unique,
            Value::Array(items.clone()),
        ),
        (
            "no uniqueItems, 2,000 x 3.4 KB strings",
            plain_list,
            Value::Array(items),
        ),
        ("anyOf 1,000 x 1,000", squared, json!(5_000)),
        (
            "fan-out items, 6,250 numbers (largest bound)",
            json!({ "type": "array", "items": { "$ref": "#/$defs/a" }, "$defs": fan_out(json!({}))["$defs"].clone() }),
            json!((0..6_250).collect::<Vec<u32>>()),
        ),
    ]
}

pub fn run() -> Value {
    let mut rows = Vec::new();
    println!(
        "\nHostile schemas, this release build (least of 5):\n{:<40} {:>9} {:>11} {:>9} {:>9} {:>9}  outcome",
        "case", "steps", "bytes", "units", "bound", "ms"
    );
    for (name, schema, value) in cases() {
        let mut best = f64::MAX;
        let mut said = String::new();
        let mut work = None;
        for _ in 0..5 {
            let meter = Meter::for_value(&value);
            let started = Instant::now();
            let outcome = check_metered(&schema, &schema, &value, &meter);
            best = best.min(started.elapsed().as_secs_f64() * 1000.0);
            said = match outcome {
                Ok(Ok(())) => "fits".into(),
                Ok(Err(m)) => m.describe().chars().take(60).collect(),
                Err(Unchecked::TooDeep) => "refused: too deep".into(),
                Err(Unchecked::TooMuchWork { budget }) => format!("refused: over {budget} units"),
            };
            work = Some((meter.done(), meter.budget()));
        }
        let (done, budget) = work.unwrap();
        println!(
            "{name:<40} {:>9} {:>11} {:>9} {:>9} {best:>9.1}  {said}",
            done.steps,
            done.bytes,
            done.units(),
            budget
        );
        rows.push(json!({
            "case": name, "steps": done.steps, "bytes": done.bytes, "units": done.units(),
            "budget": budget, "ms": best, "outcome": said,
        }));
    }
    // One call's checks share one bound: 150 fanned-out properties, each written as null.
    let properties: Map<String, Value> = (0..150)
        .map(|i| (format!("p{i}"), json!({ "$ref": "#/$defs/a" })))
        .collect();
    let schema = json!({ "type": "object", "$defs": { "a": { "allOf": vec![json!({ "$ref": "#/$defs/b" }); 70] }, "b": { "allOf": vec![json!({}); 70] } }, "properties": properties });
    let nulls: Map<String, Value> = (0..150).map(|i| (format!("p{i}"), Value::Null)).collect();
    let nulls = Value::Object(nulls);
    let started = Instant::now();
    let meter = Meter::for_value(&nulls);
    let _ = args::read_metered("t", &schema, &nulls, &meter);
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    println!(
        "{:<40} {:>9} {:>11} {:>9} {:>9} {ms:>9.1}  one bound for the call",
        "150 fanned-out null fields (args::read)",
        meter.done().steps,
        meter.done().bytes,
        meter.done().units(),
        meter.budget()
    );
    json!({ "native_release": rows })
}

/// The same attacks in the page's wasm, in headless Chromium: an Act-only run (native calls)
/// whose one call carries the argument, to the rig's `FanOut` MCP server (kept in the settings
/// as Connect would keep it, trusted). For each, the run's longest main-thread task and what
/// the call came to. Longest of the run, so it holds more than the check: reading the reply,
/// keeping the run, sending the call.
pub async fn page_figures(rig: &crate::support::browser::Rig) -> Value {
    use crate::support::mcp::{fan_out_tools, Behaviour, HostileMcp};
    use crate::support::mock::Reply;
    use react_arena::agent::Mode;

    let hostile = HostileMcp::start().await;
    let url = hostile.url(Behaviour::FanOut);
    let tools: Vec<Value> = fan_out_tools()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            json!({
                "name": t["name"], "offered": t["name"], "description": t["description"],
                "parameters": t["inputSchema"].to_string(), "read_only": false,
            })
        })
        .collect();
    let servers = json!([{ "name": "Store", "url": url, "tools": tools, "ask": "never" }]);
    rig.open_app_overriding(json!({
        "protocol": "native",
        "max_steps": 4,
        "mcp_servers": servers.to_string(),
    }))
    .await;
    let cases = [
        (
            "store_text",
            "fan-out, 7 MB string",
            json!({ "text": "x".repeat(7 << 20) }),
        ),
        (
            "store_items",
            "uniqueItems, 2,000 x 3.4 KB strings",
            json!({ "items": (0..2_000).map(|i| format!("{i:04}{}", "s".repeat(3_400))).collect::<Vec<_>>() }),
        ),
        (
            "store_numbers",
            "fan-out items, 6,250 numbers (largest bound)",
            json!({ "numbers": (0..6_250).collect::<Vec<u32>>() }),
        ),
    ];
    println!(
        "\nThe same in the page's wasm (headless Chromium, an Act-only run):\n{:<46} {:>16}  the call",
        "case", "longest task ms"
    );
    let mut rows = Vec::new();
    for (tool, name, args) in cases {
        if rig
            .js("return !!document.querySelector('#new-conversation')")
            .await
            == Value::Bool(true)
        {
            rig.click("#new-conversation").await;
        }
        let question = format!("Store this ({tool}).");
        rig.mock.script_all_of(
            &[Mode::Act.prompt_heading(), &question],
            [
                Reply::tool_calls(&[(tool, args.to_string().as_str())]),
                Reply::text("Answer: stored"),
            ],
        );
        rig.watch_long_tasks().await;
        rig.ask(&question, "act").await;
        let panel = rig
            .wait_until_settled(std::time::Duration::from_secs(120))
            .await
            .remove(0);
        let longest = rig.longest_task().await;
        let came_to: String = panel
            .observations
            .first()
            .map(|o| o.replace('\n', " ").chars().take(70).collect())
            .unwrap_or_default();
        println!("{name:<46} {longest:>16.0}  {came_to}");
        rows.push(json!({ "case": name, "longest_task_ms": longest, "call": came_to }));
    }
    json!({ "page": rows })
}
