"""Test page for AG-UI interrupts in the chat: a `Chat` on a thread of an Agent whose URL is the
query's `agent` (tests/e2e/test_interrupts_chat.py).

Query: `agent=<path>`, `theme=light|dark`. `window.t.open(path)` closes the chat and its thread
and opens a new one on the agent at `path` (the tests share one booted page). Interrupt renderers: reason
`"custom:pick"` draws two buttons that resolve it with `{"colour": "red"}` (`.pick-red`) or
with something its schema refuses (`.pick-bad`, the error shown in `.pick-error`); reason
`"custom:boom"` raises. `window.t.interrupts()` is the JSON of every interrupt of the thread
(`id`, `reason`, `status`, `payload`, `note`); `window.t.state()` the run status. The page runs
on the main thread and in a worker (`?pyclient-worker=1`): it reaches the page through
`pyscript.window` and `pyscript.document`, never the `js` module (the worker's own scope there).
"""

import json

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

from pyclient import Agent, InterruptError
from pyclient.browser import Chat, log_to_console

log_to_console()
params = js.URLSearchParams.new(window.location.search)


def pick(interrupt):
    box = document.createElement("div")
    box.className = "picker"
    box.textContent = f"Pick one ({interrupt.status}) "
    if interrupt.status != "open":
        return box
    error = document.createElement("p")
    error.className = "pick-error"

    def make(label, payload):
        button = document.createElement("button")
        button.textContent = label
        button.className = "pick-" + label

        def click(event):
            try:
                interrupt.resolve(payload)
            except InterruptError as exc:
                error.textContent = str(exc)

        button.addEventListener("click", create_proxy(click))
        box.append(button)

    make("red", {"colour": "red"})
    make("bad", {"colour": 7})
    box.append(error)
    return box


def boom(interrupt):
    raise RuntimeError("the interrupt renderer broke <b>")


thread = chat = None


def open_chat(url):
    """A new agent at `url`, a new thread and a chat on #chat, in place of the last ones."""
    global thread, chat
    if chat is not None:
        chat.dispose()
        thread.close()
    element = document.querySelector("#chat")
    element.replaceChildren()
    agent = Agent("interrupts", url=url)
    agent.interrupt_renderer("custom:pick")(pick)
    agent.interrupt_renderer("custom:boom")(boom)
    thread = agent.thread(element)
    chat = Chat(thread, element, title="Interrupts", theme=params.get("theme") or None)


def interrupts():
    return json.dumps([{"id": i.id, "reason": i.reason, "status": i.status, "payload": i.payload, "note": i.note}
                       for i in thread.all_interrupts()])


def state():
    return thread.run_status


if params.get("agent"):
    open_chat(params.get("agent"))
window.t = to_js({"interrupts": create_proxy(interrupts), "state": create_proxy(state),
                     "open": create_proxy(open_chat)}, dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
