//! Reads a file that ships with the page (a recording), by a path relative to the page, with a
//! cap on its size: the app may be served from a sub-path, and the file is still outside input.

use gloo_net::http::Request;

use crate::read_body::read_capped;

/// The file's text, or why it could not be read, in words for the user.
pub async fn fetch_page_file(path: &str, max_bytes: usize) -> Result<String, String> {
    let response = Request::get(path)
        .send()
        .await
        .map_err(|_| "the network request failed".to_string())?;
    if !response.ok() {
        return Err(format!("the server answered HTTP {}", response.status()));
    }
    let body = read_capped(response.body(), max_bytes).await?;
    if body.cut {
        return Err(format!("it is larger than {} KB", max_bytes / 1024));
    }
    Ok(body.text)
}
