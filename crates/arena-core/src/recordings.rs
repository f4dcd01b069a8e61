//! The example runs shipped with the app (`public/recordings/`): what a visitor without a token
//! can watch. `index.json` lists them; each is a run file made with the app's own export.
//! The index is read like any outside input: file names must be plain names of that folder.

use serde::{Deserialize, Serialize};

/// The folder, relative to the page (the app may be served from a sub-path).
pub const RECORDINGS_DIR: &str = "recordings/";
pub const INDEX_FILE: &str = "index.json";
pub const MAX_INDEX_BYTES: usize = 64 * 1024;
pub const MAX_RECORDING_BYTES: usize = 2 * 1024 * 1024;
const MAX_ENTRIES: usize = 24;
const MAX_FILE_NAME: usize = 80;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordingEntry {
    pub file: String,
    pub title: String,
    /// One line on what the recording shows.
    #[serde(default)]
    pub about: String,
    #[serde(default)]
    pub question: String,
    pub model: String,
    /// The day it was recorded, YYYY-MM-DD.
    pub recorded: String,
}

impl RecordingEntry {
    /// How the panels label the recording while it plays.
    pub fn label(&self) -> String {
        format!(
            "{} · {} · recorded {}",
            self.title, self.model, self.recorded
        )
    }

    /// The recording's path relative to the page.
    pub fn path(&self) -> String {
        format!("{RECORDINGS_DIR}{}", self.file)
    }
}

/// A file name of the recordings folder: letters, digits, `-`, `_` and `.`, ending in `.json`,
/// not starting with a dot. Nothing that could point elsewhere (`/`, `\`, `..`, a scheme).
pub fn is_plain_file_name(name: &str) -> bool {
    name.len() <= MAX_FILE_NAME
        && name.ends_with(".json")
        && name.len() > ".json".len()
        && !name.starts_with('.')
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Reads `index.json`; an entry with a file name that is not plain makes the whole index
/// refused (it was not written by us).
pub fn parse_index(json: &str) -> Result<Vec<RecordingEntry>, String> {
    let entries: Vec<RecordingEntry> = serde_json::from_str(json)
        .map_err(|e| format!("the list of recordings is not valid ({e})"))?;
    if entries.len() > MAX_ENTRIES {
        return Err(format!(
            "the list of recordings has {} entries; at most {MAX_ENTRIES} are shown",
            entries.len()
        ));
    }
    if let Some(bad) = entries.iter().find(|e| !is_plain_file_name(&e.file)) {
        return Err(format!(
            "the list of recordings names a file outside its folder: {:?}",
            bad.file.chars().take(MAX_FILE_NAME).collect::<String>()
        ));
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_only() {
        for good in ["multiply.json", "a-b_c.1.json", "X.json"] {
            assert!(is_plain_file_name(good), "{good}");
        }
        for bad in [
            "",
            ".json",
            ".hidden.json",
            "../secret.json",
            "a/../../b.json",
            "sub/a.json",
            "a\\b.json",
            "https://evil.example/x.json",
            "//evil.example/x.json",
            "javascript:alert(1)//.json",
            "a.json?x=1",
            "a.json#x",
            "a b.json",
            "é.json",
            "run.txt",
            &format!("{}.json", "a".repeat(100)),
        ] {
            assert!(!is_plain_file_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn an_index_naming_a_file_elsewhere_is_refused_whole() {
        let good = r#"[{"file":"a.json","title":"A","model":"m","recorded":"2026-11-24"}]"#;
        let entries = parse_index(good).unwrap();
        assert_eq!(entries[0].path(), "recordings/a.json");
        assert_eq!(entries[0].label(), "A · m · recorded 2026-11-24");
        let bad = r#"[{"file":"a.json","title":"A","model":"m","recorded":"x"},
                      {"file":"../../x.json","title":"B","model":"m","recorded":"x"}]"#;
        assert!(parse_index(bad).unwrap_err().contains("outside its folder"));
        assert!(parse_index("{").unwrap_err().contains("not valid"));
        assert!(parse_index(r#"{"file":"a.json"}"#).is_err());
        let many = format!(
            "[{}]",
            [r#"{"file":"a.json","title":"A","model":"m","recorded":"x"}"#; 25].join(",")
        );
        assert!(parse_index(&many).unwrap_err().contains("at most"));
    }

    /// The shipped recordings: listed, plain, run files of the three modes, and no token.
    #[test]
    fn the_shipped_recordings_are_what_the_index_says() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../public/recordings");
        let index = std::fs::read_to_string(dir.join(INDEX_FILE)).expect("index.json");
        let entries = parse_index(&index).unwrap();
        assert!(entries.len() >= 2, "{entries:?}");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != INDEX_FILE)
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = entries.iter().map(|e| e.file.clone()).collect();
        listed.sort();
        assert_eq!(
            on_disk, listed,
            "every file listed, every listed file there"
        );
        for entry in &entries {
            let text = std::fs::read_to_string(dir.join(&entry.file)).unwrap();
            assert!(text.len() <= MAX_RECORDING_BYTES, "{}", entry.file);
            assert!(
                !text.contains("hf_"),
                "{} holds something like a token",
                entry.file
            );
            let run = crate::run_file::RunFile::from_json(&text).expect(&entry.file);
            let modes: Vec<_> = run.records.iter().map(|r| r.config.mode).collect();
            assert_eq!(modes, crate::agent::Mode::ALL.to_vec(), "{}", entry.file);
            for record in &run.records {
                let turn = record.turns.first().expect("a question");
                assert_eq!(turn.question, entry.question, "{}", entry.file);
                assert!(
                    turn.answer.is_some() || turn.error.is_some(),
                    "{}: every mode ended",
                    entry.file
                );
                assert_eq!(record.config.model, entry.model, "{}", entry.file);
            }
        }
    }
}
