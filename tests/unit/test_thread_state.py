"""Thread history fed recorded AG-UI event sequences (no transport, no asyncio)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    UserMessage,
)

from pyclient import LocalProtocolError, RemoteProtocolError, UnknownEvent
from pyclient._events import decode_event
from pyclient._messages import History
from pyclient._sse import SSEDecoder
from pyclient._state import (
    AWAITING_TOOLS,
    ERROR,
    FAIL,
    IDLE,
    NOTHING_PENDING,
    START,
    STOP,
    STREAMING,
    TOOLS_PENDING,
    RunState,
)

STREAMS = Path(__file__).parent / "streams"


def recorded(name: str) -> list:
    decoder = SSEDecoder()
    events = [decode_event(sse.data) for sse in decoder.feed((STREAMS / name).read_bytes())]
    decoder.close()
    return events


def fold(events, history: History | None = None) -> History:
    history = history or History([UserMessage(id="u1", content="hi")])
    history.begin_run()
    for event in events:
        history.apply(event)
    return history


def test_pydantic_ai_parallel_calls_with_early_end_and_interleaved_args():
    history = fold(recorded("pydantic_ai_parallel_interleaved.sse"))
    pending = history.unanswered_run_calls()
    assert [(c.function.name, json.loads(c.function.arguments)) for c in pending] == [
        ("change_background", {"background": "blue"}),
        ("save_note", {"key": "buy", "text": "milk"}),
    ]
    messages = history.messages()
    assert [m.role for m in messages] == ["user", "assistant"]
    assistant = messages[1]
    assert assistant.id == "9ce90167-c0de-4c88-8002-2501714a29c5"
    assert [c.id for c in assistant.tool_calls] == ["call_feb70b2fc67a45c4", "call_5bdc614497164f24"]
    # The server's pendingToolCallIds select the same calls.
    assert [c.id for c in history.unanswered_run_calls(["call_5bdc614497164f24"])] == ["call_5bdc614497164f24"]


def test_langgraph_frontend_tool_with_snapshots():
    events = recorded("langgraph_frontend_tool.sse")
    assert any(e.type == "RAW" for e in events)
    history = fold(events)
    # MESSAGES_SNAPSHOT replaced the history with the server's view, which has the call.
    assert [m.role for m in history.messages()] == ["user", "assistant"]
    [call] = history.unanswered_run_calls()
    assert call.function.name == "change_background"
    assert json.loads(call.function.arguments) == {"background": "blue"}
    assert "messages" in history.state  # ag-ui-langgraph's STATE_SNAPSHOT carries its graph state


def test_text_is_assembled_from_many_deltas():
    history = History()
    history.apply(TextMessageStartEvent(message_id="m", role="assistant"))
    for i in range(10_000):
        history.apply(TextMessageContentEvent(message_id="m", delta=str(i % 10)))
    text = history.messages()[-1].content
    assert len(text) == 10_000 and text.startswith("0123456789")
    history.apply(TextMessageContentEvent(message_id="m", delta="!"))
    assert history.messages()[-1].content.endswith("9!")


def test_content_for_a_message_never_started_creates_it():
    history = History()
    history.apply(TextMessageContentEvent(message_id="x", delta="orphan"))
    assert history.messages()[0].role == "assistant" and history.messages()[0].content == "orphan"


def test_text_message_chunks_continue_without_ids():
    history = History()
    history.apply(TextMessageChunkEvent(message_id="m1", delta="Hel"))
    history.apply(TextMessageChunkEvent(delta="lo"))
    history.apply(TextMessageChunkEvent(message_id="m2", delta="Second"))
    assert [(m.id, m.content) for m in history.messages()] == [("m1", "Hello"), ("m2", "Second")]


def test_tool_call_chunks_assemble_per_id():
    history = History()
    history.begin_run()
    history.apply(ToolCallChunkEvent(tool_call_id="a", tool_call_name="first", parent_message_id="m"))
    history.apply(ToolCallChunkEvent(tool_call_id="b", tool_call_name="second", parent_message_id="m"))
    history.apply(ToolCallChunkEvent(tool_call_id="a", delta='{"x": '))
    history.apply(ToolCallChunkEvent(tool_call_id="b", delta='{"y": 2}'))
    history.apply(ToolCallChunkEvent(tool_call_id="a", delta="1}"))
    history.apply(ToolCallChunkEvent(delta=""))  # no id: continues "a", adds nothing
    calls = {c.id: json.loads(c.function.arguments) for c in history.unanswered_run_calls()}
    assert calls == {"a": {"x": 1}, "b": {"y": 2}}
    assert [m.role for m in history.messages()] == ["assistant"]


def test_args_before_start_and_after_end_are_kept():
    history = History()
    history.begin_run()
    history.apply(ToolCallArgsEvent(tool_call_id="c", delta='{"a"'))
    history.apply(ToolCallStartEvent(tool_call_id="c", tool_call_name="t"))
    history.apply(ToolCallEndEvent(tool_call_id="c"))
    history.apply(ToolCallArgsEvent(tool_call_id="c", delta=": 1}"))
    assert history.tool_call("c").function.arguments == '{"a": 1}'


def test_tool_call_result_answers_the_call():
    history = History()
    history.begin_run()
    history.apply(ToolCallStartEvent(tool_call_id="c", tool_call_name="server_side", parent_message_id="m"))
    history.apply(ToolCallEndEvent(tool_call_id="c"))
    history.apply(ToolCallResultEvent(message_id="r", tool_call_id="c", content="42"))
    assert history.is_answered("c") and history.unanswered_run_calls() == []
    assert history.messages()[-1].role == "tool" and history.messages()[-1].content == "42"


def test_state_snapshot_and_delta():
    history = History()
    history.apply(StateSnapshotEvent(snapshot={"todos": ["a"], "count": 1}))
    history.apply(StateDeltaEvent(delta=[
        {"op": "add", "path": "/todos/-", "value": "b"},
        {"op": "replace", "path": "/count", "value": 2},
        {"op": "move", "from": "/count", "path": "/total"},
    ]))
    assert history.state == {"todos": ["a", "b"], "total": 2}


def test_state_delta_that_does_not_apply_is_a_remote_protocol_error():
    history = History(state={"a": 1})
    with pytest.raises(RemoteProtocolError, match="STATE_SNAPSHOT"):
        history.apply(StateDeltaEvent(delta=[{"op": "remove", "path": "/missing"}]))
    assert history.state == {"a": 1}


def test_messages_snapshot_replaces_history_and_keeps_streaming_calls():
    history = History([UserMessage(id="u1", content="old")])
    history.begin_run()
    history.apply(ToolCallStartEvent(tool_call_id="c", tool_call_name="t", parent_message_id="m"))
    history.apply(ToolCallArgsEvent(tool_call_id="c", delta='{"a":'))
    history.apply(MessagesSnapshotEvent(messages=[UserMessage(id="u2", content="server view")]))
    history.apply(ToolCallArgsEvent(tool_call_id="c", delta=" 1}"))
    assert [m.id for m in history.messages()] == ["u2"]
    [call] = history.unanswered_run_calls()  # the call is given a message back
    assert call.function.arguments == '{"a": 1}'
    assert history.messages()[-1].tool_calls[0].id == "c"


def test_snapshot_messages_keep_unknown_fields_and_accept_deltas():
    assistant = AssistantMessage.model_validate({"id": "a", "role": "assistant", "content": "Hi", "custom": 1})
    history = History()
    history.apply(MessagesSnapshotEvent(messages=[assistant]))
    history.apply(TextMessageContentEvent(message_id="a", delta=" there"))
    dumped = history.messages()[0].model_dump(by_alias=True)
    assert dumped["content"] == "Hi there" and dumped["custom"] == 1


def test_encrypted_value_is_echoed_on_the_tool_call():
    history = History()
    history.begin_run()
    history.apply(ToolCallStartEvent(tool_call_id="c", tool_call_name="t", parent_message_id="m"))
    history.apply(ReasoningEncryptedValueEvent(subtype="tool-call", entity_id="c", encrypted_value="opaque"))
    assert history.messages()[0].tool_calls[0].encrypted_value == "opaque"


def test_unknown_event_changes_nothing():
    history = History([UserMessage(id="u", content="x")])
    assert history.apply(UnknownEvent("NEW_THING", {"type": "NEW_THING"})) == set()
    assert len(history) == 1


def test_history_from_given_messages_round_trips():
    call = ToolCall(id="c", function=FunctionCall(name="t", arguments="{}"))
    messages = [UserMessage(id="u", content="x"), AssistantMessage(id="a", tool_calls=[call])]
    history = History(messages)
    assert history.messages() == messages
    assert not history.is_answered("c")


# -- the run state table ----------------------------------------------------------------


@pytest.mark.parametrize("steps", [
    pytest.param([(START, STREAMING, "running"), (TOOLS_PENDING, AWAITING_TOOLS, "running"),
                  (START, STREAMING, "running"), (NOTHING_PENDING, IDLE, "idle")], id="happy_path"),
    pytest.param([(START, STREAMING, "running"), (FAIL, ERROR, "error"),
                  (START, STREAMING, "running"), (STOP, IDLE, "idle")], id="error_and_retry"),
])
def test_state_table(steps):
    """Each step: the event handled, the state it leads to, and the public run status there."""
    state = RunState()
    assert state.run_status == "idle"
    for event, after, run_status in steps:
        assert state.handle(event) is after and state.run_status == run_status


def test_state_table_rejects_a_second_start():
    state = RunState()
    state.handle(START)
    with pytest.raises(LocalProtocolError, match="STREAMING"):
        state.handle(START)
    with pytest.raises(LocalProtocolError):
        RunState().handle(TOOLS_PENDING)
