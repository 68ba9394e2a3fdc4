"""The run loop over a MockTransport: requests, tool execution, follow-ups, errors, stop()."""

from __future__ import annotations

import asyncio
import json

import pytest

from pyclient import (
    Agent,
    ConfigurationError,
    LocalProtocolError,
    MockTransport,
    RemoteProtocolError,
    RunError,
    ToolContext,
    TransportError,
    UnknownEvent,
    client_tool,
)
from pyclient.testing import ScriptedAgent
from tests.helpers import (
    ONE_CHAR,
    agent_for,
    arun,
    bodies,
    calls_then_text,
    change_background,
    first_raw,
    ids,
    settle,
    sse,
    text_message,
    tool_messages,
    tool_names,
    until,
)

# This file streams tool-call arguments in two deltas and text one character a delta, so the run
# loop reassembles them in every test.


def tool_then_text(calls: list[tuple[str, str, dict]]) -> ScriptedAgent:
    """The first user message gets the given calls; their follow-up, a text quoting the tool messages."""
    return calls_then_text(calls, quote_tools=True, chunked=True)


def make_thread(script, tools=(change_background,), **options):
    return agent_for(script, tools, headers={"Authorization": "Bearer x"}).thread(**options)


# -- requests --------------------------------------------------------------------------------


def test_round_trip_request_shape_and_follow_up():
    thread = make_thread(tool_then_text([("c1", "change_background", {"background": "blue"})]),
                         thread_id="thread-1", context=[{"description": "page", "value": "home"}],
                         forwarded_props={"x": 1})
    arun(thread.send("make it blue"))

    assert thread.run_status == "idle" and thread.error is None
    first, follow_up = bodies(thread)
    assert first["threadId"] == "thread-1" and first["protocolVersion"] == "1.0"
    assert first["runId"] != follow_up["runId"]
    assert [t["name"] for t in first["tools"]] == ["change_background"]
    assert first["tools"][0]["parameters"]["properties"]["background"]["type"] == "string"
    assert first["state"] == {} and first["context"] == [{"description": "page", "value": "home"}]
    assert first["forwardedProps"] == {"x": 1}
    assert [m["role"] for m in first["messages"]] == ["user"]
    request = thread.agent.transport.requests[0]
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["Accept"] == "text/event-stream"
    assert request.headers["Authorization"] == "Bearer x"

    roles = [m["role"] for m in follow_up["messages"]]
    assert roles == ["user", "assistant", "tool"]
    assistant, tool = follow_up["messages"][1:]
    assert assistant["toolCalls"] == [{"id": "c1", "type": "function", "function": {
        "name": "change_background", "arguments": '{"background": "blue"}'}}]
    assert tool == {"id": tool["id"], "role": "tool", "toolCallId": "c1", "content": "background is now blue"}
    assert thread.messages[-1].content == "background is now blue"


def test_tools_are_a_snapshot_per_request():
    @client_tool
    def late(x: int) -> int:
        """Added while the first run streams."""
        return x

    agent = ScriptedAgent()
    agent.on("go").call("late", {"x": 1}, call_id="c1", chunks=2).then_say("")
    thread = make_thread(agent)
    registered = []
    thread.subscribe(lambda e: e.kind == "event" and e.payload.type == "RUN_STARTED" and not registered
                     and registered.append(thread.register_tool(late)))
    arun(thread.send("go"))
    assert len(registered) == 1
    assert tool_names(bodies(thread)[0]) == ["change_background"]
    assert tool_names(bodies(thread)[1]) == ["change_background", "late"]
    # `late` was not advertised in the run that called it: never run, answered with an error.
    tool = bodies(thread)[1]["messages"][-1]
    assert "not available" in tool["content"] and tool["error"] == tool["content"]


def test_unadvertised_tool_is_never_run():
    ran = []

    @client_tool
    def secret() -> str:
        """Never advertised."""
        ran.append(1)
        return "ran"

    thread = make_thread(tool_then_text([("c1", "secret", {})]))
    arun(thread.send("call secret"))
    assert ran == []
    tool = bodies(thread)[1]["messages"][-1]
    assert tool["toolCallId"] == "c1" and "'secret' is not available" in tool["content"]
    assert "change_background" in tool["content"] and tool["error"] == tool["content"]


# -- tool execution ----------------------------------------------------------------------


def test_two_calls_run_concurrently_and_both_results_reach_the_server():
    events: dict[str, asyncio.Event] = {}

    @client_tool
    async def ping(tag: str) -> str:
        """Waits for pong."""
        events["ping"].set()
        await events["pong"].wait()
        return f"ping {tag}"

    @client_tool
    async def pong(tag: str) -> str:
        """Waits for ping."""
        events["pong"].set()
        await events["ping"].wait()
        return f"pong {tag}"

    async def main():
        events["ping"], events["pong"] = asyncio.Event(), asyncio.Event()
        thread = make_thread(tool_then_text([("a", "ping", {"tag": "1"}), ("b", "pong", {"tag": "2"})]),
                             tools=(ping, pong))
        await thread.send("ping and pong")
        return thread

    thread = arun(main(), timeout=5)  # sequential execution would deadlock
    tools = {m["toolCallId"]: m["content"] for m in tool_messages(bodies(thread)[1])}
    assert tools == {"a": "ping 1", "b": "pong 2"}
    assert thread.messages[-1].content in ("ping 1 | pong 2", "pong 2 | ping 1")


def test_failing_tool_sends_content_and_error():
    @client_tool
    def broken() -> str:
        """Always fails."""
        raise ValueError("quota exceeded")

    thread = make_thread(tool_then_text([("c1", "broken", {})]), tools=(broken,))
    arun(thread.send("break"))
    tool = bodies(thread)[1]["messages"][-1]
    assert tool["content"] == "quota exceeded" and tool["error"] == "quota exceeded"
    assert thread.messages[-1].content == "quota exceeded"


def test_server_side_tool_with_result_is_not_pending():
    agent = ScriptedAgent()
    agent.on("go").server_call("change_background", background="x", result="done server-side", call_id="s1",
                               chunks=2)
    thread = make_thread(agent)
    arun(thread.send("go"))
    assert len(bodies(thread)) == 1 and thread.run_status == "idle"
    assert thread.messages[-1].content == "done server-side"


def test_pending_tool_call_ids_select_the_calls():
    agent = ScriptedAgent()
    agent.on("go").call("change_background", background="red", call_id="c1", chunks=2).call(
        "change_background", background="green", call_id="c2", chunks=2).finish(
        outcome={"type": "success", "pendingToolCallIds": ["c2"]}).then_say("")
    thread = make_thread(agent)
    arun(thread.send("go"))
    answered = [m["toolCallId"] for m in tool_messages(bodies(thread)[1])]
    assert answered == ["c2"]


def test_follow_up_cap_ends_the_loop_with_an_error():
    agent = ScriptedAgent()
    turn = agent.on("loop forever")
    for n in range(3):   # every answer calls the tool again
        turn = (turn.then() if n else turn).call("change_background", background="red", call_id=f"c{n}", chunks=2)
    thread = make_thread(agent, max_follow_ups=2)
    arun(thread.send("loop forever"))
    assert len(bodies(thread)) == 3
    assert thread.run_status == "error" and "2 automatic follow-up runs" in str(thread.error)
    assert "max_follow_ups" in str(thread.error)
    # Every call in the history has its tool message, so the next request is valid.
    calls = [c.id for m in thread.messages if m.role == "assistant" for c in m.tool_calls or ()]
    answered = [m.tool_call_id for m in thread.messages if m.role == "tool"]
    assert sorted(calls) == sorted(answered) == ["c0", "c1", "c2"]
    assert "Not run" in thread.messages[-1].content


# -- approval ------------------------------------------------------------------------------


@client_tool(requires_approval=True)
def delete_all(scope: str) -> str:
    """Delete everything in scope."""
    return f"deleted {scope}"


def approval_thread(decide):
    server = tool_then_text([("c1", "delete_all", {"scope": "notes"})])
    thread = make_thread(server, tools=(delete_all,))
    seen = []

    def on_change(event):
        if event.kind == "action" and not event.payload.done:
            seen.append(event.payload.status)
            if event.payload.status == "awaiting_approval":
                assert [a.id for a in thread.pending_actions] == ["c1"]
                asyncio.get_running_loop().call_soon(decide, thread)

    thread.subscribe(on_change)
    arun(thread.send("delete my notes"))
    return server, thread, seen


def test_approved_call_runs():
    server, thread, seen = approval_thread(lambda t: t.action("c1").approve())
    assert seen == ["awaiting_approval", "executing"]
    assert bodies(server)[1]["messages"][-1]["content"] == "deleted notes"
    assert thread.pending_actions == []


def test_rejected_call_tells_the_model_why():
    server, thread, seen = approval_thread(lambda t: t.action("c1").reject("not today"))
    tool = bodies(server)[1]["messages"][-1]
    assert tool["content"] == "rejected by the user: not today" and tool["error"] == tool["content"]
    assert seen == ["awaiting_approval"]


def test_approving_an_answered_or_unknown_call_is_a_local_protocol_error():
    server, thread, _ = approval_thread(lambda t: t.action("c1").approve())
    with pytest.raises(LocalProtocolError, match=r"APPROVE for tool call 'c1' \(delete_all\) in status 'completed'"):
        thread.action("c1").approve()
    assert thread.action("c1").status == "completed"   # still true after the answer
    with pytest.raises(LocalProtocolError, match="has id 'nope'"):
        thread.action("nope").approve()


def test_action_submit_answers_for_the_handler():
    thread = make_thread(tool_then_text([("c1", "delete_all", {"scope": "x"})]), tools=(delete_all,))
    thread.subscribe(lambda e: e.kind == "action" and not e.payload.done
                     and e.payload.status == "awaiting_approval" and e.payload.submit({"picked": 1}))
    arun(thread.send("go"))
    assert bodies(thread)[1]["messages"][-1]["content"] == '{"picked":1}'


# -- errors --------------------------------------------------------------------------------


def test_http_500_sets_error_with_status_and_excerpt():
    agent = ScriptedAgent()
    agent.otherwise().http_error(500, "Internal Server Error: boom")
    thread = make_thread(agent)
    arun(thread.send("hi"))                      # does not raise
    assert thread.run_status == "error"
    assert isinstance(thread.error, TransportError) and thread.error.status == 500
    assert "boom" in thread.error.body and "HTTP 500" in str(thread.error)
    assert [m.role for m in thread.messages] == ["user"]


def test_run_error_event():
    agent = ScriptedAgent()
    agent.otherwise().say("part", chunks=ONE_CHAR).fail("model overloaded", code="503")
    thread = make_thread(agent)
    arun(thread.send("hi"))
    assert thread.run_status == "error" and isinstance(thread.error, RunError)
    assert thread.error.message == "model overloaded" and thread.error.code == "503"
    assert thread.messages[-1].content == "part"


def test_malformed_payload_keeps_what_arrived():
    agent = ScriptedAgent()
    agent.otherwise().say("kept", chunks=ONE_CHAR).emit("<html>oops</html>")
    thread = make_thread(agent)
    arun(thread.send("hi"))
    assert thread.run_status == "error" and isinstance(thread.error, RemoteProtocolError)
    assert "<html>oops</html>" in str(thread.error)
    assert thread.messages[-1].content == "kept"


def test_stream_ending_early_then_run_retries():
    agent = ScriptedAgent()
    agent.on("hi").say("complete", chunks=ONE_CHAR)

    def cut(body):   # the first response ends in the middle of an event
        return sse({"type": "RUN_STARTED", **ids(body)}, *text_message("m", "partial")[:-1]) + b'data: {"type": "TEXT_MES'

    thread = make_thread(first_raw(cut, then=agent))
    arun(thread.send("hi"))
    assert thread.run_status == "error" and "ended in the middle of an event" in str(thread.error)
    assert thread.messages[-1].content == "partial"
    arun(thread.run())
    assert thread.run_status == "idle" and thread.error is None
    assert [m["role"] for m in bodies(thread)[1]["messages"]] == ["user", "assistant"]
    assert thread.messages[-1].content == "complete"


def test_stream_without_run_finished_is_an_error():
    thread = make_thread(MockTransport(lambda request: sse(   # and the body ends
        {"type": "RUN_STARTED", **ids(json.loads(request.body))}, *text_message("m", "abc"))))
    arun(thread.send("hi"))
    assert thread.run_status == "error" and "before RUN_FINISHED" in str(thread.error)


def test_transport_error_mid_stream_settles_open_calls():
    agent = ScriptedAgent()
    # RUN_STARTED, TOOL_CALL_START and the first half of the arguments, then TransportError.
    agent.otherwise().call("change_background", background="red", call_id="c1", chunks=2).drop(after=3)
    thread = make_thread(agent)
    arun(thread.send("hi"))
    assert thread.run_status == "error" and isinstance(thread.error, TransportError)
    assert str(thread.error) == "The connection dropped after 3 events, as scripted (`drop(after=3)`)."
    tool = thread.messages[-1]
    assert tool.role == "tool" and tool.tool_call_id == "c1" and tool.error.startswith("Not run")


def test_unknown_events_reach_listeners_and_do_not_fail_the_run():
    agent = ScriptedAgent()
    agent.otherwise().emit({"type": "BRAND_NEW", "x": 1}, {"type": "TOOL_CALL_START"})
    thread = make_thread(agent)
    unknown = []
    thread.subscribe(lambda e: e.kind == "event" and isinstance(e.payload, UnknownEvent) and unknown.append(e.payload))
    arun(thread.send("hi"))
    assert thread.run_status == "idle"
    assert [(u.type, u.error is None) for u in unknown] == [("BRAND_NEW", True), ("TOOL_CALL_START", False)]


@pytest.mark.callback_errors_expected
def test_listener_exceptions_do_not_break_the_run():
    thread = make_thread(tool_then_text([("c1", "change_background", {"background": "x"})]))

    def bad(event):
        raise RuntimeError("listener bug")

    thread.subscribe(bad)
    arun(thread.send("hi"))
    assert thread.run_status == "idle"


def test_subscribe_events_gets_the_events_and_events_false_leaves_them_out():
    thread = make_thread(tool_then_text([("c1", "change_background", {"background": "x"})]))
    every, raw, changes, order = [], [], [], []
    thread.subscribe(every.append)
    thread.subscribe(lambda e: (changes.append(e), order.append(e.kind)), events=False)
    unsubscribe = thread.subscribe_events(lambda event: (raw.append(event), order.append("raw")))
    arun(thread.send("hi"))
    seen = [e.payload for e in every if e.kind == "event"]
    assert raw == seen and len(raw) > 8          # the same events, as themselves, no ThreadEvent
    assert [e.kind for e in changes] == [e.kind for e in every if e.kind != "event"]
    assert "event" not in {e.kind for e in changes} and "messages" in {e.kind for e in changes}
    assert order[order.index("raw"):].index("messages") > 0  # a change after the event that made it
    unsubscribe()
    count = len(raw)
    arun(thread.send("again"))
    assert len(raw) == count and len(every) > len(seen) + len(changes)


def test_a_listener_unsubscribed_during_a_notification_is_left_out_next_time():
    thread = make_thread(tool_then_text([("c1", "change_background", {"background": "x"})]))
    calls = []

    def once(event):
        calls.append(event.kind)
        unsubscribe()

    unsubscribe = thread.subscribe(once)
    later = []
    thread.subscribe(later.append)
    arun(thread.send("hi"))
    assert len(calls) == 1 and len(later) > 10   # the other listener kept getting everything


def test_state_events_reach_listeners_and_the_next_request():
    agent = ScriptedAgent()
    for n, said in enumerate(("a", "b")):
        agent.on(said).emit({"type": "STATE_SNAPSHOT", "snapshot": {"n": n}},
                            {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/seen", "value": True}]})
    thread = make_thread(agent, state={"start": 1})
    states = []
    thread.subscribe(lambda e: e.kind == "state" and states.append(e.payload))
    arun(thread.send("a"))
    arun(thread.send("b"))
    assert bodies(thread)[0]["state"] == {"start": 1} and bodies(thread)[1]["state"] == {"n": 0, "seen": True}
    assert states[-1] == {"n": 1, "seen": True}


# -- stop, concurrency misuse, cancellation -----------------------------------------------


class PacedServer:
    """A `MockTransport` handler: answers with a text message of 50 deltas, "0 " to "49 ". The
    first response sends a delta only when the test calls `allow()` (it stalls after
    TEXT_MESSAGE_START until then); later responses send them all at once. `closed` lists the
    responses whose stream was closed."""

    def __init__(self) -> None:
        self.transport = MockTransport(self.respond)
        self.permits: asyncio.Semaphore | None = None
        self.closed: list[int] = []

    def allow(self, deltas: int) -> None:
        assert self.permits is not None, "the first request has not arrived yet"
        for _ in range(deltas):
            self.permits.release()

    def respond(self, request):
        n, body = len(self.transport.requests) - 1, json.loads(request.body)
        if n == 0:
            self.permits = asyncio.Semaphore(0)

        async def stream():
            try:
                yield sse({"type": "RUN_STARTED", **ids(body)},
                          {"type": "TEXT_MESSAGE_START", "messageId": f"m{n}", "role": "assistant"})
                for i in range(50):
                    if n == 0:
                        await self.permits.acquire()
                    yield sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{n}", "delta": f"{i} "})
                yield sse({"type": "TEXT_MESSAGE_END", "messageId": f"m{n}"}, {"type": "RUN_FINISHED", **ids(body)})
            finally:
                self.closed.append(n)

        return stream()


def recorded_events(thread, event_type: str) -> list:
    """The AG-UI events of `event_type` the thread applies, recorded by a listener as they arrive."""
    seen: list = []
    thread.subscribe(lambda e: e.kind == "event" and e.payload.type == event_type and seen.append(e.payload))
    return seen


def test_stop_mid_stream_then_send_again():
    async def main():
        server = PacedServer()
        thread = make_thread(server.transport)
        statuses = []
        thread.subscribe(lambda e: e.kind == "status" and statuses.append(e.payload))
        deltas = recorded_events(thread, "TEXT_MESSAGE_CONTENT")
        task = asyncio.create_task(thread.send("tell me slowly"))
        await until(lambda: server.permits is not None)
        server.allow(3)
        await until(lambda: len(deltas) == 3)   # mid-stream: 3 of the 50 deltas applied
        assert thread.run_status == "running"
        with pytest.raises(LocalProtocolError, match="in flight"):
            await thread.send("again")
        thread.stop()
        assert thread.run_status == "idle"
        await task
        partial = thread.messages[-1].content
        assert partial == "0 1 2 " and server.closed == [0]   # the request was abandoned
        # Let the server send the other 47 deltas: none may reach the thread. A live stream
        # applies a permitted delta within a few loop turns (no timer involved).
        server.allow(47)
        await settle()
        assert thread.messages[-1].content == partial and len(deltas) == 3  # nothing applied after stop()
        await thread.send("again")
        return server, thread, statuses

    server, thread, statuses = arun(main())
    assert len(bodies(thread)) == 2 and thread.run_status == "idle"
    assert statuses == ["running", "idle", "running", "idle"]
    assert thread.messages[-1].content.split()[-1] == "49"


def test_stop_from_a_listener_applies_no_further_event():
    agent = ScriptedAgent()
    agent.otherwise().say("abcdef", chunks=ONE_CHAR)
    thread = make_thread(agent)

    def on_event(event):
        if event.kind == "event" and getattr(event.payload, "delta", None) == "c":
            thread.stop()

    thread.subscribe(on_event)
    arun(thread.send("hi"))
    assert thread.run_status == "idle" and thread.error is None
    assert thread.messages[-1].content == "abc"


def test_stop_while_awaiting_approval_cancels_without_follow_up():
    async def main():
        thread = make_thread(tool_then_text([("c1", "delete_all", {"scope": "x"})]), tools=(delete_all,))
        awaiting = asyncio.Event()
        thread.subscribe(lambda e: e.kind == "action" and e.payload.status == "awaiting_approval" and awaiting.set())
        task = asyncio.create_task(thread.send("delete"))
        await awaiting.wait()
        [action] = thread.pending_actions
        assert action.status == "awaiting_approval"
        thread.stop()
        await task
        return thread, action

    thread, action = arun(main())
    assert len(bodies(thread)) == 1 and thread.run_status == "idle"
    assert action.done and action.signal.aborted
    assert thread.messages[-1].role == "tool" and "cancelled" in thread.messages[-1].content


def test_stop_aborts_a_running_handler():
    seen = {}

    @client_tool
    async def long_job(ctx: ToolContext) -> str:
        """Runs until aborted."""
        seen["signal"] = ctx.signal
        seen["started"].set()
        try:
            await asyncio.Event().wait()   # nothing sets it: only an abort ends the handler
        finally:
            seen["cleaned"].set()
        return "never"

    async def main():
        seen["started"], seen["cleaned"] = asyncio.Event(), asyncio.Event()
        thread = make_thread(tool_then_text([("c1", "long_job", {})]), tools=(long_job,))
        task = asyncio.create_task(thread.send("go"))
        await seen["started"].wait()
        assert not seen["signal"].aborted
        thread.stop()
        await task
        await seen["cleaned"].wait()   # the handler's `finally` ran (arun's timeout guards a hang)
        return thread

    thread = arun(main())
    assert seen["signal"].aborted and seen["signal"].reason == "stopped by the user"
    assert len(bodies(thread)) == 1 and thread.run_status == "idle"
    assert "never" not in [m.content for m in thread.messages]


def test_cancelling_the_awaiting_task_stops_the_run():
    async def main():
        server = PacedServer()   # no `allow()`: the stream stalls after TEXT_MESSAGE_START
        thread = make_thread(server.transport)
        begun = recorded_events(thread, "TEXT_MESSAGE_START")
        task = asyncio.create_task(thread.send("slowly"))
        await until(lambda: bool(begun))
        assert thread.run_status == "running"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return server, thread

    server, thread = arun(main())
    assert thread.run_status == "idle" and server.closed == [0]


def test_thread_starts_from_a_saved_history():
    agent = ScriptedAgent()
    agent.otherwise()   # an empty run: RUN_STARTED, RUN_FINISHED
    saved = [{"id": "u0", "role": "user", "content": "earlier"},
             {"id": "a0", "role": "assistant", "content": "answer"}]
    thread = make_thread(agent, messages=saved)
    arun(thread.send("now"))
    assert [m["id"] for m in bodies(thread)[0]["messages"][:2]] == ["u0", "a0"]
    assert [m.role for m in thread.messages] == ["user", "assistant", "user"]


def test_agent_thread_with_element_needs_the_browser_platform():
    agent = Agent("a", "/agent")
    with pytest.raises(ConfigurationError, match="needs the page"):
        agent.thread("#chat")


@pytest.mark.parametrize("kwargs, match", [
    ({"name": "", "url": "/agent"}, "non-empty"),
    ({"name": "a", "url": ""}, "URL"),
    ({"name": "a", "url": "/x", "client_tools": [print]}, "@client_tool"),
    ({"name": "a", "url": "/x", "client_tools": [change_background, change_background]}, "two client tools"),
])
def test_agent_configuration_errors(kwargs, match):
    with pytest.raises(ConfigurationError, match=match):
        Agent(**kwargs)


def test_unexpected_transport_exception_surfaces_and_leaves_the_thread_usable():
    calls = []

    def handler(request):
        calls.append(len(calls))
        if calls == [0]:
            raise OSError("a transport that does not map its errors")
        return sse({"type": "RUN_STARTED", **ids(json.loads(request.body))},
                   {"type": "RUN_FINISHED", **ids(json.loads(request.body))})

    thread = make_thread(MockTransport(handler))
    with pytest.raises(OSError):
        arun(thread.send("hi"))
    assert thread.run_status == "error" and isinstance(thread.error, OSError)
    arun(thread.run())
    assert thread.run_status == "idle" and calls == [0, 1]


# -- misuse and listeners never break the contract of send() -----------------------------


def test_an_error_listener_may_stop_the_thread():
    agent = ScriptedAgent()
    agent.otherwise().http_error(500, "boom")

    async def main():
        thread = agent_for(agent).thread()
        thread.subscribe(lambda event: event.kind == "error" and thread.stop())
        await thread.send("hi")  # must not raise: the listener ran after the state change
        return thread

    thread = arun(main())
    assert thread.run_status == "idle"
    assert isinstance(thread.error, TransportError) and thread.error.status == 500


def test_send_needs_text():
    agent = ScriptedAgent()
    agent.otherwise()   # an empty run

    async def main():
        thread = agent_for(agent).thread()
        with pytest.raises(LocalProtocolError, match="takes the user's message as a str"):
            await thread.send(None)  # type: ignore[arg-type]
        return thread

    thread = arun(main())
    assert thread.messages == [] and bodies(thread) == [] and thread.run_status == "idle"


def test_state_that_is_not_json_is_a_local_error():
    agent = ScriptedAgent()
    agent.otherwise()   # an empty run

    async def main():
        thread = agent_for(agent).thread()
        thread.state = {"when": object()}
        with pytest.raises(LocalProtocolError, match="not JSON"):
            await thread.send("hi")
        thread.state = {"when": "now"}
        await thread.send("again")  # the thread is usable once the state is fixed
        return thread

    thread = arun(main())
    assert thread.run_status == "idle" and bodies(thread)[-1]["state"] == {"when": "now"}


def test_a_handler_reads_the_threads_history_and_the_files_the_person_sent():
    from pyclient import Attachment

    seen: list[ToolContext] = []

    @client_tool
    def inspect_files(ctx: ToolContext) -> str:
        """Look at the files."""
        seen.append(ctx)
        return ", ".join(f"{m.filename} {m.size}" for m in ctx.files)

    thread = make_thread(tool_then_text([("c1", "inspect_files", {})]), tools=(inspect_files,))
    arun(thread.send("look", attachments=[Attachment(b"a,b\n1,2\n", "text/csv", "t.csv")]))
    [ctx] = seen
    assert [m.role for m in ctx.messages] == ["user", "assistant"]       # the history when it started
    assert [(m.filename, m.data) for m in ctx.files] == [("t.csv", b"a,b\n1,2\n")]
    assert [m.content for m in thread.messages if m.role == "tool"] == ["t.csv 8"]
