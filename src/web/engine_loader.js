// Loads the agent engine, its own wasm module, the first time it is needed: the page's first
// load does not carry the loop, the model client or the tools. Its glue's hashed name is in a
// meta tag (scripts/lib/lazy_modules.py). A load that fails is tried again by the next run.

let loading = null;
let engine = null;

// A little of each kind of Markdown block and span.
const WARM_UP =
  "# Title\n\nSome **bold**, *em*, `code` and a [link](https://example.org/).\n\n" +
  "- one\n- two\n\n1. first\n\n> quoted\n\n```rust\nlet x = 1;\n```\n\n" +
  "| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n";

export function loadEngine() {
  if (!loading) {
    const meta = document.querySelector('meta[name="react-arena-module-engine"]');
    if (!meta) return Promise.reject(new Error("this build of the page has no agent engine"));
    const url = new URL(meta.content, document.baseURI).href;
    loading = import(url).then(async (module) => {
      await module.default();
      engine = module;
      // The browser compiles a function of the module when it is first called: Markdown
      // drawn once here, in a task of its own, is not compiled in the frame that draws a
      // run's first answer.
      setTimeout(() => {
        module.markdown_block_starts(WARM_UP);
        module.markdown_html(WARM_UP, location.origin);
      }, 0);
      return module;
    });
    loading.catch(() => {
      loading = null;
    });
  }
  return loading;
}

// Starts loading without waiting: the user is about to run.
export function prefetchEngine() {
  loadEngine().catch(() => {});
}

export function runTurn(request, emit, signal) {
  return loadEngine().then((module) => module.run_turn(request, emit, signal));
}

export function engineLoaded() {
  return engine !== null;
}

// Markdown is drawn by the engine; these give null until it is loaded.
export function markdownHtml(text, origin) {
  return engine ? engine.markdown_html(text, origin) : null;
}

export function markdownBlockStarts(text) {
  return engine ? engine.markdown_block_starts(text) : null;
}

// Resolves once the engine is loaded; refused when it cannot be.
export function whenEngineLoaded() {
  return loadEngine().then(() => undefined);
}

export function pythonDownload() {
  return engine ? engine.python_download() : "null";
}
