"""Property tests: generated AG-UI streams (valid, mutated, cut into random chunks) against a real run.

Hypothesis draws one response body (`tests.unit.conversation.agui_streams`) and the scripted server answers
the first request with it, follow-ups with a plain finished run. Whatever the stream holds:

- `send()` returns (it never raises for what a server sends);
- the thread ends `"idle"`, or `"error"` with `thread.error` set and a message;
- each toolCallId has at most one tool message, in `thread.messages` and in every request;
- a handler runs only for a tool the request advertised, and at most once per call id;
- every request body is JSON (lone surrogates from the server included).

A second suite feeds the decoded events straight into the sans-I/O `Conversation`.

The profiles (`tests/conftest.py`) size the runs: `ci` by default, `--hypothesis-profile=deep`
for 10,000 examples each.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

from hypothesis import given, note
from hypothesis import strategies as st

from pyclient import Agent, MockTransport, ToolContext, client_tool
from pyclient._conversation._machine import Conversation
from pyclient._conversation._records import Call, RunRequest
from pyclient._tools._results import ToolResult
from tests.unit.conversation.agui_streams import ADVERTISED, Stream, budget, events, streams
from tests.unit.conversation.driving import decoded, received, settle

HOLD_TURNS = 2_000
"""Loop turns a held-open run gets to end by itself once its last chunk is delivered (it needs a few)."""

RAN: list[tuple[str, str]] = []
"""(tool name, toolCallId) of every handler that started, for the example being run."""


@client_tool
def echo(text: str, ctx: ToolContext) -> str:
    """Echo the text."""
    RAN.append(("echo", ctx.tool_call_id))
    return text


@client_tool
async def add(a: int, b: int, ctx: ToolContext) -> int:
    """Add two numbers."""
    RAN.append(("add", ctx.tool_call_id))
    await asyncio.sleep(0)
    return a + b


@client_tool
def secret(text: str, ctx: ToolContext) -> str:
    """Registered on the thread but never mounted: never advertised, must never run."""
    RAN.append(("secret", ctx.tool_call_id))
    return "leaked"


def tool_message_counts(messages: list[dict[str, Any]]) -> Counter[str]:
    return Counter(m["toolCallId"] for m in messages if m.get("role") == "tool")


def orphans(messages: list[dict[str, Any]]) -> list[str]:
    """The tool messages whose call no earlier assistant message declares (providers refuse them)."""
    declared: set[str] = set()
    found = []
    for message in messages:
        if message.get("role") == "assistant":
            declared.update(call["id"] for call in message.get("toolCalls") or ())
        elif message.get("role") == "tool" and message["toolCallId"] not in declared:
            found.append(message["toolCallId"])
    return found


def finished_run(body: dict[str, Any]) -> bytes:
    events = [{"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]},
              {"type": "RUN_FINISHED", "threadId": body["threadId"], "runId": body["runId"]}]
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def run_thread(stream: Stream) -> None:
    RAN.clear()
    raw_bodies: list[bytes] = []

    async def held_open() -> Any:
        for chunk in stream.chunks:
            yield chunk
            await asyncio.sleep(0)
        delivered.append(True)
        await asyncio.Event().wait()  # the server never closes the connection

    def handle(request: Any) -> Any:
        raw_bodies.append(request.body)
        body = json.loads(request.body)  # must never fail: checked again below
        if len(raw_bodies) > 1:
            return finished_run(body)
        return held_open() if stream.hold_open else stream.chunks

    agent = Agent("prop", "http://agent.test/agent", client_tools=[echo, add], transport=MockTransport(handle))
    thread = agent.thread()
    thread.register_tool(secret, mounted=False)
    terminal: list[str] = []
    delivered: list[bool] = []
    thread.subscribe(lambda e: e.kind == "event" and str(e.payload.type) in ("RUN_FINISHED", "RUN_ERROR")
                     and terminal.append(str(e.payload.type)))
    # The person answers every interrupt at once (cancelled), so the resume goes out.
    thread.subscribe(lambda e: e.kind == "interrupt" and e.payload.status == "open" and e.payload.cancel())

    async def main() -> None:
        task = asyncio.ensure_future(thread.send("go"))
        if not stream.hold_open:
            await asyncio.wait_for(task, 30)
            return
        while not delivered and not task.done():
            await asyncio.sleep(0)
        for _ in range(HOLD_TURNS):
            if task.done():
                break
            await asyncio.sleep(0)
        else:
            # Only a server that never ends the run may keep send() waiting: once RUN_FINISHED
            # or RUN_ERROR arrived, the run must go on without the connection closing.
            assert stream.hold_open and not terminal, f"send() still waiting after {terminal}"
            thread.stop()
        await asyncio.wait_for(task, 30)

    asyncio.run(main())

    assert thread.run_status in ("idle", "error"), thread.run_status
    if thread.run_status == "error":
        assert thread.error is not None and str(thread.error)
    bodies = [json.loads(raw) for raw in raw_bodies]
    assert bodies, "no request went out"
    for body in bodies:
        assert sorted(t["name"] for t in body["tools"]) == sorted(ADVERTISED)
        counts = tool_message_counts(body["messages"])
        assert all(n == 1 for n in counts.values()), counts
        assert orphans(body["messages"]) == [], body["messages"]
    history = [m.model_dump(by_alias=True) for m in thread.messages]
    counts = tool_message_counts(history)
    assert all(n == 1 for n in counts.values()), counts
    assert orphans(history) == [], history
    # A call an interrupt names is the server's: never answered by the page.
    held = {i.tool_call_id for i in thread.all_interrupts() if i.tool_call_id}
    assert not held & {call_id for _, call_id in RAN}, (held, RAN)
    client_words = ("Tool call cancelled", "Not run", "is not available in this thread")
    for body in bodies:
        answered = [m for m in body["messages"] if m.get("role") == "tool" and m["toolCallId"] in held
                    and any(words in str(m["content"]) for words in client_words)]
        assert answered == [], answered
    names = Counter(name for name, _ in RAN)
    assert set(names) <= set(ADVERTISED), RAN
    ran_ids = Counter(call_id for _, call_id in RAN)
    assert all(n == 1 for n in ran_ids.values()), RAN


@given(stream=streams())
def test_any_stream_ends_idle_or_error_with_one_answer_per_call(stream: Stream) -> None:
    note(f"notes: {stream.notes}; {len(stream.chunks)} chunks")
    run_thread(stream)


# -- the machine alone ------------------------------------------------------------------------

ANSWERS = st.sampled_from(["succeed", "fail", "cancel", "approve", "reject_late"])


@budget(ci=1000)  # its huge and deep values make it the slowest per example
@given(event_list=events(), data=st.data())
def test_machine_folds_any_event_sequence(event_list: list[Any], data: st.DataObject) -> None:
    tools = [echo, add]
    machine = Conversation("THREAD")
    machine.add_user_message("go")

    def start() -> RunRequest:
        request = machine.start_run(tools)
        json.loads(request.body)
        return request

    def answer(call: Call) -> None:
        assert call.name in ADVERTISED, call
        choice = data.draw(ANSWERS)
        if choice == "fail":
            machine.calls.handler_returned(call.id, call.execution, ToolResult.failure("no"))
        elif choice == "cancel":
            machine.calls.cancel(call.id, "test")
        else:
            machine.calls.handler_returned(call.id, call.execution, ToolResult.success("ok"))

    def approve_or_cancel(call: Call) -> None:
        if call.status.value == "awaiting_approval":
            machine.calls.approve(call.id)
        else:
            machine.calls.cancel(call.id, "test")

    start()
    if received(machine, decoded(event_list, data.draw)):
        machine.end_stream()
    settle(machine, tools, start, run=answer, pending=approve_or_cancel,
           interrupt=lambda record: machine.interrupts.cancel(record.id), turns=200)
    assert machine.run_status in ("idle", "error")
    if machine.run_status == "error":
        assert machine.error is not None and str(machine.error)
    history = [m.model_dump(by_alias=True) for m in machine.messages()]
    counts = tool_message_counts(history)
    assert all(n == 1 for n in counts.values()), counts
    assert orphans(history) == [], history
