"""Test page for what an agent streams besides text (tests/e2e/test_stream_chat.py): reasoning's
"Thinking" sections, subagent groups, the step line, custom events.

`window.t.open(path, steps, theme)` closes the chat and its thread and opens a new one on the
agent at `path`, with `Chat(steps=steps)` (the tests share one booted page). The thread's
`on_custom("progress", ...)` keeps each value (`window.t.custom()`, JSON), and
`on_custom("boom", ...)` raises. `window.t.subagents()` is the JSON of `thread.subagents`.
The page runs on the main thread and in a worker
(`?pyclient-worker=1`): it reaches the page through `pyscript.window` and `pyscript.document`.
"""

import json

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

from pyclient import Agent
from pyclient.browser import Chat, log_to_console

log_to_console()

thread = chat = None
progress = []


def boom(value):
    raise RuntimeError(f"the custom callback broke on {value!r}")


def open_chat(url, steps=True, theme=None):
    """A new agent at `url`, a new thread and a chat on #chat, in place of the last ones."""
    global thread, chat
    if chat is not None:
        chat.dispose()
        thread.close()
    progress.clear()
    element = document.querySelector("#chat")
    element.replaceChildren()
    thread = Agent("stream", url=url).thread(element)
    thread.on_custom("progress", progress.append)
    thread.on_custom("boom", boom)
    chat = Chat(thread, element, title="Assistant", steps=bool(steps), theme=theme or None)


def custom():
    return json.dumps(progress)


def subagents():
    return json.dumps([{"id": run.subagent_run_id, "name": run.name, "status": run.status}
                       for run in thread.subagents])


def state():
    return thread.run_status


window.t = to_js({"open": create_proxy(open_chat), "custom": create_proxy(custom),
                  "subagents": create_proxy(subagents), "state": create_proxy(state)},
                 dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
