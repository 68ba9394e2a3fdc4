"""Test page for `ThreadList` (tests/e2e/test_thread_list.py, docs/screenshots.py): the saved threads
of agent "threads" in the page's IndexedDB (`store=True`), listed in `#threads`, shown in a `Chat`
on `#chat`. The agent is `/agent` (the test's scripted agent on the plugin's site).

`window.t.reset()` deletes every saved thread and makes a new list (which opens a new thread);
`window.t.records()` is the JSON of the store's own listing (`store.list_threads()`),
`window.t.shown()` the id of the thread shown, the list's current id and the chat's messages,
`window.t.age(title, seconds)` makes the thread with that title older (for the screenshots), and
`window.t.bare()` makes a second list on the same store with `on_open=` only (no chat), `theme="dark"`
and `title="Saved"`, and returns what it shows and the ids its `on_open` got, then disposes it.
`window.t.shown()` also lists the ids the main list's `on_open` got since the last reset.
The page runs on the main thread and in a worker (`?pyclient-worker=1`): it reaches the page
through `pyscript.window` and `pyscript.document`, never the `js` module (the worker's own scope).
"""

import json

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

from pyclient import Agent
from pyclient.browser import ThreadList, log_to_console

log_to_console()
params = js.URLSearchParams.new(window.location.search)
agent = Agent("threads", url="/agent")
theme = params.get("theme") or None
threads = None
opened = []


def make_list():
    global threads
    opened.clear()
    threads = ThreadList(agent, "#threads", store=True, chat="#chat", theme=theme, on_open=opened.append,
                         chat_options={"title": "Assistant", "theme": theme})
    return threads


async def bare():
    got = []
    aside = document.createElement("aside")
    document.body.append(aside)

    async def record(thread_id):
        got.append(thread_id)

    other = ThreadList(agent, aside, store=True, on_open=record, theme="dark", title="Saved")
    await other.ready
    await other.open(other.summaries[-1].thread_id)
    root = other.element   # in a worker its mirror, which answers at once (the page's nodes follow a task later)
    shown = {"heading": root.querySelector(".pyclient-title").textContent, "theme": root.dataset.theme,
             "titles": [node.textContent for node in root.querySelectorAll(".pyclient-thread-title")],
             "current": root.querySelector("[data-current] .pyclient-thread-title").textContent,
             "opened": got, "thread": other.thread is None and other.chat is None,
             "chats": len(document.querySelectorAll(".pyclient-chat:not(.pyclient-thread-list)"))}
    other.dispose()
    aside.remove()
    return json.dumps(shown)


async def reset():
    global threads
    if threads is not None:
        threads.dispose()
        if threads.thread is not None:
            threads.thread.close()
    store = agent.platform.default_store()
    for key in await store.list_threads():
        await store.delete(key)
    document.querySelector("#chat").replaceChildren()
    await make_list().ready


async def records():
    return json.dumps(await agent.platform.default_store().list_threads())


async def age(title, seconds):
    store = agent.platform.default_store()
    for summary in threads.summaries:
        if summary.title == title:
            await store.update_summary(summary.key, {"updated_at": summary.updated_at - seconds})
    await threads.refresh()


def shown():
    thread = threads.thread
    return json.dumps({"thread": thread.thread_id if thread else None, "current": threads.current,
                       "messages": [m.content for m in thread.messages] if thread else [], "opened": opened})


make_list()
window.t = to_js({"reset": create_proxy(reset), "records": create_proxy(records), "shown": create_proxy(shown),
                  "age": create_proxy(age), "bare": create_proxy(bare)},
                 dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
