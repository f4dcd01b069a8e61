//! Chrome DevTools Protocol commands through ChromeDriver (`goog/cdp/execute`): what WebDriver
//! itself cannot do, such as emulating `prefers-color-scheme` or granting clipboard access.

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::Client;
use serde_json::{json, Value};

#[derive(Debug)]
struct CdpCommand {
    method: String,
    params: Value,
}

impl WebDriverCompatibleCommand for CdpCommand {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        let session = session_id.unwrap_or_default();
        base_url.join(&format!("session/{session}/goog/cdp/execute"))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        let body = json!({ "cmd": self.method, "params": self.params }).to_string();
        (http::Method::POST, Some(body))
    }
}

/// Runs one CDP command in the page's target and returns its result.
pub async fn cdp(client: &Client, method: &str, params: Value) -> Value {
    client
        .issue_cmd(CdpCommand {
            method: method.to_string(),
            params,
        })
        .await
        .unwrap_or_else(|e| panic!("CDP {method} failed: {e}"))
}

/// Makes the page see `prefers-color-scheme: <scheme>` ("light" or "dark").
pub async fn emulate_color_scheme(client: &Client, scheme: &str) {
    cdp(
        client,
        "Emulation.setEmulatedMedia",
        json!({ "features": [{ "name": "prefers-color-scheme", "value": scheme }] }),
    )
    .await;
}

/// Lets pages of `origin` read and write the clipboard without asking.
pub async fn grant_clipboard(client: &Client, origin: &str) {
    cdp(
        client,
        "Browser.grantPermissions",
        json!({
            "origin": origin,
            "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"],
        }),
    )
    .await;
}
