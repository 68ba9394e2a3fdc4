"""Bad input never bricks a thread: broken text, hostile JSON, protocol oddities, rogue handlers."""

from __future__ import annotations

import asyncio
import json

import pytest

from pyclient import AbortController, RemoteProtocolError, ToolContext, client_tool
from pyclient._json import MAX_DEPTH, JSONLimitError, loads, repair
from tests.unit.scripted import (
    Server,
    arun,
    call_events,
    calls_then_text,
    finished,
    make_agent,
    sse,
    started,
    text_events,
    text_only,
    tool_messages_in,
    until,
)

EMOJI = "\U0001f600"
DEEP = "[" * 10_000 + "]" * 10_000
HUGE_INT = "7" * 5_000


def raw_sse(*payloads: str) -> bytes:
    """SSE events whose data is given as JSON text (to keep escapes such as "\\ud83d" as written)."""
    return b"".join(b"data: " + p.encode() + b"\n\n" for p in payloads)


def run_events(body: dict, *payloads: str) -> bytes:
    return sse(started(body)) + raw_sse(*payloads) + sse(finished(body))


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
    def script(body, n):
        return run_events(
            body,
            '{"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}',
            '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi \\ud83d"}',
            '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "\\ude00!"}',
            '{"type": "TEXT_MESSAGE_END", "messageId": "m1"}',
        )

    server = Server(script)
    thread = make_agent(server).thread()
    arun(thread.send("hello"))
    assert thread.messages[-1].content == f"hi {EMOJI}!"
    arun(thread.send("again"))
    assert server.bodies[1]["messages"][1]["content"] == f"hi {EMOJI}!"


def test_lone_surrogate_in_text_delta_is_replaced_and_the_next_send_goes_out():
    server = Server(lambda body, n: run_events(
        body, '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "cut \\ud83d"}'))
    thread = make_agent(server).thread()
    arun(thread.send("hello"))
    arun(thread.send("again"))
    assert thread.run_status == "idle" and len(server.bodies) == 2
    assert server.bodies[1]["messages"][1]["content"] == "cut \ufffd"


def test_lone_surrogate_in_tool_arguments_is_replaced_and_the_follow_up_goes_out():
    def script(body, n):
        if n == 0:
            return run_events(
                body,
                '{"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "echo", "parentMessageId": "m1"}',
                '{"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\\"text\\": \\"a\\ud83d"}',
                '{"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\\ude00 b\\udc00\\"}"}',
            )
        return text_only(body, n)

    server = Server(script)
    thread = make_agent(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and len(server.bodies) == 2
    assert recorded == [f"a{EMOJI} b\ufffd"]
    follow_up = server.bodies[1]["messages"]
    assert json.loads(follow_up[1]["toolCalls"][0]["function"]["arguments"]) == {"text": f"a{EMOJI} b\ufffd"}
    assert tool_messages_in(server.bodies[1])[0]["content"] == f"a{EMOJI} b\ufffd"


def test_lone_surrogate_in_a_tool_result_is_replaced_and_the_follow_up_goes_out():
    server = Server(calls_then_text([("c1", "lone_half", {})]))
    thread = make_agent(server, [lone_half]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and thread.error is None and len(server.bodies) == 2
    assert tool_messages_in(server.bodies[1])[0]["content"] == "half \ufffd"


def test_lone_surrogate_in_the_users_input_is_replaced_and_the_request_goes_out():
    server = Server(text_only)
    thread = make_agent(server).thread()
    arun(thread.send("broken \udcff input"))
    arun(thread.send("next"))
    assert thread.run_status == "idle" and len(server.bodies) == 2
    assert server.bodies[0]["messages"][0]["content"] == "broken \ufffd input"


def test_lone_surrogate_in_a_messages_snapshot_never_blocks_the_next_request():
    def script(body, n):
        return run_events(body, json.dumps({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "u1", "role": "user", "content": "x"},
            {"id": "a1", "role": "assistant", "content": "snap \\ud800"},
        ]}).replace("\\\\ud800", "\\ud800"))

    server = Server(script)
    thread = make_agent(server).thread(state={"note": "\udfff"})
    arun(thread.send("hello"))
    arun(thread.send("again"))
    assert thread.run_status == "idle" and len(server.bodies) == 2
    assert server.bodies[1]["messages"][1]["content"] == "snap \ufffd"
    assert server.bodies[1]["state"] == {"note": "\ufffd"}


def test_repair_joins_pairs_and_replaces_lone_halves():
    assert repair("\ud83d" + "\ude00") == EMOJI
    assert repair("\ude00\ud83d x") == "\ufffd\ufffd x"
    assert repair("plain") == "plain"


# -- JSON limits ------------------------------------------------------------------------------


def test_json_nested_10000_deep_in_an_event_fails_that_run_clearly_and_the_thread_sends_again():
    def script(body, n):
        if n == 0:
            return run_events(body, '{"type": "STATE_SNAPSHOT", "snapshot": ' + DEEP + "}")
        return text_only(body, n)

    server = Server(script)
    thread = make_agent(server).thread()
    arun(thread.send("hello"))
    assert thread.run_status == "error" and isinstance(thread.error, RemoteProtocolError)
    assert f"nested deeper than {MAX_DEPTH} levels" in str(thread.error)
    arun(thread.send("again"))
    assert thread.run_status == "idle" and thread.messages[-1].content == "ok"


def test_5000_digit_integer_in_an_event_fails_that_run_clearly():
    server = Server(lambda body, n: run_events(body, '{"type": "STATE_SNAPSHOT", "snapshot": ' + HUGE_INT + "}"))
    thread = make_agent(server).thread()
    arun(thread.send("hello"))
    assert isinstance(thread.error, RemoteProtocolError) and "4300 digits" in str(thread.error)


@pytest.mark.parametrize("arguments", ['{"data": ' + DEEP + "}", '{"data": [' + HUGE_INT + "]}"])
def test_hostile_json_in_tool_arguments_fails_that_call_and_the_run_goes_on(arguments):
    def script(body, n):
        if n == 0:
            return run_events(
                body,
                '{"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "nested", "parentMessageId": "m1"}',
                json.dumps({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": arguments}),
            )
        return text_only(body, n)

    server = Server(script)
    thread = make_agent(server, [nested]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and recorded == []
    (message,) = tool_messages_in(server.bodies[1])
    assert message["error"] and "were not read" in message["error"]


def test_state_nested_to_the_limit_is_accepted_and_sent_back():
    state = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)

    def script(body, n):
        return run_events(body, '{"type": "STATE_SNAPSHOT", "snapshot": ' + state + "}")

    server = Server(script)
    thread = make_agent(server).thread()
    arun(thread.send("hello"))
    arun(thread.send("again"))
    assert thread.run_status == "idle" and json.dumps(server.bodies[1]["state"]).count("[") == MAX_DEPTH - 1


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

    def script(body, n):
        if n == 0:
            return sse(started(body), *call_events("c1", "guarded", {"text": "a"}),
                       finished(body, outcome={"type": "interrupt", "pendingToolCallIds": ["c1", "c1", "c1"]}))
        return text_only(body, n)

    server = Server(script)
    thread = make_agent(server, [guarded]).thread()

    async def main():
        sending = asyncio.ensure_future(thread.send("go"))
        await until(lambda: [a.status for a in thread.pending_actions] == ["awaiting_approval"])
        thread.action("c1").approve()
        await sending

    arun(main())
    assert thread.run_status == "idle" and recorded == ["a"]
    assert [m["toolCallId"] for m in tool_messages_in(server.bodies[1])] == ["c1"]


def test_duplicate_pending_ids_then_stop_returns():
    guarded = approval_tool()

    def script(body, n):
        return sse(started(body), *call_events("c1", "guarded", {"text": "a"}),
                   finished(body, outcome={"type": "interrupt", "pendingToolCallIds": ["c1", "c1"]}))

    server = Server(script)
    thread = make_agent(server, [guarded]).thread()

    async def main():
        sending = asyncio.ensure_future(thread.send("go"))
        await until(lambda: bool(thread.pending_actions))
        thread.stop()
        await sending

    arun(main())
    assert thread.run_status == "idle" and recorded == [] and len(server.bodies) == 1


def test_tool_call_id_reused_by_a_later_run_is_a_new_call():
    def script(body, n):
        if n < 2:
            return sse(started(body), *call_events("c1", "echo", {"text": f"run{n}"}, parent=f"m{n}"), finished(body))
        return text_only(body, n)

    server = Server(script)
    thread = make_agent(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and recorded == ["run0", "run1"]
    last = server.bodies[2]["messages"]
    calls = [c["function"]["arguments"] for m in last if m["role"] == "assistant" for c in m.get("toolCalls") or ()]
    assert [json.loads(a) for a in calls] == [{"text": "run0"}, {"text": "run1"}]
    assert [m["content"] for m in tool_messages_in(server.bodies[2])] == ["run0", "run1"]
    assert thread.action("c1").result.content == "run1"


def test_same_tool_call_id_started_twice_in_one_run_runs_once():
    def script(body, n):
        if n == 0:
            start = {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "echo", "parentMessageId": "m1"}
            return sse(started(body), *call_events("c1", "echo", {"text": "x"}), start,
                       {"type": "TOOL_CALL_END", "toolCallId": "c1"}, finished(body))
        return text_only(body, n)

    server = Server(script)
    thread = make_agent(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and recorded == ["x"]
    assert [m["toolCallId"] for m in tool_messages_in(server.bodies[1])] == ["c1"]


@pytest.mark.parametrize("outcome", [
    "success",
    {"type": 5, "pendingToolCallIds": "c1"},
    {"pendingToolCallIds": {"c1": True}},
    {"pendingToolCallIds": [["c1"], None, 3]},
    {"pendingToolCallIds": 7},
])
def test_run_finished_with_wrongly_typed_outcome_runs_the_streamed_calls(outcome):
    def script(body, n):
        if n == 0:
            return sse(started(body), *call_events("c1", "echo", {"text": "x"}), finished(body, outcome=outcome))
        return text_only(body, n)

    server = Server(script)
    thread = make_agent(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and thread.error is None and recorded == ["x"]
    assert len(server.bodies) == 2


def test_messages_snapshot_repeating_ids_with_empty_arguments_keeps_the_streamed_ones():
    """Microsoft Agent Framework's stream for two parallel frontend calls, as it really is."""

    def script(body, n):
        if n == 0:
            user = body["messages"][0]
            snapshot_calls = [{"id": i, "type": "function", "function": {"name": "echo", "arguments": ""}}
                              for i in ("c1", "c2", "c1", "c2")]
            return sse(
                started(body),
                {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
                *call_events("c1", "echo", {"text": "one"}), *call_events("c2", "echo", {"text": "two"}),
                {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
                {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "echo", "parentMessageId": "m1"},
                {"type": "TOOL_CALL_END", "toolCallId": "c1"},
                {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "echo", "parentMessageId": "m1"},
                {"type": "TOOL_CALL_END", "toolCallId": "c2"},
                {"type": "MESSAGES_SNAPSHOT", "messages": [
                    user, {"id": "m1", "role": "assistant", "content": "", "toolCalls": snapshot_calls}]},
                finished(body),
            )
        return text_only(body, n)

    server = Server(script)
    thread = make_agent(server, [echo]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and sorted(recorded) == ["one", "two"]
    follow_up = server.bodies[1]["messages"]
    (assistant,) = [m for m in follow_up if m["role"] == "assistant"]
    assert [(c["id"], json.loads(c["function"]["arguments"])) for c in assistant["toolCalls"]] == [
        ("c1", {"text": "one"}), ("c2", {"text": "two"})]
    assert [m["toolCallId"] for m in tool_messages_in(server.bodies[1])] == ["c1", "c2"]


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

    server = Server(calls_then_text([("c1", "quitter", {}), ("c2", "async_quitter", {})]))
    thread = make_agent(server, [quitter, async_quitter]).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle"
    messages = tool_messages_in(server.bodies[1])
    assert [m["toolCallId"] for m in messages] == ["c1", "c2"]
    assert all(exit_type.__name__ in m["error"] for m in messages)


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

    server = Server(calls_then_text([("c1", "stubborn", {})]))
    thread = make_agent(server, [stubborn]).thread()

    async def main():
        sending = asyncio.ensure_future(thread.send("go"))
        await until(lambda: recorded == ["started"])
        thread.stop()
        await sending
        await until(lambda: recorded == ["started", "swallowed"])
        for _ in range(20):
            await asyncio.sleep(0)

    arun(main())
    assert thread.run_status == "idle" and len(server.bodies) == 1
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

    server = Server(calls_then_text([("c1", "side_effect", {})]))
    thread = make_agent(server).thread()
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
    closed = []

    def script(body, n):
        if n == 0:
            async def chunks():
                try:
                    yield sse(started(body), *call_events("c1", "echo", {"text": "x"}), finished(body))
                    await asyncio.Event().wait()  # never set: the server keeps the connection open
                finally:
                    closed.append(True)
            return chunks()
        return text_only(body, n)

    server = Server(script)
    thread = make_agent(server, [echo]).thread()
    arun(thread.send("go"), timeout=10)
    assert recorded == ["x"] and len(server.bodies) == 2 and closed == [True]


def test_text_delta_after_run_finished_is_not_read():
    server = Server(lambda body, n: sse(started(body), *text_events("m1", "in"), finished(body),
                                        *text_events("m2", "after")))
    thread = make_agent(server).thread()
    arun(thread.send("go"))
    assert [m.content for m in thread.messages] == ["go", "in"]
