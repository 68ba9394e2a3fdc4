import "./renderer.js";
import "./sandbox.js";
import { drawShells } from "./shell.js";
// pyclient's page bootstrap, loaded before PyScript:
//
//   <script type="module" src="pyclient/pyclient.js"></script>
//   <script type="module" src="pyscript/core.js"></script>
//
// Module scripts run in document order, so this runs before PyScript looks at the page. A
// `<script type="py" worker>` reaches the page's document only on a cross-origin isolated page
// (COOP same-origin + COEP credentialless). When the page is not isolated, this
//   1. tries the service worker the page names, once per tab (sessionStorage): registers it and
//      reloads, so the page comes back through it, with the headers
//      (`data-coi-worker="coi-worker.js"` on this script's tag; `pyclient vendor` writes the file);
//   2. else runs that Python on the page's main thread: it takes the `worker` attribute off before
//      PyScript starts, and says why in the console.
// <html data-pyclient-mode> tells which: "worker", or "main-thread" (and then, when the page asked
// for a worker, data-pyclient-fallback holds a short reason), or "reloading" while step 1 runs.

const PYTHON = "script[type=py], script[type=mpy], py-script, mpy-script";
const WORKERS = "script[type=py][worker], script[type=mpy][worker], py-script[worker], mpy-script[worker]";
// sessionStorage key: the service worker was tried in this tab, and how that went.
const TRIED = "pyclient-coi-worker";
const REGISTERED = "registered";

const root = document.documentElement;
const workers = document.querySelectorAll(WORKERS);
const coiWorker = document.querySelector("script[data-coi-worker]")?.dataset.coiWorker;
const tried = recall();  // null: not tried in this tab yet; undefined: no sessionStorage

if (workers.length === 0) {
  root.dataset.pyclientMode = "main-thread";
} else if (crossOriginIsolated) {
  root.dataset.pyclientMode = "worker";
  forget();  // isolated: should the service worker ever go, one more try is allowed
} else if (!coiWorker) {
  fallBack("no-isolation-headers", "its response had no COOP/COEP headers, or this browser did not accept them");
} else if (!isSecureContext || !("serviceWorker" in navigator)) {
  fallBack("service-worker-unavailable",
    `it names the service worker ${coiWorker}, but service workers are not available here (they need https or localhost)`);
} else if (navigator.serviceWorker.controller || tried === REGISTERED) {
  // The page came through the service worker and is still not isolated: another reload would not help.
  fallBack("service-worker-no-isolation",
    `its service worker ${coiWorker} is active, but this browser did not isolate the page: `
    + "it may not support Cross-Origin-Embedder-Policy: credentialless");
} else if (tried === undefined) {
  noStorage();
} else if (tried !== null) {
  fallBack("service-worker-failed",
    `its service worker ${coiWorker} did not start: ${tried === "trying" ? "its registration was interrupted" : tried}`);
} else {
  tryServiceWorker(coiWorker);
}

// The chats' shells (shell.js): a composer that takes input from the first paint, before Python.
if (root.dataset.pyclientMode !== "reloading") drawShells();

// Python on the page's main thread runs without JSPI (WebAssembly stack switching), as it does in
// Firefox and Safari: Chromium 156 crashes the tab (SIGSEGV) when a garbage collection scans the
// stack while Pyodide runs on a JSPI stack on the main thread: the scan starts at the JSPI
// stack's pointer and runs on to the main thread's own stack base, off the end of the JSPI
// stack (seen in core dumps of the crashed renderer: rsp in V8's stack memory, the scan's bound
// in [stack]). Pyodide picks JSPI when `WebAssembly.Suspending` exists; pyclient does not need it
// there (no `run_sync`). A worker keeps it: no crash was seen there.
if (root.dataset.pyclientMode === "main-thread") {
  for (const name of ["Suspending", "promising"]) Reflect.deleteProperty(WebAssembly, name);
}

// A worker's Python that fails (the page's script raising, a package that cannot be installed)
// writes its traceback to the worker's stderr, where PyScript's error box, a main-thread plugin,
// never sees it: the page stays blank. So a PyScript plugin (its hooks, registered before the
// first script starts) copies what the worker's Python writes to stderr to this page, where
// renderer.js shows it in the box the main thread would have shown. The hook runs in the worker,
// as text: it can use nothing of this module.
const pyscriptCore = document.querySelector('script[type="module"][src$="/core.js"], script[type="module"][src="core.js"]');
if (root.dataset.pyclientMode === "worker" && pyscriptCore) {
  import(pyscriptCore.src).then(({ hooks }) => {
    hooks?.worker?.onReady?.add((wrap) => {
      const { stderr } = wrap.io;
      wrap.io.stderr = (error, ...rest) => {  // as PyScript's error plugin does on the main thread
        postMessage({ pyclientError: String((error && error.message) || error) });
        return stderr(error, ...rest);
      };
    });
  }, (error) => console.warn(`pyclient: start-up errors of the worker's Python will be in the console only (${error})`));
}

// Register the service worker, then reload once whatever happened (the next load falls back if
// it failed); meanwhile no Python starts, so nothing boots twice.
async function tryServiceWorker(url) {
  if (!remember("trying")) {
    noStorage();
    return;
  }
  for (const script of document.querySelectorAll(PYTHON)) script.remove();
  root.dataset.pyclientMode = "reloading";
  let outcome = REGISTERED;
  try {
    const registration = await navigator.serviceWorker.register(url);
    if (!location.href.startsWith(registration.scope)) {
      throw new Error(`its scope ${registration.scope} does not include this page: put it in the page's folder or above`);
    }
    // `ready` resolves once it is active here; a worker that fails to install never is.
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error("it was not active after 10 s")), 10_000));
    await Promise.race([navigator.serviceWorker.ready, late]);
  } catch (error) {
    outcome = String(error?.message ?? error);
  }
  remember(outcome);
  location.reload();
}

function fallBack(reason, why) {
  for (const script of workers) script.removeAttribute("worker");
  root.dataset.pyclientMode = "main-thread";
  root.dataset.pyclientFallback = reason;
  console.warn(
    `pyclient: This page is not cross-origin isolated (${why}), so pyclient runs Python on the page's main thread: `
    + "serve it with `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: credentialless` "
    + "(pyclient serve does; on a static host, the `_headers` file pyclient vendor writes, or its service worker: "
    + 'data-coi-worker="coi-worker.js" on the script tag of pyclient.js) to run it in a worker. '
    + "See \"Worker mode\" in pyclient's deployment guide.");
}

// Without sessionStorage nothing would stop a reload loop.
function noStorage() {
  fallBack("service-worker-unavailable",
    `it names the service worker ${coiWorker}, but sessionStorage, which guards its one reload, is not available`);
}

function recall() {
  try { return sessionStorage.getItem(TRIED); } catch { return undefined; }
}

function remember(outcome) {
  try { sessionStorage.setItem(TRIED, outcome); return true; } catch { return false; }
}

function forget() {
  try { sessionStorage.removeItem(TRIED); } catch { /* nothing to forget */ }
}
