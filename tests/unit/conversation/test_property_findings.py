"""Regression tests for the failures the property tests (test_properties_*.py) found.

Each test is the shrunk failing input written out by hand, with the symptom it had.
"""

from __future__ import annotations

import asyncio
import json

from pyclient import MockTransport, ToolContext, client_tool
from pyclient._base._json import MAX_DEPTH
from pyclient._wire._events import UnknownEvent, decode_event
from pyclient.testing import ScriptedAgent
from tests.helpers import (
    agent_for,
    arun,
    bodies,
    echo,
    first_raw,
    held_open,
    ids,
    sse,
    text_only,
    tool_call,
)


def answer_then_done(*events: dict | str, **finish) -> ScriptedAgent:
    """The first user message gets `events` (and RUN_FINISHED with `finish`); the follow-up, "done"."""
    agent = ScriptedAgent()
    agent.on("go").emit(*events).finish(**finish).then_say("done")
    return agent


def tool_message_ids(body: dict) -> list[str]:
    return [m["toolCallId"] for m in body["messages"] if m["role"] == "tool"]


def test_duplicate_pending_tool_call_ids_answer_the_call_once():
    # Was: LocalProtocolError "Cannot handle PENDING for tool call 'c1' (echo) in status
    # 'unavailable'" raised out of send().
    server = answer_then_done(*tool_call("c1", "echo", {"text": "a"}),
                              outcome={"type": "success", "pendingToolCallIds": ["c1", "c1"]})
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle"
    assert tool_message_ids(bodies(server)[1]) == ["c1"]


def test_wrong_typed_pending_tool_call_ids_mean_every_call_of_the_run():
    # Was: TypeError "'int' object is not iterable" (and "unhashable type" for a list of lists)
    # raised out of send(); RUN_FINISHED did not validate and the machine read the raw JSON.
    for pending in (1, "c1", [["c1"]], [{"id": "c1"}], None):
        server = answer_then_done(*tool_call("c1", "echo", {"text": "a"}),
                                  outcome={"type": "success", "pendingToolCallIds": pending})
        thread = agent_for(server, [echo]).thread()
        arun(thread.send("go"))
        assert thread.run_status == "idle", pending
        assert tool_message_ids(bodies(server)[1]) == ["c1"], pending


def test_lone_surrogates_from_the_server_do_not_break_the_next_request():
    # Was: LocalProtocolError "... is not JSON (... surrogates not allowed)" raised out of send()
    # when the follow-up carried the assistant's text and the call's arguments.
    server = answer_then_done(
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "a\ud800b"},
        *tool_call("c1", "echo", {"text": "\udfff"}))
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle", thread.error
    follow_up = bodies(server)[1]
    assistant = follow_up["messages"][1]
    assert assistant["content"] == "a\ufffdb"
    # The arguments are JSON text: the escape itself is plain ASCII and goes back as it came.
    assert assistant["toolCalls"][0]["function"]["arguments"] == '{"text": "\\udfff"}'
    # The handler returned the decoded surrogate: its tool message carries U+FFFD instead.
    assert [m["content"] for m in follow_up["messages"] if m["role"] == "tool"] == ["\ufffd"]


def test_json_nested_too_deep_fails_the_run_instead_of_raising():
    # Was: RecursionError "maximum recursion depth exceeded while decoding a JSON array"
    # raised out of send().
    deep = "[" * 10_000 + "]" * 10_000

    server = ScriptedAgent()
    server.otherwise().emit('{"type": "STATE_SNAPSHOT", "snapshot": ' + deep + "}")
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "error"
    assert f"nested deeper than {MAX_DEPTH} levels" in str(thread.error)


def test_state_nested_deeper_than_the_encoder_allows_fails_the_run():
    # Was: LocalProtocolError "Cannot send a run ...: its state ... is not JSON (Maximum
    # serialization depth exceeded)" raised out of send() by the follow-up, after a
    # STATE_SNAPSHOT 900 levels deep (json.loads accepts it, pydantic's encoder stops at 255).
    deep = "[" * 900 + "]" * 900

    server = ScriptedAgent()
    server.otherwise().emit('{"type": "STATE_SNAPSHOT", "snapshot": ' + deep + "}", *tool_call("c1", "echo", {"text": "a"}))
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "error" and f"nested deeper than {MAX_DEPTH} levels" in str(thread.error)
    assert len(bodies(server)) == 1


def test_decode_event_accepts_state_at_the_depth_limit():
    snapshot = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)   # the event's own object is one level
    event = decode_event('{"type": "STATE_SNAPSHOT", "snapshot": ' + snapshot + "}")
    assert not isinstance(event, UnknownEvent)


def test_a_call_the_snapshot_answered_gets_no_second_answer_when_the_run_fails():
    # Was: two tool messages for c1 in the history: the server's (in a MESSAGES_SNAPSHOT) and
    # "Not run: ..." added when the stream ended before RUN_FINISHED.
    def script(request):   # no RUN_FINISHED: the body ends after the snapshot
        return sse({"type": "RUN_STARTED", **ids(json.loads(request.body))},
                   *tool_call("c1", "echo", {"text": ""}), {
            "type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "u1", "role": "user", "content": "go"},
                {"id": "m1", "role": "assistant", "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{}"}}]},
                {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "from the server"},
            ]})

    server = MockTransport(script)
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "error"
    tool_messages = [m for m in thread.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.content) for m in tool_messages] == [("c1", "from the server")]


def test_a_second_server_result_for_a_call_is_dropped():
    # Was: two tool messages for c1 (t1 and t2) in the history and the follow-up.
    from ag_ui.core import ToolCallResultEvent, ToolCallStartEvent

    from pyclient._conversation._history import History

    history = History()
    history.apply(ToolCallStartEvent(tool_call_id="c1", tool_call_name="search"))
    history.apply(ToolCallResultEvent(message_id="t1", tool_call_id="c1", content="first"))
    history.apply(ToolCallResultEvent(message_id="t2", tool_call_id="c1", content="second"))
    history.apply(ToolCallResultEvent(message_id="t1", tool_call_id="c1", content="first, again"))
    assert [(m.id, m.content) for m in history.messages() if m.role == "tool"] == [("t1", "first, again")]


def test_a_handler_whose_task_has_not_started_never_runs_after_stop():
    # Was: stop() in the loop turn after the handler's task was created (before its first
    # step) aborted the call, yet the handler body still ran, with the action already
    # "cancelled". Found by test_properties_driver: stop, send, send at random moments.
    ran = []

    # An async handler: it runs in a task of its own (a plain def runs inline in its execution's
    # task, so there is no turn between the two; test_bad_input's stop/unmount turns cover it).
    @client_tool
    async def quick(ctx: ToolContext) -> str:
        """Answer at once."""
        ran.append(thread.action(ctx.tool_call_id).status)
        return "ok"

    server = answer_then_done(*tool_call("c1", "quick", {}))
    thread = agent_for(server, [quick]).thread()

    async def main():
        statuses = []
        # Stop the moment the call starts executing: its handler task exists, its body has not run.
        thread.subscribe(lambda event: event.kind == "action" and event.payload.status == "executing"
                         and statuses.append(event.payload.status))
        task = asyncio.ensure_future(thread.send("go"))
        while not statuses:
            await asyncio.sleep(0)
        await asyncio.sleep(0)  # the driver creates the handler task in the loop turn after "executing"
        thread.stop()
        await task
        for _ in range(20):
            await asyncio.sleep(0)

    arun(main())
    assert thread.run_status == "idle"
    assert ran == []
    assert thread.action("c1").status == "cancelled"


def test_run_finished_ends_the_run_while_the_server_holds_the_connection_open():
    # Was: send() waited forever: the client read on after RUN_FINISHED until the connection
    # closed, and this server never closes it (the call's follow-up never went out).
    closed: list[bool] = []
    server = first_raw(held_open({"text": "a"}, closed), then=text_only("done"))
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"), timeout=5)
    assert thread.run_status == "idle" and len(bodies(server)) == 2
    assert tool_message_ids(bodies(server)[1]) == ["c1"]
    assert closed == [True]  # the held-open response was closed, not leaked


def test_a_call_whose_answer_a_later_snapshot_drops_is_not_answered_by_the_client():
    # Was: AssertionError in Thread._action (no ToolCall for a pending call): the first
    # MESSAGES_SNAPSHOT answered c1, the second dropped c1 and its answer, and the history
    # had forgotten the call while the machine still saw it pending. Then: the client answered
    # it under a made-up assistant message. Now the server's last view wins: no message declares
    # c1, so no tool message may answer it (an orphan a provider refuses), and nothing is sent.
    server = answer_then_done(
        *tool_call("c1", "echo", {"text": "a"}),
        {"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "u1", "role": "user", "content": "go"},
            {"id": "m2", "role": "assistant", "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{}"}}]},
            {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "server"}]},
        {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "u1", "role": "user", "content": "go"}]})
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle", thread.error
    assert len(bodies(server)) == 1
    assert [m.role for m in thread.messages] == ["user"]