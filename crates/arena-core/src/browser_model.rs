//! The model that runs in the visitor's own browser: llama.cpp compiled to WebAssembly (the
//! npm package `@wllama/wllama`, self-hosted beside the page), with a GGUF file the user
//! downloads once and the browser keeps. What is offered, what a download must look like, and
//! what each failure tells the user live here; the runtime and the cache are in `arena-web`.

use serde::{Deserialize, Serialize};

use crate::origin::Origin;

/// Where the model runs: an OpenAI-compatible endpoint (the Hugging Face router or any other
/// base URL), or this browser (this module).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Backend {
    #[default]
    Endpoint,
    Browser,
}

impl Backend {
    pub fn id(self) -> &'static str {
        match self {
            Backend::Endpoint => "endpoint",
            Backend::Browser => "browser",
        }
    }
}

// By hand, as a string: the first screen reads the settings, and the derived code for an
// enum costs it a kilobyte. Anything unknown reads as the endpoint.
impl Serialize for Backend {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Backend {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = String::deserialize(deserializer)?;
        Ok(if id == "browser" {
            Backend::Browser
        } else {
            Backend::Endpoint
        })
    }
}

/// The runtime's version: `package.json` pins the same, and the build copies its files into
/// `dist/` under [`RUNTIME_DIR`] (scripts/lib/browser_runtime.py checks the two agree).
pub const RUNTIME_VERSION: &str = "3.13.0";
/// Where the runtime's files are, relative to the page: versioned, so a cached copy is never
/// paired with another version's glue.
pub const RUNTIME_DIR: &str = "wllama-3.13.0";

/// Context window of the local model, in tokens, unless the user sets another.
pub const DEFAULT_CONTEXT: u32 = 4096;
/// Most tokens the page offers to hold: past this the key-value cache alone outgrows what a
/// browser gives one page.
pub const MAX_CONTEXT: u32 = 131_072;

/// A model the settings offer, from its publisher's Hugging Face repository. Sizes are the
/// files' sizes as the repositories list them, rounded; the download's own length is shown
/// once it starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Offered {
    pub name: &'static str,
    pub url: &'static str,
    pub bytes: u64,
    pub note: &'static str,
}

const MB: u64 = 1_000_000;

/// The model chosen until the user chooses another: the first offered. A constant of its own
/// so the settings' defaults (read by the first screen) do not carry the whole list.
pub const DEFAULT_MODEL_URL: &str =
    "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf";

pub const OFFERED: &[Offered] = &[
    Offered {
        name: "Qwen2.5-0.5B-Instruct Q4_K_M",
        url: DEFAULT_MODEL_URL,
        bytes: 491 * MB,
        note: "follows the text format well for its size; the default",
    },
    Offered {
        name: "Qwen3-0.6B Q8_0",
        url: "https://huggingface.co/Qwen/Qwen3-0.6B-GGUF/resolve/main/Qwen3-0.6B-Q8_0.gguf",
        bytes: 639 * MB,
        note: "thinks before it answers (slower)",
    },
    Offered {
        name: "Qwen2.5-1.5B-Instruct Q4_K_M",
        url: "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf",
        bytes: 1_117 * MB,
        note: "the best at tools here; needs a fast machine",
    },
    Offered {
        name: "SmolLM2-360M-Instruct Q8_0",
        url: "https://huggingface.co/HuggingFaceTB/SmolLM2-360M-Instruct-GGUF/resolve/main/smollm2-360m-instruct-q8_0.gguf",
        bytes: 386 * MB,
        note: "small and quick; often misses the tool format",
    },
    Offered {
        name: "SmolLM2-1.7B-Instruct Q4_K_M",
        url: "https://huggingface.co/HuggingFaceTB/SmolLM2-1.7B-Instruct-GGUF/resolve/main/smollm2-1.7b-instruct-q4_k_m.gguf",
        bytes: 1_056 * MB,
        note: "needs a fast machine",
    },
];

/// The offered model at `url`, if it is one.
pub fn offered(url: &str) -> Option<&'static Offered> {
    OFFERED.iter().find(|o| o.url == url.trim())
}

/// What a run calls the model at `url`: its file's name (the list's names stay out of the
/// first screen, which names the model of a run about to start).
pub fn model_name(url: &str) -> &str {
    let path = url.trim().split(['?', '#']).next().unwrap_or_default();
    let name = path.rsplit('/').next().unwrap_or_default();
    if name.is_empty() {
        "a model in this browser"
    } else {
        name
    }
}

/// What is wrong with `url` as a model file's address; `None` when the page may fetch it.
pub fn url_problem(url: &str) -> Option<String> {
    let url = url.trim();
    if url.is_empty() {
        return Some("Choose a model, or paste the URL of a GGUF file.".into());
    }
    let Some(origin) = Origin::of(url) else {
        return Some(format!(
            "\"{}\" is not an http(s) URL of a GGUF file.",
            url.chars().take(80).collect::<String>()
        ));
    };
    if !origin.is_https() && !origin.is_local() {
        return Some(
            "Use https for the model file: plain http is allowed only to this machine.".into(),
        );
    }
    None
}

/// Every GGUF file starts with these four bytes (ggml's `docs/gguf.md`).
pub const GGUF_MAGIC: &[u8; 4] = b"GGUF";

/// Why a file that starts with `head` is not a model the runtime can read; `None` when it
/// starts as a GGUF file does.
pub fn not_gguf(head: &[u8]) -> Option<String> {
    if head.starts_with(GGUF_MAGIC) {
        return None;
    }
    let text: String = String::from_utf8_lossy(&head[..head.len().min(64)])
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let text = text.trim();
    let looks = if text.to_ascii_lowercase().starts_with("<!doctype")
        || text.to_ascii_lowercase().starts_with("<html")
    {
        " (it is a web page: the URL may point at the model's page, not its file)".to_string()
    } else if text.starts_with('{') {
        " (it is JSON, likely an error message)".to_string()
    } else if text.is_empty() {
        String::new()
    } else {
        format!(
            " (it starts with \"{}\")",
            text.chars().take(24).collect::<String>()
        )
    };
    Some(format!(
        "This is not a GGUF model file{looks}. Nothing was kept. Give the URL of a .gguf file, e.g. a Hugging Face \"resolve\" link."
    ))
}

/// A size as people read it: "98.4 MB", "1.12 GB".
pub fn format_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.0} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

/// A download's progress: "12.3 MB of 98.4 MB (12%)", or what has come when the length is
/// unknown.
pub fn progress_text(loaded: u64, total: Option<u64>) -> String {
    match total.filter(|&t| t > 0) {
        Some(total) => format!(
            "{} of {} ({}%)",
            format_bytes(loaded),
            format_bytes(total),
            (loaded.min(total) * 100 / total)
        ),
        None => format!("{} so far", format_bytes(loaded)),
    }
}

/// What went wrong with the local model, as the browser layer reports it (`kind` names it;
/// `detail` is the runtime's own words, shown after ours).
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The browser lacks WebAssembly features the runtime needs (named in `detail`).
    Unsupported,
    /// The runtime could not get the memory the model needs.
    Memory,
    /// The file does not start as a GGUF file does (`detail`: its first bytes, as text).
    NotGguf,
    /// Fewer bytes came than the server announced.
    Truncated { got: u64, expected: u64 },
    /// The runtime could not read the model from the file.
    Corrupt,
    /// The browser refused to keep the file (no Cache Storage here, or it was denied).
    CacheRefused,
    /// The browser's storage for this site is full.
    CacheFull,
    /// The server answered the download with this status.
    Http(u16),
    /// The download could not be made or broke off.
    Network,
    /// The user cancelled the download.
    Cancelled,
    /// The model is not in this browser yet.
    NotKept,
    /// The runtime's own files could not be loaded.
    RuntimeMissing,
    /// Anything else the runtime reported.
    Other,
}

impl Failure {
    pub fn of_kind(kind: &str) -> Self {
        match kind {
            "unsupported" => Self::Unsupported,
            "memory" => Self::Memory,
            "not-gguf" => Self::NotGguf,
            "corrupt" => Self::Corrupt,
            "cache-refused" => Self::CacheRefused,
            "cache-full" => Self::CacheFull,
            "network" => Self::Network,
            "cancelled" => Self::Cancelled,
            "not-kept" => Self::NotKept,
            "runtime-missing" => Self::RuntimeMissing,
            _ => Self::Other,
        }
    }

    /// What the user reads: what happened, that nothing half-done was kept, what to do.
    pub fn message(&self, detail: &str) -> String {
        let detail = detail.trim();
        let said = |text: &str| {
            if detail.is_empty() {
                text.to_string()
            } else {
                format!("{text} ({})", detail.chars().take(300).collect::<String>())
            }
        };
        match self {
            Self::Unsupported => said("This browser cannot run the model: it lacks WebAssembly features the runtime needs. A recent Chrome or Edge (137 or later) has them; or choose another backend in Settings."),
            Self::Memory => said("The browser could not give the model enough memory. Choose a smaller model or a smaller context window in Settings, close other tabs, or choose another backend."),
            Self::NotGguf => not_gguf(detail.as_bytes()).unwrap_or_else(|| said("This is not a GGUF model file. Nothing was kept.")),
            Self::Truncated { got, expected } => format!(
                "The download stopped after {} of {}: the file is incomplete, so nothing was kept. Press Download to try again.",
                format_bytes(*got),
                format_bytes(*expected)
            ),
            Self::Corrupt => said("The model file is damaged or not one llama.cpp can read, so it was removed from this browser. Download it again, or choose another model."),
            Self::CacheRefused => said("This browser refused to keep the model (Cache Storage is off or denied here, as in some private windows), and the page runs only a model it keeps. Open the page in a normal window, or choose another backend."),
            Self::CacheFull => said("This browser's storage for the page is full, so the model could not be kept and nothing was. Delete a kept model in Settings or free space, then download again."),
            Self::Http(status) => format!("The model's server answered {status}, so nothing was downloaded. Check the URL in Settings."),
            Self::Network => said("The download could not be made or broke off, so nothing was kept. Check the connection and the URL (its server must allow this page by CORS), then press Download again."),
            Self::Cancelled => "Download cancelled. Nothing was kept.".into(),
            Self::NotKept => "The model is not in this browser yet: press Download in Settings (nothing downloads without your click).".into(),
            Self::RuntimeMissing => said("The in-browser runtime could not be loaded. Check the connection and reload the page, or choose another backend."),
            Self::Other => said("The in-browser model failed."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gguf_header_passes_and_anything_else_says_what_it_is() {
        assert_eq!(not_gguf(b"GGUF\x03\x00\x00\x00rest"), None);
        let page = not_gguf(b"<!DOCTYPE html><html><head>").unwrap();
        assert!(page.contains("web page"), "{page}");
        assert!(page.contains("Nothing was kept"), "{page}");
        let json = not_gguf(br#"{"error":"Repository not found"}"#).unwrap();
        assert!(json.contains("JSON"), "{json}");
        let other = not_gguf(b"PK\x03\x04zipfile").unwrap();
        assert!(other.contains("starts with \"PK"), "{other}");
        assert!(not_gguf(b"")
            .unwrap()
            .starts_with("This is not a GGUF model file."));
        // Only four bytes decide: "GGU" is not enough.
        assert!(not_gguf(b"GGU").is_some());
    }

    #[test]
    fn names_come_from_the_list_or_the_file() {
        assert_eq!(
            model_name(OFFERED[0].url),
            "qwen2.5-0.5b-instruct-q4_k_m.gguf"
        );
        assert_eq!(OFFERED[0].url, DEFAULT_MODEL_URL);
        assert_eq!(
            model_name("http://127.0.0.1:9/m/SmolLM2-135M-Instruct.Q4_1.gguf?download=true"),
            "SmolLM2-135M-Instruct.Q4_1.gguf"
        );
        assert_eq!(model_name("http://127.0.0.1:9/"), "a model in this browser");
    }

    #[test]
    fn only_https_or_this_machine_may_serve_the_file() {
        assert!(url_problem(OFFERED[0].url).is_none());
        assert!(url_problem("http://127.0.0.1:8080/m.gguf").is_none());
        assert!(url_problem("http://example.com/m.gguf")
            .unwrap()
            .contains("https"));
        assert!(url_problem("javascript:alert(1)")
            .unwrap()
            .contains("not an http(s) URL"));
        assert!(url_problem("  ").is_some());
    }

    #[test]
    fn sizes_and_progress_read_as_people_say_them() {
        assert_eq!(format_bytes(98_362_432), "98.4 MB");
        assert_eq!(format_bytes(1_117_000_000), "1.12 GB");
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(
            progress_text(12_300_000, Some(98_400_000)),
            "12.3 MB of 98.4 MB (12%)"
        );
        assert_eq!(progress_text(5_000_000, None), "5.0 MB so far");
        // A server that sends more than it announced never shows more than 100%.
        assert!(progress_text(200, Some(100)).ends_with("(100%)"));
    }

    #[test]
    fn every_failure_says_what_to_do_and_what_was_kept() {
        let truncated = Failure::Truncated {
            got: 49_000_000,
            expected: 98_400_000,
        }
        .message("");
        assert_eq!(truncated, "The download stopped after 49.0 MB of 98.4 MB: the file is incomplete, so nothing was kept. Press Download to try again.");
        let corrupt = Failure::of_kind("corrupt").message("failed to load model");
        assert!(corrupt.contains("removed from this browser"), "{corrupt}");
        assert!(corrupt.ends_with("(failed to load model)"), "{corrupt}");
        assert!(Failure::of_kind("memory")
            .message("")
            .contains("smaller model"));
        assert!(Failure::of_kind("unsupported")
            .message("JSPI, Memory64")
            .ends_with("(JSPI, Memory64)"));
        assert!(Failure::of_kind("cache-full")
            .message("")
            .contains("nothing was"));
        assert!(Failure::of_kind("not-gguf")
            .message("<html>")
            .contains("web page"));
        assert_eq!(Failure::of_kind("no such kind"), Failure::Other);
        // The runtime's words are cut: a runtime can say a lot.
        assert!(Failure::Other.message(&"x".repeat(5000)).len() < 400);
    }

    #[test]
    fn the_list_offers_only_https_gguf_files_with_sizes() {
        for o in OFFERED {
            assert!(url_problem(o.url).is_none(), "{}", o.url);
            assert!(o.url.ends_with(".gguf"), "{}", o.url);
            assert!(o.bytes > 100 * MB, "{}", o.name);
        }
        assert!(RUNTIME_DIR.ends_with(RUNTIME_VERSION));
    }

    #[test]
    fn the_backend_is_kept_as_its_name_and_anything_else_is_the_endpoint() {
        for backend in [Backend::Endpoint, Backend::Browser] {
            let json = serde_json::to_string(&backend).unwrap();
            assert_eq!(json, format!("\"{}\"", backend.id()));
            assert_eq!(serde_json::from_str::<Backend>(&json).unwrap(), backend);
        }
        assert_eq!(
            serde_json::from_str::<Backend>("\"<script>\"").unwrap(),
            Backend::Endpoint
        );
    }
}
