// The main-thread half of pyclient's worker mode (pyclient/browser/_mirror/).
//
// In a `<script type="py" worker>` page the chat's Python runs in the worker, where every DOM
// access through PyScript's proxies is a blocking round trip to this thread (0.1 ms a property
// read, 1-13 ms a call that returns a node, measured in Chromium). So the worker keeps a mirror
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

const NODE = new WeakMap(); // real node -> its id, per worker: Map(token -> id) kept on the node

const workers = new Map(); // token -> { nodes: Map(id -> node), xworker }

function table(token) {
  let entry = workers.get(token);
  if (!entry) workers.set(token, (entry = { nodes: new Map(), port: null, next: -1 }));
  return entry;
}

function remember(entry, token, id, node) {
  entry.nodes.set(id, node);
  let ids = NODE.get(node);
  if (!ids) NODE.set(node, (ids = new Map()));
  ids.set(token, id);
}

// The rules a listener may name for preventDefault(), decided here, synchronously.
const PREVENT = {
  always: () => true,
  // A paste of files with no text (text still goes into the input).
  files_only: (event) => {
    const data = event.clipboardData;
    return !!data && data.files.length > 0 && !data.getData("text/plain");
  },
  // A drag that carries files: cancelled, else the dropped file replaces the page.
  dragged_files: (event) => !!event.dataTransfer && [...event.dataTransfer.types].includes("Files"),
  escape: (event) => event.key === "Escape",
};

function nearest(entry, token, node) {
  // The id of `node` or its nearest ancestor the worker knows (a link inside Markdown is not).
  for (let at = node; at; at = at.parentNode) {
    const id = NODE.get(at)?.get(token);
    if (id !== undefined && entry.nodes.get(id) === at) return id;
  }
  return null;
}

function forward(token, id, type, rule) {
  return (event) => {
    const entry = workers.get(token);
    if (!entry || !entry.port) return;
    if (rule && PREVENT[rule]?.(event)) event.preventDefault();
    const data = {
      id, type: event.type, isTrusted: event.isTrusted,
      target: nearest(entry, token, event.target),
      key: event.key ?? null, shiftKey: !!event.shiftKey, ctrlKey: !!event.ctrlKey,
      metaKey: !!event.metaKey, altKey: !!event.altKey, defaultPrevented: event.defaultPrevented,
    };
    const files = event.target?.files ?? event.clipboardData?.files ?? event.dataTransfer?.files;
    if (files) data.files = [...files]; // File objects are cloned to the worker
    if (event.clipboardData) data.text = event.clipboardData.getData("text/plain");
    if (event.dataTransfer) data.types = [...event.dataTransfer.types];
    // A scroll handler reads where the box is: sent along, so it needs no round trip back.
    if (event.type === "scroll") {
      const box = event.currentTarget;
      data.scroll = [box.scrollTop, box.scrollHeight, box.clientHeight];
    }
    entry.port.postMessage(data);
  };
}

function apply(token, ops) {
  const entry = table(token);
  const nodes = entry.nodes;
  const get = (id) => nodes.get(id);
  const many = (ids) => ids.map((id) => (typeof id === "string" ? id : nodes.get(id)));
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
        (node.__pyclient ??= new Map()).set(`${token} ${op[2]}`, listener);
        node.addEventListener(op[2], listener);
        break;
      }
      case "unlisten": {
        const node = get(id);
        const key = `${token} ${op[2]}`;
        const listener = node?.__pyclient?.get(key);
        if (listener) { node.removeEventListener(op[2], listener); node.__pyclient.delete(key); }
        break;
      }
      case "forget": nodes.delete(id); break;
      default: console.error(`pyclient renderer: unknown operation ${JSON.stringify(code)}`);
    }
  }
}

function hook(token) {
  // A worker's batches come as messages from its `XWorker` (PyScript sets `script.xworker`
  // before the worker starts): each worker script's is listened to once.
  for (const script of document.querySelectorAll("script[worker]")) {
    const xworker = script.xworker;
    if (!xworker || xworker.__pyclient) continue;
    xworker.__pyclient = true;
    xworker.addEventListener("message", ({ data }) => {
      if (!data || typeof data.pyclient !== "string") return;
      const entry = table(data.pyclient);
      // Events go back on a port of their own: PyScript hands every message on the worker's
      // own port to Python's `xworker.onmessage`.
      if (data.port) entry.port = data.port;
      if (data.ops === undefined) return;
      try {
        apply(data.pyclient, typeof data.ops === "string" ? JSON.parse(data.ops) : data.ops);
      } catch (error) {
        // A batch that fails must not stop the next: the page keeps working, and says why.
        console.error("pyclient renderer: a batch of DOM updates failed:", error);
      }
    });
  }
  table(token);
}

globalThis.pyclientRenderer = {
  version: 1,
  connect(token) { hook(token); return true; },
  adopt(token, node) {
    const entry = table(token);
    const known = NODE.get(node)?.get(token);
    if (known !== undefined && entry.nodes.get(known) === node) return known;
    const id = entry.next--; // adopted page nodes count down, the worker's own up
    remember(entry, token, id, node);
    return id;
  },
  node(token, id) { return workers.get(token)?.nodes.get(id) ?? null; },
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
};
