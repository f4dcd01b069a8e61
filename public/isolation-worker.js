// The page's own service worker, registered when Settings show the model in this browser. It
// makes the page cross-origin isolated, which the runtime needs to share memory between
// threads: static hosts (GitHub Pages) cannot send the two headers that ask for it, so this
// worker adds them to the page's own documents and workers as they load. It takes effect from
// the page's next load.
//
// COEP `credentialless` (not `require-corp`): other sites' files the page loads without CORS
// come without cookies instead of being refused, and everything the page fetches with CORS
// (the model hub, the router, the tools' APIs, MCP servers) is as before.
//
// It caches nothing and changes no body: each response is the network's, with two headers
// more. Everything else (other origins, model downloads, the page's scripts) passes untouched.

// Active at once, but it does not claim the page already open: its headers count only when a
// page loads through it, and the page tells a reload that would isolate it from one that
// already went through the worker by whether the worker controls it.
self.addEventListener("install", () => self.skipWaiting());

const ISOLATING = new Set(["document", "iframe", "worker", "sharedworker"]);

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode !== "navigate" && !ISOLATING.has(request.destination)) return;
  event.respondWith(fetch(request).then(isolated));
});

function isolated(response) {
  // A redirect or an opaque answer carries no headers to add.
  if (response.type === "opaqueredirect" || response.status === 0) return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "credentialless");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
