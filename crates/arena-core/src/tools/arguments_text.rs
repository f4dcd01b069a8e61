//! How a JSON arguments value becomes the text of a tool that takes one string, and how a
//! call's arguments are shown: the same in every protocol. The tools' own rule, so the
//! registry (`args`) reads it from below the protocols, which read it too.

use serde_json::{Map, Value};

/// The input a JSON arguments value gives the tool `name`.
///
/// `{"input": "…"}` gives the string; an object with one field, or with exactly one string
/// field, gives that field; numbers and booleans give their text; a string gives itself (or,
/// if it holds a JSON object, what that object gives: some servers encode twice); a list of
/// plain values gives them joined with ", ". `Err` is a message for the model.
pub fn arguments_input(name: &str, value: &Value) -> Result<String, String> {
    value_input(name, value, true)
}

/// A call's arguments as the panel and the record show them, the same in every protocol: a
/// plain value, a list of plain values or an object of one plain field as text (`6*7`,
/// `Paris`), anything else as compact JSON, so no field is hidden.
pub fn shown_input(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(_) => list_text(value).unwrap_or_else(|| value.to_string()),
        Value::Object(map) if map.len() == 1 => {
            let (_, only) = map.iter().next().expect("one field");
            scalar_text(only).unwrap_or_else(|| value.to_string())
        }
        other => scalar_text(other).unwrap_or_else(|| other.to_string()),
    }
}

/// The object a string holds, for arguments some servers and models encode twice
/// (`"{\"input\": \"6*7\"}"`).
pub fn object_in_string(s: &str) -> Option<Value> {
    let t = s.trim();
    if !t.starts_with('{') {
        return None;
    }
    serde_json::from_str::<Value>(t)
        .ok()
        .filter(Value::is_object)
}

pub fn no_input(name: &str) -> String {
    format!("{name} was called without an input. Send {{\"input\": \"…\"}} as its arguments.")
}

fn value_input(name: &str, value: &Value, decode: bool) -> Result<String, String> {
    match value {
        Value::Null => Err(no_input(name)),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::String(s) => match object_in_string(s).filter(|_| decode) {
            Some(inner) => value_input(name, &inner, false),
            None => Ok(s.clone()),
        },
        Value::Array(items) => {
            let items: Vec<&Value> = items.iter().filter(|i| !i.is_null()).collect();
            if items.is_empty() {
                return Err(no_input(name));
            }
            let parts: Option<Vec<String>> = items.iter().map(|i| list_text(i)).collect();
            parts.map(|p| p.join(", ")).ok_or_else(|| {
                format!(
                    "The arguments of {name} should be {{\"input\": \"…\"}}, not a list of \
                     objects."
                )
            })
        }
        Value::Object(map) => object_input(name, map),
    }
}

fn object_input(name: &str, map: &Map<String, Value>) -> Result<String, String> {
    if let Some(v) = map.get("input") {
        return field_text(name, v);
    }
    if map.len() == 1 {
        let (_, v) = map.iter().next().expect("one field");
        return field_text(name, v);
    }
    if map.is_empty() {
        return Err(no_input(name));
    }
    let strings: Vec<&str> = map.values().filter_map(Value::as_str).collect();
    if let [only] = strings.as_slice() {
        return Ok((*only).to_string());
    }
    let fields: Vec<&str> = map.keys().map(String::as_str).collect();
    Err(format!(
        "The arguments of {name} should be {{\"input\": \"…\"}}; they have the fields {}.",
        fields.join(", ")
    ))
}

/// The text of one argument field: plain values as text, lists of plain values joined,
/// anything else as JSON text.
fn field_text(name: &str, v: &Value) -> Result<String, String> {
    match v {
        Value::Null => Err(no_input(name)),
        Value::Array(_) => Ok(list_text(v).unwrap_or_else(|| v.to_string())),
        Value::Object(_) => Ok(v.to_string()),
        _ => Ok(scalar_text(v).unwrap_or_default()),
    }
}

/// An item of a list of inputs as text: a plain value, or a list of plain values joined.
fn list_text(v: &Value) -> Option<String> {
    match v {
        Value::Array(items) => items
            .iter()
            .filter(|i| !i.is_null())
            .map(scalar_text)
            .collect::<Option<Vec<_>>>()
            .map(|p| p.join(", ")),
        other => scalar_text(other),
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Before, the text protocol's reader gave an object of several fields to the tool as
    /// JSON text and a twice-encoded object as its raw string; now every protocol gives the
    /// one string field, or tells the model what to send.
    #[test]
    fn one_flattening_of_arguments() {
        let input = |v: Value| arguments_input("t", &v);
        assert_eq!(input(json!({"input": "x"})).unwrap(), "x");
        assert_eq!(input(json!({"q": 1})).unwrap(), "1");
        assert_eq!(input(json!("{\"q\": \"nested\"}")).unwrap(), "nested");
        assert_eq!(input(json!(["a", 2, true])).unwrap(), "a, 2, true");
        assert_eq!(
            input(json!({"expression": "2+2", "precision": 2})).unwrap(),
            "2+2"
        );
        assert_eq!(input(json!({"q": ["a", "b"]})).unwrap(), "a, b");
        assert!(input(json!({"a": 1, "b": 2}))
            .unwrap_err()
            .contains("fields a, b"));
        assert!(input(json!(null)).unwrap_err().contains("without an input"));
        assert!(input(json!([{"a": 1}]))
            .unwrap_err()
            .contains("list of objects"));
    }

    /// serde_json's `preserve_order`: a model's fields are named back to it in the order it
    /// wrote them (before, sorted), and read from replies in that order.
    #[test]
    fn fields_keep_their_written_order() {
        let value: Value = serde_json::from_str(r#"{"zeta": 1, "alpha": 2, "mid": 3}"#).unwrap();
        assert!(arguments_input("t", &value)
            .unwrap_err()
            .contains("fields zeta, alpha, mid"));
        assert_eq!(value.to_string(), r#"{"zeta":1,"alpha":2,"mid":3}"#);
        assert_eq!(json!({"b": 1, "a": 2}).to_string(), r#"{"b":1,"a":2}"#);
    }
}
