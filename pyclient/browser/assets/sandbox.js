// The page's half of `python_tool` (pyclient/browser/toolkit/_python.py): Python the model sends,
// run in a sandbox of its own, never in the page's interpreter.
//
// A sandbox is a Pyodide in a dedicated worker, started by a hidden iframe that has
//   - an opaque origin (`sandbox="allow-scripts"`, no `allow-same-origin`): no cookies, no
//     IndexedDB, localStorage or caches of the page's origin, no reference to the page;
//   - a Content-Security-Policy that allows no request at all (`connect-src blob:`, scripts only
//     from `blob:`), which its worker inherits: a `fetch`, XHR, WebSocket or `import()` of any
//     http(s) URL, the page's own origin included, is refused by the browser before it leaves.
// So the worker cannot fetch Pyodide either: this module fetches the runtime's files (from the
// HTTP cache the page's own boot filled) and hands them over as bytes; the worker serves them to
// Pyodide from memory. A run that passes its time limit ends by removing the iframe, which ends
// its worker: the page's thread never waits on the sandbox's.
//
// Python reaches this module through `pyclientSandbox` (a read-only global), as `settled()` calls
// a page API that answers with a promise, from the main thread or from pyclient's own worker:
// `run(key, requestJson)` answers a JSON text; `end(key)` drops the sandbox of `key`.

const POLICY = "default-src 'none'; script-src 'unsafe-inline' blob: 'wasm-unsafe-eval'; "
  + "worker-src blob:; connect-src blob:; base-uri 'none'; form-action 'none'";
// The iframe's one script: start the worker from the source the page posts, hand it the channel.
const FRAME = `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${POLICY}">
<script>
addEventListener("message", (event) => {
  if (event.source !== parent || !event.ports.length || typeof event.data?.worker !== "string") return;
  const url = URL.createObjectURL(new Blob([event.data.worker], { type: "text/javascript" }));
  const worker = new Worker(url);   // classic: a module worker cannot start from an opaque origin's blob: URL
  worker.postMessage({ port: event.ports[0] }, [event.ports[0]]);
});
</script>`;
const BOOT_LIMIT_MS = 120_000;

// The worker. It runs with the iframe's policy, so nothing here can reach the network.
const WORKER = String.raw`
const BASE = "https://pyclient-sandbox.invalid/";
let port = null, pyodide = null, run = null;
const answer = (message) => port.postMessage(message);
self.onmessage = ({ data }) => {
  port = data.port;
  port.onmessage = ({ data }) => (data.type === "boot" ? boot(data) : execute(data)).catch(
    (error) => answer({ type: data.type === "boot" ? "failed" : "result", id: data.id,
                        result: { ok: false, crashed: true, error: String(error?.message ?? error) } }));
};
const blobUrl = (bytes, type) => URL.createObjectURL(new Blob([bytes], { type }));

async function boot({ files, scripts, lock, packages, memoryBytes, runner }) {
  const started = performance.now();
  const served = new Map(Object.entries(files).map(([name, bytes]) => [BASE + name, bytes]));
  const ownFetch = self.fetch;
  // Pyodide's files from memory; any other URL goes to the browser, which the policy refuses.
  self.fetch = function fetch(input, init) {
    const url = String(input?.url ?? input);
    if (!served.has(url)) return ownFetch(input, init);
    const type = url.endsWith(".wasm") ? "application/wasm" : "application/octet-stream";
    return Promise.resolve(new Response(served.get(url), { headers: { "content-type": type } }));
  };
  // The memory ceiling: Pyodide's heap grows through Memory.grow; past the ceiling the growth
  // fails, malloc returns NULL and Python raises MemoryError.
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function (pages) {
    if (this.buffer.byteLength + pages * 65536 > memoryBytes) throw new RangeError("the sandbox's memory ceiling");
    return grow.call(this, pages);
  };
  // Classic scripts (see classic() on the page's side): they define these two globals.
  importScripts(blobUrl(scripts.asm, "text/javascript"), blobUrl(scripts.loader, "text/javascript"));
  const { createPyodideModule, loadPyodide } = self;
  pyodide = await loadPyodide({
    indexURL: BASE, packageBaseUrl: BASE, stdLibURL: BASE + "python_stdlib.zip", lockFileContents: lock,
    createPyodideModule, checkAPIVersion: true, env: { HOME: "/home/pyodide" },
  });
  if (packages.length) await pyodide.loadPackage(packages, { messageCallback: () => {}, errorCallback: () => {} });
  run = pyodide.runPython(runner);
  answer({ type: "booted", ms: performance.now() - started });
}

// The runner (pyclient/browser/toolkit/_sandbox_runner.py) answers a JSON text.
async function execute({ id, code, files, caps }) {
  answer({ type: "result", id, result: await run(code, files, caps.stdout, caps.stderr, caps.outputBytes) });
}
`;

const own = Object.hasOwn;
const runtimeCache = new Map();   // URL -> Promise<ArrayBuffer>: fetched once per page
const sandboxes = new Map();      // key -> Sandbox

function bytesOf(url) {
  if (!runtimeCache.has(url)) {
    runtimeCache.set(url, fetch(url).then((response) => {
      if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
      return response.arrayBuffer();
    }));
    runtimeCache.get(url).catch(() => runtimeCache.delete(url));
  }
  return runtimeCache.get(url);
}

// The wheels of `names` and of what they depend on, as the runtime's lock names them.
function closure(lock, names) {
  const seen = new Set();
  const visit = (name) => {
    const key = String(name).toLowerCase().replaceAll("_", "-");
    if (seen.has(key)) return;
    const entry = lock.packages[key];
    if (!entry) throw new Error(`the runtime has no package "${name}": build the runtime with it (pyclient vendor, or the page's packages)`);
    seen.add(key);
    for (const dependency of entry.depends ?? []) visit(dependency);
  };
  for (const name of names) visit(name);
  return [...seen];
}

// A module worker cannot start from an opaque origin's `blob:` URL (Chromium refuses it, and a
// dynamic import() of one), so the sandbox's worker is a classic one, which loads Pyodide's two
// ES modules as classic scripts: their `export`s become globals, `import.meta.url` (read only
// under Node.js) the script's own address. A Pyodide whose files no longer match says so.
function classic(text, name, replacements) {
  let script = text;
  for (const [pattern, replacement] of replacements) {
    if (!pattern.test(script)) throw new Error(`${name} is not the Pyodide this pyclient knows (no ${pattern})`);
    script = script.replace(pattern, replacement);
  }
  return script;
}

async function classicScripts(index) {
  const text = async (name) => new TextDecoder().decode(await bytesOf(new URL(name, index).href));
  const [asm, loader] = await Promise.all([text("pyodide.asm.mjs"), text("pyodide.mjs")]);
  return {
    asm: classic(asm, "pyodide.asm.mjs", [[/import\.meta\.url/g, "self.location.href"],
      [/export default (\w+);?\s*$/, "self.createPyodideModule = $1;"]]),
    loader: classic(loader, "pyodide.mjs", [[/export\s*\{\s*(\w+) as loadPyodide\s*,\s*(\w+) as version\s*\};?\s*(\/\/# sourceMappingURL=\S*)?\s*$/,
      "self.loadPyodide = $1;"]]),
  };
}

function decode(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes;
}

class Sandbox {
  constructor(key, request) {
    this.key = key;
    this.pending = new Map();   // run id -> resolve
    this.next = 0;
    this.frame = document.createElement("iframe");
    this.frame.setAttribute("sandbox", "allow-scripts");
    this.frame.setAttribute("aria-hidden", "true");
    this.frame.setAttribute("tabindex", "-1");
    this.frame.dataset.pyclientSandbox = key;
    this.frame.style.display = "none";
    this.frame.srcdoc = FRAME;
    this.booted = this.boot(request);
  }

  async boot(request) {
    const index = new URL(request.indexURL, location.href).href;
    const lockText = new TextDecoder().decode(await bytesOf(index + "pyodide-lock.json"));
    const lock = JSON.parse(lockText);
    const packages = closure(lock, request.packages);
    const names = ["pyodide.asm.wasm", "python_stdlib.zip", ...packages.map((name) => lock.packages[name].file_name)];
    const fetched = await Promise.all(names.map((name) => bytesOf(new URL(name, index).href)));
    const scripts = await classicScripts(index);
    const loaded = new Promise((resolve) => this.frame.addEventListener("load", resolve, { once: true }));
    document.body.append(this.frame);
    await loaded;
    const channel = new MessageChannel();
    this.port = channel.port1;
    const booted = new Promise((resolve, reject) => {
      this.port.onmessage = ({ data }) => {
        if (data.type === "booted") resolve(data.ms);
        else if (data.type === "failed") reject(new Error(`the Python sandbox did not start: ${data.message ?? data.result?.error}`));
        else if (data.type === "result" && this.pending.has(data.id)) this.pending.get(data.id)(data.result);
      };
    });
    this.frame.contentWindow.postMessage({ worker: WORKER }, "*", [channel.port2]);
    // Copies: the cache keeps its bytes for the next sandbox.
    const files = Object.fromEntries(names.map((name, i) => [name, fetched[i].slice(0)]));
    this.port.postMessage({ type: "boot", files, scripts, lock: lockText, packages, memoryBytes: request.memoryBytes,
                            runner: request.runner }, Object.values(files));
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the Python sandbox did not start within ${BOOT_LIMIT_MS / 1000} s`)), BOOT_LIMIT_MS);
    });
    try { return await Promise.race([booted, late]); } finally { clearTimeout(timer); }
  }

  run(request) {
    const id = (this.next += 1);
    const files = Object.fromEntries(Object.entries(request.files ?? {}).map(([name, data]) => [name, decode(data)]));
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.port.postMessage({ type: "run", id, code: request.code, files, caps: request.caps });
    }).finally(() => this.pending.delete(id));
  }

  end(reason) {
    this.frame.remove();   // the iframe's document goes, and its worker with it
    if (this.port) this.port.close();
    for (const resolve of this.pending.values()) resolve({ ok: false, ended: reason });
    this.pending.clear();
  }
}

function end(key, reason = "ended") {
  const sandbox = sandboxes.get(key);
  if (!sandbox) return false;
  sandboxes.delete(key);
  sandbox.end(reason);
  return true;
}

async function run(key, requestJson) {
  const request = JSON.parse(requestJson);
  let fresh = false;
  let sandbox = sandboxes.get(key);
  if (!sandbox) {
    sandbox = new Sandbox(key, request);
    sandboxes.set(key, sandbox);
    fresh = true;
  }
  let bootMs;
  try {
    bootMs = await sandbox.booted;
  } catch (error) {
    end(key, "failed");
    return JSON.stringify({ ok: false, failed: String(error?.message ?? error), fresh });
  }
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, ended: "timeout" }), request.timeoutMs);
  });
  const answered = await Promise.race([sandbox.run(request), late]);
  clearTimeout(timer);
  const result = typeof answered === "string" ? JSON.parse(answered) : answered;
  // Ended, by its time limit or a crash: the next run gets a fresh interpreter (unless another
  // run has already put a new sandbox in its place).
  if ((result.ended || result.crashed) && sandboxes.get(key) === sandbox) end(key, result.ended ?? "crashed");
  return JSON.stringify({ ...result, fresh, bootMs: fresh ? bootMs : undefined });
}

const api = Object.freeze({ run, end });
if (!own(globalThis, "pyclientSandbox")) {
  Object.defineProperty(globalThis, "pyclientSandbox", { value: api, enumerable: false, writable: false, configurable: false });
}
