"""The request body is what ag-ui's `RunAgentInput.model_dump_json(by_alias=True)` gives, byte for byte.

(And a store's snapshot holds the messages `model_dump(mode="json", by_alias=True)` gives.)

`Conversation.start_run` builds the body from each message's JSON, kept from the request that
first carried it (`History.dump_json`), so a request does not serialize the whole history
again. These tests compare that body with the model's own dump of the same input: for every
message kind and every field a request carries, for messages that change after a request
carried them, and (a property) for several generated runs in a row in one conversation.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from ag_ui.core import RunAgentInput, RunFinishedEvent, RunStartedEvent
from hypothesis import given, note
from hypothesis import strategies as st
from pydantic_core import PydanticSerializationError

from pyclient import client_tool
from pyclient._base._json import repair_all
from pyclient._conversation._machine import Conversation
from pyclient._conversation._records import (
    Call,
    InterruptRecord,
    RunHandlers,
    RunRequest,
    WaitForActions,
)
from pyclient._conversation._request_body import PROTOCOL_VERSION
from pyclient._tools._client_tool import ClientTool
from pyclient._tools._results import ToolResult
from pyclient._wire._events import decode_event, message_adapter
from tests.unit.conversation.agui_streams import JSON_VALUES, budget, events
from tests.unit.conversation.driving import REGISTRATION, decoded, received, settle


@client_tool(requires_approval=True)
def echo(text: str) -> str:
    """Echo the text."""
    return text


@client_tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


TOOLS = [echo, add]


def model_body(machine: Conversation, request: RunRequest, tools: list[ClientTool],
               resume: Any = None, forwarded_props: Any = None) -> bytes:
    """What the body was before: the whole input through ag-ui's model (lone surrogates replaced)."""
    run_input = RunAgentInput(
        thread_id=machine.thread_id, run_id=request.run_id, protocol_version=PROTOCOL_VERSION,
        messages=machine.messages(), tools=[tool.to_agui_tool() for tool in tools],
        state=machine.state if machine.state is not None else {}, context=machine.context,
        forwarded_props=forwarded_props if forwarded_props is not None else {}, resume=resume,
    )
    try:
        return run_input.model_dump_json(by_alias=True).encode()
    except PydanticSerializationError:
        repaired = RunAgentInput.model_validate(repair_all(run_input.model_dump(by_alias=True)))
        return repaired.model_dump_json(by_alias=True).encode()


def start(machine: Conversation, tools: list[ClientTool] = TOOLS) -> RunRequest:
    # What the request must carry for the interrupts: resume[], or LangGraph's command.
    legacy, value = machine.interrupts.legacy_resume()
    resume = None if legacy else machine.interrupts.resume_entries()
    forwarded = machine.forwarded_props
    if legacy:
        base = forwarded if isinstance(forwarded, dict) else {}
        forwarded = {**base, "command": {**(base.get("command") or {}), "resume": value}}
    request = machine.start_run(tools)
    assert request.body == model_body(machine, request, tools, resume, forwarded)
    # A store's snapshot takes the messages from the same JSON: what ag-ui's model_dump gives
    # (a lone surrogate in a key of the state is saved repaired: test_lone_surrogates_save).
    snapshot = machine.snapshot()
    assert snapshot["messages"] == [m.model_dump(mode="json", by_alias=True) for m in machine.messages()]
    return request


NOW = datetime.now(timezone.utc)


def finish(machine: Conversation, request: RunRequest, *events: dict[str, Any]) -> None:
    """Feed the run its events, end it, and serve its calls."""
    machine.receive(RunStartedEvent(thread_id=machine.thread_id, run_id=request.run_id))
    for event in events:
        machine.receive(decode_event(json.dumps(event)))
    machine.receive(RunFinishedEvent(thread_id=machine.thread_id, run_id=request.run_id))
    machine.end_stream()
    by_name = {tool.name: tool for tool in TOOLS}
    for call in machine.calls.unavailable():
        machine.calls.serve(call.id, by_name[call.name], REGISTRATION)  # type: ignore[arg-type]


EVERY_KIND: list[dict[str, Any]] = [
    {"id": "s1", "role": "system", "content": "Be brief.", "name": "rules"},
    {"id": "d1", "role": "developer", "content": "Use tools."},
    {"id": "u1", "role": "user", "content": [
        {"type": "text", "text": "look at this é€😀 \" \\ \n"},
        {"type": "image", "source": {"type": "data", "value": "aGk=", "mimeType": "image/png"}},
    ], "metadata": {"from": "test"}},
    {"id": "r1", "role": "reasoning", "content": "thinking", "encryptedValue": "opaque"},
    {"id": "a1", "role": "assistant", "content": None, "encryptedValue": "e1", "unknownField": [1, None],
     "toolCalls": [
         {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": '{"text": "x"}'},
          "encryptedValue": "ce"},
         {"id": "c2", "type": "function", "function": {"name": "add", "arguments": ""}},
     ]},
    {"id": "t1", "role": "tool", "toolCallId": "c1", "content": [
        {"type": "text", "text": "a chart"},
        {"type": "image", "source": {"type": "url", "value": "https://example.com/c.png"}, "metadata": {"k": 1}},
        {"type": "document", "source": {"type": "file", "value": "file-abc", "provider": "openai"}},
    ]},
    {"id": "t2", "role": "tool", "toolCallId": "c2", "content": "bad", "error": "bad"},
    {"id": "act", "role": "activity", "activityType": "plan", "content": {"steps": [1, None, "two"]}},
    {"id": "a2", "role": "assistant", "content": "done"},
]


@pytest.mark.parametrize("state, forwarded", [
    (None, None),
    ({"messages": [], "nested": {"a": [1, 2.5, None, True]}}, {"messages": []}),
    ([1, "two"], "props"),
])
def test_every_message_kind_and_every_field(state: Any, forwarded: Any) -> None:
    # {"messages": []} in the state and the props: the body is not found by searching for the key.
    machine = Conversation("t1", messages=EVERY_KIND, state=state, forwarded_props=forwarded,
                           context=[{"description": "page", "value": "the demo"}])
    request = start(machine)
    assert [m["id"] for m in json.loads(request.body)["messages"]] == [m["id"] for m in EVERY_KIND]
    finish(machine, request)
    machine.add_user_message("again")
    start(machine, [])  # no tools: the tools key is [] as before


def test_files_of_every_kind_the_client_adds_in_user_and_tool_messages() -> None:
    from pyclient import Attachment, Audio, Document, Image, Video

    files = [Image(b"\x89PNG\r\n\x1a\n.", filename="a.png"), Audio(b"ID3...", filename="b.mp3"),
             Video(url="https://example.com/v.mp4"), Document(b"%PDF-1.7", filename="c.pdf"),
             Attachment(b"col\n1\n", "text/csv", "d.csv")]
    machine = Conversation("t1")
    machine.add_user_message("look é😀", files)
    machine.add_user_message("", files[:1])  # files only: no empty text part
    request = start(machine)
    sent = json.loads(request.body)["messages"]
    assert [part["type"] for part in sent[0]["content"]] == ["text", "image", "audio", "video", "document", "document"]
    assert [part["type"] for part in sent[1]["content"]] == ["image"]
    finish(machine, request, {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "echo"},
           {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"text": "x"}'})
    [call] = machine.calls.values()
    from pyclient._conversation._lifecycle import CallEvent

    machine.calls.settle(call, CallEvent.SUCCEED, ToolResult.success("a caption", tuple(files[:2])))
    follow_up = start(machine)
    tool = json.loads(follow_up.body)["messages"][-1]
    assert [part["type"] for part in tool["content"]] == ["text", "image", "audio"]
    assert tool["content"][1]["source"]["value"] == files[0].base64


def test_messages_changed_after_a_request_are_serialised_again() -> None:
    machine = Conversation("t1", forwarded_props={"k": 1})
    machine.add_user_message("go")
    request = start(machine)
    finish(machine, request,
           {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
           {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"},
           {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "add", "parentMessageId": "m1"},
           {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"a": 1, "b": 2}'},
           {"type": "TOOL_CALL_END", "toolCallId": "c1"})
    step = machine.next_step()
    assert isinstance(step, RunHandlers)
    machine.calls.handler_returned("c1", step.calls[0].execution, ToolResult.success("3"))
    request = start(machine)  # m1, c1 and its answer are now kept as JSON
    finish(machine, request,
           # An earlier message gets more text, echoed values, a call's late arguments.
           {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "lo"},
           {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "m1", "encryptedValue": "v1"},
           {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "c1", "encryptedValue": "v2"},
           {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
           {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "second"})
    machine.add_user_message("more")
    request = start(machine)
    sent = json.loads(request.body)["messages"]
    assert sent[1]["content"] == "Hello" and sent[1]["encryptedValue"] == "v1"
    assert sent[1]["toolCalls"][0]["encryptedValue"] == "v2"
    tool_message_id = sent[2]["id"]
    finish(machine, request,
           # A message id sent again replaces that message in place.
           {"type": "TOOL_CALL_RESULT", "messageId": tool_message_id, "toolCallId": "c1", "content": "three"},
           {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "delta": " (chunk)"})
    machine.add_user_message("and more")
    request = start(machine)
    sent = json.loads(request.body)["messages"]
    assert sent[2] == {"id": tool_message_id, "role": "tool", "toolCallId": "c1", "content": "three"}
    assert sent[3]["content"] == "second (chunk)"
    finish(machine, request, {"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "u9", "role": "user", "content": "the server's history"},
        {"id": "m1", "role": "assistant", "content": "Hi"},
    ]})
    machine.add_user_message("after the snapshot")
    request = start(machine)
    assert [m["id"] for m in json.loads(request.body)["messages"]][:2] == ["u9", "m1"]
    # A later run calls a tool without naming a parent: the call joins the last assistant message,
    # which an earlier request carried.
    finish(machine, request, {"type": "TEXT_MESSAGE_START", "messageId": "m5", "role": "assistant"},
           {"type": "TEXT_MESSAGE_END", "messageId": "m5"})
    request = start(machine)
    finish(machine, request, {"type": "TOOL_CALL_START", "toolCallId": "c7", "toolCallName": "echo"},
           {"type": "TOOL_CALL_ARGS", "toolCallId": "c7", "delta": '{"text": "hi"}'})
    step = machine.next_step()
    assert isinstance(step, WaitForActions)
    machine.calls.approve("c7", '{"text":"edited"}')  # an edited approval: its tool message says so
    step = machine.next_step()
    assert isinstance(step, RunHandlers)
    machine.calls.handler_returned("c7", step.calls[0].execution, ToolResult.success("edited"))
    request = start(machine)
    sent = json.loads(request.body)["messages"]
    assert [c["id"] for c in sent[-2]["toolCalls"]] == ["c7"] and "edited" in sent[-1]["content"]


def test_each_message_is_serialised_once(monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = message_adapter()
    dumped: list[str] = []
    real = adapter.dump_json

    def spy(message: Any, **options: Any) -> bytes:
        dumped.append(message.id)
        return real(message, **options)

    monkeypatch.setattr(adapter, "dump_json", spy)
    machine = Conversation("t1")
    for i in range(20):
        machine.add_user_message(f"question {i}")
        request = start(machine)
        finish(machine, request, {"type": "TEXT_MESSAGE_START", "messageId": f"m{i}", "role": "assistant"},
               {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{i}", "delta": f"answer {i}"})
    assert len(json.loads(request.body)["messages"]) == 39
    assert len(dumped) == len(set(dumped)) == 39  # 20 questions, 19 answers: each once


# -- property: any runs, one after the other, in one conversation ------------------------------


def _encrypted_values(draw: st.DrawFn) -> list[dict[str, Any]]:
    # Echoed values for ids earlier runs used (the strategy numbers its ids from 1 in each run).
    return [{"type": "REASONING_ENCRYPTED_VALUE", "subtype": draw(st.sampled_from(["message", "tool-call"])),
             "entityId": draw(st.sampled_from(["m1", "m2", "r1", "c1", "c2", "u1"])), "encryptedValue": f"v{i}"}
            for i in range(draw(st.integers(0, 2)))]


@budget(ci=100)
@given(runs=st.lists(events(), min_size=1, max_size=3), data=st.data())
def test_the_body_is_the_models_dump_across_runs(runs: list[list[Any]], data: st.DataObject) -> None:
    machine = Conversation("THREAD", state=data.draw(JSON_VALUES), forwarded_props=data.draw(JSON_VALUES),
                           context=[{"description": "d", "value": "v"}] if data.draw(st.booleans()) else [])
    requests = 0

    def compared() -> RunRequest:
        nonlocal requests
        requests += 1
        return start(machine)  # asserts the body is the model's dump

    def answer(call: Call) -> None:
        result = data.draw(st.sampled_from([ToolResult.success("ok"), ToolResult.failure("no")]))
        machine.calls.handler_returned(call.id, call.execution, result)

    def approve(call: Call) -> None:
        machine.calls.approve(call.id, data.draw(st.sampled_from([None, '{"text":"edited"}'])))

    def resolve(record: InterruptRecord) -> None:
        if data.draw(st.booleans()):
            machine.interrupts.resolve(record.id, data.draw(JSON_VALUES), now=NOW)
        else:
            machine.interrupts.cancel(record.id)

    for number, event_list in enumerate(runs):
        machine.add_user_message(f"run {number}")
        compared()
        extra = [e for e in decoded(_encrypted_values(data.draw), data.draw) if e is not None]
        if received(machine, [*extra, *decoded(event_list, data.draw)]) and machine.busy:
            machine.end_stream()
        settle(machine, TOOLS, compared, run=answer, pending=approve, interrupt=resolve)
        if data.draw(st.booleans()):
            machine.state = data.draw(JSON_VALUES)
    note(f"{requests} requests compared")
