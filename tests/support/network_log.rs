//! The page's requests as the browser made them: ChromeDriver's performance log (the
//! DevTools `Network.requestWillBeSent` events), kept when the browser was started by
//! `browser_test_logging_network`. A request is listed when it leaves, finished or not, so
//! what is still arriving (or is cut short) counts too.

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::Client;
use serde_json::{json, Value};

/// ChromeDriver's log endpoint (a Selenium extension it keeps in W3C mode): the entries
/// since the last read.
#[derive(Debug)]
struct ReadLog;

impl WebDriverCompatibleCommand for ReadLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        let session = session_id.unwrap_or_default();
        base_url.join(&format!("session/{session}/se/log"))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({ "type": "performance" }).to_string()),
        )
    }
}

/// One request the page sent: its URL (its fragment and query left as they were).
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    pub url: String,
}

/// The requests sent since the last call, in the order they left. Reading empties the log.
pub async fn requests_sent(client: &Client) -> Vec<Sent> {
    let entries = client
        .issue_cmd(ReadLog)
        .await
        .unwrap_or_else(|e| panic!("reading the browser's performance log failed: {e}"));
    entries
        .as_array()
        .expect("the performance log is a list")
        .iter()
        .filter_map(|entry| {
            let event: Value = serde_json::from_str(entry["message"].as_str()?).ok()?;
            let event = &event["message"];
            (event["method"] == "Network.requestWillBeSent").then(|| Sent {
                url: event["params"]["request"]["url"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            })
        })
        .collect()
}
