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

// Downloads `url` into the cache, reporting (bytes so far, bytes in all or 0). Whole or not at
// all: Cache Storage keeps an entry only once its whole body has arrived (a failed put stores
// nothing, and leaves an older copy as it was).
function download(url, onProgress, signal) {
  const key = new URL(url, document.baseURI).href;
  const going = downloads.get(key);
  if (going) {
    going.listeners.add(onProgress);
    return going.done;
  }
  const listeners = new Set([onProgress]);
  const done = fetchInto(key, (loaded, total) => listeners.forEach((l) => l(loaded, total)), signal).finally(() =>
    downloads.delete(key)
  );
  downloads.set(key, { listeners, done });
  return done;
}

async function fetchInto(url, onProgress, signal) {
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
  return loaded;
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

let runtime = null;
let current = null;
let loading = null;
let generation = Promise.resolve();
// The running generation's own controller (Delete stops it).
let running = null;
const state = { busy: false, startedAt: 0, endedAt: 0 };

async function remove(url) {
  url = new URL(url, document.baseURI).href;
  while (loading) await loading.catch(() => {});
  if (current && current.url === url) {
    if (running) running.abort();
    const old = current;
    current = null;
    await old.wllama.exit().catch(() => {});
  }
  const cache = await openCache();
  await cache.delete(url);
}

function importRuntime(dir) {
  runtime =
    runtime ||
    import(new URL(dir + "/wllama.js", document.baseURI).href).catch((e) => {
      runtime = null;
      throw failure("runtime-missing", wordsOf(e));
    });
  return runtime;
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

const quiet = { debug() {}, log() {}, warn() {}, error() {} };

// Makes `url` (kept in the cache) the loaded model, with a context of `context` tokens.
async function load(dir, url, context) {
  url = new URL(url, document.baseURI).href;
  while (loading) await loading.catch(() => {});
  if (current && current.url === url && current.context === context) return;
  loading = (async () => {
    const missing = missingFeatures();
    if (missing.length) throw failure("unsupported", "missing: " + missing.join(", "));
    const cache = await openCache();
    const response = await cache.match(url);
    if (!response) throw failure("not-kept");
    const blob = await response.blob();
    const head = new Uint8Array(await blob.slice(0, 64).arrayBuffer());
    if (!isGguf(head)) {
      await cache.delete(url).catch(() => {});
      throw failure("not-gguf", latin1(head));
    }
    if (current) {
      const old = current;
      current = null;
      await old.wllama.exit().catch(() => {});
    }
    const { Wllama } = await importRuntime(dir);
    const wllama = new Wllama(
      { default: new URL(dir + "/wllama.wasm", document.baseURI).href },
      { suppressNativeLog: true, logger: quiet, allowOffline: true }
    );
    // Never the runtime's fallback build from a CDN: the page loads only what it ships.
    wllama.setCompat(null);
    try {
      // Small batches: Stop is heard between two of them, well within a second.
      await wllama.loadModel([blob], { n_ctx: context, n_batch: 16, n_ubatch: 16 });
      // wllama 3.13 can report a file llama.cpp failed to read as loaded, with no vocabulary
      // and no layers.
      const { hparams } = wllama.getModelMetadata();
      if (!hparams.nVocab || !hparams.nLayer) {
        throw Object.assign(new Error("llama.cpp found no vocabulary or layers in the file"), { fileIsBad: true });
      }
    } catch (e) {
      await wllama.exit().catch(() => {});
      const reason = loadFailure(e);
      // A file the runtime cannot read is not kept as if it were a model.
      if (reason.kind === "corrupt") await cache.delete(url).catch(() => {});
      throw reason;
    }
    current = { url, context, wllama };
  })();
  try {
    await loading;
  } finally {
    loading = null;
  }
}

// Answers an OpenAI chat-completions body as an endpoint would: a Response whose body is the
// event stream (`data: {chunk}` … `data: [DONE]`), so the page reads it as any endpoint's.
// One generation at a time: a call starts once the one before has really ended.
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
  try {
    // Stop is heard while the one before ends, too.
    await Promise.race([before, new Promise((resolve) => own.signal.addEventListener("abort", resolve, { once: true }))]);
    if (own.signal.aborted) throw new DOMException("Stopped", "AbortError");
    // Delete or another model's load may have come meanwhile.
    if (!current) throw failure("not-kept");
    const model = current.wllama;
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
    return new Response(eventStream(chunks, model, own, end), { headers: { "content-type": "text/event-stream" } });
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

globalThis.reactArenaBrowserModel = {
  missingFeatures,
  download,
  storage,
  remove,
  load,
  chat,
  state: () => ({ ...state, loaded: current ? current.url : "" }),
};
