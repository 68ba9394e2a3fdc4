"""Bench page for bench/chat.py: `window.bench` makes threads, with or without a Chat, and sends.

`prepare(url, with_chat)` mounts a fresh thread of an agent at `url` on a fresh `<section>`
(and attaches `pyclient.browser.Chat(thread, section)`, its public constructor only, when
`with_chat`); `send(id, text)` is `await thread.send(text)`; `summary(id)` describes the
thread as JSON; `dispose(id)` closes the thread and removes its section. The page tools
answer the bench streams (bench/streams.py): `bench_mark(index)` returns "done#<index>#",
`bench_blob(blob)` returns "got <len> chars".
"""

import gc
import json

import js
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


def prepare(url, with_chat):
    global made
    made += 1
    agent = agents.get(url)
    if agent is None:
        agent = agents[url] = Agent("bench", url=url, client_tools=[bench_mark, bench_blob])
    section = document.createElement("section")
    section.id = f"bench-{made}"
    document.getElementById("threads").append(section)
    thread = agent.thread(section)
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


api = {"prepare": prepare, "send": send, "summary": summary, "dispose": dispose}
js.window.bench = to_js({name: create_proxy(fn) for name, fn in api.items()}, dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
