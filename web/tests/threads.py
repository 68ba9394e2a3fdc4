"""Test page for `ThreadList` (tests/e2e/test_thread_list.py, docs/screenshots.py): the saved threads
of agent "threads" in the page's IndexedDB (`store=True`), listed in `#threads`, shown in a `Chat`
on `#chat`. The agent is `/agent` (the test's scripted agent on the plugin's site).

`window.t.reset()` empties the page's IndexedDB stores and makes a new list (which opens a new
thread) on a new `IndexedDbStore` (each store reads IndexedDB once, when it opens it; the first
list uses `store=True`); `window.t.records()` is the JSON of the store's own listing (`store.list_threads()`),
`window.t.shown()` the id of the thread shown, the list's current id and the chat's messages,
`window.t.age(title, seconds)` makes the thread with that title older (for the screenshots), and
`window.t.bare()` makes a second list on the same store with `on_open=` only (no chat), `theme="dark"`
and `title="Saved"`, and returns what it shows and the ids its `on_open` got, then disposes it.
`window.t.shown()` also lists the ids the main list's `on_open` got since the last reset.
`window.t.damage(kind)` leaves in IndexedDB what a crash, an older page or a hostile script could
("summaries": records cut short or with times of 1e20, NaN and a word, beside a good thread;
"snapshot": a good record whose snapshot is cut short), then makes a new list on a new store;
`window.t.raw(key)` is the text IndexedDB holds under a thread's key (read afresh), or null.
The page runs on the main thread and in a worker (`?pyclient-worker=1`): it reaches the page
through `pyscript.window` and `pyscript.document`, never the `js` module (the worker's own scope).
"""

import json
import time

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window
from pyscript.storage import storage

from pyclient import Agent
from pyclient.browser import IndexedDbStore, ThreadList, log_to_console

log_to_console()
params = js.URLSearchParams.new(window.location.search)
agent = Agent("threads", url="/agent")
theme = params.get("theme") or None
threads = None
store = agent.platform.default_store()
opened = []


def make_list():
    global threads
    opened.clear()
    threads = ThreadList(agent, "#threads", store=store, chat="#chat", theme=theme, on_open=opened.append,
                         chat_options={"title": "Assistant", "theme": theme})
    return threads


async def bare():
    got = []
    aside = document.createElement("aside")
    document.body.append(aside)

    async def record(thread_id):
        got.append(thread_id)

    other = ThreadList(agent, aside, store=store, on_open=record, theme="dark", title="Saved")
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


async def clean():
    """Close the list and its thread, empty IndexedDB, and take a new store (opened on first use:
    each store reads IndexedDB once, when it opens it)."""
    global store
    if threads is not None:
        threads.dispose()
        if threads.thread is not None:
            await threads.thread.saved()
            threads.thread.close()
    if store is not agent.platform.default_store():
        store.close()
    store = IndexedDbStore()
    document.querySelector("#chat").replaceChildren()
    for name in ("pyclient", "pyclient-records", "pyclient.threads"):
        kept = await storage(name)
        kept.clear()
        await kept.sync()


async def reset():
    await clean()
    await make_list().ready


NOW = time.time()


def good(thread_id, title, **fields):
    return json.dumps({"agent": "threads", "thread_id": thread_id, "title": title, "messages": 2,
                       "updated_at": NOW, **fields})


async def damage(kind):
    await clean()
    summaries, snapshots = await storage("pyclient.threads"), await storage("pyclient")
    if kind == "summaries":
        summaries["threads/cut"] = '{"agent": "threads", "thread_id": "cut", "title": "Cut sh'
        summaries["threads/far"] = good("far", "Far", updated_at=1e20)
        summaries["threads/nan"] = good("nan", "NaN", updated_at=float("nan"))   # JSON's NaN, as json.dumps writes it
        summaries["threads/word"] = good("word", "Word", updated_at="yesterday")
        summaries["threads/good"] = good("good", "Still listed")
        snapshots["threads/good"] = json.dumps({"version": 1, "thread_id": "good", "run_state": "IDLE", "messages": [
            {"id": "u1", "role": "user", "content": "Still listed"}, {"id": "a1", "role": "assistant", "content": "Yes."}]})
    else:
        summaries["threads/broken"] = good("broken", "Cut short")
        snapshots["threads/broken"] = '{"version": 1, "thread_id": "broken", "run_state": "IDLE", "messages": [{"id'
    await summaries.sync()
    await snapshots.sync()
    await make_list().ready   # on the new store, which reads all this when it opens


async def raw(key):
    return (await storage("pyclient")).get(key)


async def records():
    return json.dumps(await store.list_threads())


async def age(title, seconds):
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
                  "age": create_proxy(age), "bare": create_proxy(bare), "damage": create_proxy(damage),
                  "raw": create_proxy(raw)},
                 dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
