"""The run loop on CPython over real HTTP (httpx) against the embedded pydantic-ai agent."""

from __future__ import annotations

import asyncio
import json
import time

from pyclient import (
    Agent,
    HttpxTransport,
    RemoteProtocolError,
    ToolContext,
    TransportError,
    client_tool,
)
from tests.helpers import arun, change_background, changed_until, settle, tool_messages


async def send(url: str, text: str, *tools, transport=None):
    transport = transport or HttpxTransport()
    async with Agent("test", url, client_tools=tools, transport=transport) as agent:
        thread = agent.thread()
        await thread.send(text)
        return thread, transport


def test_one_tool_round_trip(agent_url, transport):
    thread, _ = arun(send(f"{agent_url}/agent", "make it blue", change_background, transport=transport))
    assert thread.run_status == "idle" and thread.error is None
    assert [m.role for m in thread.messages] == ["user", "assistant", "tool", "assistant"]
    call = thread.messages[1].tool_calls[0]
    assert call.function.name == "change_background"
    assert json.loads(call.function.arguments) == {"background": "blue"}
    assert thread.messages[2].tool_call_id == call.id
    assert thread.messages[2].content == "background is now blue"
    assert 'change_background returned: "background is now blue"' in thread.messages[-1].content
    assert len(transport.bodies) == 2
    assert [t["name"] for t in transport.bodies[0]["tools"]] == ["change_background"]


def test_two_tools_in_parallel_run_concurrently(agent_url, transport):
    state: dict = {}

    @client_tool
    async def change_background(background: str) -> str:
        """Change the page background. Accepts any CSS background value."""
        state["bg"].set()
        await asyncio.wait_for(state["note"].wait(), 5)  # only returns if save_note runs meanwhile
        state["bg_done"] = time.monotonic()
        return f"background is now {background}"

    @client_tool
    async def save_note(key: str, text: str) -> str:
        """Save a note in this browser."""
        state["note"].set()
        await asyncio.wait_for(state["bg"].wait(), 5)
        state["note_done"] = time.monotonic()
        return f"saved {key}: {text}"

    async def main():
        state["bg"], state["note"] = asyncio.Event(), asyncio.Event()
        return await send(f"{agent_url}/agent", "make the background blue and save a note called todo saying buy milk",
                          change_background, save_note, transport=transport)

    thread, _ = arun(main())
    assert thread.run_status == "idle", thread.error
    assert "bg_done" in state and "note_done" in state
    results = tool_messages(transport.bodies[1])
    assert sorted(m["content"] for m in results) == ["background is now blue", "saved buy: milk"]
    answer = thread.messages[-1].content
    assert 'change_background returned: "background is now blue"' in answer
    assert 'save_note returned: "saved buy: milk"' in answer


def test_interleaved_parallel_arguments(agent_url):
    @client_tool
    def save_note(key: str, text: str) -> str:
        """Save a note in this browser."""
        return f"saved {key}: {text}"

    thread, _ = arun(send(f"{agent_url}/agent",
                          "interleaved: make the background blue and save a note called todo saying buy milk",
                          change_background, save_note))
    assert thread.run_status == "idle", thread.error
    contents = sorted(m.content for m in thread.messages if m.role == "tool")
    assert contents == ["background is now blue", "saved buy: milk"]


def test_raising_tool_answer_quotes_the_error(agent_url, transport):
    @client_tool
    def save_note(key: str, text: str) -> str:
        """Save a note in this browser."""
        raise RuntimeError("quota exceeded")

    thread, _ = arun(send(f"{agent_url}/agent", "save a note called todo saying milk", save_note,
                          transport=transport))
    assert thread.run_status == "idle", thread.error
    [tool] = tool_messages(transport.bodies[1])
    assert tool["content"] == "quota exceeded" and tool["error"] == "quota exceeded"
    assert 'save_note failed: "quota exceeded"' in thread.messages[-1].content


def test_tool_timeout(agent_url):
    @client_tool(timeout_s=0.2)
    async def change_background(background: str, ctx: ToolContext) -> str:
        """Change the page background. Accepts any CSS background value."""
        await asyncio.Event().wait()   # nothing sets it: only the timeout ends the handler
        return "too late"

    started = time.monotonic()
    thread, _ = arun(send(f"{agent_url}/agent", "make it blue", change_background))
    assert time.monotonic() - started < 5
    assert thread.run_status == "idle", thread.error
    tool = thread.messages[2]
    assert "timed out" in tool.content and tool.error == tool.content
    assert "change_background failed" in thread.messages[-1].content
    assert "timed out" in thread.messages[-1].content


def test_stop_mid_run_then_send_again(agent_url, transport):
    async def main():
        async with Agent("test", f"{agent_url}/agent", transport=transport) as agent:
            thread = agent.thread()
            deltas: list[str] = []
            thread.subscribe_events(lambda event: event.type == "TEXT_MESSAGE_CONTENT" and deltas.append(event.delta))
            task = asyncio.create_task(thread.send("tell me a story slowly"))
            await changed_until(thread, lambda: len(deltas) >= 2)   # mid-story: it streams
            thread.stop()
            assert thread.run_status == "idle"
            await task
            partial = thread.messages[-1].content
            # The stop closed the response before its end: nothing more can arrive from it.
            assert transport.ends == ["closed"]
            assert thread.messages[-1].content == partial == "".join(deltas)
            requests_after_stop = len(transport.bodies)
            await thread.send("hello there")
            return thread, partial, requests_after_stop

    thread, partial, requests_after_stop = arun(main())
    assert requests_after_stop == 1  # no follow-up after stop()
    assert partial
    assert thread.messages[1].content == partial   # still as the stop left it, after the next run
    assert thread.run_status == "idle" and thread.error is None
    assert len(transport.bodies) == 2
    assert [m["role"] for m in transport.bodies[1]["messages"]] == ["user", "assistant", "user"]
    assert thread.messages[-1].role == "assistant" and thread.messages[-1].content


def test_http_500(agent_url):
    thread, _ = arun(send(f"{agent_url}/agent-500", "make it blue", change_background))
    assert thread.run_status == "error"
    assert isinstance(thread.error, TransportError) and thread.error.status == 500
    assert "the agent crashed" in thread.error.body
    assert "HTTP 500" in str(thread.error) and "the agent crashed" in str(thread.error)
    assert [m.role for m in thread.messages] == ["user"]


def test_connection_refused_is_a_transport_error(closed_port):
    url = f"http://127.0.0.1:{closed_port}/agent"
    thread, _ = arun(send(url, "hi"))
    assert thread.run_status == "error"
    assert isinstance(thread.error, TransportError) and thread.error.status is None
    assert isinstance(thread.error.__cause__, Exception)


def test_dropped_connection_keeps_history_and_run_retries(flaky_server, transport):
    async def main():
        async with Agent("test", flaky_server.url, transport=transport) as agent:
            thread = agent.thread()
            await thread.send("hi")
            first = (thread.run_status, thread.error, [m.model_copy() for m in thread.messages])
            await thread.run()
            return thread, first

    thread, (status, error, messages) = arun(main())
    assert status == "error"
    assert isinstance(error, (TransportError, RemoteProtocolError))
    if flaky_server.mode == "chunked":
        assert isinstance(error, TransportError) and error.__cause__ is not None
    else:
        assert isinstance(error, RemoteProtocolError) and "middle of an event" in str(error)
    assert [(m.role, m.content) for m in messages] == [("user", "hi"), ("assistant", "partial answer")]
    # The retry carried the partial answer, and succeeded.
    assert thread.run_status == "idle" and thread.error is None
    assert len(flaky_server.bodies) == 2  # a response that had started is never resent by itself
    assert [m["role"] for m in flaky_server.bodies[1]["messages"]] == ["user", "assistant"]
    assert thread.messages[-1].content == "complete answer after 2 messages"


def test_call_waits_unavailable_until_a_registration_mounts(agent_url, transport):
    @client_tool
    def save_note(key: str, text: str) -> str:
        """Save a note in this browser."""
        return f"saved {key}: {text}"

    async def main():
        async with Agent("test", f"{agent_url}/agent", transport=transport) as agent:
            thread = agent.thread()
            registration = thread.register_tool(save_note)
            # The element holding the tool leaves the page while the model calls it.
            thread.subscribe(lambda e: e.kind == "event" and e.payload.type == "TOOL_CALL_START"
                             and registration.set_mounted(False))
            task = asyncio.create_task(thread.send("save a note called todo saying buy milk"))
            await changed_until(thread, lambda: bool(thread.pending_actions))
            [action] = thread.pending_actions
            assert action.status == "unavailable" and thread.run_status == "running"
            # The driver has no timers: a follow-up sent while the call waits (wrongly) would be
            # on its way within the loop turns `settle()` gives it, and recorded as it starts.
            await settle()
            assert len(transport.bodies) == 1 and not task.done()
            registration.set_mounted(True)   # it comes back: the waiting call runs
            await task
            return thread

    thread = arun(main())
    assert thread.run_status == "idle", thread.error
    assert len(transport.bodies) == 2   # the run and the one follow-up, with the result
    assert [t["name"] for t in transport.bodies[0]["tools"]] == ["save_note"]
    [tool] = tool_messages(transport.bodies[1])
    assert tool["content"] == "saved buy: milk"
    assert 'save_note returned: "saved buy: milk"' in thread.messages[-1].content
