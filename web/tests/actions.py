"""Test page for the chat's message actions (tests/e2e/test_message_actions.py): copy, edit,
regenerate, branches and feedback, on a `Chat(on_feedback=...)` of a thread kept in the page's
IndexedDB (`store=True`), answered by the scripted agent at `/agent`.

`window.t.open(thread_id)` closes the chat and its thread and opens a new one with that id (it
restores what was saved under it); `window.t.rated()` is the JSON of every `on_feedback` call
so far (`[message_id, rating]`); `window.t.state()` the run status; `window.t.messages()` the
JSON of the history shown (`[role, text]`); `window.t.feedback(message_id)` the thread's rating.
The page runs on the main thread and in a worker (`?pyclient-worker=1`): it reaches the page
through `pyscript.window` and `pyscript.document`, never the `js` module.
"""

import json

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

from pyclient import Agent
from pyclient._tools._content import split_parts
from pyclient.browser import Chat, log_to_console

log_to_console()
params = js.URLSearchParams.new(window.location.search)
agent = Agent("actions", url="/agent")
thread = chat = None
rated = []


def on_feedback(message_id, rating):
    rated.append([message_id, rating])


async def open_chat(thread_id):
    """A new thread `thread_id` (restored from the store) and a chat on #chat, in place of the last ones."""
    global thread, chat
    if chat is not None:
        chat.dispose()
        thread.close()
    rated.clear()
    element = document.querySelector("#chat")
    element.replaceChildren()
    thread = agent.thread(element, thread_id=thread_id, store=True)
    chat = Chat(thread, element, title="Actions", theme=params.get("theme") or None, on_feedback=on_feedback)
    await thread.restore()


def messages():
    return json.dumps([[m.role, split_parts(m.content)[0] if m.role in ("user", "assistant") else ""]
                       for m in thread.messages])


window.t = to_js({"open": create_proxy(open_chat), "rated": create_proxy(lambda: json.dumps(rated)),
                  "state": create_proxy(lambda: thread.run_status), "thread_id": create_proxy(lambda: thread.thread_id), "messages": create_proxy(messages),
                  "feedback": create_proxy(lambda message_id: thread.feedback(message_id))},
                 dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
