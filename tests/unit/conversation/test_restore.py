"""Snapshots of the conversation machine and the restore rules, driven directly (no I/O, no store)."""

from __future__ import annotations

import json

import pytest
from ag_ui.core import (
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)

from pyclient import LocalProtocolError, client_tool
from pyclient._conversation._lifecycle import (
    CALL_TRANSITIONS,
    RESTORE_CALL,
    RESTORE_IDEMPOTENT,
    RESTORE_RUN,
    CallStatus,
    RunState,
)
from pyclient._conversation._machine import Conversation
from pyclient._conversation._records import (
    Idle,
    RunHandlers,
    SendRequest,
    WaitForActions,
)
from pyclient._tools._results import ToolResult
from tests.helpers import call_events, machine_registration
from tests.unit.conversation.test_machine import delete_all, run, save_note, tool_messages


@client_tool(idempotent=True)
def read_page() -> str:
    """Read the page."""
    return "text"


TOOLS = {tool.name: tool for tool in (save_note, delete_all, read_page)}


def reload(conversation: Conversation) -> Conversation:
    """What a new page load gets: the snapshot through JSON, restored."""
    data = json.loads(json.dumps(conversation.snapshot()))
    return Conversation.from_snapshot(data, tools=TOOLS)


def with_call(status: CallStatus, tool=save_note) -> Conversation:
    """A conversation whose one call 'c1' (of `tool`) is in `status`."""
    conversation = Conversation("t1")
    conversation.add_user_message("go")
    args = {"key": "k"} if tool is save_note else {}
    if status is CallStatus.STREAMING:
        request = conversation.start_run(list(TOOLS.values()))
        conversation.receive(RunStartedEvent(thread_id="t1", run_id=request.input.run_id))
        for event in call_events("c1", tool.name, args):
            conversation.receive(event)
        return conversation
    run(conversation, *call_events("c1", tool.name, args), tools=TOOLS.values())
    if status is CallStatus.UNAVAILABLE:
        return conversation
    if status is CallStatus.AWAITING_INPUT:
        conversation.calls.serve("c1", tool, machine_registration(tool), input=True)
        return conversation
    conversation.calls.serve("c1", tool, machine_registration(tool))
    if status is CallStatus.AWAITING_APPROVAL:
        assert tool.requires_approval
        return conversation
    if tool.requires_approval:
        conversation.calls.approve("c1")
    if status is CallStatus.INTERRUPTED:
        return reload(conversation)
    if status is CallStatus.COMPLETED:
        conversation.calls.answer("c1", ToolResult.success("ok"))
    elif status is CallStatus.FAILED:
        conversation.calls.answer("c1", ToolResult.failure("no"))
    elif status is CallStatus.CANCELLED:
        conversation.calls.cancel("c1", "bored")
    return conversation


TOOL_FOR = {CallStatus.AWAITING_APPROVAL: delete_all}

EXPECTED = {
    CallStatus.STREAMING: CallStatus.CANCELLED,
    CallStatus.UNAVAILABLE: CallStatus.UNAVAILABLE,
    CallStatus.AWAITING_APPROVAL: CallStatus.UNAVAILABLE,
    CallStatus.AWAITING_INPUT: CallStatus.UNAVAILABLE,
    CallStatus.EXECUTING: CallStatus.INTERRUPTED,
    CallStatus.INTERRUPTED: CallStatus.INTERRUPTED,
    CallStatus.COMPLETED: CallStatus.COMPLETED,
    CallStatus.FAILED: CallStatus.FAILED,
    CallStatus.CANCELLED: CallStatus.CANCELLED,
}


def test_the_restore_tables_cover_every_state_and_follow_the_transition_tables():
    assert set(RESTORE_CALL) == set(CallStatus) and set(RESTORE_RUN) == set(RunState)
    for status, event in RESTORE_CALL.items():
        if event is not None:
            assert event in CALL_TRANSITIONS[status], (status, event)
    assert RESTORE_IDEMPOTENT in CALL_TRANSITIONS[CallStatus.EXECUTING]
    assert set(EXPECTED) == set(CallStatus)


@pytest.mark.parametrize("status", list(CallStatus))
def test_every_call_status_restores_by_the_table(status):
    conversation = with_call(status, TOOL_FOR.get(status, save_note))
    assert conversation.calls["c1"].status is status
    restored = reload(conversation)
    call = restored.calls["c1"]
    assert call.status is EXPECTED[status]
    assert call.tool is TOOLS[call.name]           # an Action can be made for it
    assert call.registration is None               # a registration is never restored
    assert restored.tool_call("c1") is not None
    answers = [m for m in tool_messages(restored) if m[0] == "c1"]
    assert len(answers) == (1 if call.done else 0)  # its one answer, never two
    # A second reload changes nothing more: the rules are a fixed point.
    again = reload(restored)
    assert again.calls["c1"].status is call.status
    assert tool_messages(again) == tool_messages(restored)


def test_a_finished_run_whose_answers_were_not_sent_sends_one_follow_up():
    conversation = with_call(CallStatus.COMPLETED)
    restored = reload(conversation)
    assert restored.run_state is RunState.AWAITING_TOOLS and restored.calls["c1"].sent is False
    assert isinstance(restored.next_step(), SendRequest)
    request = restored.start_run(list(TOOLS.values()))
    assert [m.role for m in request.input.messages] == ["user", "assistant", "tool"]
    assert restored.calls["c1"].sent is True
    # The page dies with the follow-up in flight: it is not sent again.
    after = reload(restored)
    assert after.run_state is RunState.IDLE and after.calls["c1"].sent is True
    assert isinstance(after.next_step(), Idle)
    assert after.interrupted == []                  # nothing of the follow-up's reply had arrived


def test_a_streaming_run_keeps_its_partial_text_marked_interrupted_and_the_next_turn_works():
    conversation = Conversation("t1")
    conversation.add_user_message("tell me")
    request = conversation.start_run([])
    conversation.receive(RunStartedEvent(thread_id="t1", run_id=request.input.run_id))
    conversation.receive(TextMessageStartEvent(message_id="a1", role="assistant"))
    conversation.receive(TextMessageContentEvent(message_id="a1", delta="Once upon"))
    restored = reload(conversation)
    assert restored.run_status == "idle" and restored.interrupted == ["a1"]
    assert restored.messages()[-1].content == "Once upon"
    restored.add_user_message("go on")
    assert restored.start_run([]).input.messages[-1].content == "go on"
    assert reload(restored).interrupted == ["a1"]      # the mark survives later reloads


def test_a_call_streaming_when_the_page_died_is_cancelled_with_a_message():
    restored = reload(with_call(CallStatus.STREAMING))
    (message,) = tool_messages(restored)
    assert message[0] == "c1" and "reloaded" in message[1] and message[2] == message[1]
    assert restored.run_status == "idle"


def test_an_idempotent_call_executing_when_the_page_died_runs_again_without_asking():
    conversation = with_call(CallStatus.EXECUTING, read_page)
    restored = reload(conversation)
    call = restored.calls["c1"]
    assert call.status is CallStatus.UNAVAILABLE and call.execution == 1
    restored.calls.serve("c1", read_page, machine_registration(read_page))
    assert call.status is CallStatus.EXECUTING and call.execution == 2
    assert isinstance(restored.next_step(), RunHandlers)


def test_an_interrupted_call_waits_then_retry_runs_it_without_asking_approval_again():
    conversation = with_call(CallStatus.EXECUTING, delete_all)
    restored = reload(conversation)
    assert restored.calls["c1"].status is CallStatus.INTERRUPTED
    assert isinstance(restored.next_step(), WaitForActions)   # the follow-up waits for the user
    restored.calls.retry("c1")
    restored.calls.serve("c1", delete_all, machine_registration(delete_all))
    assert restored.calls["c1"].status is CallStatus.EXECUTING
    with pytest.raises(LocalProtocolError, match="RETRY"):
        restored.calls.retry("c1")


def test_a_call_awaiting_approval_asks_again_when_served():
    restored = reload(with_call(CallStatus.AWAITING_APPROVAL, delete_all))
    restored.calls.serve("c1", delete_all, machine_registration(delete_all))
    assert restored.calls["c1"].status is CallStatus.AWAITING_APPROVAL


def test_restore_queues_the_changes_and_a_checkpoint():
    fresh = Conversation("t1")
    restored = reload(with_call(CallStatus.EXECUTING))
    kinds = [change.kind for change in restored.drain()]
    assert {"messages", "status", "action"} <= set(kinds)
    assert restored.checkpoint > fresh.checkpoint


def test_text_deltas_make_no_checkpoint_and_a_completed_message_does():
    conversation = Conversation("t1")
    conversation.add_user_message("hi")
    request = conversation.start_run([])
    conversation.receive(RunStartedEvent(thread_id="t1", run_id=request.input.run_id))
    conversation.drain()
    conversation.receive(TextMessageStartEvent(message_id="a1", role="assistant"))
    before = conversation.checkpoint
    for delta in "hello":
        conversation.receive(TextMessageContentEvent(message_id="a1", delta=delta))
    assert conversation.checkpoint == before and [c.kind for c in conversation.drain()] == ["messages"]
    conversation.receive(TextMessageEndEvent(message_id="a1"))
    assert conversation.checkpoint == before + 1


def test_the_snapshot_is_json_with_the_calls_and_the_messages_in_camel_case():
    conversation = with_call(CallStatus.COMPLETED)
    data = conversation.snapshot()
    assert json.loads(json.dumps(data)) == data
    assert data["run_state"] == "AWAITING_TOOLS"
    (call,) = data["calls"]
    assert call == {"id": "c1", "name": "save_note", "status": "completed", "tool": "save_note",
                    "idempotent": False, "execution": 1, "sent": False, "edited": None,
                    "result": {"content": "ok", "error": None}}
    assert data["messages"][-1]["toolCallId"] == "c1"


@pytest.mark.parametrize("data", [
    {"version": 99}, [], {"version": 1, "thread_id": "t1"},
    {"version": 1, "thread_id": "t1", "messages": [], "run_state": "DANCING"},
])
def test_a_snapshot_it_cannot_read_is_refused(data):
    with pytest.raises(LocalProtocolError, match="snapshot"):
        Conversation.from_snapshot(data)
