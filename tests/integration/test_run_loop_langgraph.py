"""The same run loop against a second, independent AG-UI server: ag-ui-langgraph."""

from __future__ import annotations

import json

from pyclient import Agent
from tests.helpers import arun, change_background


def test_frontend_tool_round_trip(langgraph_url, transport):
    events: list[str] = []

    async def main():
        async with Agent("lg", f"{langgraph_url}/agent", client_tools=[change_background],
                         transport=transport) as agent:
            thread = agent.thread()
            thread.subscribe(lambda e: e.kind == "event" and events.append(e.payload.type))
            await thread.send("make it blue")
            return thread

    thread = arun(main(), timeout=60)
    assert thread.run_status == "idle", thread.error
    # ag-ui-langgraph sends no outcome: the pending call was derived from the stream.
    assert len(transport.bodies) == 2
    follow_up = transport.bodies[1]
    [tool] = [m for m in follow_up["messages"] if m["role"] == "tool"]
    assert tool["content"] == "background is now blue"
    [call] = [c for m in follow_up["messages"] if m["role"] == "assistant" for c in m.get("toolCalls", [])]
    assert call["id"] == tool["toolCallId"] and json.loads(call["function"]["arguments"]) == {"background": "blue"}
    answer = thread.messages[-1]
    assert answer.role == "assistant" and "background is now blue" in answer.content
    assert {"RAW", "STEP_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT"} <= {str(t.value if hasattr(t, "value") else t) for t in events}


def test_text_only_answer(langgraph_url):
    async def main():
        async with Agent("lg", f"{langgraph_url}/agent", client_tools=[change_background]) as agent:
            thread = agent.thread()
            await thread.send("hello there")
            await thread.send("make it red")
            return thread

    thread = arun(main(), timeout=60)
    assert thread.run_status == "idle", thread.error
    tools = [m for m in thread.messages if m.role == "tool"]
    assert [t.content for t in tools] == ["background is now red"]
    assert "background is now red" in thread.messages[-1].content
