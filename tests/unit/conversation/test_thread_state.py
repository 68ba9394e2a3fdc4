"""History and the conversation machine fed recorded AG-UI event sequences (no transport, no asyncio)."""

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
    ToolMessage,
    UserMessage,
)

from pyclient import RemoteProtocolError, UnknownEvent, client_tool
from pyclient._conversation._history import History
from pyclient._conversation._machine import Conversation
from pyclient._wire._events import decode_event
from pyclient._wire._sse import SSEDecoder

STREAMS = Path(__file__).parent / "streams"


def recorded(name: str) -> list:
    decoder = SSEDecoder()
    events = [decode_event(sse.data) for sse in decoder.feed((STREAMS / name).read_bytes())]
    decoder.close()
    return events


def tool(name: str):
    def handler() -> str:
        return name

    handler.__doc__ = f"The {name} tool."
    return client_tool(handler, name=name)


ADVERTISED = [tool("change_background"), tool("save_note"), tool("t"), tool("first"), tool("second")]


def converse(events, *, finish: dict | None = None, messages=({"id": "u1", "role": "user", "content": "hi"},)):
    """A conversation that sent one request and received `events` (plus RUN_FINISHED when `finish` is given)."""
    conversation = Conversation("t1", messages=messages)
    request = conversation.start_run(ADVERTISED)
    for event in events:
        conversation.receive(event)
    if finish is not None:
        conversation.receive(decode_event(json.dumps(
            {"type": "RUN_FINISHED", "threadId": "t1", "runId": request.input.run_id, **finish})))
        conversation.end_stream()
    return conversation


def pending(conversation):
    return [conversation.tool_call(call.id) for call in conversation.pending()]


def test_pydantic_ai_parallel_calls_with_early_end_and_interleaved_args():
    conversation = converse(recorded("pydantic_ai_parallel_interleaved.sse"))
    conversation.end_stream()
    assert [(c.function.name, json.loads(c.function.arguments)) for c in pending(conversation)] == [
        ("change_background", {"background": "blue"}),
        ("save_note", {"key": "buy", "text": "milk"}),
    ]
    messages = conversation.messages()
    assert [m.role for m in messages] == ["user", "assistant"]
    assistant = messages[1]
    assert assistant.id == "9ce90167-c0de-4c88-8002-2501714a29c5"
    assert [c.id for c in assistant.tool_calls] == ["call_feb70b2fc67a45c4", "call_5bdc614497164f24"]


def test_the_servers_pending_ids_select_the_calls_to_answer():
    events = [e for e in recorded("pydantic_ai_parallel_interleaved.sse") if e.type != "RUN_FINISHED"]
    conversation = converse(events, finish={"outcome": {"type": "success", "pendingToolCallIds": ["call_5bdc614497164f24"]}})
    assert [c.id for c in conversation.pending()] == ["call_5bdc614497164f24"]
    # The other call was left to the server: it is done, with no tool message from the client.
    assert conversation.calls["call_feb70b2fc67a45c4"].status.value == "completed"
    assert [m.role for m in conversation.messages()] == ["user", "assistant"]


def test_langgraph_frontend_tool_with_snapshots():
    events = recorded("langgraph_frontend_tool.sse")
    assert any(e.type == "RAW" for e in events)
    conversation = converse(events)
    conversation.end_stream()
    # MESSAGES_SNAPSHOT replaced the history with the server's view, which has the call.
    assert [m.role for m in conversation.messages()] == ["user", "assistant"]
    [call] = pending(conversation)
    assert call.function.name == "change_background"
    assert json.loads(call.function.arguments) == {"background": "blue"}
    assert "messages" in conversation.state  # ag-ui-langgraph's STATE_SNAPSHOT carries its graph state


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
    conversation = converse([
        ToolCallChunkEvent(tool_call_id="a", tool_call_name="first", parent_message_id="m"),
        ToolCallChunkEvent(tool_call_id="b", tool_call_name="second", parent_message_id="m"),
        ToolCallChunkEvent(tool_call_id="a", delta='{"x": '),
        ToolCallChunkEvent(tool_call_id="b", delta='{"y": 2}'),
        ToolCallChunkEvent(tool_call_id="a", delta="1}"),
        ToolCallChunkEvent(delta=""),  # no id: continues "a", adds nothing
    ], finish={}, messages=())
    calls = {c.id: json.loads(c.function.arguments) for c in pending(conversation)}
    assert calls == {"a": {"x": 1}, "b": {"y": 2}}
    assert [m.role for m in conversation.messages()] == ["assistant"]


def test_args_before_start_and_after_end_are_kept():
    history = History()
    history.apply(ToolCallArgsEvent(tool_call_id="c", delta='{"a"'))
    history.apply(ToolCallStartEvent(tool_call_id="c", tool_call_name="t"))
    history.apply(ToolCallEndEvent(tool_call_id="c"))
    history.apply(ToolCallArgsEvent(tool_call_id="c", delta=": 1}"))
    assert history.tool_call("c").function.arguments == '{"a": 1}'


def test_tool_call_result_answers_the_call():
    conversation = converse([
        ToolCallStartEvent(tool_call_id="c", tool_call_name="server_side", parent_message_id="m"),
        ToolCallEndEvent(tool_call_id="c"),
        ToolCallResultEvent(message_id="r", tool_call_id="c", content="42"),
    ], finish={})
    assert conversation.pending() == [] and conversation.run_status == "idle"
    assert conversation.calls["c"].status.value == "completed" and conversation.calls["c"].result.content == "42"
    assert conversation.messages()[-1].role == "tool" and conversation.messages()[-1].content == "42"


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


def test_a_call_the_messages_snapshot_dropped_is_never_answered():
    # The server's view replaces ours: a call it dropped is not declared by any message any
    # more, so an answer to it would be an orphan tool message (OpenAI-style providers answer 400).
    conversation = converse([
        ToolCallStartEvent(tool_call_id="c", tool_call_name="t", parent_message_id="m"),
        ToolCallArgsEvent(tool_call_id="c", delta='{"a":'),
        MessagesSnapshotEvent(messages=[UserMessage(id="u2", content="server view")]),
        ToolCallArgsEvent(tool_call_id="c", delta=" 1}"),
    ])
    assert [m.id for m in conversation.messages()] == ["u2"]
    conversation.receive(decode_event(json.dumps({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r"})))
    conversation.end_stream()
    assert pending(conversation) == [] and conversation.run_status == "idle"
    assert conversation.calls["c"].status.value == "completed"  # the server's, not the page's
    assert [m.id for m in conversation.messages()] == ["u2"]


def test_a_result_for_a_call_no_message_declares_is_not_kept():
    history = History()
    history.append(UserMessage(id="u1", content="hi"))
    changed = history.apply(decode_event(json.dumps({"type": "TOOL_CALL_RESULT", "messageId": "t1",
                                                     "toolCallId": "ghost", "content": "x"})))
    assert changed == set() and [m.id for m in history.messages()] == ["u1"]
    history.append(ToolMessage(id="t2", tool_call_id="ghost", content="y"))   # given, or in a snapshot
    assert [m.id for m in history.messages()] == ["u1"]


def test_snapshot_messages_keep_unknown_fields_and_accept_deltas():
    assistant = AssistantMessage.model_validate({"id": "a", "role": "assistant", "content": "Hi", "custom": 1})
    history = History()
    history.apply(MessagesSnapshotEvent(messages=[assistant]))
    history.apply(TextMessageContentEvent(message_id="a", delta=" there"))
    dumped = history.messages()[0].model_dump(by_alias=True)
    assert dumped["content"] == "Hi there" and dumped["custom"] == 1


def test_encrypted_value_is_echoed_on_the_tool_call():
    history = History()
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
