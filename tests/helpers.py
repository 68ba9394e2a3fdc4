"""What many of the repository's tests share: running a coroutine, waiting on the loop, the
tools they call, and reading the request bodies a thread sent.

The agents the tests talk to are `pyclient.testing.ScriptedAgent`s (in this process through
`ScriptedAgent.transport()`, or served over HTTP), or a `pyclient.MockTransport` handler for
bytes no agent would send; `sse()` writes those.

```python
from pyclient import Agent
from pyclient.testing import ScriptedAgent
from tests.helpers import arun, bodies, echo, tool_contents

agent = ScriptedAgent()
agent.on("echo").call("echo", text="hi").then_say("done")
thread = Agent("test", "http://agent.test/agent", client_tools=[echo], transport=agent.transport()).thread()
arun(thread.send("echo this"))
print(tool_contents(bodies(thread)[1]))   # ['hi']
```
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine
from typing import Any

from pyclient import Agent, client_tool
from pyclient.testing import ScriptedAgent

# -- running and waiting -------------------------------------------------------------------------


def arun(coro: Coroutine[Any, Any, Any], timeout: float = 30) -> Any:
    """`asyncio.run(coro)`, failing after `timeout` seconds: a guard against a hang, never a pace."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


async def until(predicate: Callable[[], Any], timeout: float = 5.0) -> None:
    """Wait until `predicate()` is true, checking it after every turn of the event loop.

    It yields with `asyncio.sleep(0)`: the other tasks advance one step per check, so it returns
    as soon as the condition holds, however fast or slow the machine is. `timeout` is only a
    guard that turns a condition that is never reached into a failure instead of a hang. For a
    thread talking over HTTP, `changed_until()` waits without spinning.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"condition not reached within {timeout} s")
        await asyncio.sleep(0)


async def changed_until(thread: Any, predicate: Callable[[], Any], timeout: float = 20.0) -> None:
    """Wait until `predicate()` is true, checking it after each change or event the thread tells
    its listeners (no polling: for threads whose input comes over the network)."""
    if predicate():
        return
    reached = asyncio.Event()
    unsubscribe = thread.subscribe(lambda event: predicate() and reached.set())
    try:
        await asyncio.wait_for(reached.wait(), timeout)
    except asyncio.TimeoutError:
        raise AssertionError(f"condition not reached within {timeout} s") from None
    finally:
        unsubscribe()


SETTLE_TURNS = 20


async def settle(turns: int = SETTLE_TURNS) -> None:
    """Let every ready task run `turns` more steps, without waiting for any clock.

    For tests that prove something does NOT happen: first wait for the exact state (a
    listener, `until`), then `settle()`, then assert. That is enough because the thread's
    driver has no timers: everything it does (send a follow-up, start a handler) is triggered
    by an input and follows it within a few turns of the loop (measured: a follow-up reaches
    the `MockTransport` handler 2 turns after the last answer, a handler starts 3 turns after
    its registration mounts), so 20 turns leave it ample room to misbehave.
    """
    for _ in range(turns):
        await asyncio.sleep(0)


def wait_for(predicate: Callable[[], Any], timeout_s: float = 20.0, what: str = "condition") -> None:
    """Wait (in a test's thread, while a server thread works) until `predicate()` is true."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout_s} s")
        time.sleep(0.01)


# -- tools -----------------------------------------------------------------------------------


@client_tool
def change_background(background: str) -> str:
    """Change the page background. Accepts any CSS background value."""
    return f"background is now {background}"


@client_tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def make_tool(name: str, result: str = "", **options: Any) -> Any:
    """A tool without parameters named `name` that returns `result` (by default its name)."""

    def handler() -> str:
        return result or name

    handler.__doc__ = f"The {name} tool ({result or 'default'})."
    return client_tool(handler, name=name, **options)


# -- agents, threads and what they sent --------------------------------------------------------


def agent_for(script: ScriptedAgent, tools: Any = (), **options: Any) -> Agent:
    """An `Agent` with `tools` that `script` answers in this process (`ScriptedAgent.transport()`)."""
    return Agent("test", "http://agent.test/agent", client_tools=tools, transport=script.transport(), **options)


def bodies(thread_or_agent: Any) -> list[dict]:
    """The JSON bodies of every request the agent's `MockTransport` sent, in order (wire names)."""
    agent = getattr(thread_or_agent, "agent", thread_or_agent)
    return [json.loads(request.body) for request in agent.transport.requests]


def tool_messages(body: dict) -> list[dict]:
    """The tool messages of a request body (what the client sent back)."""
    return [m for m in body["messages"] if m["role"] == "tool"]


def tool_contents(body: dict) -> list[str]:
    return [m["content"] for m in tool_messages(body)]


def tool_names(body: dict) -> list[str]:
    """The names of the tools a request body advertised."""
    return [tool["name"] for tool in body["tools"]]


def texts(thread: Any) -> list[str]:
    """The assistant messages of a thread that have text."""
    return [m.content for m in thread.messages if m.role == "assistant" and m.content]


# -- bytes no agent would send ----------------------------------------------------------------


def sse(*events: dict | str) -> bytes:
    """SSE messages for a `MockTransport` handler: dicts as their JSON, strings as written."""
    return b"".join(b"data: " + (e if isinstance(e, str) else json.dumps(e)).encode() + b"\n\n" for e in events)


def ids(body: dict) -> dict:
    """The `threadId` and `runId` of a request body, for the events that answer it."""
    return {"threadId": body["threadId"], "runId": body["runId"]}
