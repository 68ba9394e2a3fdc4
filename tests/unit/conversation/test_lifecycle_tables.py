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


@pytest.mark.parametrize("status", list(SubagentStatus))
@pytest.mark.parametrize("event", list(SubagentEvent))
def test_subagent_table_every_pair(status, event):
    """Every (status, event) pair either moves where the table says or raises naming both."""
    if event in SUBAGENT_TRANSITIONS[status]:
        assert next_subagent_status(status, event) is SUBAGENT_TRANSITIONS[status][event]
    else:
        with pytest.raises(LocalProtocolError,
                           match=f"Cannot handle SUBAGENT_{event} for subagent run .* in status '{status.value}'"):
            next_subagent_status(status, event, subagent="'s1'")


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
