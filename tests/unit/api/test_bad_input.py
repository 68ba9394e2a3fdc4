"""Bad input never bricks a thread: broken text, hostile JSON, protocol oddities, rogue handlers."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from typing import Any

import pytest

from pyclient import (
    AbortController,
    ClientTool,
    MockTransport,
    RemoteProtocolError,
    ToolContext,
    client_tool,
)
from pyclient._base._json import MAX_DEPTH, JSONLimitError, loads, repair
from pyclient.testing import ScriptedAgent
from tests.helpers import (
    agent_for,
    arun,
    bodies,
    calls_then_text,
    first_raw,
    held_open,
    ids,
    sse,
    text_message,
    text_only,
    tool_call,
    tool_messages,
    until,
)

EMOJI = "\U0001f600"
DEEP = "[" * 10_000 + "]" * 10_000
HUGE_INT = "7" * 5_000


def emitting(*payloads: str) -> ScriptedAgent:
    """An agent that answers every message with these events, given as JSON text (to keep
    escapes such as "\\ud83d" as written), between RUN_STARTED and RUN_FINISHED."""
    agent = ScriptedAgent()
    agent.otherwise().emit(*payloads)
    return agent


recorded: list[str] = []


@client_tool
def echo(text: str) -> str:
    """Echo the text."""
    recorded.append(text)
    return text


@client_tool
def nested(data: list) -> str:
    """Take nested data."""
    recorded.append("ran")
    return "ok"


@client_tool
def lone_half() -> str:
    """Return text that ends in half a surrogate pair."""
    return "half \ud83d"


@pytest.fixture(autouse=True)
def _clear():
    recorded.clear()


# -- UTF-16 surrogates ----------------------------------------------------------------------


def test_emoji_split_into_two_escaped_deltas_shows_as_the_emoji():
    server = emitting(
        '{"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}',
        '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi \\ud83d"}',
        '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "\\ude00!"}',
        '{"type": "TEXT_MESSAGE_END", "messageId": "m1"}',
    )
    thread = agent_for(server).thread()
    arun(thread.send("hello"))
    assert thread.messages[-1].content == f"hi {EMOJI}!"
    arun(thread.send("again"))
    assert bodies(server)[1]["messages"][1]["content"] == f"hi {EMOJI}!"


def sent_twice(server: ScriptedAgent, first: str, **options: Any) -> list[dict]:
    """The two request bodies of a thread (`options`) that sends `first`, then "again": both go
    out, and the thread ends idle."""
    thread = agent_for(server).thread(**options)
    arun(thread.send(first))
    arun(thread.send("again"))
    assert thread.run_status == "idle" and len(bodies(server)) == 2
    return bodies(server)


def test_lone_surrogate_in_text_delta_is_replaced_and_the_next_send_goes_out():
    sent = sent_twice(emitting('{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "cut \\ud83d"}'), "hello")
    assert sent[1]["messages"][1]["content"] == "cut \ufffd"


def test_lone_surrogate_in_tool_arguments_is_replaced_and_the_follow_up_goes_out():
    server = ScriptedAgent()
    server.on("go").emit(
        '{"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "echo", "parentMessageId": "m1"}',
        '{"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\\"text\\": \\"a\\ud83d"}',
        '{"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\\ude00 b\\udc00\\"}"}',
    ).then_say("ok")
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and len(bodies(server)) == 2
    assert recorded == [f"a{EMOJI} b\ufffd"]
    follow_up = bodies(server)[1]["messages"]
    assert json.loads(follow_up[1]["toolCalls"][0]["function"]["arguments"]) == {"text": f"a{EMOJI} b\ufffd"}
    assert tool_messages(bodies(server)[1])[0]["content"] == f"a{EMOJI} b\ufffd"


def test_lone_surrogate_in_a_tool_result_is_replaced_and_the_follow_up_goes_out():
    server = calls_then_text([("c1", "lone_half", {})])
    thread = agent_for(server, [lone_half]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and thread.error is None and len(bodies(server)) == 2
    assert tool_messages(bodies(server)[1])[0]["content"] == "half \ufffd"


def test_lone_surrogate_in_the_users_input_is_replaced_and_the_request_goes_out():
    sent = sent_twice(text_only(), "broken \udcff input")
    assert sent[0]["messages"][0]["content"] == "broken \ufffd input"


def test_lone_surrogate_in_a_messages_snapshot_never_blocks_the_next_request():
    server = emitting(json.dumps({"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "u1", "role": "user", "content": "x"},
        {"id": "a1", "role": "assistant", "content": "snap \\ud800"},
    ]}).replace("\\\\ud800", "\\ud800"))
    sent = sent_twice(server, "hello", state={"note": "\udfff"})
    assert sent[1]["messages"][1]["content"] == "snap \ufffd"
    assert sent[1]["state"] == {"note": "\ufffd"}


def test_repair_joins_pairs_and_replaces_lone_halves():
    assert repair("\ud83d" + "\ude00") == EMOJI
    assert repair("\ude00\ud83d x") == "\ufffd\ufffd x"
    assert repair("plain") == "plain"


# -- JSON limits ------------------------------------------------------------------------------


def test_json_nested_10000_deep_in_an_event_fails_that_run_clearly_and_the_thread_sends_again():
    server = ScriptedAgent()
    server.on("hello").emit('{"type": "STATE_SNAPSHOT", "snapshot": ' + DEEP + "}")
    server.otherwise().say("ok")
    thread = agent_for(server).thread()
    arun(thread.send("hello"))
    assert thread.run_status == "error" and isinstance(thread.error, RemoteProtocolError)
    assert f"nested deeper than {MAX_DEPTH} levels" in str(thread.error)
    arun(thread.send("again"))
    assert thread.run_status == "idle" and thread.messages[-1].content == "ok"


def test_5000_digit_integer_in_an_event_fails_that_run_clearly():
    server = emitting('{"type": "STATE_SNAPSHOT", "snapshot": ' + HUGE_INT + "}")
    thread = agent_for(server).thread()
    arun(thread.send("hello"))
    assert isinstance(thread.error, RemoteProtocolError) and "4300 digits" in str(thread.error)


@pytest.mark.parametrize("arguments", ['{"data": ' + DEEP + "}", '{"data": [' + HUGE_INT + "]}"])
def test_hostile_json_in_tool_arguments_fails_that_call_and_the_run_goes_on(arguments):
    server = ScriptedAgent()
    server.on("go").emit(
        '{"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "nested", "parentMessageId": "m1"}',
        json.dumps({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": arguments}),
    ).then_say("ok")
    thread = agent_for(server, [nested]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and recorded == []
    (message,) = tool_messages(bodies(server)[1])
    assert message["error"] and "were not read" in message["error"]


def test_state_nested_to_the_limit_is_accepted_and_sent_back():
    state = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)

    server = emitting('{"type": "STATE_SNAPSHOT", "snapshot": ' + state + "}")
    thread = agent_for(server).thread()
    arun(thread.send("hello"))
    arun(thread.send("again"))
    assert thread.run_status == "idle" and json.dumps(bodies(server)[1]["state"]).count("[") == MAX_DEPTH - 1


def test_loads_measures_depth_without_recursing():
    with pytest.raises(JSONLimitError):
        loads("{\"a\": " * 5_000 + "1" + "}" * 5_000)
    assert loads('["[[[[", {"}": "]]]"}]') == ["[[[[", {"}": "]]]"}]
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None


# -- pendingToolCallIds, reused ids, odd outcomes ------------------------------------------------


def approval_tool():
    @client_tool(requires_approval=True)
    def guarded(text: str) -> str:
        """Needs approval."""
        recorded.append(text)
        return text

    return guarded


def test_duplicate_pending_ids_run_each_call_once_with_one_tool_message():
    guarded = approval_tool()

    server = ScriptedAgent()
    server.on("go").call("guarded", text="a", call_id="c1").finish(
        outcome={"type": "interrupt", "pendingToolCallIds": ["c1", "c1", "c1"]}).then_say("ok")
    thread = agent_for(server, [guarded]).thread()

    async def main():
        sending = asyncio.ensure_future(thread.send("go"))
        await until(lambda: [a.status for a in thread.pending_actions] == ["awaiting_approval"])
        thread.action("c1").approve()
        await sending

    arun(main())
    assert thread.run_status == "idle" and recorded == ["a"]
    assert [m["toolCallId"] for m in tool_messages(bodies(server)[1])] == ["c1"]


def test_duplicate_pending_ids_then_stop_returns():
    guarded = approval_tool()

    server = ScriptedAgent()
    server.otherwise().call("guarded", text="a", call_id="c1").finish(
        outcome={"type": "interrupt", "pendingToolCallIds": ["c1", "c1"]})
    thread = agent_for(server, [guarded]).thread()

    async def main():
        sending = asyncio.ensure_future(thread.send("go"))
        await until(lambda: bool(thread.pending_actions))
        thread.stop()
        await sending

    arun(main())
    assert thread.run_status == "idle" and recorded == [] and len(bodies(server)) == 1


def test_tool_call_id_reused_by_a_later_run_is_a_new_call():
    server = ScriptedAgent()
    server.on("go").call("echo", text="run0", call_id="c1").then().call("echo", text="run1", call_id="c1").then_say("ok")
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and recorded == ["run0", "run1"]
    last = bodies(server)[2]["messages"]
    calls = [c["function"]["arguments"] for m in last if m["role"] == "assistant" for c in m.get("toolCalls") or ()]
    assert [json.loads(a) for a in calls] == [{"text": "run0"}, {"text": "run1"}]
    assert [m["content"] for m in tool_messages(bodies(server)[2])] == ["run0", "run1"]
    assert thread.action("c1").result.content == "run1"


def test_same_tool_call_id_started_twice_in_one_run_runs_once():
    server = ScriptedAgent()
    start = {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "echo", "parentMessageId": "m1"}
    server.on("go").emit(*tool_call("c1", "echo", {"text": "x"}), start,
                         {"type": "TOOL_CALL_END", "toolCallId": "c1"}).then_say("ok")
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and recorded == ["x"]
    assert [m["toolCallId"] for m in tool_messages(bodies(server)[1])] == ["c1"]


@pytest.mark.parametrize("outcome", [
    "success",
    {"type": 5, "pendingToolCallIds": "c1"},
    {"pendingToolCallIds": {"c1": True}},
    {"pendingToolCallIds": [["c1"], None, 3]},
    {"pendingToolCallIds": 7},
])
def test_run_finished_with_wrongly_typed_outcome_runs_the_streamed_calls(outcome):
    server = ScriptedAgent()
    server.on("go").call("echo", text="x", call_id="c1").finish(outcome=outcome).then_say("ok")
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and thread.error is None and recorded == ["x"]
    assert len(bodies(server)) == 2


def test_messages_snapshot_repeating_ids_with_empty_arguments_keeps_the_streamed_ones():
    """Microsoft Agent Framework's stream for two parallel frontend calls, as it really is."""

    def first(body):   # the snapshot holds the request's own user message
        user = body["messages"][0]
        snapshot_calls = [{"id": i, "type": "function", "function": {"name": "echo", "arguments": ""}}
                          for i in ("c1", "c2", "c1", "c2")]
        return sse(
            {"type": "RUN_STARTED", **ids(body)},
            {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
            *tool_call("c1", "echo", {"text": "one"}), *tool_call("c2", "echo", {"text": "two"}),
            {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
            {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "echo", "parentMessageId": "m1"},
            {"type": "TOOL_CALL_END", "toolCallId": "c1"},
            {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "echo", "parentMessageId": "m1"},
            {"type": "TOOL_CALL_END", "toolCallId": "c2"},
            {"type": "MESSAGES_SNAPSHOT", "messages": [
                user, {"id": "m1", "role": "assistant", "content": "", "toolCalls": snapshot_calls}]},
            {"type": "RUN_FINISHED", **ids(body)},
        )

    server = first_raw(first, then=text_only())
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and sorted(recorded) == ["one", "two"]
    follow_up = bodies(server)[1]["messages"]
    (assistant,) = [m for m in follow_up if m["role"] == "assistant"]
    assert [(c["id"], json.loads(c["function"]["arguments"])) for c in assistant["toolCalls"]] == [
        ("c1", {"text": "one"}), ("c2", {"text": "two"})]
    assert [m["toolCallId"] for m in tool_messages(bodies(server)[1])] == ["c1", "c2"]


# -- rogue handlers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("exit_type", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_or_system_exit_in_a_handler_fails_the_call_and_the_loop_lives(exit_type):
    @client_tool
    def quitter() -> str:
        """Tries to stop the program."""
        raise exit_type()

    @client_tool
    async def async_quitter() -> str:
        """Tries to stop the program, asynchronously."""
        await asyncio.sleep(0)
        raise exit_type()

    server = calls_then_text([("c1", "quitter", {}), ("c2", "async_quitter", {})])
    thread = agent_for(server, [quitter, async_quitter]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle"
    messages = tool_messages(bodies(server)[1])
    assert [m["toolCallId"] for m in messages] == ["c1", "c2"]
    assert all(exit_type.__name__ in m["error"] for m in messages)


def _round_trip_of_a_handler_raising(handler, caplog) -> tuple:
    """Run one call of `handler` (a tool named "raiser") in a thread, and collect what
    happened: the thread, the follow-up's tool messages, and asyncio's log records (an
    exception "never retrieved" is logged when its task is collected: collected here)."""
    caplog.set_level(logging.DEBUG, logger="asyncio")
    tool = client_tool(handler, name="raiser")
    server = calls_then_text([("c1", "raiser", {})])
    thread = agent_for(server, [tool]).thread()
    arun(thread.send("go"), timeout=10)   # it returns: before, a sync CancelledError hung it
    gc.collect()
    return thread, tool_messages(bodies(server)[1]), [
        r for r in caplog.records if r.name == "asyncio" and r.levelno >= logging.WARNING]


def _assert_failed_and_went_on(thread, messages, asyncio_records, raised: str) -> None:
    assert thread.run_status == "idle" and thread.error is None
    (message,) = messages
    assert message["toolCallId"] == "c1" and f"Tool 'raiser' raised {raised}" in message["error"]
    assert message["content"] == message["error"]
    assert thread.action("c1").status == "failed"
    assert thread.messages[-1].role == "assistant" and thread.messages[-1].content == "done"  # the follow-up's answer
    assert asyncio_records == [], [r.getMessage() for r in asyncio_records]


def test_a_sync_handler_raising_cancelled_error_fails_its_call_and_the_follow_up_goes_out(caplog):
    def raiser() -> str:
        """Raises CancelledError without being cancelled."""
        raise asyncio.CancelledError("by hand")

    _assert_failed_and_went_on(*_round_trip_of_a_handler_raising(raiser, caplog), "CancelledError(by hand)")


def test_a_sync_handler_raising_generator_exit_fails_its_call_and_the_follow_up_goes_out(caplog):
    def raiser() -> str:
        """Raises GeneratorExit."""
        raise GeneratorExit

    _assert_failed_and_went_on(*_round_trip_of_a_handler_raising(raiser, caplog), "GeneratorExit")


def test_an_async_handler_raising_cancelled_error_fails_its_call_and_the_follow_up_goes_out(caplog):
    async def raiser() -> str:
        """Raises CancelledError without being cancelled, after an await."""
        await asyncio.sleep(0)
        raise asyncio.CancelledError("by hand")

    _assert_failed_and_went_on(*_round_trip_of_a_handler_raising(raiser, caplog), "CancelledError(by hand)")


def test_an_async_handler_raising_generator_exit_fails_its_call_and_the_follow_up_goes_out(caplog):
    async def raiser() -> str:
        """Raises GeneratorExit after an await."""
        await asyncio.sleep(0)
        raise GeneratorExit

    _assert_failed_and_went_on(*_round_trip_of_a_handler_raising(raiser, caplog), "GeneratorExit")


def test_a_base_exception_of_its_own_in_a_handler_fails_the_call(caplog):
    class Custom(BaseException):
        pass

    def raiser() -> str:
        """Raises a BaseException subclass."""
        raise Custom("odd")

    _assert_failed_and_went_on(*_round_trip_of_a_handler_raising(raiser, caplog), "Custom(odd)")


def stopped_while_it_runs(tool: ClientTool, seen: list[str], *reason: str) -> tuple[ScriptedAgent, Any]:
    """An agent that calls `tool` (c1) once, and a thread that sends it "go" and stops (with
    `reason`) once the handler has appended "started" to `seen`; the send over, the handler
    has appended what it does next, and the loop has turned on."""
    server = calls_then_text([("c1", tool.name, {})])
    thread = agent_for(server, [tool]).thread()

    async def main():
        sending = asyncio.ensure_future(thread.send("go"))
        await until(lambda: seen == ["started"])
        thread.stop(*reason)
        await sending
        await until(lambda: len(seen) == 2)
        for _ in range(20):
            await asyncio.sleep(0)

    arun(main())
    return server, thread


def test_a_handler_cancelled_by_a_stop_is_still_cancelled_not_failed():
    """The other side of the rule: the CancelledError of a stop reaches the handler and is the
    stop's (the call is cancelled, nothing is sent), not the handler's own failure."""
    seen = []

    @client_tool
    async def waiter() -> str:
        """Waits until cancelled."""
        seen.append("started")
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        return "never"

    server, thread = stopped_while_it_runs(waiter, seen, "enough")
    assert seen == ["started", "cancelled"]
    assert thread.action("c1").status == "cancelled" and len(bodies(server)) == 1
    assert [m.content for m in thread.messages if m.role == "tool"] == ["Tool call cancelled: enough"]


def test_handler_that_swallows_cancellation_still_leaves_the_thread_idle_and_its_result_is_dropped():
    @client_tool
    async def stubborn(ctx: ToolContext) -> str:
        """Ignores cancellation."""
        recorded.append("started")
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            recorded.append("swallowed")
        return "late result"

    server, thread = stopped_while_it_runs(stubborn, recorded)
    assert recorded == ["started", "swallowed"]
    assert thread.run_status == "idle" and len(bodies(server)) == 1
    action = thread.action("c1")
    assert action.status == "cancelled" and "late result" not in action.result.content
    assert [m.content for m in thread.messages if m.role == "tool"] == ["Tool call cancelled: stopped by the user"]


def test_no_handler_starts_after_the_signal_aborted_in_the_same_loop_turn():
    # An async handler runs in a task of its own (a plain def runs inline, at once: no window).
    @client_tool
    async def side_effect() -> str:
        """Has a side effect."""
        recorded.append("side effect")
        return "done"

    async def main():
        controller = AbortController()
        execution = asyncio.ensure_future(side_effect.execute({}, signal=controller.signal))
        await asyncio.sleep(0)  # execute() has scheduled the handler's task and waits for it
        controller.abort("stopped")
        with pytest.raises(Exception) as info:
            await execution
        return info.value

    error = arun(main())
    assert type(error).__name__ == "RunAborted" and recorded == []


@pytest.mark.parametrize("turns", range(5))
@pytest.mark.parametrize("how", ["stop", "unmount"])
def test_no_handler_starts_after_stop_or_unmount_returned(how, turns):
    """Stop or unmount `turns` loop turns after the call starts executing: whichever turn that
    falls on (before its task runs, between the task and the handler's own task, ...), a handler
    that had not started by then never starts."""
    ended = []

    @client_tool
    def side_effect() -> str:
        """Has a side effect."""
        recorded.append("after" if ended else "before")
        return "done"

    server = calls_then_text([("c1", "side_effect", {})])
    thread = agent_for(server).thread()
    registration = thread.register_tool(side_effect)

    def end():
        if how == "stop":
            thread.stop()
        else:
            registration.dispose()
        ended.append(True)

    def later(n):
        if n == 0:
            end()
        else:
            asyncio.get_running_loop().call_soon(later, n - 1)

    def on_event(event):
        if event.kind == "action" and event.payload.status == "executing" and not ended:
            later(turns + 1)

    thread.subscribe(on_event)

    async def main():
        sending = asyncio.ensure_future(thread.send("go"))
        await until(lambda: bool(ended))
        if how == "unmount":
            await until(lambda: thread.action("c1").status != "executing")
            if thread.action("c1").status == "unavailable":  # else it had finished before the unmount
                thread.stop()
        await sending
        for _ in range(20):
            await asyncio.sleep(0)

    arun(main())
    assert "after" not in recorded
    assert thread.run_status == "idle"


# -- RUN_FINISHED with the connection held open ------------------------------------------------------


def test_calls_run_on_run_finished_while_the_server_holds_the_connection_open():
    closed: list[bool] = []
    server = first_raw(held_open({"text": "x"}, closed), then=text_only())
    thread = agent_for(server, [echo]).thread()
    arun(thread.send("go"), timeout=10)
    assert recorded == ["x"] and len(bodies(server)) == 2 and closed == [True]


def test_text_delta_after_run_finished_is_not_read():
    server = MockTransport(lambda request: sse(
        {"type": "RUN_STARTED", **ids(json.loads(request.body))}, *text_message("m1", "in"),
        {"type": "RUN_FINISHED", **ids(json.loads(request.body))}, *text_message("m2", "after")))
    thread = agent_for(server).thread()
    arun(thread.send("go"))
    assert [m.content for m in thread.messages] == ["go", "in"]
