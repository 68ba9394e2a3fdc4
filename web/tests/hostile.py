"""Test page for hostile handlers and servers: a `Chat` on `POST /agent`, answered by pyclient.testing's
`scripted_agent` (tests/e2e/test_hostile_in_page.py scripts it).

Tools: `cancels()`, a plain `def` that raises `asyncio.CancelledError` without being cancelled;
`long_text(n)`, which returns `n` characters, over the agent's `max_result_chars` of 1,000 when
`n` is larger. `window.t.reset()` puts a new thread and chat in place of the last (the tests
share one booted page) and returns its generation (`data-generation` on #chat).
"""

import asyncio

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

from pyclient import Agent, client_tool
from pyclient.browser import Chat, log_to_console

log_to_console()

RESULT_LIMIT = 1_000


@client_tool
def cancels() -> str:
    """Raise CancelledError, though nothing cancelled the call."""
    raise asyncio.CancelledError("by hand")


@client_tool
def long_text(n: int) -> str:
    """Return a text of n characters."""
    return "".join(str(i % 10) for i in range(n))


agent = Agent("hostile", url="/agent", client_tools=[cancels, long_text], max_result_chars=RESULT_LIMIT)
thread = chat = None
generation = 0


def reset():
    global thread, chat, generation
    if chat is not None:
        chat.dispose()
        thread.close()
    element = document.querySelector("#chat")
    element.replaceChildren()
    thread = agent.thread(element)
    chat = Chat(thread, element, placeholder="Say something")
    generation += 1
    element.dataset.generation = str(generation)
    return generation


reset()
window.t = to_js({"reset": create_proxy(reset)}, dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
