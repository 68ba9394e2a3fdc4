"""Test page for the chat's attachments: a `Chat` on `POST /agent/media`, a pydantic-ai agent whose
model records the files it receives (tests/agents/media_agent.py); tests/e2e/test_attachments_chat.py
drives it.

Query: `accept=<pattern>,<pattern>` (the Chat's `accept=`; `none`: an empty list), `file_limit`
and `message_limit` (the agent's `max_attachment_bytes` and `max_message_bytes`), `stored_limit`
(`max_stored_file_bytes`), `thread=<id>` with `store=1` (a thread kept in IndexedDB),
`theme=light|dark`. `window.t.limit(n)` gives the agent a new per-file limit (what
`thread.send` checks again), `window.t.state()` the thread's run status. The page runs on the
main thread and in a worker (`?pyclient-worker=1`): it reaches the page through `pyscript.window`
and `pyscript.document`, never the `js` module (the worker's own scope there).
"""

import asyncio
import dataclasses

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

from pyclient import Agent
from pyclient.browser import Chat, log_to_console

log_to_console()
params = js.URLSearchParams.new(window.location.search)


def number(name, default):
    value = params.get(name)
    return int(value) if value else default


agent = Agent("attachments", url="/agent/media", max_attachment_bytes=number("file_limit", 10_000_000),
              max_message_bytes=number("message_limit", 20_000_000),
              max_stored_file_bytes=number("stored_limit", 10_000_000))
accept = params.get("accept") if params.has("accept") else None
thread = agent.thread("#chat", thread_id=params.get("thread") or None, store=bool(params.get("store")))
chat = Chat(thread, document.querySelector("#chat"), title="Files", theme=params.get("theme") or None,
            accept=None if accept is None else [] if accept == "none" else accept.split(","))


def limit(n):
    """A smaller per-file limit from now on: the files attached before it are checked again by send."""
    agent.limits = dataclasses.replace(agent.limits, max_attachment_bytes=int(n))


def state():
    return thread.run_status


window.t = to_js({"limit": create_proxy(limit), "state": create_proxy(state)},
                    dict_converter=js.Object.fromEntries)


async def main():
    await thread.restore()
    document.documentElement.dataset.pyclient = "ready"


asyncio.ensure_future(main())
