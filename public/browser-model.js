// The model that runs in this page: llama.cpp compiled to WebAssembly (the npm package
// @wllama/wllama, self-hosted beside the page in a folder named by its version), with the GGUF
// file kept in Cache Storage. Loaded only when the "In this browser" backend is used: the page
// adds this module as a script, and it puts its functions on globalThis for the Rust side
// (crates/arena-web/src/browser_model.rs). Written in JS because it is glue over JS APIs
// (streams, Cache Storage, the runtime's async iterators) the first screen must not carry.
//
// Failures are Errors with `kind` (arena-core's browser_model::Failure::of_kind) and `detail`
// (the browser's or the runtime's own words).

const CACHE = "react-arena-models";
const GGUF = [0x47, 0x47, 0x55, 0x46];

function failure(kind, detail, extra) {
  const error = new Error(kind + (detail ? ": " + detail : ""));
  error.kind = kind;
  error.detail = detail ? String(detail) : "";
  return Object.assign(error, extra || {});
}

function wordsOf(e) {
  return e && e.message ? e.message : String(e);
}

// SHA-256 (FIPS 180-4) fed chunk by chunk: SubtleCrypto digests only a whole buffer, and a
// model file is hundreds of megabytes that must never be held twice. `update` takes each chunk
// as it streams by; `hex` ends the digest.
const ROUND = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

function sha256() {
  const state = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Int32Array(64);
  // Bytes of a block not yet whole: chunks end anywhere.
  const pending = new Uint8Array(64);
  let pendingLength = 0;
  let length = 0;
  const compress = (bytes, from, to) => {
    for (let p = from; p < to; p += 64) {
      for (let i = 0; i < 16; i++) {
        const q = p + 4 * i;
        w[i] = (bytes[q] << 24) | (bytes[q + 1] << 16) | (bytes[q + 2] << 8) | bytes[q + 3];
      }
      for (let i = 16; i < 64; i++) {
        const x = w[i - 15];
        const y = w[i - 2];
        // Rotations written out: V8 runs them several times faster than through a helper.
        const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
        const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
      }
      let a = state[0];
      let b = state[1];
      let c = state[2];
      let d = state[3];
      let e = state[4];
      let f = state[5];
      let g = state[6];
      let h = state[7];
      for (let i = 0; i < 64; i++) {
        const e1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        const a0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        const t1 = (h + e1 + ((e & f) ^ (~e & g)) + ROUND[i] + w[i]) | 0;
        const t2 = (a0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g;
        g = f;
        f = e;
        e = (d + t1) | 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) | 0;
      }
      state[0] += a;
      state[1] += b;
      state[2] += c;
      state[3] += d;
      state[4] += e;
      state[5] += f;
      state[6] += g;
      state[7] += h;
    }
  };
  const update = (bytes) => {
    length += bytes.length;
    let start = 0;
    if (pendingLength) {
      start = Math.min(64 - pendingLength, bytes.length);
      pending.set(bytes.subarray(0, start), pendingLength);
      pendingLength += start;
      if (pendingLength < 64) return;
      compress(pending, 0, 64);
      pendingLength = 0;
    }
    const whole = start + ((bytes.length - start) & ~63);
    compress(bytes, start, whole);
    pending.set(bytes.subarray(whole));
    pendingLength = bytes.length - whole;
  };
  const hex = () => {
    // A one bit, zeros, and the length in bits as a 64-bit big-endian number end the message.
    const bits = length * 8;
    const tail = new Uint8Array((pendingLength < 56 ? 64 : 128) - pendingLength);
    tail[0] = 0x80;
    const view = new DataView(tail.buffer);
    view.setUint32(tail.length - 8, Math.floor(bits / 2 ** 32));
    view.setUint32(tail.length - 4, bits >>> 0);
    update(tail);
    return Array.from(state, (x) => (x >>> 0).toString(16).padStart(8, "0")).join("");
  };
  return { update, hex };
}

// Minimal modules of one feature each, as the WebAssembly binary format writes them.
const SIMD = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 15, 11];
const EXCEPTIONS = [0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 7, 1, 5, 0, 6, 64, 11, 11];

// What the runtime needs that this browser lacks (wllama's default build: SIMD, exception
// handling, JSPI and 64-bit memory).
function missingFeatures() {
  if (typeof WebAssembly !== "object") return ["WebAssembly"];
  const valid = (bytes) => {
    try {
      return WebAssembly.validate(new Uint8Array(bytes));
    } catch {
      return false;
    }
  };
  const missing = [];
  if (!valid(SIMD)) missing.push("SIMD");
  if (!valid(EXCEPTIONS)) missing.push("exception handling");
  if (!WebAssembly.Suspending) missing.push("JSPI");
  try {
    new WebAssembly.Memory({ address: "i64", initial: 1n });
  } catch {
    missing.push("Memory64");
  }
  return missing;
}

async function openCache() {
  if (!globalThis.caches) throw failure("cache-refused", "Cache Storage is not available here");
  try {
    return await caches.open(CACHE);
  } catch (e) {
    throw failure("cache-refused", wordsOf(e));
  }
}

function latin1(bytes) {
  return Array.from(bytes.slice(0, 64), (b) => String.fromCharCode(b)).join("");
}

function isGguf(bytes) {
  return bytes.length >= 4 && GGUF.every((b, i) => bytes[i] === b);
}

function storeFailure(e) {
  if (e && e.kind) return e;
  if (e && e.name === "QuotaExceededError") return failure("cache-full", wordsOf(e));
  return failure("cache-refused", wordsOf(e));
}

// Downloads under way, by URL: a second Download of the same file (Settings drawn again
// meanwhile) follows the first instead of fetching it twice.
const downloads = new Map();

// Downloads `url` into the cache, reporting (bytes so far, bytes in all or 0); resolves to its
// size and SHA-256. Whole or not at all: Cache Storage keeps an entry only once its whole body
// has arrived (a failed put stores nothing, and leaves an older copy as it was). `expect`
// ({bytes, sha256} of the published file, or null) is checked before the body ends, so a file
// that is not the published one is never kept.
function download(url, onProgress, signal, expect) {
  const key = new URL(url, document.baseURI).href;
  const going = downloads.get(key);
  if (going) {
    going.listeners.add(onProgress);
    return going.done;
  }
  const listeners = new Set([onProgress]);
  const done = fetchInto(key, (loaded, total) => listeners.forEach((l) => l(loaded, total)), signal, expect).finally(() =>
    downloads.delete(key)
  );
  downloads.set(key, { listeners, done });
  return done;
}

// A file that is not the published one: its facts, for the page to say how it differs.
function mismatch(url, bytes, sha256, downloaded) {
  return failure("mismatch", "", { url, bytes, sha256, downloaded });
}

async function fetchInto(url, onProgress, signal, expect) {
  const cache = await openCache();
  let response;
  try {
    response = await fetch(url, { signal, credentials: "omit", referrerPolicy: "no-referrer" });
  } catch (e) {
    throw signal.aborted ? failure("cancelled") : failure("network", wordsOf(e));
  }
  if (!response.ok) throw failure("http", "", { status: response.status });
  const total = Number(response.headers.get("content-length")) || 0;
  const reader = response.body.getReader();
  let loaded = 0;
  let head = new Uint8Array(0);
  let failed = null;
  const digest = sha256();
  let sha = "";
  const fail = (controller, error) => {
    failed = error;
    controller.error(error);
    reader.cancel().catch(() => {});
  };
  const body = new ReadableStream({
    async pull(controller) {
      let read;
      try {
        read = await reader.read();
      } catch (e) {
        if (signal.aborted) return fail(controller, failure("cancelled"));
        if (total && loaded < total) return fail(controller, failure("truncated", "", { got: loaded, expected: total }));
        return fail(controller, failure("network", wordsOf(e)));
      }
      if (read.done) {
        if (!isGguf(head)) return fail(controller, failure("not-gguf", latin1(head)));
        // Fewer bytes than announced (more is a compressed transfer, whose length is its own).
        if (total && loaded < total) return fail(controller, failure("truncated", "", { got: loaded, expected: total }));
        sha = digest.hex();
        if (expect && (loaded !== expect.bytes || sha !== expect.sha256)) {
          return fail(controller, mismatch(url, loaded, sha, true));
        }
        controller.close();
        return;
      }
      const chunk = read.value;
      if (head.length < 64) {
        const joined = new Uint8Array(Math.min(64, head.length + chunk.length));
        joined.set(head);
        joined.set(chunk.subarray(0, joined.length - head.length), head.length);
        head = joined;
        if (head.length >= 4 && !isGguf(head)) return fail(controller, failure("not-gguf", latin1(head)));
      }
      loaded += chunk.byteLength;
      // Longer than the published file: no need to fetch the rest to know.
      if (expect && loaded > expect.bytes) return fail(controller, mismatch(url, Math.max(loaded, total), "", true));
      digest.update(chunk);
      onProgress(loaded, total);
      controller.enqueue(chunk);
    },
    cancel() {
      reader.cancel().catch(() => {});
    },
  });
  try {
    await cache.put(url, new Response(body, { headers: { "content-type": "application/octet-stream" } }));
  } catch (e) {
    throw failed || (signal.aborted ? failure("cancelled") : storeFailure(e));
  }
  return { bytes: loaded, sha256: sha };
}

// Every kept model, and what the browser says this site uses and may use.
async function storage() {
  const models = [];
  try {
    const cache = await openCache();
    for (const request of await cache.keys()) {
      const response = await cache.match(request);
      if (response) models.push({ url: request.url, bytes: (await response.blob()).size });
    }
  } catch {
    // No cache: nothing kept.
  }
  let usage = 0;
  let quota = 0;
  if (navigator.storage && navigator.storage.estimate) {
    const estimate = await navigator.storage.estimate().catch(() => ({}));
    usage = estimate.usage || 0;
    quota = estimate.quota || 0;
  }
  return { models, usage, quota };
}

// The size of the file kept for `url` (0: none), which sets its load's time limit.
async function keptBytes(url) {
  const cache = await openCache();
  const response = await cache.match(new URL(url, document.baseURI).href);
  return response ? (await response.blob()).size : 0;
}

// Tokens read per pass. Stop is heard only between passes: on the CPU, 16 per thread keeps a
// pass near half a second whatever the thread count (scripts/bench, Qwen on 2 threads with the
// SIMD kernels: 58.6 prompt tokens/s and Stop → idle 0.10 s at 32, against 57.5 and 0.11 s at
// 16, 51.4 and 0.78 s at 64, 56.7 and 2.6 s at 256; one thread reads at half the speed); a GPU
// wants large passes.
const CPU_BATCH_PER_THREAD = 16;
const CPU_BATCH_MAX = 64;

// How the CPU keeps the attention's keys and values, and computes attention. In this runtime
// 16-bit floats are converted one at a time, so keys and values kept as 32-bit floats and
// attention without the fused "flash" kernel are faster (scripts/bench, the All run on Qwen,
// 2 threads: 40.5 s, against 46.4 s with 16-bit keys and 45.0 s with both as llama.cpp
// chooses). Twice the memory: up to this context; past it, 16-bit keys and values.
const CPU_F32_CACHE_MAX_CONTEXT = 8192;
function cpuAttention(context) {
  const cache = context <= CPU_F32_CACHE_MAX_CONTEXT ? "f32" : "f16";
  return { cache_type_k: cache, cache_type_v: cache, flash_attn: false };
}
const GPU_BATCH = 512;
// Slots: llama.cpp gives a prompt the slot whose cache shares the longest start with it, so
// each panel of an All run (four) keeps its conversation cached between
// calls. wllama's default too; said here because the cache depends on it.
const SLOTS = 4;
// More threads than this are not asked for. Generation is bound by memory, yet on a 16-core
// machine (issue 49: one H200 host, SmolLM2) 16 threads wrote 48.5 tokens/s against 36.3 with
// 8; no machine with more cores has been measured, and each thread is a worker.
const MAX_THREADS = 16;
const ISOLATION_WORKER = "isolation-worker.js";
// The answer's header that says where the model ran (crates/arena-web/src/fetch.rs reads it).
const RUNS_ON_HEADER = "x-react-arena-runs-on";

// The browser's WebGPU adapter: { name, f16 }, or { name: "", fallback } where there is none.
// The runtime's WebGPU backend (ggml-webgpu) opens a device only on an adapter with 16-bit
// floats in shaders (`shader-f16`); without them it runs on the CPU whatever it is asked.
// Asked once per page, and given up on after 2 s: an adapter request that never answers must
// not hold up Settings or a load.
let adapter = null;
function gpuAdapter() {
  const none = (fallback) => ({ name: "", f16: false, fallback });
  adapter =
    adapter ||
    Promise.race([
      (async () => {
        if (!navigator.gpu) return none("no-webgpu");
        const found = await navigator.gpu.requestAdapter();
        if (!found) return none("no-adapter");
        const info = found.info || {};
        const name = [info.vendor, info.architecture, info.description].filter(Boolean).join(" ");
        return { name: (name || "an adapter").slice(0, 80), f16: found.features.has("shader-f16"), fallback: null };
      })().catch(() => none("no-adapter")),
      new Promise((resolve) => setTimeout(() => resolve(none("no-adapter")), 2000)),
    ]);
  return adapter;
}

// What the runtime's load log says about where the weights went, from llama.cpp's own lines
// (src/llama-model.cpp, `load_tensors`): "offloaded 25/25 layers to GPU" and, right after it,
// one line per buffer, "WebGPU model buffer size =   92.10 MiB".
// { gpuLayers, layers, gpuMiB, cpuMiB, ambiguous }.
// A GGUF's own text reaches the same log (its key/value dump and print_info before the
// report, its chat template's example after), and a key may hold newlines that make lines of
// their own. So a line counts only if it is one of those lines whole, and the report is the
// one block of such lines in a row: a second block (any line of it forged among the model's
// metadata, which other lines surround), a second placement line or a buffer named twice
// makes the log ambiguous, and it is believed in nothing.
const PLACEMENT_LINE = /^load_tensors: offloaded (\d+)\/(\d+) layers to GPU$/;
const BUFFER_LINE = /^load_tensors: +(\S+) model buffer size = +(\d+(?:\.\d+)?) MiB$/;
// Lines the runtime may print inside the report (its GPU backend's own, the layers it is
// about to offload): they neither make nor break a block.
const NEUTRAL_LINE = /^(ggml_webgpu|load_tensors: offloading )/;
// What the kept log holds in place of any other line: it ends a block.
const BREAK = "…";
function readLoadLog(lines) {
  const report = { gpuLayers: 0, layers: 0, gpuMiB: 0, cpuMiB: 0, ambiguous: Boolean(lines.overflowed) };
  const placements = [];
  const buffers = new Map();
  let blocks = 0;
  let inBlock = false;
  for (const raw of lines) {
    const line = String(raw).trimEnd();
    if (NEUTRAL_LINE.test(line)) continue;
    const offloaded = PLACEMENT_LINE.exec(line);
    const buffer = BUFFER_LINE.exec(line);
    if (!offloaded && !buffer) {
      inBlock = false;
      continue;
    }
    if (!inBlock) blocks += 1;
    inBlock = true;
    if (offloaded) placements.push([Number(offloaded[1]), Number(offloaded[2])]);
    if (buffer) {
      if (buffers.has(buffer[1])) report.ambiguous = true;
      buffers.set(buffer[1], Number(buffer[2]));
    }
  }
  if (blocks > 1 || placements.length > 1) report.ambiguous = true;
  if (report.ambiguous) return report;
  if (placements.length === 1) [report.gpuLayers, report.layers] = placements[0];
  for (const [name, mib] of buffers) {
    if (/^WebGPU/.test(name)) report.gpuMiB += mib;
    else report.cpuMiB += mib;
  }
  return report;
}

// The load log as readLoadLog needs it, never printed (the page keeps the console quiet):
// llama.cpp's placement lines whole, each run of other lines as one BREAK. A real load keeps
// a handful; past the bound the log is marked overflowed (read as ambiguous), so a flood of
// metadata cannot push the real lines out.
const LOAD_LOG_LINES = 64;
function loadLog() {
  const lines = [];
  const log = { lines, open: true };
  const keep = (...words) => {
    if (!log.open) return;
    // A message may hold several lines; each is read alone.
    for (const part of words.join(" ").split("\n")) {
      const line = part.slice(0, 300).trimEnd();
      if (NEUTRAL_LINE.test(line)) continue;
      const placing = PLACEMENT_LINE.test(line) || BUFFER_LINE.test(line);
      if (!placing && (lines.length === 0 || lines[lines.length - 1] === BREAK)) continue;
      if (lines.length >= LOAD_LOG_LINES) lines.overflowed = true;
      else lines.push(placing ? line : BREAK);
    }
  };
  log.logger = { debug: keep, log: keep, warn: keep, error: keep };
  return log;
}

const workerUrl = () => new URL(ISOLATION_WORKER, document.baseURI).href;

// Whether this page's own service worker (isolation-worker.js, not another page's of the same
// origin) is registered: it makes the page's next load cross-origin isolated, so the runtime
// can share memory between threads.
async function isolationWorker() {
  if (!navigator.serviceWorker) return null;
  try {
    const registration = await navigator.serviceWorker.getRegistration(workerUrl());
    const worker = registration && (registration.active || registration.waiting || registration.installing);
    return worker && worker.scriptURL === workerUrl() ? registration : null;
  } catch {
    return null;
  }
}

const cores = () => Math.max(1, Math.min(MAX_THREADS, navigator.hardwareConcurrency || 1));

// Where a model loaded now would run: { webgpu, adapter, gpu_fallback, threads, limit, cores }
// (arena-core's llm::timings::RunsOn). `webgpu` stays "" until the runtime itself reports
// layers on the GPU; `adapter` is the browser's adapter and `gpu_fallback` why it will not be
// used (none: the runtime is asked to use it when a model loads); `limit` says why one thread
// where the page knows (ThreadLimit).
async function place() {
  const n = cores();
  const gpu = await gpuAdapter();
  const fallback = gpu.fallback || (gpu.f16 ? null : "no-f16");
  const where = { webgpu: "", adapter: gpu.name, gpu_fallback: fallback, cores: n };
  let limit = null;
  if (n === 1) limit = "one-core";
  else if (globalThis.crossOriginIsolated) return { ...where, threads: n, limit };
  else if (window.top !== window) limit = "embedded";
  else {
    const controller = navigator.serviceWorker && navigator.serviceWorker.controller;
    // This page loaded through the worker and is still not isolated: a reload will not help.
    const loadedThroughIt = controller && controller.scriptURL === workerUrl();
    limit = !loadedThroughIt && (await isolationWorker()) ? "reload" : "not-isolated";
  }
  return { ...where, threads: 1, limit };
}

// Registers the isolation worker (a top-level page with more than one core only: a page in
// another site's frame cannot be isolated, and one core gains nothing). Resolves to where a
// model would run now.
async function isolate() {
  if (!globalThis.crossOriginIsolated && window.top === window && cores() > 1 && navigator.serviceWorker) {
    try {
      await navigator.serviceWorker.register(workerUrl());
    } catch {
      // Refused (a private window, a browser setting): one thread, said by `place`.
    }
  }
  const here = await place();
  // Once a model is loaded, where its runtime said it runs.
  return current ? { ...here, ...current.runsOn, loaded: true } : here;
}

const runtimes = new Map();
let current = null;
// The load under way, if any: { url, context, waiters, end(reason), promise }.
let loading = null;
let generation = Promise.resolve();
// The running generation's own controller (Delete stops it).
let running = null;
const state = { busy: false, startedAt: 0, endedAt: 0 };

async function remove(url) {
  url = new URL(url, document.baseURI).href;
  // A load of this file ends at once (its runtime with it), however stuck it is.
  if (loading && loading.url === url) {
    const ending = loading;
    ending.end(failure("deleted"));
    await ending.promise.catch(() => {});
  }
  if (current && current.url === url) {
    if (running) running.abort();
    const old = current;
    current = null;
    await old.wllama.exit().catch(() => {});
  }
  const cache = await openCache();
  await cache.delete(url);
}

// A folder's module goes with that folder's wasm (the page loads one; a test loads two).
function importRuntime(dir) {
  if (!runtimes.has(dir)) {
    runtimes.set(
      dir,
      import(new URL(dir + "/wllama.js", document.baseURI).href).catch((e) => {
        runtimes.delete(dir);
        throw failure("runtime-missing", wordsOf(e));
      })
    );
  }
  return runtimes.get(dir);
}

// What a failed load means. Only a file llama.cpp could not read is "corrupt" (and deleted);
// a runtime that could not start (its files not fetched, a version mismatch, WebGPU) is not
// the file's fault, and the file stays.
function loadFailure(e) {
  const words = wordsOf(e);
  if (/out of memory|\bOOM\b|memory access out of bounds|Cannot enlarge memory|Array buffer allocation failed|could not allocate|failed to allocate|create context/i.test(words)) {
    return failure("memory", words);
  }
  if (e instanceof WebAssembly.CompileError || e instanceof WebAssembly.LinkError) return failure("unsupported", words);
  if (e && e.fileIsBad) return failure("corrupt", words);
  if (/failed to load model|gguf|tensor|vocab|unknown model architecture|magic/i.test(words) && !/fetch|network|version|webgpu|unloaded/i.test(words)) {
    return failure("corrupt", words);
  }
  return failure("other", words);
}

function stopped() {
  return new DOMException("Stopped", "AbortError");
}

// Makes `url` (kept in the cache) the loaded model, with a context of `context` tokens.
// `expect` ({bytes, sha256}, or null for a pasted address) is checked against the kept file
// before anything loads. The load ends, its runtime terminated, when `signal` aborts (Stop),
// when the file is deleted, when another model's load starts, or after `limitMs`: llama.cpp
// cannot be interrupted inside a load (a chat template's loops run to their end), and a load
// that nobody can end would make every later load and Delete wait for it.
async function load(dir, url, context, expect, limitMs, signal) {
  url = new URL(url, document.baseURI).href;
  for (;;) {
    if (signal.aborted) throw stopped();
    // The same load is followed, not started twice (unless it is ending). The runtime's
    // folder is part of "the same": a test loads the same file in two runtimes.
    const same = (job) => job.url === url && job.context === context && job.dir === dir && job.knobs === knobs();
    if (loading && !loading.reason && same(loading)) break;
    if (loading) {
      const other = loading;
      other.end(failure("other", "another model's load took its place"));
      await other.promise.catch(() => {});
      continue;
    }
    if (current && same(current)) return;
    loading = startLoad(dir, url, context, expect, limitMs);
    break;
  }
  return follow(loading, signal);
}

// Waits for `job` until `signal` aborts; the job ends when no one waits for it any more.
function follow(job, signal) {
  return new Promise((resolve, reject) => {
    let left = false;
    const leave = () => {
      if (left) return false;
      left = true;
      signal.removeEventListener("abort", stop);
      job.waiters -= 1;
      return true;
    };
    const stop = () => {
      if (!leave()) return;
      if (job.waiters === 0) job.end(stopped());
      reject(stopped());
    };
    job.waiters += 1;
    signal.addEventListener("abort", stop, { once: true });
    job.promise.then(
      (value) => leave() && resolve(value),
      (error) => leave() && reject(error)
    );
  });
}

// The switches only the bench and the tests set (a load with others is another load):
// `threads` (fewer than the page would use), `cpuOnly`, `gpuWithoutF16` (ask the runtime for
// the GPU on an adapter without 16-bit floats, to see what it does).
const knobs = () => [api.threads || 0, Boolean(api.cpuOnly), Boolean(api.gpuWithoutF16)].join();

function startLoad(dir, url, context, expect, limitMs) {
  let endNow;
  const ended = new Promise((_, reject) => (endNow = reject));
  ended.catch(() => {});
  const job = { dir, url, context, knobs: knobs(), waiters: 0, reason: null, wllama: null, done: false };
  job.end = (reason) => {
    if (job.done || job.reason) return;
    job.reason = reason;
    // Terminates the runtime's worker at once, whatever it is doing.
    if (job.wllama) job.wllama.exit().catch(() => {});
    endNow(reason);
  };
  // Tests shorten the limit here; the page never sets it.
  const ms = api.loadLimitMs || limitMs;
  const timer = setTimeout(() => job.end(failure("timeout", "", { seconds: Math.round(ms / 1000) })), ms);
  job.promise = Promise.race([loadInto(job, dir, url, context, expect), ended]).finally(() => {
    clearTimeout(timer);
    job.done = true;
    if (loading === job) loading = null;
  });
  job.promise.catch(() => {});
  return job;
}

// The kept file's SHA-256, read from the cache as a stream: no copy of the file is made.
async function digestOf(blob, job) {
  const started = performance.now();
  const digest = sha256();
  const reader = blob.stream().getReader();
  try {
    for (;;) {
      if (job.reason) throw job.reason;
      const { done, value } = await reader.read();
      if (done) break;
      digest.update(value);
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    throw e;
  }
  state.lastCheck = { bytes: blob.size, ms: performance.now() - started };
  return digest.hex();
}

async function loadInto(job, dir, url, context, expect) {
  // An ended load goes on only until its next step: nothing it does after may touch the cache
  // or the loaded model.
  const alive = (value) => {
    if (job.reason) throw job.reason;
    return value;
  };
  const missing = missingFeatures();
  if (missing.length) throw failure("unsupported", "missing: " + missing.join(", "));
  const cache = alive(await openCache());
  const response = alive(await cache.match(url));
  if (!response) throw failure("not-kept");
  const blob = alive(await response.blob());
  const head = new Uint8Array(alive(await blob.slice(0, 64).arrayBuffer()));
  if (!isGguf(head)) {
    await cache.delete(url).catch(() => {});
    throw failure("not-gguf", latin1(head));
  }
  // An offered model's address promises one file: anything else kept under it (by another
  // page of this site, or a damaged copy) is removed, not run.
  if (expect) {
    const sha = blob.size === expect.bytes ? alive(await digestOf(blob, job)) : "";
    if (blob.size !== expect.bytes || sha !== expect.sha256) {
      await cache.delete(url).catch(() => {});
      throw mismatch(url, blob.size, sha, false);
    }
  }
  if (current) {
    const old = current;
    current = null;
    await old.wllama.exit().catch(() => {});
  }
  const { Wllama } = alive(await importRuntime(dir));
  const here = alive(await place());
  const { limit, adapter: gpuName } = here;
  const threads = Math.min(here.threads, api.threads || here.threads);
  // The folders the build makes carry ggml's wasm SIMD kernels and are named so
  // (arena-core's browser_model::has_simd_kernels reads the same).
  const simd = dir.endsWith("-simd");
  // The runtime is asked for the GPU only where it can open one (the bench and the tests may
  // ask anyway, to see what the runtime does without 16-bit floats).
  const askGpu =
    !api.cpuOnly && Boolean(gpuName && (!here.gpu_fallback || (api.gpuWithoutF16 && here.gpu_fallback === "no-f16")));
  const start = async (gpu) => {
    const log = loadLog();
    const wllama = new Wllama(
      { default: new URL(dir + "/wllama.wasm", document.baseURI).href },
      // The runtime's own log is read (never printed) for where it put the layers.
      { suppressNativeLog: false, logger: log.logger, allowOffline: true }
    );
    // Never the runtime's fallback build from a CDN: the page loads only what it ships.
    wllama.setCompat(null);
    job.wllama = wllama;
    // The bench tries other CPU batches here; the page never sets it.
    const batch = gpu ? GPU_BATCH : api.cpuBatch || Math.min(CPU_BATCH_MAX, CPU_BATCH_PER_THREAD * threads);
    try {
      await wllama.loadModel([blob], {
        n_ctx: context,
        n_batch: batch,
        n_ubatch: batch,
        n_threads: threads,
        // 0 also keeps wllama from offering its worker a WebGPU adapter at all.
        n_gpu_layers: gpu ? 99999 : 0,
        n_parallel: SLOTS,
        ...(gpu ? {} : cpuAttention(context)),
      });
      if (job.reason) throw job.reason;
      // wllama 3.13 can report a file llama.cpp failed to read as loaded, with no vocabulary
      // and no layers.
      const { hparams } = wllama.getModelMetadata();
      if (!hparams.nVocab || !hparams.nLayer) {
        throw Object.assign(new Error("llama.cpp found no vocabulary or layers in the file"), { fileIsBad: true });
      }
    } catch (e) {
      await wllama.exit().catch(() => {});
      if (job.reason) throw job.reason;
      const reason = loadFailure(e);
      // A file the runtime cannot read is not kept as if it were a model.
      if (reason.kind === "corrupt") await cache.delete(url).catch(() => {});
      throw reason;
    }
    // Nothing more is kept once loaded.
    log.open = false;
    const report = readLoadLog(log.lines);
    attempts.push({ gpu, report });
    return { wllama, report };
  };
  // What each load asked of the runtime and what the runtime reported (the tests read it).
  const attempts = [];
  let { wllama, report } = await start(askGpu);
  const runsOn = { webgpu: "", adapter: gpuName, gpu_fallback: here.gpu_fallback, threads, limit, simd };
  // Layers on the GPU are believed only where the page asked the runtime for them.
  if (askGpu && report.gpuLayers > 0 && report.gpuMiB > 0) {
    Object.assign(runsOn, { webgpu: gpuName, gpu_layers: report.gpuLayers, layers: report.layers, gpu_fallback: null });
  } else if (askGpu) {
    // Asked for the GPU, the runtime put nothing on it: loaded again with the CPU's settings
    // (its batch and attention), and said so.
    await wllama.exit().catch(() => {});
    alive();
    ({ wllama, report } = await start(false));
    runsOn.gpu_fallback = here.gpu_fallback || "not-offloaded";
  }
  // What the runtime really runs on: it falls back to one thread where it cannot share memory.
  const ran = wllama.getNumThreads();
  if (ran < runsOn.threads) Object.assign(runsOn, { threads: ran, limit: runsOn.limit || "not-isolated" });
  current = { dir, url, context, knobs: job.knobs, wllama, runsOn, attempts };
}

// Answers an OpenAI chat-completions body as an endpoint would: a Response whose body is the
// event stream (`data: {chunk}` … `data: [DONE]`), so the page reads it as any endpoint's.
// One generation at a time: a call starts once the one before has really ended.
// A runtime still busy this long after Stop is stuck inside one call (a chat template's loops
// are not interrupted by the abort signal, which is heard only between passes): it is
// terminated, so the next call loads the model afresh instead of waiting for it.
const STUCK_AFTER_STOP_MS = 5000;

async function chat(body, signal) {
  const before = generation;
  let ended;
  generation = new Promise((resolve) => (ended = resolve));
  const own = new AbortController();
  const stop = () => own.abort();
  signal.addEventListener("abort", stop, { once: true });
  let finished = false;
  const end = () => {
    if (finished) return;
    finished = true;
    signal.removeEventListener("abort", stop);
    if (running === own) running = null;
    state.busy = false;
    state.endedAt = performance.now();
    ended();
  };
  let model = null;
  let runsOn = null;
  own.signal.addEventListener(
    "abort",
    () =>
      setTimeout(() => {
        if (finished || !model) return;
        if (current && current.wllama === model) current = null;
        model.exit().catch(() => {});
        end();
      }, STUCK_AFTER_STOP_MS),
    { once: true }
  );
  try {
    // Stop is heard while the one before ends, too.
    await Promise.race([before, new Promise((resolve) => own.signal.addEventListener("abort", resolve, { once: true }))]);
    if (own.signal.aborted) throw new DOMException("Stopped", "AbortError");
    // Delete or another model's load may have come meanwhile.
    if (!current) throw failure("not-kept");
    model = current.wllama;
    runsOn = current.runsOn;
    const params = JSON.parse(body);
    delete params.model;
    params.stream = true;
    params.abortSignal = own.signal;
    running = own;
    state.busy = true;
    state.startedAt = performance.now();
    let chunks;
    try {
      chunks = (await model.createChatCompletion(params))[Symbol.asyncIterator]();
    } catch (e) {
      throw own.signal.aborted ? new DOMException("Stopped", "AbortError") : failure("other", wordsOf(e));
    }
    if (own.signal.aborted) {
      // Stopped meanwhile: nobody reads the stream, so the generation is ended here.
      (async () => {
        try {
          while (!(await chunks.next()).done);
        } catch {
          // Ended by the abort.
        }
        end();
      })();
      throw new DOMException("Stopped", "AbortError");
    }
    // Where it ran goes with the answer, so the page says it for this call and no other.
    return new Response(eventStream(chunks, model, own, end), {
      headers: { "content-type": "text/event-stream", [RUNS_ON_HEADER]: JSON.stringify(runsOn) },
    });
  } catch (e) {
    end();
    throw e;
  }
}

// The runtime's chunks as an endpoint's event stream (`data: {chunk}` … `data: [DONE]`).
function eventStream(chunks, model, own, end) {
  const encoder = new TextEncoder();
  const event = (data) => encoder.encode("data: " + data + "\n\n");
  return new ReadableStream({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) {
          end();
          controller.enqueue(event("[DONE]"));
          controller.close();
        } else {
          controller.enqueue(event(JSON.stringify(next.value)));
        }
      } catch (e) {
        end();
        // A runtime that failed mid-generation is loaded again (from the cache) by the next
        // call, as its retry.
        if (!own.signal.aborted && current && current.wllama === model) {
          current = null;
          model.exit().catch(() => {});
        }
        if (own.signal.aborted) {
          controller.error(new DOMException("Stopped", "AbortError"));
        } else {
          // The runtime's failure as endpoints send one mid-stream.
          controller.enqueue(event(JSON.stringify({ error: { message: "The local model failed: " + wordsOf(e) } })));
          controller.close();
        }
      }
    },
    // The page stopped reading (Stop, a time limit): the generation ends too, and the next
    // call waits for that.
    cancel() {
      own.abort();
      (async () => {
        try {
          while (!(await chunks.next()).done);
        } catch {
          // Ended by the abort.
        }
        end();
      })();
    },
  });
}

const api = {
  missingFeatures,
  download,
  storage,
  keptBytes,
  remove,
  load,
  chat,
  place,
  isolate,
  readLoadLog,
  state: () => ({
    ...state,
    loaded: current ? current.url : "",
    loading: loading ? loading.url : "",
    runsOn: current ? current.runsOn : null,
    attempts: current ? current.attempts : [],
  }),
};
globalThis.reactArenaBrowserModel = api;
