"""A history keeps what requests carried as JSON only (`pyclient._conversation._frozen`): models built on
demand must equal the ones it was serialized from, and requests must not change by a byte.

The reference is the same machine with a history that never freezes (`LiveHistory`: every
message stays an entry with its model, and every request serializes them all, as pyclient did
before). Both are driven by the same runs (text, reasoning, sequential/parallel/chunked calls,
server results, `MESSAGES_SNAPSHOT`s that replace the history, state, interrupts; encrypted
values echoed for ids of earlier runs, which thaw frozen messages), the same user messages
(some with a picture), the same tool results (some with files), the same approvals and
interrupt answers; with the same ids. Every request body, every read (`messages()`,
`message(id)`, `tool_call`, `arguments`, `tool_result`, `is_declared`, `is_answered`) and the
saved snapshot must be the same.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any
from unittest import mock

from hypothesis import given, note
from hypothesis import strategies as st
from pydantic_core import PydanticSerializationError

from pyclient import Image, ToolResult
from pyclient._conversation._history import History
from pyclient._conversation._machine import Conversation
from pyclient._conversation._records import Call, InterruptRecord
from pyclient._wire._events import message_adapter
from tests.unit.conversation.agui_streams import budget, events
from tests.unit.conversation.driving import decoded, received, settle
from tests.unit.conversation.test_request_body import NOW, TOOLS, _encrypted_values

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489") + b"\0" * 8


class LiveHistory(History):
    """The history as it was before: nothing frozen, every message serialized by every request."""

    def _freeze(self) -> None:
        pass

    def dump_json(self, before: bytes = b"", after: bytes = b"") -> bytes:
        dump = message_adapter().dump_json
        return b"".join((before, b"[", b",".join(dump(m, by_alias=True) for m in self.messages()), b"]", after))


def _ids() -> Any:
    counter = itertools.count()
    return lambda: f"id-{next(counter)}"


def _drive(live: bool, runs: list[list[Any]], seed: int) -> tuple[Conversation, list[bytes], list[Any]]:
    """One machine through `runs`, every choice from `seed`; its request bodies and reads after each run."""
    choose = random.Random(seed)
    new_id = _ids()
    with mock.patch("pyclient._conversation._machine.new_id", new_id), mock.patch("pyclient._conversation._history.new_id", new_id), \
            mock.patch("pyclient._conversation._call_table.new_id", new_id), \
            mock.patch("pyclient._conversation._machine.History", LiveHistory if live else History):
        machine = Conversation("THREAD")
        bodies: list[bytes] = []
        reads: list[Any] = []

        def start() -> Any:
            request = machine.start_run(TOOLS)
            bodies.append(request.body.replace(request.run_id.encode(), b"RUN"))
            return request

        def answer(call: Call) -> None:
            result = choose.choice([ToolResult.success("ok"), ToolResult.failure("no"),
                                    ToolResult.success("a picture", (Image(data=PNG, mime_type="image/png"),))])
            machine.calls.handler_returned(call.id, call.execution, result)

        def approve(call: Call) -> None:
            machine.calls.approve(call.id, choose.choice([None, '{"text":"edited"}']))

        def resolve(record: InterruptRecord) -> None:
            if choose.random() < 0.5:
                machine.interrupts.resolve(record.id, {"answer": number}, now=NOW)
            else:
                machine.interrupts.cancel(record.id)

        for number, (extra, event_list) in enumerate(runs):
            files = [Image(data=PNG, mime_type="image/png")] if choose.random() < 0.3 else []
            machine.add_user_message(f"run {number}", files)
            start()
            if received(machine, [*extra, *event_list]) and machine.busy:
                machine.end_stream()
            settle(machine, TOOLS, start, run=answer, pending=approve, interrupt=resolve)
            reads.append(_reads(machine))
        return machine, bodies, reads


def _decoded_one(event: dict[str, Any]) -> Any:
    from pyclient._wire._events import decode_event

    return decode_event(json.dumps(event))


def _reads(machine: Conversation) -> Any:
    history = machine.history
    messages = machine.messages()
    call_ids = {call.id for m in messages for call in getattr(m, "tool_calls", None) or ()} | set(machine.calls)
    call_ids |= {"c1", "c2", "nowhere"}
    return (
        messages,
        [history.message(m.id) for m in messages] + [history.message("not-there")],
        {i: (machine.tool_call(i), history.arguments(i), machine.tool_result(i), history.is_declared(i),
             history.is_answered(i)) for i in sorted(call_ids)},
        _or_error(lambda: json.dumps(machine.snapshot(), sort_keys=True)),
        _or_error(history.saved_json),
    )


def _or_error(read: Any) -> Any:
    try:
        return read()
    except (PydanticSerializationError, UnicodeEncodeError) as exc:  # a lone surrogate: both refuse it alike
        return type(exc).__name__


@budget(ci=80)
@given(runs=st.lists(events(), min_size=1, max_size=4), data=st.data())
def test_a_frozen_history_sends_and_reads_what_a_live_one_does(runs: list[list[Any]], data: st.DataObject) -> None:
    fed = [([e for e in decoded(_encrypted_values(data.draw), data.draw) if e is not None],
            decoded(run, data.draw)) for run in runs]
    seed = data.draw(st.integers(0, 2**32))
    frozen, frozen_bodies, frozen_reads = _drive(False, fed, seed)
    live, live_bodies, live_reads = _drive(True, fed, seed)
    assert frozen_bodies == live_bodies
    for got, expected in zip(frozen_reads, live_reads, strict=True):
        assert got[0] == expected[0]  # messages(): models equal to the originals
        assert got[1:] == expected[1:]
    assert len(frozen.history) == len(live.history)
    note(f"{len(frozen_bodies)} requests, {len(frozen.history)} messages, "
         f"{len(frozen.history) - sum(1 for _ in frozen.history.live_entries())} frozen")


def test_messages_a_request_carried_live_as_their_json_only():
    from pyclient._conversation._records import Idle

    machine = Conversation("t")
    for i in range(30):
        machine.add_user_message(f"question {i}")
        request = machine.start_run(TOOLS)
        for event in ({"type": "RUN_STARTED", "threadId": "t", "runId": request.run_id},
                      {"type": "TEXT_MESSAGE_START", "messageId": f"a{i}", "role": "assistant"},
                      {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"a{i}", "delta": f"answer {i}"},
                      {"type": "RUN_FINISHED", "threadId": "t", "runId": request.run_id}):
            machine.receive(_decoded_one(event))
        machine.end_stream()
        assert isinstance(machine.next_step(), Idle)
    machine.add_user_message("last")
    machine.start_run(TOOLS)
    history = machine.history
    # Every message a request carried is JSON only: no entry, no model is kept for it.
    assert list(history.live_entries()) == []
    assert history.json_size == len(json.dumps([m.model_dump(mode="json", by_alias=True, exclude_none=True)
                                                for m in machine.messages()], separators=(",", ":"),
                                               ensure_ascii=False)) - 2
    assert machine.messages()[3].content == "answer 1" and history.message("a29").content == "answer 29"


@budget(ci=60)
@given(operations=st.lists(st.tuples(st.sampled_from(["set", "discard"]), st.sampled_from("mca"),
                                     st.text(max_size=3), st.integers(0, 10**6)), max_size=300))
def test_the_id_index_answers_as_a_dict_does(operations: list[tuple[str, str, str, int]]) -> None:
    from pyclient._conversation._idindex import IdIndex

    index, expected = IdIndex(), {}
    for operation, tag, ident, position in operations:
        if operation == "set":
            index.set(tag, ident, position)
            expected[(tag, ident)] = position
        else:
            index.discard(tag, ident)
            expected.pop((tag, ident), None)
        assert index.get(tag, ident) == expected.get((tag, ident), -1)
    assert len(index) == len(expected)
    assert all(index.get(tag, ident) == position for (tag, ident), position in expected.items())


def test_a_call_gives_back_the_answer_it_was_given_whichever_form_it_keeps():
    # A plain success is kept as its text (`Call.result` builds the ToolResult on reading).
    from pyclient._conversation._records import Call

    call = Call("c1", "save_note")
    assert call.result is None
    for result in (ToolResult.success("saved"), ToolResult.success(""),
                   ToolResult.success("a picture", (Image(data=PNG, mime_type="image/png"),)),
                   ToolResult.failure("Tool 'save_note' failed: disk full")):
        call.result = result
        assert call.result == result and call.result.ok is result.ok
    call.result = None
    assert call.result is None
