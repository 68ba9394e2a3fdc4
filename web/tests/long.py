"""Test page for a long thread restored from a store (tests/e2e/test_long_thread.py, bench/window.py).

`?n=<messages>` (1,000 by default) puts a saved thread of that many messages in a
`MemoryStore`: user questions ("question <i>") and Markdown answers, and every tenth question
answered with a call of the page tool `lookup` (completed, its result in the history) before
its text. The last message says "This is the last message.". `?windowed=0` makes the chat with
`Chat(windowed=False)`, `?chat=0` no chat: the thread is restored alone, and `window.lastShown`
set when it is. `window.restoreStart` is the page's `performance.now()` just before the
chat is made (its restore starts there); long.html sets `window.lastShown` when the last message
is in the list. The agent is at `/agent` (a test's scripted agent). The page runs on the main
thread and in a worker (`?pyclient-worker=1`): it reaches the page through `pyscript.window`.
"""

import asyncio
import json

import js
from pyscript import document, window

from pyclient import Agent, MemoryStore, client_tool
from pyclient.browser import Chat, log_to_console

log_to_console()
params = js.URLSearchParams.new(window.location.search)
COUNT = int(params.get("n") or 1000)
WINDOWED = params.get("windowed") != "0"
THREAD = params.get("thread") or "long"


@client_tool
def lookup(q: int) -> str:
    """Look q up."""
    return f"found {q}"


def history(count):
    """`count` messages: questions, answers, and a `lookup` call before every tenth answer."""
    messages = []
    i = 0
    while len(messages) < count - 1:
        messages.append({"id": f"u{i}", "role": "user", "content": f"question {i}"})
        if i % 10 == 9:
            messages.append({"id": f"a{i}", "role": "assistant", "content": "", "toolCalls": [
                {"id": f"c{i}", "type": "function", "function": {"name": "lookup", "arguments": json.dumps({"q": i})}}]})
            messages.append({"id": f"t{i}", "role": "tool", "toolCallId": f"c{i}", "content": f"found {i}"})
        messages.append({"id": f"r{i}", "role": "assistant",
                         "content": f"Answer **{i}**: " + "a few words of the answer, " * 6 + "and its end."})
        i += 1
    messages = messages[:count - 1]
    messages.append({"id": "last", "role": "assistant", "content": "This is the last message."})
    return messages


async def main():
    store = MemoryStore()
    await store.save(f"long/{THREAD}", {"version": 1, "thread_id": THREAD, "run_state": "IDLE",
                                        "messages": history(COUNT)})
    agent = Agent("long", url="/agent", client_tools=[lookup])
    window.restoreStart = window.performance.now()
    thread = agent.thread(thread_id=THREAD, store=store)
    if params.get("chat") == "0":  # the restore alone: the floor under the chat's last screen
        await thread.restore()
        window.lastShown = window.performance.now()
    else:
        window.chat = Chat(thread, document.querySelector("#chat"), windowed=WINDOWED)
    document.documentElement.dataset.pyclient = "ready"


asyncio.ensure_future(main())
