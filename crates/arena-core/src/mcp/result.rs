//! A `tools/call` result as the observation the model and the panel get: text as text,
//! structured content as JSON, anything else (images, audio, resources) as a short description
//! or a link, never as live markup. The panel shows observations as text, so markup a server
//! sends is shown, not run.

use serde_json::Value;

/// The observation for `result`; `Err` when the server marked it an error (`isError`).
pub fn observation(result: &Value) -> Result<String, String> {
    let mut parts: Vec<String> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(describe).collect())
        .unwrap_or_default();
    if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        let json = structured.to_string();
        // Servers also send structured content as text, for older clients: once is enough.
        let already = parts
            .iter()
            .any(|p| serde_json::from_str::<Value>(p).is_ok_and(|v| v == *structured));
        if !already {
            parts.push(json);
        }
    }
    let text = if parts.is_empty() {
        "(the tool returned nothing)".to_string()
    } else {
        parts.join("\n")
    };
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        Err(text)
    } else {
        Ok(text)
    }
}

/// What a CodeAct program gets from `result`: its structured content as it came (a dict or a
/// list in Python), or else the observation's text; `Err` as [`observation`]'s.
pub fn program_value(result: &Value) -> Result<Value, String> {
    let text = observation(result)?;
    match result.get("structuredContent") {
        Some(structured) if structured.is_object() || structured.is_array() => {
            Ok(structured.clone())
        }
        _ => Ok(Value::String(text)),
    }
}

fn field<'a>(item: &'a Value, name: &str) -> &'a str {
    item.get(name).and_then(Value::as_str).unwrap_or("")
}

/// One content item: its text, or a few words on what it was.
fn describe(item: &Value) -> Option<String> {
    let kind = field(item, "type");
    let described = match kind {
        "text" => return Some(field(item, "text").to_string()),
        "image" | "audio" => {
            let data = field(item, "data");
            // Base64 holds three bytes in four characters.
            let bytes = data.len() / 4 * 3;
            format!("[{kind}: {}, about {bytes} bytes, not shown]", mime(item))
        }
        "resource_link" => {
            let name = field(item, "name");
            format!("[resource: {name} {}]", field(item, "uri"))
        }
        "resource" => {
            let resource = item.get("resource")?;
            let uri = field(resource, "uri");
            match resource.get("text").and_then(Value::as_str) {
                Some(text) => format!("[resource {uri}]\n{text}"),
                None => format!("[resource {uri}: {}, not shown]", mime(resource)),
            }
        }
        "" => return None,
        other => format!("[{} content, not shown]", short(other)),
    };
    Some(described)
}

fn mime(item: &Value) -> String {
    match field(item, "mimeType") {
        "" => "unknown type".into(),
        m => short(m),
    }
}

/// A server-chosen word, kept short.
fn short(text: &str) -> String {
    text.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_joined_and_other_content_is_described() {
        let result = json!({"content": [
            {"type": "text", "text": "first"},
            {"type": "image", "data": "QUJDRA==", "mimeType": "image/png"},
            {"type": "audio", "data": "", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "https://x.test/a.txt", "name": "a.txt"},
            {"type": "resource", "resource": {"uri": "file:///r", "text": "inside"}},
            {"type": "resource", "resource": {"uri": "file:///b", "blob": "AA==", "mimeType": "application/pdf"}},
            {"type": "text", "text": "last"},
        ]});
        assert_eq!(
            observation(&result).unwrap(),
            "first\n[image: image/png, about 6 bytes, not shown]\n[audio: audio/wav, about 0 bytes, not shown]\n\
             [resource: a.txt https://x.test/a.txt]\n[resource file:///r]\ninside\n\
             [resource file:///b: application/pdf, not shown]\nlast"
        );
    }

    #[test]
    fn structured_content_is_json_once() {
        let both = json!({
            "content": [{"type": "text", "text": "{\"sum\": 5}"}],
            "structuredContent": {"sum": 5}
        });
        assert_eq!(observation(&both).unwrap(), "{\"sum\": 5}");
        let only = json!({"content": [], "structuredContent": {"sum": 5}});
        assert_eq!(observation(&only).unwrap(), "{\"sum\":5}");
        let text_and_other = json!({
            "content": [{"type": "text", "text": "Sum: 5"}],
            "structuredContent": {"sum": 5}
        });
        assert_eq!(observation(&text_and_other).unwrap(), "Sum: 5\n{\"sum\":5}");
    }

    /// Issue 59, row 4: a program indexes what the server structured; text stays text, and
    /// an error is an error however it is structured.
    #[test]
    fn a_program_gets_structured_content_as_it_came_and_text_otherwise() {
        let both = json!({
            "content": [{"type": "text", "text": "The station code of Paris is PS-2643."}],
            "structuredContent": {"city": "Paris", "code": "PS-2643"}
        });
        assert_eq!(
            program_value(&both),
            Ok(json!({"city": "Paris", "code": "PS-2643"}))
        );
        let list = json!({"content": [], "structuredContent": [1, 2]});
        assert_eq!(program_value(&list), Ok(json!([1, 2])));
        let text = json!({"content": [{"type": "text", "text": "Sum: 5"}]});
        assert_eq!(program_value(&text), Ok(json!("Sum: 5")));
        // Structured content that is neither an object nor an array is not what a dict or a
        // list is: the program gets the text.
        let odd = json!({"content": [{"type": "text", "text": "5"}], "structuredContent": 5});
        assert_eq!(program_value(&odd), Ok(json!("5")));
        let failed = json!({
            "content": [{"type": "text", "text": "no such city"}],
            "structuredContent": {"error": "no such city"},
            "isError": true
        });
        assert_eq!(
            program_value(&failed),
            Err("no such city\n{\"error\":\"no such city\"}".into())
        );
    }

    #[test]
    fn an_error_result_is_an_error_and_nothing_is_said_so() {
        let err = json!({"content": [{"type": "text", "text": "no such city"}], "isError": true});
        assert_eq!(observation(&err), Err("no such city".into()));
        assert_eq!(
            observation(&json!({})),
            Ok("(the tool returned nothing)".into())
        );
        let odd = json!({"content": [{"type": "<script>alert(1)</script>".repeat(10)}]});
        let text = observation(&odd).unwrap();
        assert!(text.len() < 90, "{text}");
    }
}
