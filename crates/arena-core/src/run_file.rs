//! A run as it is kept (IndexedDB), exported and imported: the records of its modes and the
//! settings it ran with, never the token. One format for all three, versioned.

use serde::{Deserialize, Serialize};

use crate::agent::record::RunRecord;
use crate::run_limits;
use crate::settings::Settings;

/// What an exported file says it is.
pub const FORMAT: &str = "react-arena/run";
pub const VERSION: u32 = 1;

/// Imported files larger than this are refused before parsing.
pub const MAX_IMPORT_BYTES: usize = 20_000_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunFile {
    pub format: String,
    pub version: u32,
    /// Stable key in storage.
    pub id: String,
    /// What the history list shows; the first question unless the user renamed it.
    pub title: String,
    /// Milliseconds since the Unix epoch.
    pub created: f64,
    /// The settings of the run (the `Settings` type holds no token).
    pub settings: Settings,
    /// One record per mode, in panel order.
    pub records: Vec<RunRecord>,
}

/// A run's settings as a file carries them: without MCP servers. A file is anyone's to write,
/// and a run goes on (Continue, a follow-up) only with the servers the user added; the
/// record names the servers each call went to.
fn without_mcp_servers(settings: Settings) -> Settings {
    Settings {
        mcp_servers: Default::default(),
        ..settings
    }
}

impl RunFile {
    pub fn new(id: String, created: f64, settings: Settings, records: Vec<RunRecord>) -> Self {
        let settings = without_mcp_servers(settings);
        let title = records
            .first()
            .and_then(|r| r.turns.first())
            .map(|t| t.question.chars().take(120).collect())
            .unwrap_or_default();
        RunFile {
            format: FORMAT.into(),
            version: VERSION,
            id,
            title,
            created,
            settings,
            records,
        }
    }

    /// Whether the file may leave the page (an export, an embed's address): not while a blind
    /// run waits for its vote, as every record names its mode and model.
    pub fn can_share(&self) -> bool {
        !self.records.iter().any(RunRecord::awaits_vote)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads an exported or stored run, saying what is wrong with one that is not.
    pub fn from_json(json: &str) -> Result<RunFile, String> {
        if json.len() > MAX_IMPORT_BYTES {
            return Err(format!(
                "The file is {} MB; runs larger than {} MB are not imported.",
                json.len() / 1_000_000,
                MAX_IMPORT_BYTES / 1_000_000
            ));
        }
        // Counted on the text first: a few KB can name a million empty steps.
        run_limits::check_text(json)?;
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| format!("The file is not JSON ({e})."))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(
                "The file is not a ReAct Arena run (its \"format\" is not \"react-arena/run\")."
                    .into(),
            );
        }
        let version = value.get("version").and_then(|v| v.as_u64()).unwrap_or(0);
        if version != u64::from(VERSION) {
            return Err(format!(
                "The file is a run of format version {version}; this app reads version {VERSION}."
            ));
        }
        let file: RunFile = serde_json::from_value(value)
            .map_err(|e| format!("The run in the file is damaged ({e})."))?;
        if file.records.is_empty() {
            return Err("The file holds no run.".into());
        }
        run_limits::check(&file.title, &file.records)?;
        Ok(RunFile {
            settings: without_mcp_servers(file.settings.clamped()),
            ..file
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::events::AgentEvent;
    use crate::agent::record::RunConfig;

    fn file() -> RunFile {
        let mut r = RunRecord::new("r1", 1.0, RunConfig::default());
        r.apply(
            1.0,
            &AgentEvent::TurnStarted {
                question: "What is 6 × 7?".into(),
            },
        );
        RunFile::new("run-1".into(), 1.0, Settings::default(), vec![r])
    }

    #[test]
    fn a_run_file_round_trips_and_is_titled_by_its_question() {
        let f = file();
        assert_eq!(f.title, "What is 6 × 7?");
        assert_eq!(RunFile::from_json(&f.to_json()).unwrap(), f);
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let err = |json: &str| RunFile::from_json(json).unwrap_err();
        assert!(err("not json").contains("not JSON"));
        assert!(err(r#"{"format":"other"}"#).contains("not a ReAct Arena run"));
        assert!(err(r#"{"format":"react-arena/run","version":9}"#).contains("version 9"));
        let mut empty = file();
        empty.records.clear();
        assert!(err(&empty.to_json()).contains("no run"));
        let damaged = file()
            .to_json()
            .replace("\"turns\":[", "\"turns\":7,\"x\":[");
        assert!(err(&damaged).contains("damaged"), "{}", err(&damaged));
        assert!(err(&" ".repeat(MAX_IMPORT_BYTES + 1)).contains("MB"));
    }

    #[test]
    fn a_blind_run_is_shared_only_once_voted() {
        use crate::agent::record::{Blind, BlindVote};
        let mut f = file();
        assert!(f.can_share());
        f.records[0].blind = Some(Blind {
            label: "A".into(),
            vote: None,
        });
        assert!(!f.can_share());
        f.records[0].blind.as_mut().unwrap().vote = Some(BlindVote::Best);
        assert!(f.can_share());
    }

    #[test]
    fn a_file_never_carries_mcp_servers() {
        use crate::mcp::client::Connected;
        let mut settings = Settings::default();
        let connected = Connected {
            version: "2025-11-25".into(),
            server_name: "Evil".into(),
            tools: vec![serde_json::json!({"name": "x"})],
        };
        settings.put_mcp_server("", "https://mcp.test/mcp", &connected);
        let made = RunFile::new("id".into(), 1.0, settings.clone(), file().records);
        assert!(made.settings.mcp_servers.servers().is_empty());
        let mut written = serde_json::to_value(&made).unwrap();
        written["settings"]["mcp_servers"] = serde_json::json!(settings.mcp_servers);
        let read = RunFile::from_json(&written.to_string()).unwrap();
        assert!(read.settings.mcp_servers.servers().is_empty());
    }
}
