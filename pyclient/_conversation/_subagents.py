"""The subagents of a thread: each invocation's name and status, from `SUBAGENT_*` events.

An AG-UI 1.0 agent that delegates announces each invocation with `SUBAGENT_STARTED` (its
`subagentRunId`, name, description and parent) and ends it with `SUBAGENT_FINISHED` (maybe
suspended on an interrupt) or `SUBAGENT_ERROR`. What the subagent produces carries its
`subagentRunId`, which the history keeps on each message (`message.subagent_run_id`).
`Subagents` keeps the invocations, listed as `thread.subagents`, and a saved thread keeps them
(`saved()` / `Subagents.from_saved`), so a group keeps its name and status after a reload.
Statuses follow `pyclient._conversation._lifecycle.SUBAGENT_TRANSITIONS`: `"running"`, then
`"finished"`, `"suspended"` or `"error"`; one still running when the turn ends (or when the
page died) is `"interrupted"`; an end never announced is kept with no name.

```python
from ag_ui.core import SubagentErrorEvent, SubagentFinishedEvent, SubagentStartedEvent
from pyclient._conversation._subagents import Subagents

subagents = Subagents()
subagents.apply(SubagentStartedEvent(subagent_run_id="s1", name="researcher"))
subagents.apply(SubagentStartedEvent(subagent_run_id="s2", name="writer"))
subagents.apply(SubagentFinishedEvent(subagent_run_id="s1", result={"found": 3}))
subagents.apply(SubagentErrorEvent(subagent_run_id="s2", message="no pen"))
print([(run.name, run.status, run.error) for run in subagents.runs()])
# [('researcher', 'finished', None), ('writer', 'error', 'no pen')]
assert Subagents.from_saved(subagents.saved()).get("s1").result == {"found": 3}
```
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, replace
from typing import Any, cast, get_args

from .._base._errors import LocalProtocolError
from ._lifecycle import (
    SubagentEvent,
    SubagentStatus,
    SubagentStatusName,
    next_subagent_status,
)

__all__ = ["SUBAGENT_EVENTS", "Subagent", "Subagents"]

logger = logging.getLogger("pyclient")

SUBAGENT_EVENTS = frozenset({"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"})


@dataclass(frozen=True)
class Subagent:
    """One subagent invocation of a thread.

    Attributes:
        subagent_run_id: the invocation's id: what its messages carry as `subagent_run_id`.
        name: the subagent's name (None for an invocation whose start was never seen).
        description: what it is for, as the agent described it.
        status: `"running"`, `"finished"`, `"suspended"` (waiting for an interrupt's answer),
            `"error"`, or `"interrupted"` (running when the page died; restored so).
        error: the message of its `SUBAGENT_ERROR`.
        error_code: the code of its `SUBAGENT_ERROR`.
        result: the `result` of its `SUBAGENT_FINISHED` (any JSON value).
        parent_subagent_run_id: the invocation that spawned it (nested delegation).
        parent_tool_call_id: the tool call that spawned it (agents exposed as tools).
        parent_message_id: the message that holds that call.
    """

    subagent_run_id: str
    name: str | None = None
    description: str | None = None
    status: SubagentStatusName = "running"
    error: str | None = None
    error_code: str | None = None
    result: Any = None
    parent_subagent_run_id: str | None = None
    parent_tool_call_id: str | None = None
    parent_message_id: str | None = None


def _what(event: Any) -> SubagentEvent:
    kind = event.type.value if hasattr(event.type, "value") else str(event.type)
    what = SubagentEvent(kind.removeprefix("SUBAGENT_"))
    if what is SubagentEvent.FINISHED and getattr(getattr(event, "outcome", None), "type", None) == "suspended":
        return SubagentEvent.FINISHED_SUSPENDED
    return what


def _status(run: Subagent | None) -> SubagentStatus:
    return SubagentStatus(run.status) if run is not None else SubagentStatus.UNSEEN


def _name(status: SubagentStatus) -> SubagentStatusName:
    return cast(SubagentStatusName, status.value)  # never UNSEEN: no move leads there


class Subagents:
    """The subagent invocations of one thread, by id, in the order they were first seen."""

    def __init__(self, runs: dict[str, Subagent] | None = None) -> None:
        self._runs: dict[str, Subagent] = runs or {}

    def __bool__(self) -> bool:
        return bool(self._runs)

    def get(self, subagent_run_id: str | None) -> Subagent | None:
        """The invocation with this id, or None."""
        return self._runs.get(subagent_run_id) if subagent_run_id is not None else None

    def runs(self) -> list[Subagent]:
        """Every invocation, in the order first seen."""
        return list(self._runs.values())

    def apply(self, event: Any) -> bool:
        """Fold one `SUBAGENT_*` event (an `ag_ui.core` model); True when something changed."""
        run_id = event.subagent_run_id
        previous = self._runs.get(run_id)
        what = _what(event)
        try:
            status = _name(next_subagent_status(_status(previous), what, subagent=repr(run_id)))
        except LocalProtocolError as exc:  # the server's mistake: reported, and the run goes on
            logger.warning("pyclient: %s The event was ignored.", exc)
            return False
        run = previous or Subagent(run_id)
        if what is SubagentEvent.STARTED:
            run = replace(run, name=event.name, description=event.description, status=status, error=None,
                          error_code=None, parent_subagent_run_id=event.parent_subagent_run_id,
                          parent_tool_call_id=event.parent_tool_call_id, parent_message_id=event.parent_message_id)
        elif what is SubagentEvent.ERROR:
            run = replace(run, status=status, error=event.message, error_code=event.code)
        else:
            run = replace(run, status=status, result=event.result)
        self._runs[run_id] = run
        return True

    def turn_ended(self) -> None:
        """The thread's turn ended: an invocation still running was cut (`"interrupted"`)."""
        for run_id, run in self._runs.items():
            status = _name(next_subagent_status(_status(run), SubagentEvent.TURN_ENDED, subagent=repr(run_id)))
            if status != run.status:
                self._runs[run_id] = replace(run, status=status)

    # -- saving --------------------------------------------------------------------------

    def saved(self) -> list[dict[str, Any]]:
        """The invocations as JSON data, for a saved thread."""
        return [asdict(run) for run in self._runs.values()]

    @classmethod
    def from_saved(cls, data: list[dict[str, Any]]) -> Subagents:
        """The invocations `saved()` wrote; one that was running is `"interrupted"` now (the
        page died while it worked). An entry that is not one (or whose status is none of
        `SubagentStatusName`) is skipped."""
        runs: dict[str, Subagent] = {}
        for item in data:
            try:
                run = Subagent(**item)
            except TypeError:
                run = None
            if run is None or run.status not in get_args(SubagentStatusName):  # the table knows no other
                logger.warning("pyclient: a saved subagent run is damaged and was skipped: %.200r", item)
                continue
            runs[run.subagent_run_id] = run
        restored = cls(runs)
        restored.turn_ended()  # the page died: one still running was cut, as at a turn's end
        return restored
