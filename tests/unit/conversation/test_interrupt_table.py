"""AG-UI interrupts in the machine, driven directly (no I/O, no clock): the interrupt table pair
by pair, `pyclient._conversation._interrupt_table.Interrupts` (the legacy channel, expiry, the single answer and
its single sending), the answer's schema check (`pyclient._tools._json_schema.schema_errors`), and how
`Conversation` ends a run on interrupts, on a cancelled outcome, and on interrupts that expired.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
)

from pyclient import InterruptError, LocalProtocolError, client_tool
from pyclient._conversation._interrupt_table import (
    CANCELLED_SENTINEL,
    Interrupts,
    expiry,
)
from pyclient._conversation._lifecycle import (
    INTERRUPT_TRANSITIONS,
    InterruptEvent,
    InterruptStatus,
    RunState,
    next_interrupt_status,
)
from pyclient._conversation._machine import Conversation
from pyclient._conversation._records import Idle, SendRequest, WaitForActions
from pyclient._tools._json_schema import schema_errors
from pyclient._tools._results import ToolResult
from tests.helpers import call_events, machine_registration, within

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=timezone.utc)
COLOUR = {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}


def interrupts() -> tuple[Interrupts, list]:
    changes: list = []
    return Interrupts("t1", changes.append), changes


def outcome(*items: dict) -> dict:
    return {"type": "interrupt", "interrupts": list(items)}


# -- the table --------------------------------------------------------------------------------


@pytest.mark.parametrize("status", list(InterruptStatus))
@pytest.mark.parametrize("event", list(InterruptEvent))
def test_interrupt_table_every_pair(status, event):
    """Every (status, event) pair either moves where the table says or raises naming both."""
    if event in INTERRUPT_TRANSITIONS[status]:
        assert next_interrupt_status(status, event, interrupt="'i1'") is INTERRUPT_TRANSITIONS[status][event]
    else:
        with pytest.raises(LocalProtocolError) as raised:
            next_interrupt_status(status, event, interrupt="'i1'")
        message = str(raised.value)
        assert message.startswith(f"Cannot {str(event).lower()} interrupt 'i1': it is '{status.value}'")
        assert "answered once" in message and "thread.interrupts" in message   # why, and where to look


def test_interrupt_table_shape():
    assert set(INTERRUPT_TRANSITIONS) == set(InterruptStatus)
    # Open is the only status with a way out; each terminal status is one event away from it.
    assert {status for status, moves in INTERRUPT_TRANSITIONS.items() if moves} == {InterruptStatus.OPEN}
    assert INTERRUPT_TRANSITIONS[InterruptStatus.OPEN] == {
        InterruptEvent.RESOLVE: InterruptStatus.RESOLVED, InterruptEvent.CANCEL: InterruptStatus.CANCELLED,
        InterruptEvent.EXPIRE: InterruptStatus.EXPIRED}
    assert [status.value for status in InterruptStatus] == ["open", "resolved", "cancelled", "expired"]


def test_an_unnamed_interrupt_is_still_named_in_the_error():
    with pytest.raises(LocalProtocolError, match=r"Cannot resolve interrupt \(unnamed\): it is 'expired'"):
        next_interrupt_status(InterruptStatus.EXPIRED, InterruptEvent.RESOLVE)


# -- Interrupts: the 1.0 outcome ---------------------------------------------------------------


def test_an_outcome_opens_its_interrupts_with_every_field():
    table, changes = interrupts()
    [record] = table.finish_run("r1", outcome({
        "id": "i1", "reason": "tool_call", "message": "Approve?", "toolCallId": "c1", "responseSchema": COLOUR,
        "expiresAt": "2031-01-01T00:00:00Z", "metadata": {"k": 1}, "subagentRunId": "sub-1"}))
    assert (record.id, record.reason, record.message, record.tool_call_id) == ("i1", "tool_call", "Approve?", "c1")
    assert record.response_schema == COLOUR and record.expires_at == "2031-01-01T00:00:00Z"
    assert record.metadata == {"k": 1} and record.subagent_run_id == "sub-1" and record.run_id == "r1"
    assert record.status is InterruptStatus.OPEN and record.outcome and not record.legacy and not record.sent
    assert table.open() == [record] and [c.payload for c in changes] == ["i1"]


def test_an_outcome_item_without_an_id_is_left_out(caplog):
    table, _ = interrupts()
    raised = table.finish_run("r1", outcome({"reason": "tool_call"}, {"id": "", "reason": "x"}, {"id": "ok"}))
    assert [r.id for r in raised] == ["ok"] and list(table) == ["ok"]
    assert "an interrupt without an id" in caplog.text
    assert table["ok"].reason == "interrupt"   # a missing reason has a word


def test_an_outcome_that_is_not_an_interrupt_raises_nothing():
    table, _ = interrupts()
    assert table.finish_run("r1", {"type": "success"}) == [] and table.finish_run("r1", None) == []
    assert table.finish_run("r1", {"type": "interrupt", "interrupts": "nope"}) == [] and len(table) == 0


# -- Interrupts: LangGraph's legacy channel ------------------------------------------------------


def test_a_legacy_event_is_mapped_as_ag_ui_langgraph_maps_it():
    table, _ = interrupts()
    table.begin_run()
    value = {"message": "Which colour?", "responseSchema": COLOUR, "toolCallId": "c9",
             "expiresAt": "2031-01-01T00:00:00Z"}
    table.legacy_event(json.dumps(value), {"id": "lg-1", "value": value}, "r1")
    assert len(table) == 0                      # the run has not finished yet
    [record] = table.finish_run("r1", None)     # a bare RUN_FINISHED
    assert record.id == "lg-1" and record.legacy and not record.outcome
    assert record.reason == "langgraph:interrupt" and record.message == "Which colour?"
    assert record.response_schema == COLOUR and record.tool_call_id == "c9"
    assert record.expires_at == "2031-01-01T00:00:00Z"
    assert record.metadata == {"langgraph": {"raw": value}}


@pytest.mark.parametrize("value, message", [
    (json.dumps("Sure?"), "Sure?"),             # JSON text of a string: the message
    ("not JSON at all", "not JSON at all"),     # text that is not JSON: the message as it is
    (json.dumps({"question": "x"}), None),      # a dict without a message
    ("[" * 30_000 + "]" * 30_000,) * 2,         # nested past pyclient._base._json's limit: kept as text, not parsed
])
def test_a_legacy_value_that_is_text(value, message):
    table, _ = interrupts()
    table.legacy_event(value, {"id": "lg-1"}, "r1")
    [record] = table.finish_run("r1", None)
    assert record.message == message and record.reason == "langgraph:interrupt"


def test_legacy_events_without_an_id_are_one_interrupt_each():
    table, _ = interrupts()
    table.legacy_event('"a?"', None, "r1")
    table.legacy_event('"b?"', {"value": "b?"}, "r1")
    assert [r.id for r in table.finish_run("r1", None)] == ["r1:0", "r1:1"]


def test_legacy_and_outcome_for_one_id_are_one_interrupt_answered_in_resume_only():
    table, _ = interrupts()
    table.legacy_event(json.dumps({"message": "legacy words", "responseSchema": COLOUR}), {"id": "i1"}, "r1")
    raised = table.finish_run("r1", outcome({"id": "i1", "reason": "input_required", "message": "Which colour?"}))
    assert len(raised) == 1 and list(table) == ["i1"]
    [record] = raised
    assert record.legacy and record.outcome
    # The outcome's fields where it has them, the legacy event's for the rest.
    assert record.reason == "input_required" and record.message == "Which colour?" and record.response_schema == COLOUR
    table.resolve("i1", {"colour": "blue"}, now=NOW)
    assert table.resume_entries() == [{"interruptId": "i1", "status": "resolved", "payload": {"colour": "blue"}}]
    assert table.legacy_resume() == (False, None)   # never both channels


def test_legacy_resume_one_value_several_by_id_and_the_cancelled_sentinel():
    table, _ = interrupts()
    table.legacy_event('"a?"', {"id": "a"}, "r1")
    table.finish_run("r1", None)
    table.resolve("a", {"x": 1}, now=NOW)
    assert table.legacy_resume() == (True, {"x": 1}) and table.resume_entries() is None
    table.mark_sent()
    assert table.legacy_resume() == (False, None)

    table.begin_run()
    table.legacy_event('"b?"', {"id": "b"}, "r2")
    table.legacy_event('"c?"', {"id": "c"}, "r2")
    table.finish_run("r2", None)
    table.resolve("b", "yes", now=NOW)
    table.cancel("c", "not now")
    assert table.legacy_resume() == (True, {"b": "yes", "c": {CANCELLED_SENTINEL: True, "interrupt_id": "c"}})


def test_an_id_a_later_run_raises_again_is_a_new_interrupt():
    table, _ = interrupts()
    [first] = table.finish_run("r1", outcome({"id": "i1"}))
    table.resolve("i1", 1, now=NOW)
    table.mark_sent()
    [second] = table.finish_run("r2", outcome({"id": "i1", "message": "again"}))
    assert second is not first and second.status is InterruptStatus.OPEN and table["i1"] is second
    assert first.status is InterruptStatus.RESOLVED and first.sent


# -- Interrupts: one answer, sent once ----------------------------------------------------------


def test_resume_entries_are_sent_exactly_once():
    table, _ = interrupts()
    table.finish_run("r1", outcome({"id": "a"}, {"id": "b"}, {"id": "c"}))
    table.resolve("a", {"ok": True}, now=NOW)
    assert table.resume_entries() == [{"interruptId": "a", "status": "resolved", "payload": {"ok": True}}]
    table.resolve("b", None, now=NOW)            # resolved with no payload: no payload key
    table.cancel("c")
    assert table.resume_entries() == [{"interruptId": "a", "status": "resolved", "payload": {"ok": True}},
                                      {"interruptId": "b", "status": "resolved"},
                                      {"interruptId": "c", "status": "cancelled"}]
    table.mark_sent()
    assert table.resume_entries() is None and table.unsent() == [] and all(r.sent for r in table.values())
    table.mark_sent()                            # nothing new: still nothing to send
    assert table.resume_entries() is None


def test_an_answer_is_given_once():
    table, _ = interrupts()
    table.finish_run("r1", outcome({"id": "i1"}))
    table.resolve("i1", 1, now=NOW)
    with pytest.raises(LocalProtocolError, match="Cannot resolve interrupt 'i1': it is 'resolved'"):
        table.resolve("i1", 2, now=NOW)
    assert table.cancel("i1") is None            # cancelling an answered one changes nothing
    assert table["i1"].payload == 1 and table["i1"].status is InterruptStatus.RESOLVED
    with pytest.raises(LocalProtocolError, match=r"No interrupt has id 'nope' in thread 't1' \(open: none\)"):
        table.resolve("nope", 1, now=NOW)


def test_an_answer_that_does_not_fit_the_schema_changes_nothing():
    table, _ = interrupts()
    table.finish_run("r1", outcome({"id": "i1", "responseSchema": COLOUR}))
    with pytest.raises(InterruptError, match="does not fit its response schema") as raised:
        table.resolve("i1", {"colour": 3}, now=NOW)
    assert raised.value.errors == ["colour: must be a string, got an integer"]
    assert table["i1"].status is InterruptStatus.OPEN and table.unsent() == []
    table.resolve("i1", {"colour": "red"}, now=NOW)
    assert table["i1"].status is InterruptStatus.RESOLVED


def test_cancel_open_cancels_only_the_open_ones():
    table, _ = interrupts()
    table.finish_run("r1", outcome({"id": "a"}, {"id": "b"}))
    table.resolve("a", 1, now=NOW)
    assert [r.id for r in table.cancel_open("the user sent a new message instead")] == ["b"]
    assert table["b"].note == "the user sent a new message instead" and table["a"].status is InterruptStatus.RESOLVED


# -- Interrupts: expiry ----------------------------------------------------------------------------


def test_expire_due_expires_only_what_has_passed():
    table, _ = interrupts()
    table.finish_run("r1", outcome({"id": "past", "expiresAt": "2029-12-31T00:00:00Z"},
                                   {"id": "later", "expiresAt": "2030-01-02T00:00:00+00:00"},
                                   {"id": "never"}))
    assert table.next_expiry() == datetime(2029, 12, 31, tzinfo=timezone.utc)
    assert [r.id for r in table.expire_due(NOW)] == ["past"]
    assert table["past"].status is InterruptStatus.EXPIRED and table["past"].note == "expired at 2029-12-31T00:00:00Z"
    assert table.next_expiry() == datetime(2030, 1, 2, tzinfo=timezone.utc)
    assert table.expire_due(NOW) == []
    assert [r.id for r in table.expire_due(NOW + timedelta(days=2))] == ["later"]
    # An expired interrupt is never resumed.
    assert table.resume_entries() is None and table.unsent() == []


def test_resolving_after_expiry_raises_and_marks_it_expired():
    table, changes = interrupts()
    table.finish_run("r1", outcome({"id": "i1", "expiresAt": "2030-01-01T11:59:59Z", "responseSchema": COLOUR}))
    changes.clear()
    with pytest.raises(InterruptError, match="expired at 2030-01-01T11:59:59Z") as raised:
        table.resolve("i1", {"colour": "blue"}, now=NOW)
    assert raised.value.errors == [] and table["i1"].status is InterruptStatus.EXPIRED
    assert [c.payload for c in changes] == ["i1"]   # the page is told it expired
    assert table.resume_entries() is None
    with pytest.raises(LocalProtocolError, match="it is 'expired'"):
        table.resolve("i1", {"colour": "blue"}, now=NOW)


def test_an_unparseable_expiry_never_expires():
    table, _ = interrupts()
    table.finish_run("r1", outcome({"id": "i1", "expiresAt": "next tuesday"}))
    assert expiry("next tuesday") is None and table.next_expiry() is None
    assert table.expire_due(NOW + timedelta(days=10_000)) == []
    table.resolve("i1", "ok", now=NOW + timedelta(days=10_000))
    assert table.resume_entries() == [{"interruptId": "i1", "status": "resolved", "payload": "ok"}]


@pytest.mark.parametrize("text, moment", [
    ("2030-01-01T12:00:00Z", NOW),
    ("2030-01-01T12:00:00", NOW),                  # no zone: UTC
    ("2030-01-01T13:00:00+01:00", NOW),
    (None, None), ("", None), ("soon", None),
])
def test_expiry_reads_iso_8601(text, moment):
    assert expiry(text) == moment


# -- the answer's schema ------------------------------------------------------------------------------


@pytest.mark.parametrize("schema, value, errors", [
    (None, {"anything": 1}, []),
    (True, "x", []),
    ({"type": "boolean"}, True, []),
    ({"type": "boolean"}, 1, ["the answer: must be a boolean, got an integer"]),
    ({"type": "integer"}, True, ["the answer: must be an integer, got a boolean"]),   # bool is not an int in JSON
    ({"type": "integer"}, 2.0, []),
    ({"type": "integer"}, 2.5, ["the answer: must be an integer, got a number"]),
    ({"type": "number"}, 3, []),
    ({"type": ["string", "null"]}, None, []),
    ({"type": ["string", "null"]}, 4, ["the answer: must be a string or null, got an integer"]),
    ({"type": "object", "required": ["approved"]}, {}, ["approved: is required"]),
    ({"enum": ["red", "blue"]}, "green", ["the answer: must be one of 'red', 'blue'"]),
    ({"const": "yes"}, "no", ["the answer: must be 'yes'"]),
    ({"type": "object", "properties": {"user": {"type": "object", "properties": {"age": {"type": "integer",
                                                                                          "minimum": 0}}}}},
     {"user": {"age": -1}}, ["user.age: must be at least 0"]),
    ({"type": "object", "properties": {"user": {"type": "object", "required": ["name"]}}},
     {"user": {}}, ["user.name: is required"]),
    ({"type": "array", "items": {"type": "string"}, "maxItems": 2}, ["a", 1, "c"],
     ["the answer: must have at most 2 items", "[1]: must be a string, got an integer"]),
    ({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}},
     {"tags": ["a", None]}, ["tags[1]: must be a string, got null"]),
    ({"$defs": {"c": {"type": "string", "minLength": 2}}, "type": "object",
      "properties": {"colour": {"$ref": "#/$defs/c"}}}, {"colour": "r"}, ["colour: must have at least 2 characters"]),
    ({"definitions": {"n": {"type": "integer"}}, "$ref": "#/definitions/n"}, "x",
     ["the answer: must be an integer, got a string"]),
    ({"$ref": "https://example.com/schema.json"}, "anything", []),   # a remote reference: not checked
    ({"type": "object", "properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "b": 2},
     ["b: is not a field of this answer"]),
    ({"type": "object", "additionalProperties": {"type": "integer"}}, {"a": 1, "b": "x"},
     ["b: must be an integer, got a string"]),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 3, []),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, [3], ["the answer: matches none of the allowed shapes"]),
    ({"allOf": [{"type": "object", "required": ["a"]}, {"required": ["b"]}]}, {}, ["a: is required", "b: is required"]),
    ({"type": "number", "exclusiveMaximum": 10}, 10, ["the answer: must be less than 10"]),
    ({"type": "string", "format": "email"}, "not an email", []),   # keywords not checked never refuse
])
def test_schema_errors(schema, value, errors):
    assert schema_errors(schema, value) == errors


def test_the_approval_schema_of_pydantic_ai():
    schema = {"type": "object", "properties": {"approved": {"type": "boolean"}, "editedArgs": {"type": "object"},
                                               "reason": {"type": "string"}}, "required": ["approved"]}
    assert schema_errors(schema, {"approved": True, "editedArgs": {"user": "carol"}}) == []
    assert schema_errors(schema, {"approved": "yes", "editedArgs": [], "reason": 3}) == [
        "approved: must be a boolean, got a string", "editedArgs: must be an object, got an array",
        "reason: must be a string, got an integer"]
    assert schema_errors(schema, {"reason": "no"}) == ["approved: is required"]


def test_many_errors_are_capped():
    schema = {"type": "object", "additionalProperties": False}
    assert len(schema_errors(schema, {f"k{i}": i for i in range(100)})) == 20


SELF_REFERENCE = {"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}
"""A schema whose `$ref` doubles itself at every level: 2^32 checks under a depth cap of 32."""

DOUBLING = {"$defs": {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(40)},
            "$ref": "#/$defs/d0"}
"""The same doubling without any cycle: forty definitions, each two of the next."""


def test_a_schema_that_refers_to_itself_checks_each_value_once_against_each_ref():
    with within(10, "checking a value against a schema that refers to itself"):
        assert schema_errors(SELF_REFERENCE, {"x": 1}) == []
        required = {"$defs": {"a": {"type": "object", "required": ["x"], "allOf": [{"$ref": "#/$defs/a"}] * 2}},
                    "$ref": "#/$defs/a"}
        assert schema_errors(required, {}) == ["x: is required"]  # found once, not once per path to it
    # A recursive schema still checks every level of a recursive value.
    tree = {"$defs": {"n": {"type": "object", "properties": {"v": {"type": "integer"},
                                                             "kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}}}},
            "$ref": "#/$defs/n"}
    assert schema_errors(tree, {"v": 1, "kids": [{"v": 2, "kids": [{"v": "x"}]}]}) == [
        "kids[0].kids[0].v: must be an integer, got a string"]


def test_a_schema_whose_refs_multiply_is_refused_in_bounded_work_with_a_clear_error():
    table, _ = interrupts()
    table.finish_run("r1", outcome({"id": "i1", "responseSchema": DOUBLING}))
    with within(10, "resolving an interrupt whose schema doubles at every level"):
        with pytest.raises(InterruptError, match=r"Interrupt 'i1' cannot be answered here: checking the answer "
                                                 r"against this schema takes more than 20,000 steps") as raised:
            table.resolve("i1", {"anything": 1}, now=NOW)
    assert "Nothing was sent" in str(raised.value) and "cancel the interrupt" in str(raised.value)
    assert raised.value.errors and "20,000 steps" in raised.value.errors[0]
    assert table["i1"].status is InterruptStatus.OPEN and table.unsent() == []  # nothing changed
    table.cancel("i1")  # what the error says to do
    assert table["i1"].status is InterruptStatus.CANCELLED


# -- the conversation: how a run ends on interrupts --------------------------------------------------


@client_tool
def save_note(key: str) -> str:
    """Save a note."""
    return key






def run(conversation: Conversation, *events, outcome=None, tools=(save_note,)):
    """One request: start it, feed `events` and a RUN_FINISHED with `outcome`, end the stream."""
    request = conversation.start_run(list(tools))
    conversation.receive(RunStartedEvent(thread_id=conversation.thread_id, run_id=request.run_id))
    for event in events:
        conversation.receive(event)
    conversation.receive(RunFinishedEvent(thread_id=conversation.thread_id, run_id=request.run_id, outcome=outcome))
    conversation.end_stream("http://agent.test/agent")
    return request


def test_a_client_call_and_an_interrupt_resume_together_in_one_request():
    conversation = Conversation("t1")
    conversation.add_user_message("save and delete")
    run(conversation, *call_events("c1", "save_note", {"key": "milk"}),
        *call_events("s1", "delete_account", {"user": "bob"}),
        outcome=outcome({"id": "int-s1", "reason": "tool_call", "toolCallId": "s1",
                         "responseSchema": {"type": "object", "properties": {"approved": {"type": "boolean"}},
                                            "required": ["approved"]}}))
    assert conversation.run_state is RunState.AWAITING_TOOLS
    # The client's call is the page's to answer; the call the interrupt names is the server's.
    assert [call.id for call in conversation.pending()] == ["c1"]
    assert conversation.calls["s1"].status.value == "completed" and conversation.tool_result("s1") is None
    conversation.calls.serve("c1", save_note, machine_registration(save_note))
    conversation.next_step()                                             # RunHandlers
    assert conversation.calls.handler_returned("c1", 1, ToolResult.success("saved milk"))
    assert conversation.next_step() == WaitForActions()                  # the interrupt is still open
    conversation.interrupts.resolve("int-s1", {"approved": True}, now=NOW)
    assert conversation.next_step() == SendRequest()
    resume = json.loads(run(conversation).body)
    tools = [m for m in resume["messages"] if m["role"] == "tool"]
    assert [(m["toolCallId"], m["content"]) for m in tools] == [("c1", "saved milk")]
    assert resume["resume"] == [{"interruptId": "int-s1", "status": "resolved", "payload": {"approved": True}}]
    assert conversation.next_step() == Idle() and conversation.run_end.how == "finished"
    # Never a tool message for the interrupt's call, in the history either.
    assert [m.tool_call_id for m in conversation.messages() if m.role == "tool"] == ["c1"]
    # The next request carries neither again.
    conversation.add_user_message("thanks")
    body = json.loads(run(conversation).body)
    assert "resume" not in body or body["resume"] is None
    assert [m["toolCallId"] for m in body["messages"] if m["role"] == "tool"] == ["c1"]


def test_a_cancelled_outcome_ends_the_turn_and_its_calls_are_not_run():
    conversation = Conversation("t1")
    conversation.add_user_message("save")
    request = run(conversation, *call_events("c1", "save_note", {"key": "a"}), outcome={"type": "cancelled"})
    assert conversation.run_state is RunState.IDLE and conversation.next_step() == Idle()
    end = conversation.run_end
    assert (end.how, end.reason, end.run_id) == ("cancelled", "Cancelled by the agent", request.run_id)
    assert conversation.calls["c1"].status.value == "cancelled" and conversation.pending() == []
    [message] = [m for m in conversation.messages() if m.role == "tool"]
    assert (message.tool_call_id, message.content) == ("c1", "Not run: the agent cancelled the run.")
    assert message.error == "Not run: the agent cancelled the run."


def test_when_every_interrupt_expired_the_turn_ends_with_nothing_sent():
    conversation = Conversation("t1")
    conversation.add_user_message("ask me")
    run(conversation, outcome=outcome({"id": "a", "reason": "confirmation", "expiresAt": "2030-01-01T11:00:00Z"},
                                      {"id": "b", "reason": "confirmation", "expiresAt": "2030-01-01T11:30:00Z"}))
    assert conversation.run_state is RunState.AWAITING_TOOLS and conversation.next_step() == WaitForActions()
    assert conversation.waiting_for_person
    assert conversation.expire_due(NOW) == ["a", "b"]
    assert conversation.next_step() == Idle()
    assert conversation.run_status == "idle" and conversation.run_end.how == "finished"
    assert conversation.run_end.reason == "the interrupt expired before an answer"
    # Nothing was sent; the next turn carries no resume for them.
    conversation.add_user_message("hello")
    body = json.loads(run(conversation).body)
    assert "resume" not in body or body["resume"] is None


def test_one_expired_one_answered_resumes_only_the_answered_one():
    conversation = Conversation("t1")
    conversation.add_user_message("ask me")
    run(conversation, outcome=outcome({"id": "a", "reason": "confirmation", "expiresAt": "2030-01-01T11:00:00Z"},
                                      {"id": "b", "reason": "confirmation"}))
    conversation.expire_due(NOW)
    conversation.interrupts.resolve("b", "yes", now=NOW)
    assert conversation.next_step() == SendRequest()
    body = json.loads(run(conversation).body)
    assert body["resume"] == [{"interruptId": "b", "status": "resolved", "payload": "yes"}]


def test_a_legacy_and_a_1_0_interrupt_of_one_run_are_each_sent_once():
    # Found writing these tests: the 1.0 answer was marked sent but left out of the request
    # whenever a legacy-only interrupt was answered with it. Never both channels in one
    # request: all answers go in resume[] (ag-ui-langgraph reads a legacy one there by its id).
    from ag_ui.core import CustomEvent

    conversation = Conversation("t1")
    conversation.add_user_message("two dialects")
    run(conversation, CustomEvent(name="on_interrupt", value='"legacy?"', raw_event={"id": "lg"}),
        outcome=outcome({"id": "new", "reason": "confirmation"}))
    conversation.interrupts.resolve("lg", "a", now=NOW)
    conversation.interrupts.resolve("new", "b", now=NOW)
    body = json.loads(run(conversation).body)
    assert body["forwardedProps"] == {}
    assert body["resume"] == [{"interruptId": "lg", "status": "resolved", "payload": "a"},
                              {"interruptId": "new", "status": "resolved", "payload": "b"}]
    assert all(record.sent for record in conversation.interrupts.values())
