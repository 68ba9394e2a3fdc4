"""Test page for clicks a page script forges (tests/e2e/test_forged_trust.py): a `ThreadList` on a
`MemoryStore` beside the `Chat` it opens threads in, on `/agent` (the test's scripted agent on the
plugin's site), with one tool, `pay(amount)`, that needs the person's approval and records what
it ran with in `window.paid`.

`window.t.reset()` makes a new store and list (which opens a new thread) and returns a number the
chat's element carries as `data-generation`; `window.t.saved()` is the JSON list of the saved
threads' titles. The page runs on the main thread and in a worker (`?pyclient-worker=1`): it
reaches the page through `pyscript.window` and `pyscript.document`, never the `js` module.
"""

import json

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

from pyclient import Agent, MemoryStore, client_tool
from pyclient.browser import ThreadList, log_to_console

log_to_console()


@client_tool(requires_approval=True)
def pay(amount: int) -> str:
    """Pay an amount of money."""
    window.paid = amount
    return f"paid {amount}"


agent = Agent("trust", url="/agent", client_tools=[pay])
threads = None
store = None
generation = 0


async def reset():
    global threads, store, generation
    if threads is not None:
        threads.dispose()
        if threads.thread is not None:
            threads.thread.close()
    window.Reflect.deleteProperty(window, "paid")
    document.querySelector("#chat").replaceChildren()
    store = MemoryStore()
    threads = ThreadList(agent, "#threads", store=store, chat="#chat", chat_options={"title": "Assistant"})
    await threads.ready
    generation += 1
    document.querySelector("#chat").dataset.generation = str(generation)
    return generation


async def saved():
    await threads.refresh()
    return json.dumps([summary.title for summary in threads.summaries])


window.t = to_js({"reset": create_proxy(reset), "saved": create_proxy(saved)}, dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
