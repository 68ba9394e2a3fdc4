"""Test page for threads kept across reloads: `?thread=<id>` names the thread; tests/e2e/test_reload.py
drives it with pyclient.testing's `pyclient_page` and `scripted_agent` (on `/agent`).

The thread is kept in IndexedDB (`store=True` with `?plain=1`; otherwise the same store,
wrapped so each completed save is written to `<html data-saved>` as "RUN_STATE id=status[/sent] ...",
which the test waits for before it reloads). `act` counts its runs in localStorage
(`runs:<thread>`) and hangs while `window.actMode == "hang"`; `ask` is answered with
`window.submitInput(id, text)`; `window.whenSaved()` resolves once the last state is saved. The page runs on the main thread and in a worker
(`?pyclient-worker=1`), where the store is the worker's IndexedDB (the page's origin's) and the
lock between tabs the worker's Web Lock: it reaches the page through `pyscript.window` and
`pyscript.document`, never the `js` module (the worker's own scope there).
"""

import asyncio

import js
from pyodide.ffi import create_proxy
from pyscript import document, window

from pyclient import Agent, client_tool
from pyclient.browser import Chat, log_to_console

log_to_console()
params = js.URLSearchParams.new(window.location.search)
THREAD = params.get("thread")
RUNS = f"runs:{THREAD}"

# `?slow_locks=MS`: every Web Lock request of this interpreter (the worker's, in worker mode)
# reaches the browser MS late, as on a busy machine; <html data-lock-requests> counts them (when ready).
if params.get("slow_locks"):
    js.eval("""(delay) => {
        const request = LockManager.prototype.request;
        LockManager.prototype.request = function (...args) {
            LockManager.requests += 1;
            return new Promise((later) => setTimeout(later, delay)).then(() => request.apply(this, args));
        };
        LockManager.requests = 0;
    }""")(int(params.get("slow_locks")))


@client_tool(requires_approval=True)
async def act(x: str) -> str:
    """Act on x."""
    window.localStorage.setItem(RUNS, str(int(window.localStorage.getItem(RUNS) or 0) + 1))
    if getattr(window, "actMode", None) == "hang":
        await asyncio.Event().wait()   # until the page is reloaded
    return f"acted {x}"


@client_tool(render_only=True)
def ask(question: str) -> str:
    """Ask the user."""
    raise NotImplementedError


class Recording:
    """The page's IndexedDB store; each completed save is summarised in <html data-saved>."""

    def __init__(self, store):
        self.store = store

    async def load(self, key):
        return await self.store.load(key)

    async def save(self, key, data):
        await self.store.save(key, data)
        calls = " ".join(f"{c['id']}={c['status']}{'/sent' if c['sent'] else ''}" for c in data["calls"])
        last = data["messages"][-1].get("content") if data["messages"] else None
        text = f" | {last}" if isinstance(last, str) else ""   # the last message's text, as saved
        document.documentElement.dataset.saved = f"{data['run_state']} {calls}".strip() + text

    async def delete(self, key):
        await self.store.delete(key)


agent = Agent("store", url="/agent", client_tools=[act, ask])
store = True if params.get("plain") else Recording(agent.platform.default_store())
thread = agent.thread("#chat", thread_id=THREAD, store=store)
chat = Chat(thread, document.querySelector("#chat"))


def submit_input(call_id, text):
    thread.action(call_id).submit(text)


window.submitInput = create_proxy(submit_input)


async def saved():
    """Resolves once the thread's last state is saved (`thread.saved()`)."""
    await thread.saved()
    return True


window.whenSaved = create_proxy(saved)


async def main():
    await thread.restore()
    document.documentElement.dataset.readOnly = "true" if thread.read_only else "false"
    if params.get("slow_locks"):
        document.documentElement.dataset.lockRequests = str(js.LockManager.requests)
    document.documentElement.dataset.pyclient = "ready"


asyncio.ensure_future(main())
