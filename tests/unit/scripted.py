"""A scripted AG-UI server over `MockTransport`, and small async helpers, for the unit tests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from pyclient import Agent, MockTransport


def arun(coro, timeout: float = 20):
    return asyncio.run(asyncio.wait_for(coro, timeout))


def sse(*events: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def started(body: dict) -> dict:
    return {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]}


def finished(body: dict, **extra) -> dict:
    return {"type": "RUN_FINISHED", "threadId": body["threadId"], "runId": body["runId"], **extra}


def call_events(call_id: str, name: str, args: dict, parent: str = "m1", *, chunked: bool = False) -> list[dict]:
    """A tool call; `chunked` streams its arguments in two deltas (cut after 3 characters)."""
    text = json.dumps(args)
    deltas = [text[:3], text[3:]] if chunked else [text]
    return [
        {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name, "parentMessageId": parent},
        *({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": delta} for delta in deltas),
        {"type": "TOOL_CALL_END", "toolCallId": call_id},
    ]


def text_events(message_id: str, text: str, *, chunked: bool = False) -> list[dict]:
    """An assistant text message; `chunked` streams it one character a delta."""
    deltas = list(text) if chunked else [text]
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta} for delta in deltas),
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


class Server:
    """`script(body, n)` returns the response of the n-th request; `bodies` keeps every request."""

    def __init__(self, script: Callable[[dict, int], Any]) -> None:
        self.script = script
        self.bodies: list[dict] = []
        self.transport = MockTransport(self.handle)

    def handle(self, request):
        body = json.loads(request.body)
        self.bodies.append(body)
        return self.script(body, len(self.bodies) - 1)

    def tool_names(self, n: int) -> list[str]:
        return [tool["name"] for tool in self.bodies[n]["tools"]]

    def tool_messages(self, n: int) -> list[dict]:
        return tool_messages_in(self.bodies[n])

    def tool_contents(self, n: int) -> list[str]:
        return [m["content"] for m in self.tool_messages(n)]


def tool_messages_in(body: dict) -> list[dict]:
    return [m for m in body["messages"] if m["role"] == "tool"]


def calls_then_text(calls: list[tuple[str, str, dict]], *, quote_tools: bool = False, chunked: bool = False):
    """Request 0 makes the given calls; later requests answer with text (no calls): "done", or
    with `quote_tools` the contents of the request's tool messages joined by " | ".
    `chunked` streams arguments and text in small deltas (see `call_events`, `text_events`)."""

    def script(body, n):
        if n == 0:
            events = [started(body)]
            for call_id, name, args in calls:
                events += call_events(call_id, name, args, chunked=chunked)
            return sse(*events, finished(body))
        text = " | ".join(m["content"] for m in tool_messages_in(body)) if quote_tools else "done"
        return sse(started(body), *text_events(f"answer{n}", text, chunked=chunked), finished(body))

    return script


def text_only(body, n):
    return sse(started(body), *text_events(f"t{n}", "ok"), finished(body))


def make_agent(server: Server, tools=(), **options) -> Agent:
    return Agent("test", "http://agent.test/agent", client_tools=tools, transport=server.transport, **options)


async def until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait until `predicate()` is true, checking it after every turn of the event loop.

    It yields with `asyncio.sleep(0)`: the other tasks advance one step per check, so it returns
    as soon as the condition holds, however fast or slow the machine is. `timeout` is only a
    guard that turns a condition that is never reached into a failure instead of a hang.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"condition not reached within {timeout} s")
        await asyncio.sleep(0)


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
