"""Bench page for the bench scripts: `window.bench` makes threads, with or without a Chat, and sends.

`prepare(url, with_chat, max_follow_ups)` mounts a fresh thread of an agent at `url` on a fresh
`<section>` (and attaches `pyclient.browser.Chat(thread, section)`, its public constructor only,
when `with_chat`); `send(id, text)` is `await thread.send(text)`; `summary(id)` describes the
thread as JSON; `dispose(id)` closes the thread and removes its section. The page tools
answer the bench streams (bench/streams.py): `bench_mark(index)` returns "done#<index>#",
`bench_blob(blob)` returns "got <len> chars".

`saves(rounds, window, name)` is issue 26's save cost in the page: three threads side by side,
one with no store, one kept in a `MemoryStore`, one in an `IndexedDbStore` (records appended
per save), each doing `rounds` tool round trips (after 10 unrecorded on three others) over an
in-page transport (prebuilt responses, as bench/history.py's CPython bench: a call of
`bench_echo`, then a text), taking turns; a round trip is `send()` and `saved()` (no
`saved()` without a store). It returns JSON: the medians of the first and the last `window`
round trips per thread, and what proves the job was done (the threads idle with every
message, and each kept thread restored from its store in a new thread, as a reload would).

`floor(url, validate)` is the Pyodide floor: the least Python can do with a text stream (fetch
reader, SSE split, `json.loads`, join; with `validate`, ag-ui's `TypeAdapter(Event).validate_json`
instead of `json.loads`); `wasm_bytes()` the size of Pyodide's wasm memory.
"""

import gc
import json
import statistics
import time

import js
import pyodide_js
from ag_ui.core import Event, TextMessageContentEvent
from pydantic import TypeAdapter
from pyodide.ffi import create_proxy, to_js
from pyscript import document

from pyclient import AbortSignal, Agent, MemoryStore, Transport, client_tool
from pyclient.browser import Chat, IndexedDbStore, log_to_console

log_to_console()


@client_tool
def bench_mark(index: int) -> str:
    """Mark one of many parallel calls done."""
    return f"done#{index}#"


@client_tool
def bench_blob(blob: str) -> str:
    """Receive one big argument."""
    return f"got {len(blob)} chars"


@client_tool
def bench_echo(index: int) -> str:
    """Echo the index back."""
    return f"echo {index}"


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


def _sse(*events):
    return b"".join(b"data: " + json.dumps(e, separators=(",", ":")).encode() + b"\n\n" for e in events)


class _Script(Transport):
    """Answers request 2k with a call of `bench_echo`, request 2k+1 with a short text (bench/history.py's)."""

    def __init__(self):
        self.count = 0

    async def stream(self, request, signal: AbortSignal):
        n, i = self.count, self.count // 2
        self.count += 1
        if n % 2 == 0:
            yield _sse(
                {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{i}a"},
                {"type": "TEXT_MESSAGE_START", "messageId": f"a{i}", "role": "assistant"},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"a{i}", "delta": "Calling the tool."},
                {"type": "TEXT_MESSAGE_END", "messageId": f"a{i}"},
                {"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "bench_echo",
                 "parentMessageId": f"a{i}"},
                {"type": "TOOL_CALL_ARGS", "toolCallId": f"c{i}", "delta": json.dumps({"index": i})},
                {"type": "TOOL_CALL_END", "toolCallId": f"c{i}"},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{i}a"})
        else:
            yield _sse(
                {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{i}b"},
                {"type": "TEXT_MESSAGE_START", "messageId": f"b{i}", "role": "assistant"},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"b{i}", "delta": f"The tool answered echo {i}."},
                {"type": "TEXT_MESSAGE_END", "messageId": f"b{i}"},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{i}b"})


async def _saves_pair(rounds, name):
    """Two threads, one per store, doing `rounds` round trips side by side: their ms per round trip."""
    stores = {"no store": None, "MemoryStore": MemoryStore(), "IndexedDbStore": IndexedDbStore(name)}
    agents = {label: Agent("bench-saves", url="http://127.0.0.1/bench/in-page", client_tools=[bench_echo],
                           transport=_Script()) for label in stores}  # a script each: it counts requests
    threads = {label: agents[label].thread(thread_id=f"{name}-{label}", store=store)
               for label, store in stores.items()}
    for label, thread in threads.items():
        if stores[label] is not None:
            await thread.restore()
    times = {label: [] for label in stores}
    order = list(threads)
    for i in range(rounds):
        for label in order[i % 3:] + order[:i % 3]:  # each goes first in turn
            thread = threads[label]
            started = time.perf_counter()
            await thread.send(f"call the tool with {i}")
            if stores[label] is not None:
                await thread.saved()
            times[label].append((time.perf_counter() - started) * 1e3)
    return stores, agents, threads, times


async def saves(rounds, window, name):
    """See the module docstring; `name` names the IndexedDB store (fresh for each sample)."""
    # Warm-up, unrecorded: the first saves import the snapshot models and open the database.
    stores, agents, threads, _ = await _saves_pair(min(10, rounds), name + "-warm-up")
    for label, thread in threads.items():
        thread.close()
        if stores[label] is not None:
            await stores[label].delete(f"bench-saves/{name}-warm-up-{label}")
    stores, agents, threads, times = await _saves_pair(rounds, name)
    out = {"rounds": rounds, "window": window, "stores": {}}
    for label, thread in threads.items():
        status, error, messages = thread.run_status, thread.error, len(thread.messages)
        thread.close()
        again = agents[label].thread(thread_id=f"{name}-{label}", store=stores[label])
        restored = await again.restore() if stores[label] is not None else None
        last_tool = next((m for m in reversed(again.messages) if m.role == "tool"), None)
        out["stores"][label] = {
            "first": statistics.median(times[label][:window]), "last": statistics.median(times[label][-window:]),
            "mean_last": statistics.fmean(times[label][-window:]),
            "status": status, "error": None if error is None else str(error),
            "messages": messages, "restored": restored, "restored_messages": len(again.messages),
            "restored_last_result": None if last_tool is None else last_tool.content,
        }
        again.close()
        if stores[label] is not None:
            await stores[label].delete(f"bench-saves/{name}-{label}")  # the store key: "<agent name>/<thread id>"
    return json.dumps(out)


api = {"prepare": prepare, "saves": saves, "send": send, "summary": summary, "dispose": dispose, "floor": floor,
       "wasm_bytes": wasm_bytes}
js.window.bench = to_js({name: create_proxy(fn) for name, fn in api.items()}, dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
