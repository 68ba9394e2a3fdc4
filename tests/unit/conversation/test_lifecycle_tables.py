"""The lifecycle tables of `pyclient._conversation._lifecycle` as one family: every table is driven through
the one `transition()` helper, and the subagent table (which the server drives) refuses a
missing pair like the others, while `Subagents` reports that refusal and ignores the event.
"""

from __future__ import annotations

import logging

import pytest
from ag_ui.core import SubagentFinishedEvent, SubagentStartedEvent

from pyclient import LocalProtocolError
from pyclient._conversation import _lifecycle
from pyclient._conversation._lifecycle import (
    CALL_TRANSITIONS,
    RUN_TRANSITIONS,
    SUBAGENT_TRANSITIONS,
    CallEvent,
    CallStatus,
    InterruptEvent,
    InterruptStatus,
    RunEvent,
    RunState,
    SaveEvent,
    SaveState,
    SubagentEvent,
    SubagentStatus,
    next_call_status,
    next_interrupt_status,
    next_run_state,
    next_save_state,
    next_subagent_status,
)
from pyclient._conversation._subagents import Subagent, Subagents


TABLES = {  # a table, its states and events, its step, what a refusal names, and the refusal (a pattern)
    "run": (RUN_TRANSITIONS, RunState, RunEvent, next_run_state, {}, "Cannot handle {event} in run state {state}"),
    "call": (CALL_TRANSITIONS, CallStatus, CallEvent, next_call_status, {"call": "'c1' (save_note)"},
             "Cannot handle {event} for .*in status '{state.value}'"),
    "subagent": (SUBAGENT_TRANSITIONS, SubagentStatus, SubagentEvent, next_subagent_status, {"subagent": "'s1'"},
                 "Cannot handle SUBAGENT_{event} for subagent run .* in status '{state.value}'"),
}


@pytest.mark.parametrize(("kind", "state", "event"), [
    pytest.param(kind, state, event, id=f"{kind}-{event}-{state}")
    for kind, (_, states, events, *_) in TABLES.items() for state in states for event in events])
def test_every_pair_of_each_table(kind, state, event):
    """Every (state, event) pair either moves where the table says or raises naming both."""
    table, _, _, step, names, refusal = TABLES[kind]
    if event in table[state]:
        assert step(state, event) is table[state][event]
    else:
        with pytest.raises(LocalProtocolError, match=refusal.format(event=event, state=state)):
            step(state, event, **names)


def test_subagent_statuses_are_the_strings_saved_threads_hold():
    assert [status.value for status in SubagentStatus if status is not SubagentStatus.UNSEEN] == [
        "running", "finished", "suspended", "error", "interrupted"]
    # No move leads back to "not seen yet": it is never a subagent's status.
    assert all(SubagentStatus.UNSEEN not in moves.values() for moves in SUBAGENT_TRANSITIONS.values())


def test_a_second_subagent_end_is_reported_and_ignored_and_the_first_kept(caplog):
    subagents = Subagents()
    assert subagents.apply(SubagentStartedEvent(subagent_run_id="s1", name="researcher"))
    assert subagents.apply(SubagentFinishedEvent(subagent_run_id="s1", result={"found": 3}))
    with caplog.at_level(logging.WARNING, logger="pyclient"):
        assert subagents.apply(SubagentFinishedEvent(subagent_run_id="s1", result={"found": 0})) is False
    run = subagents.get("s1")
    assert (run.status, run.result) == ("finished", {"found": 3})
    assert "Cannot handle SUBAGENT_FINISHED for subagent run 's1' in status 'finished'" in caplog.text
    assert "ignored" in caplog.text


def test_a_saved_subagent_with_an_unknown_status_is_skipped_as_damaged(caplog):
    with caplog.at_level(logging.WARNING, logger="pyclient"):
        restored = Subagents.from_saved([{"subagent_run_id": "s1", "status": "exploded"},
                                         {"subagent_run_id": "s2", "name": "writer", "status": "running"}])
    assert [(run.subagent_run_id, run.status) for run in restored.runs()] == [("s2", "interrupted")]
    assert "damaged" in caplog.text


def test_every_table_is_driven_through_the_one_transition_helper(monkeypatch):
    tables = {name: value for name, value in vars(_lifecycle).items() if name.endswith("_TRANSITIONS")}
    assert len(tables) == 5
    seen: list[object] = []
    helper = _lifecycle.transition

    def spy(table, state, event, refusal):
        seen.append(table)
        return helper(table, state, event, refusal)

    monkeypatch.setattr(_lifecycle, "transition", spy)
    next_run_state(RunState.IDLE, RunEvent.START)
    next_call_status(CallStatus.STREAMING, CallEvent.PENDING)
    next_interrupt_status(InterruptStatus.OPEN, InterruptEvent.RESOLVE)
    next_save_state(SaveState.UNLOADED, SaveEvent.LOAD)
    # Subagents moves its invocations through it too, from the server's events and at a turn's end.
    subagents = Subagents({"s0": Subagent("s0")})
    subagents.apply(SubagentStartedEvent(subagent_run_id="s1", name="researcher"))
    subagents.turn_ended()
    assert {id(table) for table in seen} == {id(table) for table in tables.values()}
    assert seen.count(SUBAGENT_TRANSITIONS) == 3
    # A refused pair is refused by the helper itself.
    with pytest.raises(LocalProtocolError, match="Cannot handle FINISH_PENDING in run state IDLE"):
        next_run_state(RunState.IDLE, RunEvent.FINISH_PENDING)
    assert seen[-1] is tables["RUN_TRANSITIONS"]
