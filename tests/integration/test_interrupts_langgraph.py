"""LangGraph interrupts through ag-ui-langgraph: the legacy `on_interrupt` channel and the 1.0 outcome.

The graph (`tests.agents.langgraph_interrupt_app`) has one node that calls `interrupt()` with a
message and a response schema, then answers with what it was resumed with. `/agent` speaks
ag-ui-langgraph's default (a `CUSTOM` `on_interrupt` event, resumed through
`forwardedProps.command.resume`); `/agent-outcome` also sends the 1.0 outcome for the same
interrupt, which pyclient takes as one interrupt, resumed through `resume[]` only.
"""

from __future__ import annotations

import asyncio

import pytest

from pyclient import Agent
from tests.helpers import arun
from tests.integration.conftest import served_app

graph = served_app("tests.agents.langgraph_interrupt_app", "log", path="", scope="module")
"""The interrupt graph, served once for the module: its base URL and its log."""


def resolving(thread, payload, seen):
    def on_event(event):
        if event.kind == "interrupt" and event.payload.status == "open":
            seen.append(event.payload)
            event.payload.resolve(payload)
    thread.subscribe(on_event)


@pytest.mark.parametrize("path", ["/agent", "/agent-outcome"])
def test_the_resume_value_reaches_the_graph(graph, transport, path):
    url, log = graph
    log.answers.clear()
    thread = Agent("lg", url + path, transport=transport).thread()
    seen = []
    resolving(thread, {"colour": "blue"}, seen)
    arun(thread.send("pick a colour"), timeout=60)

    assert thread.run_status == "idle", thread.error
    [interrupt] = seen
    assert interrupt.message == "Which colour?" and interrupt.reason == "langgraph:interrupt"
    assert interrupt.response_schema == {"type": "object", "properties": {"colour": {"type": "string"}},
                                         "required": ["colour"]}
    assert log.answers == [{"colour": "blue"}]
    first, resume = transport.bodies
    if path == "/agent":   # legacy: forwardedProps.command.resume only
        assert "resume" not in resume
        assert resume["forwardedProps"] == {"command": {"resume": {"colour": "blue"}}}
    else:                  # one interrupt from both channels: resume[] only, never both
        assert resume["forwardedProps"] == {}
        assert resume["resume"] == [{"interruptId": interrupt.id, "status": "resolved",
                                     "payload": {"colour": "blue"}}]
    assert thread.messages[-1].role == "assistant"
    assert thread.messages[-1].content == 'You chose {"colour": "blue"}'
    assert thread.forwarded_props is None  # the command went with that one request


@pytest.mark.parametrize("path", ["/agent", "/agent-outcome"])
def test_a_new_message_cancels_first_then_is_sent(graph, transport, path):
    # ag-ui-langgraph drops the new messages of a request that resumes: the cancellation goes
    # alone, the message right after it.
    url, log = graph
    log.answers.clear()
    thread = Agent("lg", url + path, transport=transport).thread()

    async def main():
        first = asyncio.ensure_future(thread.send("pick a colour"))
        while not thread.interrupts:
            await asyncio.sleep(0.01)
        [interrupt] = thread.interrupts
        task = asyncio.ensure_future(thread.send("never mind"))
        await asyncio.wait_for(first, 30)
        # The graph starts again on the new message, and asks again.
        while len(transport.bodies) < 3 or not thread.interrupts:
            await asyncio.sleep(0.01)
        thread.stop()
        await asyncio.wait_for(task, 30)
        return interrupt

    interrupt = arun(main(), timeout=60)
    assert interrupt.status == "cancelled"
    cancel, message = transport.bodies[1], transport.bodies[2]
    assert [m["content"] for m in cancel["messages"] if m["role"] == "user"] == ["pick a colour"]
    assert log.answers[0] == {"__agui_cancelled__": True, "interrupt_id": interrupt.id}
    assert message["messages"][-1]["content"] == "never mind"
    assert "resume" not in message and message["forwardedProps"] == {}
