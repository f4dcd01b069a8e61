//! The Hub's answers read: who the token is, where a commit landed, a repository's files, a
//! list of datasets (read element by element, so a list cut at the page's size cap still
//! gives its first entries), and what went wrong, said so the user can act. Every answer is
//! someone else's text: names are checked, text is made plain and short.

use serde_json::Value;

use super::publish::ExistingFile;
use super::repo::{valid_path, RepoId};
use crate::hidden_text::plain;

/// The token's user name (`whoami-v2`'s `name`), checked as a repository owner.
pub fn user_name(answer: &str) -> Result<String, String> {
    let value: Value = serde_json::from_str(answer)
        .map_err(|_| "The Hub's answer about your token could not be read.".to_string())?;
    let name = value["name"].as_str().unwrap_or_default();
    RepoId::parse(&format!("{name}/x"))
        .map(|r| r.owner)
        .map_err(|_| "The Hub's answer about your token names no user.".to_string())
}

/// Whether the Hub says the repository is private (its info's `private`); `None` when the
/// answer does not say.
pub fn is_private(answer: &str) -> Option<bool> {
    serde_json::from_str::<Value>(answer).ok()?["private"].as_bool()
}

/// The commit's address, from the commit API's answer (`commitUrl`), if it is one of the
/// Hub's own (under `base`); else the repository's page is shown instead.
pub fn commit_url(answer: &str, base: &str) -> Option<String> {
    let value: Value = serde_json::from_str(answer).ok()?;
    let url = value["commitUrl"].as_str()?;
    (url.starts_with(&format!("{base}/")) && url.len() < 400 && !url.contains(char::is_whitespace))
        .then(|| url.to_string())
}

/// A repository's files, from its tree (`[{type, path, size}, …]`); folders and odd paths
/// are left out.
pub fn tree_files(answer: &str) -> Vec<ExistingFile> {
    let Ok(Value::Array(entries)) = serde_json::from_str::<Value>(answer) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter(|e| e["type"].as_str() == Some("file"))
        .filter_map(|e| {
            let path = e["path"].as_str()?;
            valid_path(path).then(|| ExistingFile {
                path: path.into(),
                size: e["size"].as_u64().unwrap_or(0),
            })
        })
        .collect()
}

/// The complete elements at the top of a JSON array, at most `max`, from a body that may have
/// been cut anywhere; the element cut short (if any) is dropped. `more` says whether elements
/// were left: past `max`, or cut.
pub fn array_elements(body: &str, max: usize) -> (Vec<&str>, bool) {
    let bytes = body.as_bytes();
    let Some(open) = bytes.iter().position(|b| !b.is_ascii_whitespace()) else {
        return (Vec::new(), false);
    };
    if bytes[open] != b'[' {
        return (Vec::new(), false);
    }
    let mut out = Vec::new();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut start = open + 1;
    for (i, &b) in bytes.iter().enumerate().skip(open + 1) {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth > 0 => depth -= 1,
            b',' | b']' if depth == 0 => {
                let element = body[start..i].trim();
                if !element.is_empty() {
                    if out.len() == max {
                        return (out, true);
                    }
                    out.push(element);
                }
                if b == b']' {
                    return (out, false);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    // The body ended inside the array: it was cut.
    (out, true)
}

/// One dataset of the Hub's list: public ones only, with a valid id.
pub fn public_dataset(element: &str) -> Option<RepoId> {
    let value: Value = serde_json::from_str(element).ok()?;
    // A private repository is never read by the community view, whatever else it says.
    if value["private"].as_bool() != Some(false) {
        return None;
    }
    RepoId::parse(value["id"].as_str()?).ok()
}

/// What the Hub said went wrong, from its JSON `error` (or `message`), short and plain.
fn hub_says(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    let said = value["error"].as_str().or(value["message"].as_str())?;
    let said = plain(said, 200);
    (!said.is_empty()).then_some(said)
}

/// A failed request's message: what was being done, the status, what the Hub said, and what
/// the user can do. `retry_after` is the `Retry-After` header, when given.
pub fn failure(doing: &str, status: u16, body: &str, retry_after: Option<&str>) -> String {
    let said = hub_says(body).map_or(String::new(), |s| format!(": “{s}”"));
    let advice = match status {
        401 => " Check the token in Settings: the Hub did not accept it.".to_string(),
        403 => " Your token may not do this: a fine-grained token needs write access to this repository, and a read token cannot publish.".to_string(),
        404 => " The repository or file is not there, or it is private.".to_string(),
        429 => match retry_after.and_then(|s| s.trim().parse::<u64>().ok()) {
            Some(secs) => format!(" The Hub asks to slow down: try again in {secs} s."),
            None => " The Hub asks to slow down: try again in a minute.".to_string(),
        },
        s if s >= 500 => " The Hub had a problem: try again later.".to_string(),
        _ => String::new(),
    };
    format!("{doing} failed (HTTP {status}){said}.{advice}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_cut_anywhere_gives_its_whole_first_elements() {
        let body = r#"[{"id":"a/x","private":false,"tags":["a,]"]}, {"id":"b/y","private":false} ,{"id":"c/z","#;
        let (elements, more) = array_elements(body, 10);
        assert_eq!(elements.len(), 2);
        assert!(more);
        assert_eq!(public_dataset(elements[0]).unwrap().to_string(), "a/x");
        let (elements, more) = array_elements(r#"[1,2,3]"#, 2);
        assert_eq!((elements, more), (vec!["1", "2"], true));
        let (elements, more) = array_elements(r#" [ ] "#, 2);
        assert_eq!((elements.len(), more), (0, false));
        assert_eq!(array_elements(r#"{"error":"x"}"#, 2).0.len(), 0);
        // A quote escaped inside a string does not end it.
        let (elements, _) = array_elements(r#"["a\"],[", "b"]"#, 5);
        assert_eq!(elements, vec![r#""a\"],[""#, r#""b""#]);
    }

    #[test]
    fn private_or_odd_datasets_are_not_read() {
        assert!(public_dataset(r#"{"id":"a/x","private":true}"#).is_none());
        assert!(public_dataset(r#"{"id":"a/x"}"#).is_none());
        assert!(public_dataset(r#"{"id":"a/../x","private":false}"#).is_none());
        assert!(public_dataset(r#"{"id":"<script>/x","private":false}"#).is_none());
    }

    #[test]
    fn failures_say_the_status_what_the_hub_said_and_what_to_do() {
        let m = failure(
            "Publishing",
            429,
            r#"{"error":"You have been rate-limited"}"#,
            Some("30"),
        );
        assert_eq!(m, "Publishing failed (HTTP 429): “You have been rate-limited”. The Hub asks to slow down: try again in 30 s.");
        let m = failure("Checking your token", 401, "<html>nope</html>", None);
        assert!(
            m.starts_with("Checking your token failed (HTTP 401)."),
            "{m}"
        );
        let m = failure("Publishing", 403, "{\"error\":\"a\\u202eb\\nc\"}", None);
        assert!(m.contains("“ab c”") && m.contains("write access"), "{m}");
    }

    #[test]
    fn the_commit_url_is_shown_only_under_the_hub() {
        let base = "http://127.0.0.1:5";
        assert_eq!(
            commit_url(
                r#"{"commitUrl":"http://127.0.0.1:5/datasets/a/b/commit/ab12"}"#,
                base
            )
            .as_deref(),
            Some("http://127.0.0.1:5/datasets/a/b/commit/ab12")
        );
        assert!(commit_url(r#"{"commitUrl":"javascript:alert(1)"}"#, base).is_none());
        assert!(commit_url(r#"{"commitUrl":"http://127.0.0.1:55/x"}"#, base).is_none());
    }

    #[test]
    fn the_user_name_must_be_an_owner_name() {
        assert_eq!(user_name(r#"{"name":"alice"}"#).unwrap(), "alice");
        assert!(user_name(r#"{"name":"../x"}"#).is_err());
        assert!(user_name(r#"{}"#).is_err());
    }
}
