"""Interrupts through a real `Thread` on CPython, against a scripted agent in this process.

The test agent ends the first run with `RUN_FINISHED.outcome` (`outcome`) or
LangGraph's legacy `CUSTOM` `on_interrupt` event; every later request gets "done". What the
thread sent is read back from the transport (`bodies`).
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta, timezone

from pyclient import MockTransport
from pyclient.testing import ScriptedAgent
from tests.helpers import (
    agent_for,
    arun,
    bodies,
    change_background,
    first_raw,
    tool_call,
    tool_messages,
)


def sse(*events: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)


def first_then_done(*events: dict, outcome: dict | None = None) -> MockTransport:
    """The first request gets `events` and RUN_FINISHED (with `outcome`); every later one, "done"."""
    then = ScriptedAgent()
    then.otherwise().say("done")

    def first(body: dict) -> bytes:
        ids = {"threadId": body["threadId"], "runId": body["runId"]}
        finish = {"type": "RUN_FINISHED", **ids, **({"outcome": outcome} if outcome else {})}
        return sse({"type": "RUN_STARTED", **ids}, *events, finish)

    return first_raw(first, then)


def interrupted(*interrupts: dict, events: tuple = ()) -> MockTransport:
    return first_then_done(*events, outcome={"type": "interrupt", "interrupts": list(interrupts)})


def in_seconds(seconds: float) -> str:
    return (datetime.now(timezone.utc) + timedelta(seconds=seconds)).isoformat()


def test_listeners_hear_the_interrupt_and_the_thread_waits_until_it_is_answered():
    script = interrupted({"id": "i1", "reason": "input_required", "message": "Which colour?"})
    thread = agent_for(script).thread()
    heard = []
    thread.subscribe(lambda e: e.kind == "interrupt" and heard.append((e.payload.id, e.payload.status)))

    async def main():
        task = asyncio.ensure_future(thread.send("go"))
        while not thread.interrupts:
            await asyncio.sleep(0)
        for _ in range(20):
            await asyncio.sleep(0)
        assert not task.done() and thread.run_status == "running" and thread.waiting_for_person
        thread.interrupts[0].resolve("blue")
        await task

    arun(main())
    assert heard == [("i1", "open"), ("i1", "resolved")]
    assert thread.run_status == "idle" and thread.run_end.how == "finished"
    assert bodies(script)[1]["resume"] == [{"interruptId": "i1", "status": "resolved", "payload": "blue"}]
    assert thread.messages[-1].content == "done"


def test_one_resume_addresses_every_interrupt_of_the_run():
    script = interrupted({"id": "a", "reason": "confirmation"}, {"id": "b", "reason": "confirmation"})
    thread = agent_for(script).thread()

    async def main():
        task = asyncio.ensure_future(thread.send("go"))
        while len(thread.interrupts) < 2:
            await asyncio.sleep(0)
        first, second = thread.interrupts
        first.resolve(True)
        for _ in range(20):
            await asyncio.sleep(0)
        assert len(bodies(script)) == 1  # one still open: nothing sent yet
        second.cancel("no")
        await task

    arun(main())
    assert len(bodies(script)) == 2
    assert bodies(script)[1]["resume"] == [{"interruptId": "a", "status": "resolved", "payload": True},
                                           {"interruptId": "b", "status": "cancelled"}]


def test_an_expired_interrupt_is_not_resumed():
    script = interrupted({"id": "i1", "reason": "confirmation", "expiresAt": in_seconds(0.3)})
    thread = agent_for(script).thread()
    arun(thread.send("go"), timeout=10)
    assert thread.run_status == "idle" and len(bodies(script)) == 1
    assert thread.run_end.reason == "the interrupt expired before an answer"
    [interrupt] = thread.all_interrupts()
    assert interrupt.status == "expired" and thread.interrupts == []


def test_resolving_after_expiry_raises_and_sends_nothing():
    from pyclient import InterruptError

    script = interrupted({"id": "i1", "reason": "confirmation", "expiresAt": in_seconds(-1)},
                         {"id": "i2", "reason": "confirmation"})
    thread = agent_for(script).thread()
    errors = []

    async def main():
        task = asyncio.ensure_future(thread.send("go"))
        while len(thread.interrupts) < 2:
            await asyncio.sleep(0)
        expired, other = thread.interrupts
        try:
            expired.resolve(True)
        except InterruptError as exc:
            errors.append(str(exc))
        other.resolve(True)
        await task

    arun(main())
    assert errors and "expired" in errors[0]
    assert bodies(script)[1]["resume"] == [{"interruptId": "i2", "status": "resolved", "payload": True}]


def test_stop_cancels_the_open_interrupt_and_the_next_request_says_so():
    script = interrupted({"id": "i1", "reason": "confirmation"})
    thread = agent_for(script).thread()

    async def main():
        task = asyncio.ensure_future(thread.send("go"))
        while not thread.interrupts:
            await asyncio.sleep(0)
        thread.stop()
        await task
        assert thread.run_status == "idle" and len(bodies(script)) == 1
        await thread.send("something else")

    arun(main())
    nxt = bodies(script)[1]
    assert nxt["resume"] == [{"interruptId": "i1", "status": "cancelled"}]
    assert nxt["messages"][-1]["content"] == "something else"
    assert "resume" not in bodies(script)[-1] or len(bodies(script)) == 2


def test_a_client_call_of_an_interrupted_run_is_answered_and_resumed_in_one_request():
    # The run called a client tool and a server tool that needs approval: the client call is
    # the page's, the server call is not; one request carries the tool message and the resume.
    events = (*tool_call("c1", "change_background", {"background": "blue"}),
              *tool_call("s1", "delete_account", {"user": "bob"}))
    script = interrupted({"id": "int-s1", "reason": "tool_call", "toolCallId": "s1",
                          "responseSchema": {"type": "object", "properties": {"approved": {"type": "boolean"}},
                                             "required": ["approved"]}}, events=events)
    thread = agent_for(script, [change_background]).thread()
    thread.subscribe(lambda e: e.kind == "interrupt" and e.payload.status == "open"
                     and e.payload.resolve({"approved": True}))
    arun(thread.send("go"))
    assert thread.run_status == "idle", thread.error
    first, resume = bodies(script)
    assert [m["toolCallId"] for m in tool_messages(resume)] == ["c1"]
    assert resume["resume"] == [{"interruptId": "int-s1", "status": "resolved", "payload": {"approved": True}}]
    part = thread.tool_part("s1")
    assert part.interrupt is not None and part.interrupt.status == "resolved" and part.action is None


def test_a_server_call_shows_awaiting_approval_while_its_interrupt_is_open():
    events = tool_call("s1", "delete_account", {"user": "bob"})
    script = interrupted({"id": "int-s1", "reason": "tool_call", "toolCallId": "s1"}, events=events)
    thread = agent_for(script).thread()
    parts = []

    def on_event(event):
        if event.kind == "interrupt" and event.payload.status == "open":
            parts.append(thread.tool_part("s1"))
            assert event.payload.is_approval  # no schema, reason "tool_call"
            event.payload.resolve({"approved": False})

    thread.subscribe(on_event)
    arun(thread.send("go"))
    [part] = parts
    assert part.status == "awaiting_approval" and part.state == "input-available"
    assert part.interrupt is not None and part.action is None
    assert tool_messages(bodies(script)[1]) == []


def test_the_cancelled_outcome_ends_the_run_idle_and_says_why():
    script = first_then_done(*tool_call("c1", "change_background", {"background": "red"}),
                             outcome={"type": "cancelled"})
    ran = []
    from pyclient import client_tool

    @client_tool
    def change_background(background: str) -> str:
        """Change the page background."""
        ran.append(background)
        return "changed"

    thread = agent_for(script, [change_background]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and thread.run_end.how == "cancelled"
    assert thread.run_end.reason == "Cancelled by the agent"
    assert ran == [] and len(bodies(script)) == 1
    [tool] = [m for m in thread.messages if m.role == "tool"]
    assert tool.tool_call_id == "c1" and "the agent cancelled the run" in tool.content


def test_the_legacy_on_interrupt_event_is_resumed_through_forwarded_props():
    script = first_then_done({"type": "CUSTOM", "name": "on_interrupt", "value": '{"message": "Which colour?"}',
                              "rawEvent": {"id": "lg1"}})
    thread = agent_for(script).thread(forwarded_props={"mine": 1})
    seen = []
    thread.subscribe(lambda e: e.kind == "interrupt" and e.payload.status == "open"
                     and (seen.append(e.payload), e.payload.resolve({"colour": "blue"})))
    arun(thread.send("go"))
    [interrupt] = seen
    assert interrupt.id == "lg1" and interrupt.reason == "langgraph:interrupt" and interrupt.message == "Which colour?"
    resume = bodies(script)[1]
    assert "resume" not in resume
    assert resume["forwardedProps"] == {"mine": 1, "command": {"resume": {"colour": "blue"}}}
    assert thread.forwarded_props == {"mine": 1}
