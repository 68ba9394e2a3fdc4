"""Test page for `python_tool`: a `Chat` on the media agent (`/agent/media`, a pydantic-ai agent
whose model calls the tool a message names with the JSON after it, and records what each tool
returned), driven by tests/e2e/test_python_tool.py.

Query: `thread=<id>` with `store=1` (the thread kept in IndexedDB), `timeout=<s>` (the tool's).
Tools: `run_python` (`python_tool`, with markdown-it-py and a page file `/data/page.txt`), and
`run_checked_python`, whose runs the person approves.
`window.t.saved()` waits until the thread is saved. The page runs on the main thread and in a
worker (`?pyclient-worker=1`): it reaches the page through `pyscript.window` and `pyscript.document`.
"""

import asyncio

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

from pyclient import Agent
from pyclient.browser import Chat, log_to_console
from pyclient.browser.toolkit import python_tool

log_to_console()
params = js.URLSearchParams.new(window.location.search)

run_python = python_tool(timeout_s=float(params.get("timeout") or 20), memory_mb=256, packages=["markdown-it-py"],
                         files={"page.txt": b"from the page"})
checked_python = python_tool(name="run_checked_python", requires_approval=True)
agent = Agent("python", url=params.get("agent") or "/agent/media", client_tools=[run_python, checked_python])
thread = agent.thread("#chat", thread_id=params.get("thread") or None, store=True if params.get("store") else None)
chat = Chat(thread, document.querySelector("#chat"), placeholder="Say something")


async def saved():
    await thread.saved()


window.t = to_js({"saved": create_proxy(saved)}, dict_converter=js.Object.fromEntries)


async def main():
    if thread.store is not None:
        await thread.restore()
    document.documentElement.dataset.pyclient = "ready"


asyncio.ensure_future(main())
