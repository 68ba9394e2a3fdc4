// pyclient's cross-origin isolation service worker, for static hosts that cannot send headers
// (GitHub Pages). `pyclient vendor` writes it at the top of the site: a service worker controls
// only the pages at or below its own folder, so there it covers them all. pyclient.js registers
// it when a page names it (`data-coi-worker="coi-worker.js"`) and is not isolated, then reloads
// once; from then on the page's own response comes through here.
// (`pyclient serve` answers it at /pyclient/coi-worker.js too, being in pyclient's assets; from
// there it could control only /pyclient/, and it serves the headers itself anyway.)
//
// It re-serves each same-origin page from the network and adds COOP same-origin and COEP
// credentialless to those that run Python in a PyScript worker, as `pyclient serve` does: other
// pages keep their popups, and other files (the runtime, PyScript's worker, which starts from a
// blob: URL) need no header. The idea of mini-coi and coi-serviceworker, cut down to that.

const ISOLATION = [
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Cross-Origin-Embedder-Policy", "credentialless"],
];

// Take over at once: the page that registered this reloads as soon as it is active.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const { request } = event;
  // Only this site's pages; everything else goes to the network as if this were not here.
  if (request.mode !== "navigate" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(isolate(request));
});

async function isolate(request) {
  const response = await fetch(request);
  if (response.status !== 200 || !(response.headers.get("content-type") || "").startsWith("text/html")) {
    return response;  // a redirect, an error, a file that is not a page: as it came
  }
  // The bytes go back unchanged (whatever the page's charset); the text is only read.
  const body = await response.arrayBuffer();
  const headers = new Headers(response.headers);
  if (runsPythonInWorker(new TextDecoder().decode(body))) {
    for (const [name, value] of ISOLATION) headers.set(name, value);
  }
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

// What pyclient's Python side checks too (pyclient/server/_isolation.py): a <script type="py">
// or type="mpy" with a `worker` attribute, or a <py-script worker> / <mpy-script worker>.
function runsPythonInWorker(html) {
  for (const [tag] of html.matchAll(/<(?:script|m?py-script)\b[^>]*>/gi)) {
    const python = /^<m?py-script/i.test(tag) || /\stype\s*=\s*["']?m?py(?=["'\s>])/i.test(tag);
    if (python && /\sworker(?=[\s=>/])/i.test(tag)) return true;
  }
  return false;
}
