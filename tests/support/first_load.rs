//! What the page fetches before it is interactive: the HTML and every file it links
//! (stylesheet, loader script, wasm-bindgen snippets, wasm), read from the built page's
//! `<link href>`s, each measured gzipped as a static host serves it. Workers, frames, the
//! engine and the Evaluate module load later. Shared by scripts/bench and the size budget test.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

pub fn gzip_size(path: &Path) -> u64 {
    let out = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .output()
        .expect("gzip");
    assert!(out.status.success(), "gzip {} failed", path.display());
    out.stdout.len() as u64
}

/// `{files: [{file, raw_bytes, gzip_bytes}], raw_bytes, gzip_bytes, wasm}` of the page in `dist`.
pub fn first_load(dist: &Path) -> Value {
    let html = std::fs::read_to_string(dist.join("index.html")).unwrap();
    let mut names = vec!["index.html".to_string()];
    for tag in html.split("<link").skip(1) {
        let tag = tag.split('>').next().unwrap_or("");
        if let Some(href) = tag
            .split("href=\"./")
            .nth(1)
            .and_then(|h| h.split('"').next())
        {
            names.push(href.to_string());
        }
    }
    let mut files = Vec::new();
    let (mut raw, mut gz) = (0, 0);
    let mut wasm = json!(null);
    for name in names {
        let path = dist.join(&name);
        let size = std::fs::metadata(&path)
            .unwrap_or_else(|e| panic!("{name}, linked by index.html: {e}"))
            .len();
        let gzipped = gzip_size(&path);
        raw += size;
        gz += gzipped;
        if name.ends_with(".wasm") {
            wasm = json!({ "raw_bytes": size, "gzip_bytes": gzipped });
        }
        files.push(json!({ "file": name, "raw_bytes": size, "gzip_bytes": gzipped }));
    }
    json!({ "files": files, "raw_bytes": raw, "gzip_bytes": gz, "wasm": wasm,
            "brotli": "not emitted by the build" })
}
