"""The conversation machine, driven directly: its tables' shapes (each pair of each table:
test_lifecycle_tables.py), every call status, steps and errors (no I/O, no clock)."""

from __future__ import annotations

import json

import pytest
from ag_ui.core import (
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    ToolCallResultEvent,
)

from pyclient import (
    FollowUpLimitError,
    LocalProtocolError,
    RemoteProtocolError,
    RunError,
    client_tool,
)
from pyclient._conversation._lifecycle import (
    CALL_TRANSITIONS,
    RUN_STATUS,
    TERMINAL,
    CallEvent,
    CallStatus,
    RunState,
    next_call_status,
)
from pyclient._conversation._machine import Conversation
from pyclient._conversation._records import (
    Failed,
    Idle,
    RunHandlers,
    SendRequest,
    WaitForActions,
)
from pyclient._tools._results import ToolResult
from tests.helpers import call_events, machine_registration


@client_tool
def save_note(key: str) -> str:
    """Save a note."""
    return key


@client_tool(requires_approval=True)
def delete_all() -> str:
    """Delete everything."""
    return "deleted"






def run(conversation: Conversation, *events, tools=(save_note, delete_all), finish: bool = True):
    """One request: start it, feed `events` (and RUN_FINISHED), end the stream."""
    request = conversation.start_run(list(tools))
    conversation.receive(RunStartedEvent(thread_id=conversation.thread_id, run_id=request.input.run_id))
    for event in events:
        conversation.receive(event)
    if finish:
        conversation.receive(RunFinishedEvent(thread_id=conversation.thread_id, run_id=request.input.run_id))
    conversation.end_stream("http://agent.test/agent")
    return request


def tool_messages(conversation: Conversation) -> list[tuple[str, str, str | None]]:
    return [(m.tool_call_id, m.content, m.error) for m in conversation.messages() if m.role == "tool"]


# -- the tables ------------------------------------------------------------------------------


def test_table_shapes():
    assert TERMINAL == {CallStatus.COMPLETED, CallStatus.FAILED, CallStatus.CANCELLED}
    # Every non-terminal status can be answered, and cancelled, from where it is.
    for status in set(CallStatus) - TERMINAL:
        assert {CallEvent.SUCCEED, CallEvent.FAIL, CallEvent.CANCEL} <= set(CALL_TRANSITIONS[status])
    # Every status but STREAMING is reachable from STREAMING.
    reachable, frontier = {CallStatus.STREAMING}, [CallStatus.STREAMING]
    while frontier:
        for after in CALL_TRANSITIONS[frontier.pop()].values():
            if after not in reachable:
                reachable.add(after)
                frontier.append(after)
    assert reachable == set(CallStatus)
    assert {state: RUN_STATUS[state] for state in RunState} == {
        RunState.IDLE: "idle", RunState.STREAMING: "running", RunState.ENDED: "running",
        RunState.AWAITING_TOOLS: "running", RunState.ERROR: "error", RunState.CLOSED: "closed"}
    assert [status.value for status in CallStatus] == [
        "streaming", "unavailable", "awaiting_approval", "awaiting_input", "executing", "interrupted",
        "completed", "failed", "cancelled"]


def test_a_terminal_call_says_it_has_its_answer():
    with pytest.raises(LocalProtocolError, match="already has its answer"):
        next_call_status(CallStatus.COMPLETED, CallEvent.CANCEL)


# -- a turn, step by step --------------------------------------------------------------------


def test_a_tool_call_turn_step_by_step():
    conversation = Conversation("t1")
    conversation.add_user_message("save milk")
    assert conversation.drain()[0].kind == "messages"
    first = run(conversation, *call_events("c1", "save_note", {"key": "milk"}))
    assert [t["name"] for t in json.loads(first.body)["tools"]] == ["save_note", "delete_all"]
    call = conversation.calls["c1"]
    assert call.status is CallStatus.UNAVAILABLE and call.tool is save_note
    assert conversation.run_state is RunState.AWAITING_TOOLS and conversation.run_status == "running"
    assert conversation.next_step() == WaitForActions() and conversation.pending() == [call]

    reg = machine_registration(save_note)
    conversation.calls.serve("c1", save_note, reg)
    assert call.status is CallStatus.EXECUTING and call.registration is reg and call.execution == 1
    assert conversation.next_step() == RunHandlers((call,))
    assert conversation.next_step() == WaitForActions() and conversation.pending() == [call]      # started once, then waited for

    assert conversation.calls.handler_returned("c1", 1, ToolResult.success("saved milk"))
    assert call.status is CallStatus.COMPLETED and call.result.content == "saved milk" and call.registration is None
    assert conversation.next_step() == SendRequest()
    follow_up = run(conversation, TextMessageContentEvent(message_id="a2", delta="Saved."))
    body = json.loads(follow_up.body)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool"]
    assert body["messages"][2]["toolCallId"] == "c1" and body["messages"][2]["content"] == "saved milk"
    assert conversation.next_step() == Idle() and conversation.run_status == "idle"
    assert conversation.messages()[-1].content == "Saved."
    assert tool_messages(conversation) == [("c1", "saved milk", None)]


def test_changes_are_drained_once_each_in_order():
    conversation = Conversation("t1")
    conversation.add_user_message("save milk")
    conversation.drain()
    run(conversation, *call_events("c1", "save_note", {"key": "milk"}))
    conversation.calls.serve("c1", save_note, machine_registration(save_note))
    kinds = [(c.kind, c.payload) for c in conversation.drain()]
    # One "action" for c1 (unavailable, then executing, published once: listeners read it live).
    assert kinds.count(("action", "c1")) == 1 and ("status", "running") in kinds
    assert kinds.index(("status", "running")) < kinds.index(("action", "c1"))
    assert conversation.drain() == []


def test_approval_then_lose_then_serve_again_does_not_ask_twice():
    conversation = Conversation("t1")
    run(conversation, *call_events("c1", "delete_all", {}))
    reg = machine_registration(delete_all)
    conversation.calls.serve("c1", delete_all, reg)
    call = conversation.calls["c1"]
    assert call.status is CallStatus.AWAITING_APPROVAL and conversation.next_step() == WaitForActions() and conversation.pending() == [call]
    conversation.calls.approve("c1")
    assert call.status is CallStatus.EXECUTING and conversation.next_step() == RunHandlers((call,))
    assert conversation.calls.release(reg) == [call] and call.status is CallStatus.UNAVAILABLE
    # The handler of the lost execution comes back late: dropped, never a second answer.
    assert not conversation.calls.handler_returned("c1", 1, ToolResult.success("late"))
    conversation.calls.serve("c1", delete_all, reg)
    assert call.status is CallStatus.EXECUTING and call.execution == 2   # approved for this tool already
    assert not conversation.calls.handler_returned("c1", 1, ToolResult.success("stale"))
    assert conversation.calls.handler_returned("c1", 2, ToolResult.success("deleted"))
    assert tool_messages(conversation) == [("c1", "deleted", None)]


def test_a_new_tool_for_the_name_asks_for_approval_again():
    conversation = Conversation("t1")
    run(conversation, *call_events("c1", "delete_all", {}))
    conversation.calls.serve("c1", delete_all, machine_registration(delete_all))
    conversation.calls.approve("c1")
    conversation.calls.release(conversation.calls["c1"].registration)

    @client_tool(requires_approval=True, name="delete_all")
    def other_delete() -> str:
        """Another implementation."""
        return "other"

    conversation.calls.serve("c1", other_delete, machine_registration(other_delete))
    assert conversation.calls["c1"].status is CallStatus.AWAITING_APPROVAL


def test_awaiting_input_is_answered_by_the_page():
    conversation = Conversation("t1")
    run(conversation, *call_events("c1", "save_note", {"key": "x"}))
    conversation.calls.serve("c1", save_note, machine_registration(save_note), input=True)
    call = conversation.calls["c1"]
    assert call.status is CallStatus.AWAITING_INPUT and conversation.next_step() == WaitForActions() and conversation.pending() == [call]
    conversation.calls.answer("c1", ToolResult.success("typed by the user"))
    assert call.status is CallStatus.COMPLETED and conversation.next_step() == SendRequest()
    with pytest.raises(LocalProtocolError, match="already has its answer"):
        conversation.calls.answer("c1", ToolResult.success("twice"))
    assert conversation.calls.cancel("c1") is None       # cancelling an answered call changes nothing
    assert tool_messages(conversation) == [("c1", "typed by the user", None)]


def test_unadvertised_call_is_refused_and_followed_up():
    conversation = Conversation("t1")
    run(conversation, *call_events("c1", "secret", {}), tools=[save_note])
    call = conversation.calls["c1"]
    assert call.status is CallStatus.FAILED and conversation.pending() == []
    [(call_id, content, error)] = tool_messages(conversation)
    assert call_id == "c1" and "'secret' is not available" in content and "save_note" in content and error == content
    assert conversation.next_step() == SendRequest()


def test_stop_cancels_every_open_call_and_later_events_are_illegal():
    conversation = Conversation("t1")
    request = conversation.start_run([save_note])
    for event in call_events("c1", "save_note", {"key": "a"})[:2]:   # still streaming
        conversation.receive(event)
    assert conversation.calls["c1"].status is CallStatus.STREAMING
    cancelled = conversation.stop("stopped by the user")
    assert [c.id for c in cancelled] == ["c1"] and conversation.calls["c1"].status is CallStatus.CANCELLED
    assert conversation.run_status == "idle" and conversation.next_step() == Idle()
    assert tool_messages(conversation) == [("c1", "Tool call cancelled: stopped by the user",
                                            "Tool call cancelled: stopped by the user")]
    with pytest.raises(LocalProtocolError, match="Cannot receive RUN_FINISHED in run state IDLE"):
        conversation.receive(RunFinishedEvent(thread_id="t1", run_id=request.input.run_id))


def test_run_error_fails_the_run_and_a_new_run_retries():
    conversation = Conversation("t1")
    conversation.add_user_message("hi")
    run(conversation, *call_events("c1", "save_note", {"key": "a"}),
        RunErrorEvent(message="model overloaded", code="503"), finish=False)
    step = conversation.next_step()
    assert isinstance(step, Failed) and isinstance(step.error, RunError) and step.error.code == "503"
    assert conversation.run_status == "error" and conversation.error is step.error
    # The call the run streamed never runs; the model is told why.
    assert conversation.calls["c1"].status is CallStatus.CANCELLED
    assert tool_messages(conversation)[0][1].startswith("Not run: The agent reported an error: model overloaded")
    run(conversation, TextMessageContentEvent(message_id="a", delta="better now"))
    assert conversation.run_status == "idle" and conversation.error is None


def test_a_stream_without_run_finished_is_a_remote_protocol_error():
    conversation = Conversation("t1")
    run(conversation, TextMessageContentEvent(message_id="a", delta="partial"), finish=False)
    error = conversation.error
    assert isinstance(error, RemoteProtocolError) and "ended before RUN_FINISHED (after 2 events)" in str(error)
    assert "http://agent.test/agent" in str(error) and conversation.messages()[-1].content == "partial"


def test_follow_up_limit():
    conversation = Conversation("t1", max_follow_ups=1)
    run(conversation, *call_events("c1", "save_note", {"key": "a"}))
    conversation.calls.serve("c1", save_note, machine_registration(save_note))
    conversation.calls.handler_returned("c1", 1, ToolResult.success("a"))
    run(conversation, *call_events("c2", "save_note", {"key": "b"}))   # the one follow-up allowed
    step = conversation.next_step()
    assert isinstance(step, Failed) and isinstance(step.error, FollowUpLimitError)
    assert step.error.tool_names == ["save_note"] and conversation.calls["c2"].status is CallStatus.CANCELLED


def test_follow_up_needs_every_answer_and_only_one_request_at_a_time():
    conversation = Conversation("t1")
    run(conversation, *call_events("c1", "save_note", {"key": "a"}))
    with pytest.raises(LocalProtocolError, match="still wait for an answer"):
        conversation.start_run([save_note])
    conversation.calls.cancel("c1", "not now")
    conversation.start_run([save_note])
    with pytest.raises(LocalProtocolError, match="Cannot handle START in run state STREAMING: a run is already in flight"):
        conversation.start_run([save_note])
    with pytest.raises(LocalProtocolError, match="No next step in run state STREAMING"):
        conversation.next_step()
    with pytest.raises(LocalProtocolError, match="a run is in flight"):
        conversation.add_user_message("again")


def test_state_that_is_not_json_cannot_be_sent_and_nothing_changes():
    conversation = Conversation("t1", state={"when": object()})
    with pytest.raises(LocalProtocolError, match="not JSON"):
        conversation.start_run([])
    assert conversation.run_state is RunState.IDLE


def test_close_is_final():
    conversation = Conversation("t1")
    run(conversation, *call_events("c1", "save_note", {"key": "a"}))
    assert [c.id for c in conversation.close("the panel closed")] == ["c1"]
    assert conversation.run_status == "closed" and conversation.calls["c1"].status is CallStatus.CANCELLED
    assert ("closed", None) in [(c.kind, c.payload) for c in conversation.drain()]
    with pytest.raises(LocalProtocolError, match="the thread is closed"):
        conversation.add_user_message("hi")
    with pytest.raises(LocalProtocolError, match="Cannot handle START in run state CLOSED"):
        conversation.start_run([])
    assert conversation.close() == [] and conversation.drain() == []   # idempotent, nothing new


def test_server_side_calls_and_their_results():
    conversation = Conversation("t1")
    run(conversation, *call_events("s1", "search", {"q": "x"}),
        ToolCallResultEvent(message_id="r1", tool_call_id="s1", content="found"), tools=[save_note])
    assert conversation.calls["s1"].status is CallStatus.COMPLETED and conversation.calls["s1"].result.content == "found"
    assert conversation.run_status == "idle"


# -- how a run ends ------------------------------------------------------------------------------


def test_run_finished_is_the_ended_state_until_the_stream_is_closed():
    conversation = Conversation("t1")
    conversation.add_user_message("hi")
    request = conversation.start_run([])
    conversation.receive(RunStartedEvent(thread_id="t1", run_id=request.run_id))
    assert conversation.run_state is RunState.STREAMING and not conversation.run_ended
    assert conversation.receive(RunFinishedEvent(thread_id="t1", run_id=request.run_id)) is True
    assert conversation.run_state is RunState.ENDED and conversation.run_ended and conversation.run_status == "running"
    assert conversation.run_end is None                        # not over until the stream is closed
    with pytest.raises(LocalProtocolError, match="No next step in run state ENDED"):
        conversation.next_step()
    conversation.end_stream()
    assert conversation.run_state is RunState.IDLE and conversation.run_end.how == "finished"
    assert conversation.run_end.run_id == request.run_id and conversation.run_end.reason is None


def test_a_run_finished_without_run_finished_fails_and_says_why():
    conversation = Conversation("t1")
    conversation.add_user_message("hi")
    conversation.start_run([])
    conversation.end_stream("http://agent.test/agent")
    assert conversation.run_state is RunState.ERROR and conversation.run_end.how == "failed"
    assert "ended before RUN_FINISHED" in conversation.run_end.reason


@pytest.mark.parametrize("end, how, reason", [
    (lambda c: c.stop("the user clicked Stop"), "stopped", "the user clicked Stop"),
    (lambda c: c.close("page closed"), "closed", "page closed"),
    (lambda c: c.fail(RuntimeError("boom")), "failed", "boom"),
])
def test_how_a_turn_ended_is_the_machines_word(end, how, reason):
    conversation = Conversation("t1")
    conversation.add_user_message("hi")
    run(conversation, *call_events("c1", "save_note", {"key": "k"}))
    assert conversation.run_end is None                        # the follow-up is still to come
    end(conversation)
    assert (conversation.run_end.how, conversation.run_end.reason) == (how, reason)
    conversation.stop("again")                                 # stopping an idle thread changes nothing
    assert conversation.run_end.how == how


def test_a_new_run_clears_how_the_last_one_ended():
    conversation = Conversation("t1")
    conversation.add_user_message("hi")
    run(conversation)
    assert conversation.run_end.how == "finished"
    conversation.add_user_message("again")
    conversation.start_run([])
    assert conversation.run_end is None


def test_a_run_error_whose_message_is_not_text_still_fails_the_run_in_words():
    # Found by the stream property: an UnknownEvent's raw RUN_ERROR may carry any JSON.
    from pyclient._wire._events import UnknownEvent

    conversation = Conversation("t1")
    conversation.add_user_message("hi")
    conversation.start_run([])
    conversation.receive(UnknownEvent(type="RUN_ERROR", raw={"type": "RUN_ERROR", "message": True, "code": 7}))
    conversation.end_stream()
    assert conversation.run_status == "error" and isinstance(conversation.error, RunError)
    assert conversation.error.message == "True" and "The agent reported an error: True (code 7)." in str(conversation.error)
