// The chat's shell: what a Chat shows from the page's first paint, before Python has started.
//
//   <section id="chat" data-pyclient-chat data-placeholder="Ask me" data-suggestions='["Make it blue"]'></section>
//
// pyclient.js draws it in every element marked `data-pyclient-chat`, from the chat's own
// stylesheet and with the chat's own classes: a header, the welcome and its suggestions, and
// the composer, which takes text, files (the attach button, a paste, a drop) and Enter at once.
// A message sent before Python is ready waits in the outbox (`ol.pyclient-outbox`, shown as
// sending); its text is also kept in sessionStorage, so a page closed or reloaded before Python
// took it shows that text in the composer again (never sent twice: the person sends it again).
//
// `Chat(thread, element)` adopts the shell (pyclient/browser/_chat/_shell.py): it keeps the
// shell's root, form, input and outbox (focus, caret and text stay), puts its own nodes beside
// them, and sets `data-shell="adopted"` on the root. Then the shell removes its provisional
// parts (`data-shell-part`) in the same frame and hands Python what it holds, as events on the
// form: `pyclient-attach` (files attached, not sent) and one `pyclient-send` per waiting message,
// in order, each exactly once. From then on the composer stays the shell's: Enter empties the
// input and shows the message in the outbox at once, on the page's thread, and the same event
// carries it to Python (in worker mode a round trip away); Python marks the outbox
// `data-taken="<id>"` in the frame that draws the message's own bubble, and the outbox item goes.

const STYLE_ID = "pyclient-chat-style";  // pyclient.browser._chat._stylesheet.STYLE_ID
const UNSENT = "pyclient-unsent:";        // sessionStorage: + the page's path and the element's id
// The chat's own words (pyclient.browser._chat._chat); tests/unit/browser/assets/test_shell_js.py
// checks that they agree, so that nothing changes when Python takes over.
export const WELCOME = "Start the conversation: type a message below.";
export const WELCOME_SUGGESTED = "Start the conversation: ask a question or try a suggestion.";
export const PLACEHOLDER = "Ask the agent…";

export function drawShells() {
  const elements = document.querySelectorAll("[data-pyclient-chat]");
  if (elements.length === 0) return;
  linkStylesheet();
  elements.forEach((element, index) => {
    if (!element.querySelector(":scope > .pyclient-chat")) new Shell(element, element.id || String(index));
  });
}

// chat.css sits beside this module (pyclient serve's /pyclient/, pyclient vendor's pyclient/).
// Python finds it by its id and links nothing more.
function linkStylesheet() {
  if (document.getElementById(STYLE_ID) || document.querySelector('link[rel~="stylesheet"][href$="pyclient/chat.css"]')) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("chat.css", import.meta.url).href;
  link.id = STYLE_ID;
  const nonce = document.querySelector("[nonce]")?.nonce;  // a strict CSP's style-src nonce
  if (nonce) link.setAttribute("nonce", nonce);
  document.head.prepend(link);
}

function make(tag, cls, text, attributes = {}) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

// A part Python replaces with its own when it adopts the shell.
const part = (tag, cls, text, attributes = {}) => make(tag, cls, text, { ...attributes, "data-shell-part": "" });

function suggestionsOf(element) {
  try {
    const list = JSON.parse(element.dataset.suggestions || "[]");
    return Array.isArray(list) ? list.map(String) : [];
  } catch {
    console.error(`pyclient: data-suggestions of #${element.id || "the chat"} is not a JSON list of strings: ignored`);
    return [];
  }
}

const filesOf = (list) => Array.from(list ?? []);
const carriesFiles = (event) => Array.from(event.dataTransfer?.types ?? []).includes("Files");

class Shell {
  constructor(element, key) {
    this.key = `${UNSENT}${location.pathname}#${key}`;  // this page's chat, in this tab
    this.queue = [];      // {id, text, files}: sent before Python took over
    this.held = [];       // files attached, not sent yet
    this.nextId = 1;
    this.adopted = false;
    const data = element.dataset;
    const suggestions = suggestionsOf(element);
    const accept = data.accept;  // absent: any file; "": none (no attach button)

    const root = this.root = make("div", "pyclient-chat", undefined, { "data-shell": "waiting", "data-status": "starting" });
    if (data.theme === "light" || data.theme === "dark") root.dataset.theme = data.theme;
    const header = part("header", "pyclient-header");
    if (data.title) header.append(make("h2", "pyclient-title", data.title));
    header.append(make("span", "pyclient-run-status", "Starting…", { role: "status", "data-status": "starting" }),
      make("button", "pyclient-log-toggle", "Events", { type: "button", disabled: "" }));  // the header's height, as Python's
    const body = part("div", "pyclient-body");
    const empty = make("div", "pyclient-empty");
    empty.append(make("p", "pyclient-welcome", suggestions.length ? WELCOME_SUGGESTED : WELCOME));
    if (suggestions.length) {
      const choices = make("div", "pyclient-suggestions", undefined, { role: "group", "aria-label": "Suggestions" });
      for (const text of suggestions) {
        const button = make("button", "pyclient-suggestion", text, { type: "button" });
        button.addEventListener("click", () => this.send(text, []));
        choices.append(button);
      }
      empty.append(choices);
    }
    body.append(empty, make("ol", "pyclient-messages", undefined, { role: "log", "aria-label": "Conversation" }));
    this.outbox = make("ol", "pyclient-outbox", undefined, { "aria-label": "Sending" });

    this.status = header.querySelector(".pyclient-run-status");
    this.form = make("form", "pyclient-form");
    this.previews = make("div", "pyclient-attachment-list", undefined, { role: "list", "aria-label": "Files to send" });
    this.previews.hidden = true;
    const tray = part("div", "pyclient-attachments");
    tray.append(this.previews);
    const attach = part("button", "pyclient-attach", "+", { type: "button", "aria-label": "Attach files" });
    attach.hidden = accept === "";
    const picker = this.picker = part("input", "pyclient-file-picker", undefined,
      { type: "file", multiple: "", tabindex: "-1", "aria-hidden": "true" });
    picker.hidden = true;
    if (accept) picker.accept = accept;
    const input = this.input = make("input", "", undefined,
      { id: `pyclient-shell-${key}-input`, name: "message", autocomplete: "off", placeholder: data.placeholder || PLACEHOLDER });
    const label = part("label", "pyclient-visually-hidden", "Message", { for: input.id });
    const sendButton = this.sendButton = part("button", "pyclient-send", "Send", { type: "submit" });
    const stop = part("button", "pyclient-stop", "Stop", { type: "button" });
    stop.disabled = true;
    this.form.append(tray, attach, label, input, sendButton, stop);
    root.append(header, body, this.outbox, this.form, picker);
    element.append(root);

    const unsent = this.recall();
    if (unsent) input.value = unsent;  // what a closed page had not sent: the person sends it again

    this.form.addEventListener("submit", (event) => this.submit(event));
    attach.addEventListener("click", () => picker.click());
    picker.addEventListener("change", () => { this.attach(filesOf(picker.files)); picker.value = ""; });
    input.addEventListener("paste", (event) => {
      const files = filesOf(event.clipboardData?.files);
      if (this.adopted || files.length === 0 || accept === "") return;
      if (!event.clipboardData.getData("text/plain")) event.preventDefault();
      this.attach(files);
    });
    for (const kind of ["dragover", "drop"]) {
      root.addEventListener(kind, (event) => {
        if (this.adopted || !carriesFiles(event)) return;
        event.preventDefault();  // else the dropped file replaces the page
        if (kind === "drop" && accept !== "") this.attach(filesOf(event.dataTransfer.files));
      });
    }
    new MutationObserver(() => this.observed()).observe(root, { attributes: true, attributeFilter: ["data-shell"] });
    // An error box (PyScript's, placed by renderer.js) while no chat has taken over: the page's
    // Python failed to start, and nothing sent here would ever go.
    this.errors = new MutationObserver(() => {
      if (document.querySelector(".py-error")) this.failed();
    });
    this.errors.observe(document.body, { childList: true, subtree: true });
    new MutationObserver(() => this.taken()).observe(this.outbox, { attributes: true, attributeFilter: ["data-taken"] });
  }

  submit(event) {
    event.preventDefault();
    const text = this.input.value.trim();
    const files = this.held.splice(0);
    this.previews.replaceChildren();
    this.previews.hidden = true;
    if (!text && files.length === 0 && !this.adopted) return;
    this.input.value = "";
    this.send(text, files);
  }

  // Shown in the outbox at once; Python's if it has taken over, else when it does.
  send(text, files) {
    const item = { id: this.nextId++, text, files };
    if (text || files.length) {
      const bubble = make("li", "pyclient-unsent", text, { "data-id": String(item.id) });
      if (files.length) bubble.append(make("small", "pyclient-unsent-files", files.map((file) => file.name).join(", ")));
      this.outbox.append(bubble);  // (chat.css hides the welcome while the outbox holds one)
    }
    if (this.adopted) {
      this.dispatch("pyclient-send", item);
    } else {
      this.queue.push(item);
      this.remember();
    }
  }

  attach(files) {
    for (const file of files) {
      this.held.push(file);
      const chip = make("div", "pyclient-attachment", undefined, { role: "listitem" });
      const remove = make("button", "pyclient-attachment-remove", "×", { type: "button", "aria-label": `Remove ${file.name}` });
      remove.addEventListener("click", () => {
        this.held.splice(this.held.indexOf(file), 1);
        chip.remove();
        this.previews.hidden = this.held.length === 0;
        this.input.focus();
      });
      chip.append(make("span", "pyclient-media pyclient-media-file", file.name), remove);
      this.previews.append(chip);
    }
    this.previews.hidden = this.held.length === 0;
  }

  // Python set data-shell="adopted": its nodes are in; the shell's provisional ones go, and what
  // the shell holds goes to Python, in the order the person made it.
  observed() {
    if (this.adopted || this.root.dataset.shell !== "adopted") return;
    this.adopted = true;
    this.errors.disconnect();
    for (const node of this.root.querySelectorAll("[data-shell-part]")) node.remove();
    const held = this.held.splice(0);
    if (held.length) this.dispatch("pyclient-attach", { id: 0, text: "", files: held });
    const queue = this.queue.splice(0);
    this.forget();
    for (const item of queue) this.dispatch("pyclient-send", item);
  }

  // Python will not take over: the messages waiting go back into the composer, and Send stops.
  failed() {
    this.errors.disconnect();
    if (this.adopted) return;
    this.root.dataset.shell = "failed";
    this.root.dataset.status = this.status.dataset.status = "error";
    this.status.textContent = "Not started";
    this.sendButton.disabled = true;
    const texts = this.queue.splice(0).map((item) => item.text).filter(Boolean);
    this.forget();
    this.outbox.replaceChildren();
    if (texts.length) this.input.value = [...texts, this.input.value].filter(Boolean).join(" ");
  }

  taken() {
    const taken = Number(this.outbox.dataset.taken);
    for (const item of Array.from(this.outbox.children)) {
      if (Number(item.dataset.id) <= taken) item.remove();
    }
  }

  dispatch(type, { id, text, files }) {
    this.form.dispatchEvent(new CustomEvent(type, { detail: { id, text, files } }));
  }

  remember() {
    const texts = this.queue.map((item) => item.text).filter(Boolean);
    try {
      if (texts.length) sessionStorage.setItem(this.key, texts.join(" "));
      else sessionStorage.removeItem(this.key);
    } catch { /* no sessionStorage: a closed page's unsent text is lost */ }
  }

  recall() {
    try {
      const text = sessionStorage.getItem(this.key);
      sessionStorage.removeItem(this.key);
      return text;
    } catch {
      return null;
    }
  }

  forget() {
    try { sessionStorage.removeItem(this.key); } catch { /* nothing kept */ }
  }
}
