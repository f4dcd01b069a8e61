//! Reading the JSON the tools are given and the JSON services send back, field by field, the
//! same way in every tool.

use serde_json::{Map, Value};

use super::observation::squash_whitespace;

/// The first of `keys` that `map` holds as a string: the field a model meant, when models name
/// it differently (`{"query": …}`, `{"q": …}`, `{"input": …}`).
pub fn first_str<'a>(map: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str))
}

/// The text of a string value with its whitespace squashed; `None` when it is missing, not a
/// string, or only whitespace.
pub fn squashed(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(squash_whitespace)
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn first_str_takes_the_first_key_holding_a_string() {
        let Value::Object(map) = json!({"q": 1, "input": "b", "query": "a"}) else {
            unreachable!()
        };
        assert_eq!(first_str(&map, &["query", "q", "input"]), Some("a"));
        assert_eq!(first_str(&map, &["q", "input"]), Some("b"));
        assert_eq!(first_str(&map, &["q", "x"]), None);
    }

    #[test]
    fn squashed_text_is_none_when_empty_or_not_a_string() {
        let v = json!({"a": "  two \n words ", "b": "   ", "c": 3});
        assert_eq!(squashed(v.get("a")), Some("two words".into()));
        assert_eq!(squashed(v.get("b")), None);
        assert_eq!(squashed(v.get("c")), None);
        assert_eq!(squashed(v.get("d")), None);
    }
}
