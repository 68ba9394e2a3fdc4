"""Bench page for the bench scripts: `window.bench` makes threads, with or without a Chat, and sends.

`prepare(url, with_chat, max_follow_ups)` mounts a fresh thread of an agent at `url` on a fresh
`<section>` (and attaches `pyclient.browser.Chat(thread, section)`, its public constructor only,
when `with_chat`); `send(id, text)` is `await thread.send(text)`; `summary(id)` describes the
thread as JSON; `dispose(id)` closes the thread and removes its section. The page tools
answer the bench streams (bench/streams.py): `bench_mark(index)` returns "done#<index>#",
`bench_blob(blob)` returns "got <len> chars".

`floor(url, validate)` is the Pyodide floor: the least Python can do with a text stream (fetch
reader, SSE split, `json.loads`, join; with `validate`, ag-ui's `TypeAdapter(Event).validate_json`
instead of `json.loads`); `wasm_bytes()` the size of Pyodide's wasm memory.
"""

import gc
import json

import js
import pyodide_js
from ag_ui.core import Event, TextMessageContentEvent
from pydantic import TypeAdapter
from pyodide.ffi import create_proxy, to_js
from pyscript import document

from pyclient import Agent, client_tool
from pyclient.browser import Chat, log_to_console

log_to_console()


@client_tool
def bench_mark(index: int) -> str:
    """Mark one of many parallel calls done."""
    return f"done#{index}#"


@client_tool
def bench_blob(blob: str) -> str:
    """Receive one big argument."""
    return f"got {len(blob)} chars"


agents: dict[str, Agent] = {}
live: dict[str, tuple] = {}
made = 0


def prepare(url, with_chat, max_follow_ups=None):
    global made
    made += 1
    agent = agents.get(url)
    if agent is None:
        agent = agents[url] = Agent("bench", url=url, client_tools=[bench_mark, bench_blob])
    section = document.createElement("section")
    section.id = f"bench-{made}"
    document.getElementById("threads").append(section)
    options = {} if max_follow_ups is None else {"max_follow_ups": max_follow_ups}
    thread = agent.thread(section, **options)
    chat = Chat(thread, section) if with_chat else None
    live[section.id] = (thread, chat, section)
    return section.id


async def send(thread_id, text):
    await live[thread_id][0].send(text)


def summary(thread_id):
    thread = live[thread_id][0]
    tools = [m for m in thread.messages if m.role == "tool"]
    last = thread.messages[-1] if thread.messages else None
    return json.dumps({
        "status": thread.run_status,
        "error": None if thread.error is None else str(thread.error),
        "messages": len(thread.messages),
        "last": last.content if last is not None and last.role == "assistant" else None,
        "tool_results": len(tools),
        "tool_errors": sum(getattr(m, "error", None) is not None for m in tools),
        "distinct_results": len({m.content for m in tools}),
        "first_result": tools[0].content if tools else None,
    })


def dispose(thread_id):
    thread, chat, section = live.pop(thread_id)
    thread.close()
    section.remove()
    del thread, chat, section
    gc.collect()


EVENT = TypeAdapter(Event)
REQUEST = json.dumps({"threadId": "bench", "runId": "bench-floor", "state": {}, "tools": [], "context": [],
                      "forwardedProps": {}, "messages": [{"id": "u", "role": "user", "content": "bench"}]})


async def floor(url, validate):
    """Read the text stream at `url`: JSON {"text": the joined deltas, "events": how many}."""
    init = to_js({"method": "POST", "body": REQUEST,
                  "headers": {"content-type": "application/json", "accept": "text/event-stream"}},
                 dict_converter=js.Object.fromEntries)
    response = await js.fetch(url, init)
    reader = response.body.getReader()
    buffer, parts, events = b"", [], 0
    while True:
        chunk = await reader.read()
        if chunk.done:
            break
        blocks = (buffer + chunk.value.to_bytes()).split(b"\n\n")
        buffer = blocks.pop()  # an incomplete event waits for the next chunk
        for block in blocks:
            if not block.startswith(b"data: "):
                continue
            events += 1
            if validate:
                event = EVENT.validate_json(block[6:])
                if isinstance(event, TextMessageContentEvent):
                    parts.append(event.delta)
            else:
                event = json.loads(block[6:])
                if event["type"] == "TEXT_MESSAGE_CONTENT":
                    parts.append(event["delta"])
    return json.dumps({"text": "".join(parts), "events": events})


def wasm_bytes():
    """The size of Pyodide's wasm memory (it only grows)."""
    return pyodide_js._module.HEAPU8.length


api = {"prepare": prepare, "send": send, "summary": summary, "dispose": dispose, "floor": floor,
       "wasm_bytes": wasm_bytes}
js.window.bench = to_js({name: create_proxy(fn) for name, fn in api.items()}, dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
