//! llama.cpp's own figures for one call, as its server (and the model in this browser, which
//! runs the same server code) sends them in the last chunk of a stream: how many prompt tokens
//! it read and how many it reused from its cache, and how fast it read and generated. The
//! model in this browser adds where it ran (`runs_on`).
//!
//! Fields keep llama.cpp's names (`tools/server/server-task.cpp`, `result_timings::to_json`),
//! so a chunk's `timings` object reads as it is and a record keeps what the runtime said.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RuntimeTimings {
    /// Prompt tokens reused from the runtime's cache (not read again).
    pub cache_n: u64,
    /// Prompt tokens read (evaluated) by this call.
    pub prompt_n: u64,
    pub prompt_ms: f64,
    pub prompt_per_second: f64,
    /// Tokens generated.
    pub predicted_n: u64,
    pub predicted_ms: f64,
    pub predicted_per_second: f64,
    /// Where the model in this browser ran; absent for an endpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs_on: Option<RunsOn>,
}

/// Counts past this are not a call's (a billion tokens): an endpoint that says so is not believed.
const MOST_TOKENS: u64 = 1_000_000_000;
/// Speeds and times past this are not believed either.
const MOST_FIGURE: f64 = 1e9;

impl RuntimeTimings {
    /// The figures as an endpoint sent them, made safe to add and show: counts and speeds
    /// within bounds (negative or absurd ones read as 0), and no word on where the model ran,
    /// which only the page's own runtime says (an endpoint could claim it ran on the device).
    pub fn into_bounded(self) -> Self {
        let figure = |x: f64| {
            if (0.0..=MOST_FIGURE).contains(&x) {
                x
            } else {
                0.0
            }
        };
        let count = |n: u64| if n <= MOST_TOKENS { n } else { 0 };
        RuntimeTimings {
            cache_n: count(self.cache_n),
            prompt_n: count(self.prompt_n),
            prompt_ms: figure(self.prompt_ms),
            prompt_per_second: figure(self.prompt_per_second),
            predicted_n: count(self.predicted_n),
            predicted_ms: figure(self.predicted_ms),
            predicted_per_second: figure(self.predicted_per_second),
            runs_on: None,
        }
    }

    /// The share of the prompt taken from the cache, 0 to 1 (0 for an empty prompt).
    pub fn reused_share(&self) -> f64 {
        let prompt = self.cache_n.saturating_add(self.prompt_n);
        if prompt == 0 {
            0.0
        } else {
            self.cache_n as f64 / prompt as f64
        }
    }

    /// One line of the figures: "read 6 prompt tokens (62 reused) at 13.2 tok/s · 105 out at
    /// 3.4 tok/s".
    pub fn line(&self) -> String {
        let reused = if self.cache_n > 0 {
            format!(" ({} reused)", self.cache_n)
        } else {
            String::new()
        };
        format!(
            "read {} prompt tokens{reused} at {:.1} tok/s · {} out at {:.1} tok/s",
            self.prompt_n, self.prompt_per_second, self.predicted_n, self.predicted_per_second
        )
    }
}

/// Where the model in this browser ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunsOn {
    /// The WebGPU adapter the layers were given to ("" on the CPU). The glue sets it only when
    /// the runtime's own load log reports layers on it, never from what it asked for.
    pub webgpu: String,
    /// The browser's WebGPU adapter, used or not ("" for none).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub adapter: String,
    /// Why the adapter was not used, where the page knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_fallback: Option<GpuFallback>,
    /// Layers the runtime reported on the GPU, and its layers in all (llama.cpp's
    /// "offloaded 25/25 layers to GPU"); 0 where it reported none.
    #[serde(skip_serializing_if = "is_zero")]
    pub gpu_layers: u32,
    #[serde(skip_serializing_if = "is_zero")]
    pub layers: u32,
    /// CPU threads.
    pub threads: u32,
    /// Why no more threads, where the page knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<ThreadLimit>,
    /// The runtime's quantised kernels are ggml's wasm SIMD ones (the runtime the build makes,
    /// scripts/lib/build_runtime.py), not the generic C ones wllama ships.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub simd: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Why the model runs on the CPU although the page looked for a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GpuFallback {
    /// The browser has no WebGPU (`navigator.gpu`).
    NoWebgpu,
    /// The browser offered no adapter.
    NoAdapter,
    /// The adapter has no 16-bit floats in shaders (`shader-f16`), without which the
    /// runtime's WebGPU backend opens no device.
    NoF16,
    /// The runtime was asked for the GPU and reported no layer on it.
    NotOffloaded,
    /// A reason this version does not know (a run file from a later one).
    #[serde(other)]
    Unknown,
}

/// Layers a run file may claim on the GPU: more than any model has.
const MAX_LAYERS: u32 = 10_000;

/// Why the model runs on fewer threads than the machine has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThreadLimit {
    /// The page is inside another page's frame: it cannot be cross-origin isolated.
    Embedded,
    /// The page's service worker is ready but controls the page only from its next load.
    Reload,
    /// The browser would not let the page isolate itself (no service worker, or refused).
    NotIsolated,
    /// The machine reports one core.
    OneCore,
}

impl ThreadLimit {
    pub fn why(self) -> &'static str {
        match self {
            ThreadLimit::Embedded => "one thread: this page is embedded in another site, so it cannot share memory between threads",
            ThreadLimit::Reload => "one thread until the page is reloaded once: then it can share memory between threads",
            ThreadLimit::NotIsolated => "one thread: this browser did not let the page share memory between threads",
            ThreadLimit::OneCore => "one thread: this device reports one processor core",
        }
    }
}

impl RunsOn {
    /// As the page's runtime said it: an adapter's name cut to a line.
    pub fn into_trimmed(mut self) -> Self {
        for name in [&mut self.webgpu, &mut self.adapter] {
            if let Some((cut, _)) = name.char_indices().nth(80) {
                name.truncate(cut);
            }
        }
        self.layers = self.layers.min(MAX_LAYERS);
        self.gpu_layers = self.gpu_layers.min(self.layers);
        self
    }

    /// "WebGPU: <adapter>, 25/25 layers" or "CPU, 2 threads", with the reason for one thread
    /// and why not the GPU, where known.
    pub fn describe(&self) -> String {
        if !self.webgpu.is_empty() {
            return if self.gpu_layers > 0 {
                format!(
                    "WebGPU: {}, {}/{} layers",
                    self.webgpu, self.gpu_layers, self.layers
                )
            } else {
                format!("WebGPU: {}", self.webgpu)
            };
        }
        let cpu = self.describe_cpu();
        match self.gpu_note() {
            Some(note) => format!("{cpu} · {note}"),
            None => cpu,
        }
    }

    /// Why not the GPU, or that it will be tried ("" adapter and no reason: nothing to say,
    /// as in a run file from before the page said it).
    fn gpu_note(&self) -> Option<String> {
        let adapter = if self.adapter.is_empty() {
            "this GPU".to_string()
        } else {
            format!("this GPU ({})", self.adapter)
        };
        Some(match self.gpu_fallback {
            Some(GpuFallback::NoWebgpu) => "no WebGPU in this browser".into(),
            Some(GpuFallback::NoAdapter) => "no WebGPU adapter offered".into(),
            Some(GpuFallback::NoF16) => format!("{adapter} offers no 16-bit floats: CPU"),
            Some(GpuFallback::NotOffloaded) => {
                format!("the runtime put no layer on {adapter}: CPU")
            }
            Some(GpuFallback::Unknown) => "WebGPU not used".into(),
            None if !self.adapter.is_empty() => {
                format!("WebGPU ({}) is tried when a model loads", self.adapter)
            }
            None => return None,
        })
    }

    fn describe_cpu(&self) -> String {
        let threads = self.threads.max(1);
        let place = format!(
            "CPU, {threads} thread{}{}",
            if threads == 1 { "" } else { "s" },
            if self.simd { ", wasm SIMD" } else { "" }
        );
        match self.limit {
            Some(limit) => format!("{place} ({})", limit.why()),
            None => place,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_cpp_s_timings_read_as_sent() {
        // The last chunk's `timings` of llama.cpp's server (b6xxx and later), as the native
        // server in scripts/test sends it.
        let t: RuntimeTimings = serde_json::from_str(
            r#"{"cache_n":62,"prompt_n":6,"prompt_ms":460.1,"prompt_per_token_ms":76.7,
                "prompt_per_second":13.04,"predicted_n":105,"predicted_ms":30882.3,
                "predicted_per_token_ms":294.1,"predicted_per_second":3.4}"#,
        )
        .unwrap();
        assert_eq!((t.cache_n, t.prompt_n, t.predicted_n), (62, 6, 105));
        assert!((t.reused_share() - 62.0 / 68.0).abs() < 1e-9);
        assert_eq!(
            t.line(),
            "read 6 prompt tokens (62 reused) at 13.0 tok/s · 105 out at 3.4 tok/s"
        );
        assert_eq!(t.runs_on, None);
        // An older server without `cache_n` reads as no reuse.
        let old: RuntimeTimings = serde_json::from_str(r#"{"prompt_n":5}"#).unwrap();
        assert_eq!((old.cache_n, old.reused_share()), (0, 0.0));
        assert_eq!(RuntimeTimings::default().reused_share(), 0.0);
    }

    #[test]
    fn an_endpoint_s_figures_are_bounded_and_cannot_say_where_the_model_ran() {
        let hostile: RuntimeTimings = serde_json::from_str(
            r#"{"cache_n":18446744073709551615,"prompt_n":5,"prompt_per_second":-3.0,
                "predicted_per_second":1e300,"predicted_n":7,
                "runs_on":{"webgpu":"your own device, no data left it","threads":64}}"#,
        )
        .unwrap();
        let safe = hostile.into_bounded();
        assert_eq!((safe.cache_n, safe.prompt_n, safe.predicted_n), (0, 5, 7));
        assert_eq!(
            (safe.prompt_per_second, safe.predicted_per_second),
            (0.0, 0.0)
        );
        assert_eq!(safe.runs_on, None);
        // Kept records read as they were, however large.
        let big = RuntimeTimings {
            cache_n: u64::MAX,
            prompt_n: u64::MAX,
            ..RuntimeTimings::default()
        };
        assert_eq!(big.reused_share(), 1.0);
        let long = RunsOn {
            webgpu: "é".repeat(200),
            threads: 1,
            ..RunsOn::default()
        }
        .into_trimmed();
        assert_eq!(long.webgpu.chars().count(), 80);
    }

    #[test]
    fn where_it_ran_says_why_one_thread() {
        let gpu = RunsOn {
            webgpu: "apple m2".into(),
            threads: 4,
            simd: true,
            ..RunsOn::default()
        };
        assert_eq!(gpu.describe(), "WebGPU: apple m2");
        let cpu = RunsOn {
            threads: 2,
            ..RunsOn::default()
        };
        assert_eq!(cpu.describe(), "CPU, 2 threads");
        let simd: RunsOn =
            serde_json::from_str(r#"{"webgpu":"","threads":2,"simd":true}"#).unwrap();
        assert_eq!(simd.describe(), "CPU, 2 threads, wasm SIMD");
        // Written only when true: a run file from before reads the same.
        assert!(!serde_json::to_string(&cpu).unwrap().contains("simd"));
        let embedded = RunsOn {
            threads: 1,
            limit: Some(ThreadLimit::Embedded),
            ..RunsOn::default()
        };
        assert_eq!(
            embedded.describe(),
            "CPU, 1 thread (one thread: this page is embedded in another site, so it cannot share memory between threads)"
        );
        let parsed: RunsOn =
            serde_json::from_str(r#"{"webgpu":"","threads":1,"limit":"reload"}"#).unwrap();
        assert_eq!(parsed.limit, Some(ThreadLimit::Reload));
        assert!(parsed.describe().contains("reloaded once"));
    }

    #[test]
    fn the_gpu_is_named_only_with_the_runtime_s_layers_and_a_fallback_says_why() {
        // As the glue writes it after the runtime reported "offloaded 31/31 layers to GPU".
        let on_gpu: RunsOn = serde_json::from_str(
            r#"{"webgpu":"nvidia hopper","adapter":"nvidia hopper","threads":8,
                "gpu_layers":31,"layers":31,"simd":true}"#,
        )
        .unwrap();
        assert_eq!(on_gpu.describe(), "WebGPU: nvidia hopper, 31/31 layers");
        let no_f16: RunsOn = serde_json::from_str(
            r#"{"webgpu":"","adapter":"google swiftshader","gpu_fallback":"no-f16","threads":2,"simd":true}"#,
        )
        .unwrap();
        assert_eq!(
            no_f16.describe(),
            "CPU, 2 threads, wasm SIMD · this GPU (google swiftshader) offers no 16-bit floats: CPU"
        );
        let not_offloaded = RunsOn {
            adapter: "apple m2".into(),
            gpu_fallback: Some(GpuFallback::NotOffloaded),
            threads: 1,
            limit: Some(ThreadLimit::Embedded),
            ..RunsOn::default()
        };
        assert_eq!(
            not_offloaded.describe(),
            format!(
                "CPU, 1 thread ({}) · the runtime put no layer on this GPU (apple m2): CPU",
                ThreadLimit::Embedded.why()
            )
        );
        let none = |fallback: &str| {
            serde_json::from_str::<RunsOn>(&format!(
                r#"{{"webgpu":"","adapter":"","gpu_fallback":"{fallback}","threads":2}}"#
            ))
            .unwrap()
            .describe()
        };
        assert_eq!(
            none("no-adapter"),
            "CPU, 2 threads · no WebGPU adapter offered"
        );
        assert_eq!(
            none("no-webgpu"),
            "CPU, 2 threads · no WebGPU in this browser"
        );
        // A later version's reason reads, and claims nothing.
        assert_eq!(
            none("a-reason-from-later"),
            "CPU, 2 threads · WebGPU not used"
        );
        // Before a load: the adapter is only to be tried, and the place says CPU.
        let before = RunsOn {
            adapter: "nvidia hopper".into(),
            threads: 8,
            ..RunsOn::default()
        };
        assert!(before
            .describe()
            .starts_with("CPU, 8 threads · WebGPU (nvidia hopper) is tried"));
        // A run file from before these fields reads and writes as it did.
        let old: RunsOn = serde_json::from_str(r#"{"webgpu":"","threads":2}"#).unwrap();
        assert_eq!(old.describe(), "CPU, 2 threads");
        assert_eq!(
            serde_json::to_string(&old).unwrap(),
            r#"{"webgpu":"","threads":2}"#
        );
        // A hostile file cannot claim more layers on the GPU than the model has, or a page of
        // adapter name.
        let hostile: RunsOn = serde_json::from_str(&format!(
            r#"{{"webgpu":"x","adapter":"{}","gpu_layers":4000000000,"layers":4000000000,"threads":1}}"#,
            "a".repeat(5000)
        ))
        .unwrap();
        let safe = hostile.into_trimmed();
        assert_eq!((safe.gpu_layers, safe.layers), (10_000, 10_000));
        assert_eq!(safe.adapter.len(), 80);
        let odd: RunsOn =
            serde_json::from_str(r#"{"webgpu":"x","gpu_layers":9,"layers":3,"threads":1}"#)
                .unwrap();
        assert_eq!(odd.into_trimmed().describe(), "WebGPU: x, 3/3 layers");
    }
}
