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
import re
import signal
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any

from pyclient import Agent, MockTransport, Transport, client_tool
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


@contextmanager
def within(seconds: float, what: str) -> Iterator[None]:
    """Fail the block, instead of hanging the suite, if it runs longer than `seconds`: a guard
    for code that never awaits (a parse, a check), which `arun`'s timeout cannot interrupt.
    Never a pace: give it ten times what the block needs. POSIX, the main thread."""

    def expired(signum: int, frame: Any) -> None:
        raise AssertionError(f"{what} took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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
    """Change the page background. Accepts any CSS background value.

    Args:
        background: a CSS background value, such as "blue" or a gradient.
    """
    # The demo page's tool (web/main.py) as the model sees it, without the DOM.
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


ANY = re.compile("")
"""Matches every user message: `agent.on(ANY, times=1)` answers the first one, whatever it says."""

ONE_CHAR = 100_000
"""`chunks=` for a text streamed one character a delta (more deltas than any test text has characters)."""


def agent_for(script: ScriptedAgent | Transport, tools: Any = (), **options: Any) -> Agent:
    """An `Agent` with `tools` answered by `script` in this process (`ScriptedAgent.transport()`),
    or by a `MockTransport` handler."""
    transport = script if isinstance(script, Transport) else script.transport()
    return Agent("test", "http://agent.test/agent", client_tools=tools, transport=transport, **options)


def quote(results: list) -> str:
    """A follow-up's answer that quotes the tool results it got, joined by " | "."""
    return " | ".join(m.content for m in results)


def calls_then_text(calls: list[tuple[str, str, dict]], *, quote_tools: bool = False,
                    chunked: bool = False) -> ScriptedAgent:
    """An agent whose answer to the first user message makes `calls` (id, tool name, arguments) in
    parallel; their follow-up gets "done" (or, with `quote_tools`, their results joined by " | "),
    and every later user message "done". `chunked` streams each call's arguments in two deltas and
    the texts one character a delta."""
    agent = ScriptedAgent()
    turn = agent.on(ANY, times=1)
    for call_id, name, arguments in calls:
        turn.call(name, arguments, call_id=call_id, chunks=2 if chunked else 1)
    text_chunks = ONE_CHAR if chunked else 1
    turn.then_say(quote if quote_tools else "done", chunks=text_chunks)
    agent.otherwise().say("done", chunks=text_chunks)
    return agent


def text_only(text: str = "ok") -> ScriptedAgent:
    """An agent that answers every user message with `text`."""
    agent = ScriptedAgent()
    agent.otherwise().say(text)
    return agent


def bodies(sent_to: Any) -> list[dict]:
    """The JSON bodies (wire names) of every request a `MockTransport` sent, in order: that
    transport, a `ScriptedAgent`'s own (`transport()`), or that of an `Agent` or a `Thread`."""
    if isinstance(sent_to, ScriptedAgent):
        transport = sent_to.transport()
    elif isinstance(sent_to, MockTransport):
        transport = sent_to
    else:
        transport = getattr(sent_to, "agent", sent_to).transport
    return [json.loads(request.body) for request in transport.requests]


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


# -- servers -------------------------------------------------------------------------------------


async def run_to_end(app: Any, scope: Any, receive: Any, send: Any) -> str:
    """Run an ASGI app on one HTTP request; return how its response ended: "completed" (the app
    sent all of it) or "disconnected" (it returned before: the client had gone away)."""
    complete = False

    async def watch(message: Any) -> None:
        nonlocal complete
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            complete = True
        await send(message)

    await app(scope, receive, watch)
    return "completed" if complete else "disconnected"


def fetch_after_a_frame(page: Any, path: str) -> None:
    """Make a Playwright page fetch `path` once it has rendered a frame, and wait for the answer.

    A later request for what the page loads before it: an image or an iframe begins loading when
    it is inserted, a CSS `url()` once its style is computed (by the frame). When the answer is
    in, any such load has been requested (and Playwright's `request` listeners told of it, in
    order), and one that failed at once has fired its handlers.
    """
    status = page.evaluate("""async (path) => {
        await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
        return (await fetch(path)).status; }""", path)
    assert status == 200, f"{path}: HTTP {status}"


# -- bytes no agent would send ----------------------------------------------------------------
# For a `MockTransport` handler: a stream cut in the middle of an event, events after
# RUN_FINISHED, a body that follows the request's own messages, a transport that raises.


def sse(*events: dict | str) -> bytes:
    """SSE messages: dicts as their JSON, strings as written."""
    return b"".join(b"data: " + (e if isinstance(e, str) else json.dumps(e)).encode() + b"\n\n" for e in events)


def ids(body: dict) -> dict:
    """The `threadId` and `runId` of a request body, for the events that answer it."""
    return {"threadId": body["threadId"], "runId": body["runId"]}


def text_message(message_id: str, text: str) -> list[dict]:
    """An assistant text message as events, one character a delta."""
    return [{"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
            *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": c} for c in text),
            {"type": "TEXT_MESSAGE_END", "messageId": message_id}]


def tool_call(call_id: str, name: str, arguments: dict, parent: str = "m1") -> list[dict]:
    """A tool call as events (its arguments in one delta)."""
    return [{"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name, "parentMessageId": parent},
            {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": json.dumps(arguments)},
            {"type": "TOOL_CALL_END", "toolCallId": call_id}]


def first_raw(first: Callable[[dict], Any], then: ScriptedAgent) -> MockTransport:
    """A `MockTransport` that answers the first request with `first(body)` (bytes, or an async
    iterator of them), and every later one as `then` does."""

    def handle(request: Any) -> Any:
        if len(transport.requests) == 1:
            return first(json.loads(request.body))
        return then.transport().handler(request)

    transport = MockTransport(handle)
    return transport


def held_open(arguments: dict, closed: list[bool]) -> Callable[[dict], Any]:
    """A first answer for `first_raw`: a call of `echo` with `arguments` (c1), RUN_FINISHED, and
    the connection held open (it never ends by itself); `closed` gets True once the client closes it."""

    async def first(body: dict) -> Any:
        try:
            yield sse({"type": "RUN_STARTED", **ids(body)}, *tool_call("c1", "echo", arguments),
                      {"type": "RUN_FINISHED", **ids(body)})
            await asyncio.Event().wait()  # never set: the server keeps the connection open
        finally:
            closed.append(True)

    return first


def answering(thread: Any, payload: Any = None, *, cancel: bool = False, seen: list[Any] | None = None) -> None:
    """Answer every interrupt of `thread` as it opens: `resolve(payload)` (a callable gets the
    interrupt and gives the payload), or `cancel()`; each one is appended to `seen`."""
    def on_event(event: Any) -> None:
        if event.kind == "interrupt" and event.payload.status == "open":
            if seen is not None:
                seen.append(event.payload)
            if cancel:
                event.payload.cancel()
            else:
                event.payload.resolve(payload(event.payload) if callable(payload) else payload)
    thread.subscribe(on_event)


def machine_registration(tool: Any) -> Any:
    """A registration to serve a machine's calls with (the machine only keeps it to hand it back)."""
    from pyclient._binding._scopes import AgentScope, Registration

    return Registration(tool, "agent", AgentScope(None, (), lambda: None))  # type: ignore[arg-type]


def call_events(call_id: str, name: str, args: dict[str, Any]) -> list[Any]:
    """A tool call as `ag_ui.core` event models (its arguments in one delta)."""
    from ag_ui.core import ToolCallArgsEvent, ToolCallEndEvent, ToolCallStartEvent

    return [ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name, parent_message_id="m"),
            ToolCallArgsEvent(tool_call_id=call_id, delta=json.dumps(args)),
            ToolCallEndEvent(tool_call_id=call_id)]


def png_bytes(width: int = 4, height: int = 4, rgb: tuple[int, int, int] = (220, 40, 40)) -> bytes:
    """A real PNG of one colour (a browser decodes it; pydantic-ai's model gets its bytes)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


PDF_BYTES = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
             b"trailer<</Root 1 0 R>>\n%%EOF\n")
"""A minimal PDF document (its bytes are what the tests compare)."""


def png_pixels(data: bytes) -> tuple[int, int, list[list[tuple[int, ...]]]]:
    """A PNG's width, height and rows of pixels (8-bit RGB or RGBA, not interlaced: what
    browsers' canvases and `png_bytes` write), decoded here so a test can look at an image."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    offset, idat, header = 8, b"", b""
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind, body = data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and not interlace, f"unsupported PNG: depth {depth}, colour type {colour}"
    channels = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):  # the five PNG filters: none, sub, up, average, Paeth
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(line)
        previous = line
    return width, height, [[tuple(row[x * channels:(x + 1) * channels]) for x in range(width)] for row in rows]
