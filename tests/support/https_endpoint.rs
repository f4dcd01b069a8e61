//! A real https endpoint on 127.0.0.1 (`https_endpoint.py`, Python's own TLS server with a
//! self-signed certificate made by `openssl`; the test browser ignores certificate errors).
//! It stands for "a new https host" the user points the app at.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde::Deserialize;

pub struct HttpsEndpoint {
    pub base_url: String,
    log: PathBuf,
    child: Child,
}

#[derive(Debug, Deserialize)]
pub struct HttpsRequest {
    pub method: String,
    pub path: String,
    pub authorization: String,
    pub body: String,
}

impl HttpsEndpoint {
    pub fn start() -> Self {
        let dir = std::env::temp_dir().join(format!(
            "react-arena-https-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let (cert, key, log) = (dir.join("cert.pem"), dir.join("key.pem"), dir.join("log"));
        let made = Command::new("openssl")
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            ])
            .args(["-subj", "/CN=127.0.0.1", "-keyout"])
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("openssl makes the test certificate");
        assert!(made.success(), "openssl failed");
        std::fs::write(&log, "").unwrap();
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/https_endpoint.py");
        let mut child = Command::new("python3")
            .arg(script)
            .args([&cert, &key, &log])
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the https endpoint");
        let mut port = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut port)
            .unwrap();
        let port: u16 = port.trim().parse().expect("the endpoint prints its port");
        HttpsEndpoint {
            base_url: format!("https://127.0.0.1:{port}/v1"),
            log,
            child,
        }
    }

    pub fn requests(&self) -> Vec<HttpsRequest> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for HttpsEndpoint {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(dir) = self.log.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
