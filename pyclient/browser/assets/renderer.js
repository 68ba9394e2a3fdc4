// The main-thread half of pyclient's worker mode (pyclient/browser/_page/_mirror/).
//
// In a `<script type="py" worker>` page the chat's Python runs in the worker, where every DOM
// access through PyScript's proxies is a blocking round trip to this thread. So the worker
// keeps a mirror
// of the nodes it made and posts what changed as one batch of operations per task (one
// `postMessage` per frame while an answer streams); this module applies a batch in one go and
// forwards the events of the nodes the worker listens on, after doing here, where the event
// happens, what cannot wait for the worker: `preventDefault()` by a rule the worker named, and
// reading `isTrusted`, the files of a drop or a paste, the key.
//
// Nothing here is Python: it runs before and while Pyodide boots and never blocks. The worker
// reaches it through `pyclientRenderer` (a global): `connect(token)` once, `adopt(token, node)`
// for a page node the mirror should know, `node(token, id)` for the real node behind a mirror
// node (reads of live state: an input's value, a list's scroll position), `settle(...)` for a
// page API that answers with a promise.
//
// Trust. The worker acts on a person's click (an approval, a delete) only when the event says
// the browser made it (`isTrusted`), so that decision and what the event names (its type, the
// node it happened on, the files it carries) are read here, where the event happens, with
// references captured when this module loads: a script that runs later cannot reach them by
// patching `MessagePort.prototype.postMessage`, `Map.prototype.get`, `Node.prototype.parentNode`
// or `window.pyclientRenderer` (defined read-only below). The events go to the worker on a
// channel the worker made, whose page end comes in its hello: this module hears every worker's
// messages first (it listens on each `Worker` from its construction, see `watch`) and hides
// pyclient's from the page's other listeners, so no page script holds that end. What a script
// that runs *before* this module can still do is in docs/troubleshooting.md.

// Node's "primordials", in small: a method or getter captured now, called later as a function.
const { apply: callWith, defineProperty, getOwnPropertyDescriptor } = Reflect;
const { freeze, hasOwn } = Object;
// A field of a message's data, only if the data has it itself (not from a patched prototype).
const own = (data, key) => (hasOwn(data, key) ? data[key] : undefined);
const uncurry = (fn) => (self, ...args) => callWith(fn, self, args);
const getter = (proto, name) => uncurry(getOwnPropertyDescriptor(proto, name).get);
const mapGet = uncurry(Map.prototype.get);
const mapSet = uncurry(Map.prototype.set);
const mapDelete = uncurry(Map.prototype.delete);
const weakGet = uncurry(WeakMap.prototype.get);
const weakSet = uncurry(WeakMap.prototype.set);
const parentOf = getter(Node.prototype, "parentNode");
const typeOf = getter(Event.prototype, "type");
const targetOf = getter(Event.prototype, "target");
const currentTargetOf = getter(Event.prototype, "currentTarget");
const preventedOf = getter(Event.prototype, "defaultPrevented");
const preventDefault = uncurry(Event.prototype.preventDefault);
const stopNow = uncurry(Event.prototype.stopImmediatePropagation);
const dataOf = getter(MessageEvent.prototype, "data");
const detailOf = getter(CustomEvent.prototype, "detail");
const listen = uncurry(EventTarget.prototype.addEventListener);
const portPost = uncurry(MessagePort.prototype.postMessage);
const { KeyboardEvent: Keys, MouseEvent: Mouse, ClipboardEvent: Clipboard, DragEvent: Drag, HTMLInputElement: Input } = globalThis;
const keyOf = getter(Keys.prototype, "key");
const MODIFIERS = ["shiftKey", "ctrlKey", "metaKey", "altKey"];
const keyModifiers = MODIFIERS.map((name) => getter(Keys.prototype, name));
const mouseModifiers = MODIFIERS.map((name) => getter(Mouse.prototype, name));
const inputFiles = getter(Input.prototype, "files");
const clipboardOf = getter(Clipboard.prototype, "clipboardData");
const transferOf = getter(Drag.prototype, "dataTransfer");
const transferFiles = getter(DataTransfer.prototype, "files");
const transferTypes = getter(DataTransfer.prototype, "types");
const getData = uncurry(DataTransfer.prototype.getData);
const listLength = getter(FileList.prototype, "length");
const listItem = uncurry(FileList.prototype.item);
// A getter of another interface throws on this event ("Illegal invocation"): no such field.
const read = (get, self) => { try { return get(self); } catch { return undefined; } };

const NODE = new WeakMap(); // real node -> its id, per worker: Map(token -> id) kept on the node

const workers = new Map(); // token -> { nodes: Map(id -> node), port, next }

function table(token) {
  let entry = mapGet(workers, token);
  if (!entry) mapSet(workers, token, (entry = { nodes: new Map(), port: null, next: -1 }));
  return entry;
}

function remember(entry, token, id, node) {
  mapSet(entry.nodes, id, node);
  let ids = weakGet(NODE, node);
  if (!ids) weakSet(NODE, node, (ids = new Map()));
  mapSet(ids, token, id);
}

// The rules a listener may name for preventDefault(), decided here, synchronously.
const PREVENT = {
  always: () => true,
  // A paste of files with no text (text still goes into the input).
  files_only: (event) => {
    const data = read(clipboardOf, event);
    return !!data && listLength(transferFiles(data)) > 0 && !getData(data, "text/plain");
  },
  // A drag that carries files: cancelled, else the dropped file replaces the page.
  dragged_files: (event) => {
    const data = read(transferOf, event);
    return !!data && list(transferTypes(data)).includes("Files");
  },
  escape: (event) => read(keyOf, event) === "Escape",
};

function nearest(entry, token, node) {
  // The id of `node` or its nearest ancestor the worker knows (a link inside Markdown is not).
  for (let at = node; at; at = read(parentOf, at)) {
    const ids = weakGet(NODE, at);
    const id = ids && mapGet(ids, token);
    if (id !== undefined && mapGet(entry.nodes, id) === at) return id;
  }
  return null;
}

// A FileList or the types' frozen array as a plain array, by index (no iterator to patch).
function list(items, length = items.length, item = (i) => items[i]) {
  const out = [];
  for (let i = 0; i < length; i++) out[i] = item(i);
  return out;
}
const files = (fileList) => list(fileList, listLength(fileList), (i) => listItem(fileList, i));

function forward(token, id, type, rule) {
  return (event) => {
    const entry = mapGet(workers, token);
    if (!entry || !entry.port) return;
    if (rule && PREVENT[rule]?.(event)) preventDefault(event);
    const modifiers = read(keyOf, event) !== undefined ? keyModifiers : mouseModifiers;
    const [shiftKey, ctrlKey, metaKey, altKey] = modifiers.map((get) => !!read(get, event));
    const data = {
      id, type: typeOf(event), isTrusted: event.isTrusted, // isTrusted: an own, unforgeable property
      target: nearest(entry, token, targetOf(event)),
      key: read(keyOf, event) ?? null, shiftKey, ctrlKey, metaKey, altKey,
      defaultPrevented: preventedOf(event),
    };
    const target = targetOf(event);
    const clipboard = read(clipboardOf, event);
    const transfer = read(transferOf, event);
    const chosen = read(inputFiles, target) ?? (clipboard && transferFiles(clipboard)) ?? (transfer && transferFiles(transfer));
    if (chosen) data.files = files(chosen); // File objects are cloned to the worker
    // The chat's shell (shell.js) hands over a message or files: its text, id and files.
    const detail = read(detailOf, event);
    if (detail && typeof detail === "object") {
      data.detail = { id: Number(detail.id) || 0, text: String(detail.text ?? "") };
      if (Array.isArray(detail.files)) data.files = list(detail.files).filter((file) => file instanceof File);
    }
    if (clipboard) data.text = getData(clipboard, "text/plain");
    if (transfer) data.types = list(transferTypes(transfer));
    // A scroll handler reads where the box is: sent along, so it needs no round trip back.
    if (data.type === "scroll") {
      const box = currentTargetOf(event);
      data.scroll = [box.scrollTop, box.scrollHeight, box.clientHeight];
    }
    portPost(entry.port, data);
  };
}

function apply(token, ops) {
  const entry = table(token);
  const nodes = entry.nodes;
  const get = (id) => mapGet(nodes, id);
  const many = (ids) => ids.map((id) => (typeof id === "string" ? id : mapGet(nodes, id)));
  for (const op of ops) {
    const [code, id] = op;
    switch (code) {
      case "e": remember(entry, token, id, document.createElement(op[2])); break;
      case "t": remember(entry, token, id, document.createTextNode(op[2])); break;
      case "f": remember(entry, token, id, document.createDocumentFragment()); break;
      case "a":
        if (op[3] === null) get(id).removeAttribute(op[2]);
        else get(id).setAttribute(op[2], op[3]);
        break;
      case "p": get(id)[op[2]] = op[3]; break;
      case "s":
        if (op[2] === "cssText") get(id).style.cssText = op[3];
        else if (op[2].includes("-")) get(id).style.setProperty(op[2], op[3]); // --custom, kebab-case
        else get(id).style[op[2]] = op[3];
        break;
      case "c": get(id).classList.toggle(op[2], op[3]); break;
      case "append": get(id).append(...many(op[2])); break;
      case "prepend": get(id).prepend(...many(op[2])); break;
      case "before": get(id).before(...many(op[2])); break;
      case "after": get(id).after(...many(op[2])); break;
      case "insert": get(id).insertBefore(get(op[2]), op[3] === null ? null : get(op[3])); break;
      case "children": get(id).replaceChildren(...many(op[2])); break;
      case "replace": get(id).replaceWith(...many(op[2])); break;
      case "remove": get(id).remove(); break;
      case "clone": { // the copy's nodes, in document order, get the ids the worker gave them
        const copy = get(id).cloneNode(op[2]);
        const walker = document.createTreeWalker(copy, NodeFilter.SHOW_ALL);
        let index = 0;
        for (let node = copy; node && index < op[3].length; node = walker.nextNode()) {
          remember(entry, token, op[3][index++], node);
        }
        break;
      }
      case "data": get(id).appendData(op[2]); break;
      case "call": get(id)[op[2]](...op[3]); break;
      case "end": { // ["end", id, slack, force]
        // The worker follows the end of a list until it hears the person scrolled away; a
        // scroll it asked for before it heard must not undo theirs, so the page, where the
        // scroll happens, keeps the last word: away by more than `slack` px, no follow unless
        // forced (the person's own "jump to the end").
        const node = get(id);
        if (!node.__pyclientEnd) {
          node.__pyclientEnd = { away: false };
          node.addEventListener("scroll", () => {
            node.__pyclientEnd.away = node.scrollHeight - node.scrollTop - node.clientHeight > op[2];
          }, { passive: true });
        }
        if (node.__pyclientEnd.away && !op[3]) break;
        node.scrollTop = node.scrollHeight;
        node.__pyclientEnd.away = false;
        break;
      }
      case "hold": { // ["hold", id]: the distance from the end, kept across an insertion above
        const node = get(id);
        node.__pyclientHeld = node.scrollHeight - node.scrollTop;
        break;
      }
      case "release": { // ["release", id]: back to that distance (what the person reads stays put)
        const node = get(id);
        if (node.__pyclientHeld !== undefined) node.scrollTop = node.scrollHeight - node.__pyclientHeld;
        delete node.__pyclientHeld;
        break;
      }
      case "listen": {
        const node = get(id);
        const listener = forward(token, id, op[2], op[3]);
        mapSet(node.__pyclient ??= new Map(), `${token} ${op[2]}`, listener);
        listen(node, op[2], listener);
        break;
      }
      case "unlisten": {
        const node = get(id);
        const key = `${token} ${op[2]}`;
        const listener = node?.__pyclient && mapGet(node.__pyclient, key);
        if (listener) { node.removeEventListener(op[2], listener); mapDelete(node.__pyclient, key); }
        break;
      }
      case "forget": mapDelete(nodes, id); break;
      default: console.error(`pyclient renderer: unknown operation ${JSON.stringify(code)}`);
    }
  }
}

// A worker's batches and its hello come as messages from its `Worker` object on the page. Each
// one is listened to once, from its construction where this module loaded before PyScript
// (`watch` below), else when its Python connects (`hook`): then a page script that listened
// first holds the page's end of the events' channel (see docs/troubleshooting.md, "Hostile servers and pages").
const WATCHED = new WeakMap(); // Worker -> true

function watch(worker) {
  if (weakGet(WATCHED, worker)) return;
  weakSet(WATCHED, worker, true);
  listen(worker, "message", (event) => {
    const data = dataOf(event);
    // What the worker's Python wrote to stderr, from pyclient.js's PyScript hook; and PyScript's
    // own report of a worker that failed to start, an Error (its XWorker logs it, and still gets it).
    if (data instanceof Error && event.isTrusted) return showWorkerError(data.message);
    if (data && typeof own(data, "pyclientError") === "string") {
      stopNow(event);
      if (event.isTrusted) showWorkerError(own(data, "pyclientError"));
      return;
    }
    if (!data || typeof data !== "object" || typeof own(data, "pyclient") !== "string") return;
    // pyclient's messages are for this module only (a script's own MessageEvent is not trusted).
    stopNow(event);
    if (!event.isTrusted) return;
    const token = own(data, "pyclient");
    const entry = table(token);
    const port = own(data, "port");
    const ops = own(data, "ops");
    if (port !== undefined) { // the hello: the worker's end of its events' channel
      if (entry.port) return console.error("pyclient renderer: a second hello for one worker, ignored");
      entry.port = port;
      return;
    }
    if (ops === undefined) return;
    try {
      apply(token, typeof ops === "string" ? JSON.parse(ops) : ops);
    } catch (error) {
      // A batch that fails must not stop the next: the page keeps working, and says why.
      console.error("pyclient renderer: a batch of DOM updates failed:", error);
    }
  });
}

// Errors of a page's Python at start-up, where the page shows them. On the main thread PyScript
// appends its error box (`div.py-error`, unwrapped) to <body>; a worker's Python writes its
// traceback to the worker's stderr, which pyclient.js's PyScript hook sends here, and the same box
// is made. Either is placed as pyclient.browser._platform._startup places one: in the element
// marked `data-pyclient-errors` (`show_startup_errors(element)`, or the page's own HTML, for errors
// before Python starts), else under the first chat's header, else in the first thread element,
// else at the end of the page, in view; wrapped, scrolled to its end (the message and its fix).
const PLACED = new WeakSet();
// Pyodide's own hint for a missing package (micropip) is not the fix for a page: its config is.
const NO_PYCLIENT = /No module named '?pyclient\b/;
const CONFIG_HINT = "pyclient: the page's PyScript config lists no pyclient: add \"packages\": [\"pyclient-agui\"] to it "
  + "(pyscript.json; `pyclient vendor` writes one), and load it with config=\"pyscript.json\" on the script tag.";

function showWorkerError(text) {
  if (!text) return;
  const box = document.createElement("div");
  box.className = "py-error";
  box.textContent = text;
  box.style.cssText = "border: 1px solid red; background: #ffdddd; color: black; font-family: courier, monospace; "
    + "padding: 8px; margin-top: 8px;";  // PyScript's box, as its error plugin styles it
  placeErrorBox(box);
}

// Python prints the exception's own line last ("ValueError: ...", possibly over more lines).
const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)\b.*:|^[A-Za-z_][\w.]*(Error|Exception)$/;

// The box says the exception's line (and its fix, which pyclient's errors put at its end) first;
// the traceback above it is folded under "Traceback", for whoever needs the frames.
function foldTraceback(box) {
  const text = box.textContent.trimEnd();
  const lines = text.split("\n");
  let start = lines.length - 1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (EXCEPTION_LINE.test(lines[i])) { start = i; break; }
  }
  while (start > 0 && !lines[start].trim()) start--;
  const said = document.createElement("p");
  said.className = "pyclient-error-line";
  said.style.margin = "0";
  said.textContent = lines.slice(start).join("\n") + (NO_PYCLIENT.test(text) ? `\n${CONFIG_HINT}` : "");
  box.replaceChildren(said);
  if (start === 0) return said.textContent;
  const frames = document.createElement("details");
  frames.className = "pyclient-error-traceback";
  const label = document.createElement("summary");
  label.textContent = "Traceback";
  label.style.cursor = "pointer";
  const pre = document.createElement("pre");
  pre.style.cssText = "margin: 0.3rem 0 0; white-space: pre-wrap; font: inherit;";
  pre.textContent = lines.slice(0, start).join("\n");
  frames.append(label, pre);
  frames.style.marginTop = "0.4rem";
  box.append(frames);
  return said.textContent;
}

// `pyclient serve` marks the pages it answers with a Server-Timing entry (headers are not readable
// here; that is): its log prints the same line, for whoever watches the terminal and not the page.
// A page on any other server posts nothing (pyclient/server/_page_errors.py).
function tellServer(line) {
  const [navigation] = performance.getEntriesByType?.("navigation") ?? [];
  if (!navigation?.serverTiming?.some((entry) => entry.name === "pyclient-serve")) return;
  fetch("/pyclient/startup-error", {  // where pyclient serve answers it, whatever folder the page is in
    method: "POST", keepalive: true, headers: { "content-type": "application/json" },
    body: JSON.stringify({ page: location.pathname, error: line.slice(0, 2000) }),
  }).catch(() => {}); // the page already shows it
}

function placeErrorBox(box) {
  if (PLACED.has(box)) return;
  PLACED.add(box);
  tellServer(foldTraceback(box));
  box.style.whiteSpace = "pre-wrap";
  box.style.overflowWrap = "anywhere";
  const scope = document.querySelector("[data-pyclient-errors]");
  const chat = scope ? (scope.matches(".pyclient-chat") ? scope : scope.querySelector(".pyclient-chat"))
    : document.querySelector(".pyclient-chat");
  const header = chat?.querySelector(":scope > .pyclient-header");
  const thread = document.querySelector("[data-pyclient-thread]");
  if (header) header.after(box);
  else if (chat) chat.prepend(box);
  else if (scope) scope.prepend(box);
  else if (thread) thread.prepend(box);
  else {
    box.style.maxHeight = "60vh";
    box.style.overflowY = "auto";
    if (box.parentNode !== document.body) document.body.append(box);
    box.scrollIntoView({ block: "nearest" });
  }
  box.scrollTop = box.scrollHeight;
}

// PyScript's boxes on the main thread, from the first (a package that cannot be installed fails
// before any of pyclient's Python runs).
if (typeof document !== "undefined" && document.body) {
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType === 1 && node.classList.contains("py-error")) placeErrorBox(node);
      }
    }
  }).observe(document.body, { childList: true });
}

function hook(token) {
  // Workers made before this module loaded (it was evaluated by the worker itself): each worker
  // script's `XWorker` (PyScript sets `script.xworker` before the worker starts).
  for (const script of document.querySelectorAll("script[worker]")) {
    if (script.xworker) watch(script.xworker);
  }
  table(token);
}

// Every Worker made from now on is watched from its construction, before any other script can
// hold it: PyScript's XWorker extends the `Worker` it finds on the page when its module loads,
// after this one (pyclient.js comes first).
if (typeof Worker === "function" && !globalThis.Worker.__pyclientWatched) {
  const Base = globalThis.Worker;
  const Watched = class Worker extends Base {
    constructor(...args) {
      super(...args);
      watch(this);
    }
  };
  defineProperty(Watched, "__pyclientWatched", { value: true });
  // Read-only: a later script cannot put a Worker of its own (one that listens first) in its place.
  defineProperty(globalThis, "Worker", { value: Watched, writable: false, configurable: false, enumerable: false });
}

const renderer = freeze({
  version: 2,
  connect(token) { hook(token); return true; },
  adopt(token, node) {
    const entry = table(token);
    const ids = weakGet(NODE, node);
    const known = ids && mapGet(ids, token);
    if (known !== undefined && mapGet(entry.nodes, known) === node) return known;
    const id = entry.next--; // adopted page nodes count down, the worker's own up
    remember(entry, token, id, node);
    return id;
  },
  node(token, id) { const entry = mapGet(workers, token); return (entry && mapGet(entry.nodes, id)) ?? null; },
  // A page API that answers with a promise (the clipboard's), called for a worker: through
  // PyScript's proxy the worker would block until it settles (a permission prompt: for as long
  // as the user takes). Returns at once; `done(value)` or `done(undefined, errorName, errorMessage)` hears later.
  settle(target, method, argsJson, done) {
    Promise.resolve()
      .then(() => target[method](...JSON.parse(argsJson || "[]")))
      // Only what is there is passed: a JS null would reach Python as `jsnull`, not None.
      .then((value) => (value == null ? done() : done(value)),
            (error) => done(undefined, String(error?.name ?? "Error"), String(error?.message ?? error)));
  },
});

// Read-only and for good: a later script cannot put another renderer in its place.
if (!getOwnPropertyDescriptor(globalThis, "pyclientRenderer")) {
  defineProperty(globalThis, "pyclientRenderer", { value: renderer, enumerable: false, writable: false, configurable: false });
}
