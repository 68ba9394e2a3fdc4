"""Test page for AG-UI interrupts of a thread kept across reloads: `?thread=<id>` names the thread;
tests/e2e/test_interrupt_reload.py drives it through `window.t`.

The agent is `POST /agent/approval` (tests/agents/approval_agent.py: pydantic-ai, whose backend
tool `delete_account` needs approval, an interrupt). The thread is kept in IndexedDB
(`store=True`), wrapped so each completed save is written to `<html data-saved>` as
"RUN_STATE id=status[/sent] ..." for its interrupts, which the test waits for before it
reloads. `window.t`: `send(text)` starts a turn (it pauses on the interrupt; the page does not
wait for it), `resolve(id, payload_json)` answers an interrupt, `summary()` is the thread as JSON.
"""

import asyncio
import json

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document

from pyclient import Agent
from pyclient.browser import log_to_console

log_to_console()
THREAD = js.URLSearchParams.new(js.location.search).get("thread")


class Recording:
    """The page's IndexedDB store; each completed save is summarised in <html data-saved>."""

    def __init__(self, store):
        self.store = store

    async def load(self, key):
        return await self.store.load(key)

    async def save(self, key, data):
        await self.store.save(key, data)
        interrupts = " ".join(f"{i['id']}={i['status']}{'/sent' if i['sent'] else ''}" for i in data["interrupts"])
        document.documentElement.dataset.saved = f"{data['run_state']} {interrupts}".strip()

    async def delete(self, key):
        await self.store.delete(key)


agent = Agent("approval", url="/agent/approval")
thread = agent.thread("#chat", thread_id=THREAD, store=Recording(agent.platform.default_store()))
turns = []


def summary():
    return json.dumps({
        "status": thread.run_status,
        "error": None if thread.error is None else str(thread.error),
        "waiting": thread.waiting_for_person,
        "interrupts": [{"id": i.id, "status": i.status, "reason": i.reason, "tool_call_id": i.tool_call_id,
                        "message": i.message} for i in thread.interrupts],
        "all": [{"id": i.id, "status": i.status, "payload": i.payload} for i in thread.all_interrupts()],
        "texts": [m.content for m in thread.messages if m.role == "assistant" and m.content],
        "read_only": thread.read_only,
        # A send() that raised (a read-only thread refuses one), for a failing test to show.
        "failed": [repr(turn.exception()) for turn in turns if turn.done() and not turn.cancelled() and turn.exception() is not None],
    })


def send(text):
    turns.append(asyncio.ensure_future(thread.send(text)))


def resolve(interrupt_id, payload):
    thread.interrupt(interrupt_id).resolve(json.loads(payload))


api = {"send": send, "resolve": resolve, "summary": summary}
js.window.t = to_js({name: create_proxy(fn) for name, fn in api.items()}, dict_converter=js.Object.fromEntries)


async def main():
    await thread.restore()
    document.documentElement.dataset.pyclient = "ready"


asyncio.ensure_future(main())
