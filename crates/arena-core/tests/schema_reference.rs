#![cfg(not(target_arch = "wasm32"))]
//! The arena's schema checker against a reference validator (the `jsonschema` crate, a
//! dev-dependency only): on generated schemas and values, and on the schemas real MCP servers
//! send, both say "fits" or both say "does not".

use arena_core::tools::schema_check::{check, Unchecked};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Map, Value};

const KEYS: [&str; 3] = ["a", "b", "c"];

/// What the arena says: `Some(true)` fits, `Some(false)` does not, `None` not checked.
fn arena_fits(schema: &Value, value: &Value) -> Option<bool> {
    match check(schema, value) {
        Ok(outcome) => Some(outcome.is_ok()),
        Err(Unchecked::TooDeep | Unchecked::TooMuchWork { .. }) => None,
    }
}

/// What the reference says, under the draft the schema's `$schema` names (2020-12 if none);
/// `None` when it takes the schema for no schema.
fn reference_fits(schema: &Value, value: &Value) -> Option<bool> {
    let validator = jsonschema::validator_for(schema).ok()?;
    Some(validator.is_valid(value))
}

fn leaf_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..12).prop_map(|n| json!(n)),
        // No whole number written as a float (3.0): JSON Schema counts it an integer, and so
        // does the arena, but the reference does not for a `type` list (["integer", "null"]).
        select(vec![0.5, 2.5, -1.5, 1.25]).prop_map(|f| json!(f)),
        select(vec!["", "a", "ab", "abc", "b"]).prop_map(|s| json!(s)),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf_value().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(select(KEYS.to_vec()), inner, 0..4).prop_map(|m| {
                Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

fn one(key: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(key.to_string(), v);
    Value::Object(m)
}

fn leaf_schema() -> impl Strategy<Value = Value> {
    let types = vec![
        "string", "number", "integer", "boolean", "object", "array", "null",
    ];
    prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        select(types.clone()).prop_map(|t| json!({ "type": t })),
        prop::sample::subsequence(types, 1..3).prop_map(|t| json!({ "type": t })),
        prop::collection::vec(leaf_value(), 1..4).prop_map(|e| json!({ "enum": e })),
        leaf_value().prop_map(|c| json!({ "const": c })),
        (
            select(vec![
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum"
            ]),
            -2i64..8
        )
            .prop_map(|(k, n)| one(k, json!(n))),
        select(vec![json!(1), json!(2), json!(0.5)]).prop_map(|m| json!({ "multipleOf": m })),
        (
            select(vec![
                "minLength",
                "maxLength",
                "minItems",
                "maxItems",
                "minProperties",
                "maxProperties"
            ]),
            0u64..4
        )
            .prop_map(|(k, n)| one(k, json!(n))),
        any::<bool>().prop_map(|u| json!({ "uniqueItems": u })),
        prop::sample::subsequence(KEYS.to_vec(), 1..3).prop_map(|r| json!({ "required": r })),
        Just(json!({"dependentRequired": {"a": ["b"]}})),
        Just(json!({"$ref": "#/$defs/d"})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::btree_map(select(KEYS.to_vec()), inner.clone(), 1..3).prop_map(
                |m| json!({ "properties": m.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>() })
            ),
            inner.clone().prop_map(|s| json!({ "additionalProperties": s })),
            (inner.clone(), inner.clone()).prop_map(
                |(p, a)| json!({ "properties": {"a": p}, "additionalProperties": a })
            ),
            inner.clone().prop_map(|s| json!({ "items": s })),
            (prop::collection::vec(inner.clone(), 1..3), inner.clone())
                .prop_map(|(p, s)| json!({ "prefixItems": p, "items": s })),
            (inner.clone(), 0u64..3, prop::option::of(0u64..3)).prop_map(|(s, min, max)| {
                let mut m = json!({ "contains": s, "minContains": min });
                if let Some(max) = max {
                    m["maxContains"] = json!(max);
                }
                m
            }),
            (select(vec!["anyOf", "oneOf", "allOf"]), prop::collection::vec(inner.clone(), 1..4))
                .prop_map(|(k, v)| one(k, Value::Array(v))),
            inner.clone().prop_map(|s| json!({ "not": s })),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(i, t, e)| json!({ "if": i, "then": t, "else": e })),
            inner.clone().prop_map(|s| json!({ "propertyNames": s })),
            // Two schemas' keywords in one.
            (inner.clone(), inner).prop_map(|(a, b)| match (a, b) {
                (Value::Object(mut a), Value::Object(b)) => {
                    a.extend(b);
                    Value::Object(a)
                }
                (a, _) => a,
            }),
        ]
    })
}

/// A root schema: `d` in its `$defs`, for the `$ref`s inside.
fn root_schema() -> impl Strategy<Value = Value> {
    let d = leaf_schema().prop_filter("no $ref to itself", |d| d.get("$ref").is_none());
    (schema(), d).prop_map(|(s, d)| match s {
        Value::Object(mut m) => {
            m.insert("$defs".into(), json!({ "d": d }));
            Value::Object(m)
        }
        other => other,
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 4000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn agrees_with_the_reference_on_generated_schemas(
        schema in root_schema(),
        values in prop::collection::vec(value(), 6),
    ) {
        let Some(_) = reference_fits(&schema, &json!(null)) else {
            // The reference takes it for no schema; nothing to compare.
            return Ok(());
        };
        for value in &values {
            let arena = arena_fits(&schema, value);
            prop_assert!(arena.is_some(), "a small schema went unchecked: {schema}");
            prop_assert_eq!(arena, reference_fits(&schema, value), "schema {} value {}", schema, value);
        }
    }
}

/// The schemas the rig's real servers send (`tools/list`, as captured in the fixture), each
/// against values that fit and values that do not.
#[test]
fn agrees_with_the_reference_on_real_servers_schemas() {
    let listed: Value = serde_json::from_str(include_str!(
        "../../../tests/fixtures/mcp/tools_list_schemas.json"
    ))
    .expect("the fixture is JSON");
    let tools: Vec<&Value> = listed["servers"]
        .as_object()
        .expect("servers")
        .values()
        .flat_map(|tools| tools.as_array().expect("a tools list"))
        .collect();
    assert!(tools.len() >= 17, "{}", tools.len());
    let samples = [
        json!({}),
        json!({"message": "hi"}),
        json!({"message": 3}),
        json!({"a": 2, "b": 3}),
        json!({"a": 2, "b": "three"}),
        json!({"city": "Paris"}),
        json!({"city": "Paris", "year": 2001}),
        json!({"city": "Paris", "year": null}),
        json!({"city": "Paris", "year": "last year"}),
        json!({"city": "Paris", "year": 1850}),
        json!({"values": [3, 1, 4]}),
        json!({"values": []}),
        json!({"values": ["3"]}),
        json!({"order": {"id": "A-1", "lines": [{"amount": 40}, {"amount": 2.5}]}}),
        json!({"order": {"id": "A-1", "lines": [{"amount": "2.5"}]}}),
        json!({"order": {"id": "A-1"}}),
        json!({"steps": 5, "duration": 1}),
        json!({"name": "README.md.gz"}),
        json!({"prompt": "x", "maxTokens": 10}),
        json!([1]),
    ];
    let mut compared = 0;
    // As sent, and as the page keeps and checks it (its text cleaned, its size capped).
    let schemas = tools.iter().flat_map(|tool| {
        let sent = tool["inputSchema"].clone();
        let kept = arena_core::mcp::server_tools::clean_schema(&sent);
        [(tool, sent), (tool, kept)]
    });
    for (tool, schema) in schemas {
        let schema = &schema;
        for value in &samples {
            let reference = reference_fits(schema, value)
                .unwrap_or_else(|| panic!("the reference refused {}'s schema", tool["name"]));
            assert_eq!(
                arena_fits(schema, value),
                Some(reference),
                "{}: {value}",
                tool["name"]
            );
            compared += 1;
        }
    }
    assert!(compared >= 600, "{compared}");
}
