"""The lifecycles of a thread as tables (h11 style): runs, tool calls, interrupts, subagents, saving.

Every state change is `transition(TABLE, state, event, refusal)` (through `next_run_state()`,
`next_call_status()`, ...); no other code assigns a state, and nothing here does I/O. A pair
missing from a table raises `LocalProtocolError` naming the state and the event: a misuse or a
bug, except for the subagent table, which the server drives (its refusals are logged and
ignored). A restore applies `RESTORE_RUN` / `RESTORE_CALL` through the same tables.

```python
from pyclient._conversation._lifecycle import RunEvent, RunState, next_run_state

state = next_run_state(next_run_state(RunState.IDLE, RunEvent.START), RunEvent.END)
assert next_run_state(state, RunEvent.FINISH_IDLE) is RunState.IDLE
```
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Literal, TypeVar

from .._base._errors import CLOSED_HINT, LocalProtocolError

__all__ = [
    "ASKING_USER", "CALL_TRANSITIONS", "INTERRUPT_TRANSITIONS", "RESTORE_CALL", "RESTORE_IDEMPOTENT",
    "RESTORE_RUN", "RUN_STATUS", "RUN_TRANSITIONS", "SAVE_TRANSITIONS", "SUBAGENT_TRANSITIONS",
    "TERMINAL", "WAITING_FOR_USER", "WRITING", "CallEvent", "CallStatus", "CallStatusName",
    "InterruptEvent", "InterruptStatus", "InterruptStatusName", "RunEvent", "RunState", "RunStatus",
    "SaveEvent", "SaveState", "SubagentEvent", "SubagentStatus", "SubagentStatusName",
    "next_call_status", "next_interrupt_status", "next_run_state", "next_save_state",
    "next_subagent_status", "transition",
]

S = TypeVar("S", bound=enum.Enum)
E = TypeVar("E", bound=enum.Enum)


def _closing(close: E, closed: S, table: dict[S, dict[E, S]]) -> dict[S, dict[E, S]]:
    """`table` with `close` leading to `closed` from every state: a thread closes whatever it does."""
    return {state: {**moves, close: closed} for state, moves in table.items()}


RunStatus = Literal["idle", "running", "error", "closed"]
"""`thread.run_status`."""

CallStatusName = Literal[
    "streaming", "unavailable", "awaiting_approval", "awaiting_input", "executing",
    "interrupted", "completed", "failed", "cancelled",
]
"""`action.status`: a `CallStatus` value."""

InterruptStatusName = Literal["open", "resolved", "cancelled", "expired"]
"""`interrupt.status`: an `InterruptStatus` value."""

SubagentStatusName = Literal["running", "finished", "suspended", "error", "interrupted"]
"""`subagent.status`: a `SubagentStatus` value."""


class RunState(enum.Enum):
    """Where a conversation is between its runs."""

    IDLE = "IDLE"                      # no request in flight, nothing pending
    STREAMING = "STREAMING"            # a request is in flight, events are arriving
    ENDED = "ENDED"                    # RUN_FINISHED or RUN_ERROR arrived; the stream is being closed
    AWAITING_TOOLS = "AWAITING_TOOLS"  # the run finished; its client tool calls (or interrupts) are being answered
    ERROR = "ERROR"                    # the last run failed; `thread.error` says why
    CLOSED = "CLOSED"                  # `thread.close()`: nothing runs again

    def __str__(self) -> str:
        return self.value


class RunEvent(enum.Enum):
    """What moves a conversation between run states."""

    START = "START"                    # a request (first run or follow-up) is sent
    END = "END"                        # the stream sent RUN_FINISHED or RUN_ERROR: read no more
    FINISH_PENDING = "FINISH_PENDING"  # the run finished; its client calls wait for answers
    FINISH_IDLE = "FINISH_IDLE"        # the run finished (or its interrupts expired); nothing to answer
    FAIL = "FAIL"                      # HTTP error, dropped stream, RUN_ERROR, follow-up cap, a crash
    STOP = "STOP"                      # `thread.stop()`
    CLOSE = "CLOSE"                    # `thread.close()`

    def __str__(self) -> str:
        return self.value


class CallStatus(str, enum.Enum):
    """The life of one tool call; the value is what `action.status` shows."""

    STREAMING = "streaming"                  # its arguments are arriving; the run has not finished
    UNAVAILABLE = "unavailable"              # no mounted registration serves the tool in the thread now
    AWAITING_APPROVAL = "awaiting_approval"  # the tool requires approval; the user has not answered
    AWAITING_INPUT = "awaiting_input"        # the page answers it (`action.submit()`), not a handler
    EXECUTING = "executing"                  # its handler runs
    INTERRUPTED = "interrupted"              # restored after the page died while it executed
    COMPLETED = "completed"                  # answered with a result (or handled by the server)
    FAILED = "failed"                        # answered with an error
    CANCELLED = "cancelled"                  # abandoned: stop(), a failed run, `action.cancel()`

    def __str__(self) -> str:
        return self.value


class CallEvent(enum.Enum):
    """What moves a tool call between statuses."""

    PENDING = "PENDING"                # the run finished and the call is an advertised client tool's
    REFUSE = "REFUSE"                  # the run finished and the tool was not advertised: never run
    SERVER_SIDE = "SERVER_SIDE"        # the run finished and the server did not leave it to the client
    SERVE_RUN = "SERVE_RUN"            # a registration serves it: run the handler
    SERVE_APPROVAL = "SERVE_APPROVAL"  # a registration serves it, but the user must approve first
    SERVE_INPUT = "SERVE_INPUT"        # a registration serves it; the page gives the answer
    APPROVE = "APPROVE"                # the user approved it
    LOSE = "LOSE"                      # its registration unmounted or was disposed
    INTERRUPT = "INTERRUPT"            # restored after a reload while it was executing
    RETRY = "RETRY"                    # `action.retry()` of an interrupted call
    SUCCEED = "SUCCEED"                # answered with a result
    FAIL = "FAIL"                      # answered with an error
    CANCEL = "CANCEL"                  # abandoned

    def __str__(self) -> str:
        return self.value


_ANSWER = {CallEvent.SUCCEED: CallStatus.COMPLETED, CallEvent.FAIL: CallStatus.FAILED,
           CallEvent.CANCEL: CallStatus.CANCELLED}

RUN_TRANSITIONS: dict[RunState, dict[RunEvent, RunState]] = _closing(RunEvent.CLOSE, RunState.CLOSED, {
    RunState.IDLE: {RunEvent.START: RunState.STREAMING, RunEvent.STOP: RunState.IDLE},
    RunState.ERROR: {RunEvent.START: RunState.STREAMING, RunEvent.STOP: RunState.IDLE},
    RunState.STREAMING: {RunEvent.END: RunState.ENDED, RunEvent.FAIL: RunState.ERROR, RunEvent.STOP: RunState.IDLE},
    RunState.ENDED: {RunEvent.FINISH_PENDING: RunState.AWAITING_TOOLS, RunEvent.FINISH_IDLE: RunState.IDLE,
                     RunEvent.FAIL: RunState.ERROR, RunEvent.STOP: RunState.IDLE},
    RunState.AWAITING_TOOLS: {RunEvent.START: RunState.STREAMING, RunEvent.FAIL: RunState.ERROR,
                              RunEvent.FINISH_IDLE: RunState.IDLE, RunEvent.STOP: RunState.IDLE},
    RunState.CLOSED: {RunEvent.STOP: RunState.CLOSED},
})

CALL_TRANSITIONS: dict[CallStatus, dict[CallEvent, CallStatus]] = {
    CallStatus.STREAMING: {CallEvent.PENDING: CallStatus.UNAVAILABLE, CallEvent.REFUSE: CallStatus.FAILED,
                           CallEvent.SERVER_SIDE: CallStatus.COMPLETED, **_ANSWER},
    CallStatus.UNAVAILABLE: {CallEvent.SERVE_RUN: CallStatus.EXECUTING,
                             CallEvent.SERVE_APPROVAL: CallStatus.AWAITING_APPROVAL,
                             CallEvent.SERVE_INPUT: CallStatus.AWAITING_INPUT,
                             CallEvent.INTERRUPT: CallStatus.INTERRUPTED, **_ANSWER},
    CallStatus.AWAITING_APPROVAL: {CallEvent.APPROVE: CallStatus.EXECUTING, CallEvent.LOSE: CallStatus.UNAVAILABLE,
                                   **_ANSWER},
    CallStatus.AWAITING_INPUT: {CallEvent.LOSE: CallStatus.UNAVAILABLE, **_ANSWER},
    CallStatus.EXECUTING: {CallEvent.LOSE: CallStatus.UNAVAILABLE, CallEvent.INTERRUPT: CallStatus.INTERRUPTED,
                           **_ANSWER},
    CallStatus.INTERRUPTED: {CallEvent.RETRY: CallStatus.UNAVAILABLE, **_ANSWER},
    CallStatus.COMPLETED: {},
    CallStatus.FAILED: {},
    CallStatus.CANCELLED: {},
}

TERMINAL = frozenset(status for status, moves in CALL_TRANSITIONS.items() if not moves)
"""The statuses a call never leaves: it has its one answer. A str enum: `"completed" in TERMINAL`."""

ASKING_USER = frozenset({CallStatus.AWAITING_APPROVAL, CallStatus.AWAITING_INPUT})
"""The statuses in which the page asks the person for an answer (approve, reject, fill in)."""

WAITING_FOR_USER = ASKING_USER | {CallStatus.INTERRUPTED, CallStatus.UNAVAILABLE}
"""The statuses in which nothing happens until the person at the page acts (answers, retries,
mounts the tool): a renderer's `ToolPart` carries the call's `Action` then."""

class InterruptStatus(str, enum.Enum):
    """The life of one AG-UI interrupt (a run paused for the person); the value is `interrupt.status`."""

    OPEN = "open"              # the run ended waiting for an answer; nobody has given it yet
    RESOLVED = "resolved"      # answered (`interrupt.resolve(payload)`): a resume entry "resolved"
    CANCELLED = "cancelled"    # abandoned (`interrupt.cancel()`, a new user message, stop): "cancelled"
    EXPIRED = "expired"        # its `expiresAt` passed while open: never resumed

    def __str__(self) -> str:
        return self.value


class InterruptEvent(enum.Enum):
    """What moves an interrupt between statuses."""

    RESOLVE = "RESOLVE"        # the page answered it (its payload validated)
    CANCEL = "CANCEL"          # the page, a new user message or `thread.stop()` abandoned it
    EXPIRE = "EXPIRE"          # its expiry passed before an answer

    def __str__(self) -> str:
        return self.value


INTERRUPT_TRANSITIONS: dict[InterruptStatus, dict[InterruptEvent, InterruptStatus]] = {
    InterruptStatus.OPEN: {InterruptEvent.RESOLVE: InterruptStatus.RESOLVED,
                           InterruptEvent.CANCEL: InterruptStatus.CANCELLED,
                           InterruptEvent.EXPIRE: InterruptStatus.EXPIRED},
    InterruptStatus.RESOLVED: {},
    InterruptStatus.CANCELLED: {},
    InterruptStatus.EXPIRED: {},
}
"""An interrupt is answered once: every status but `OPEN` is terminal. Whether its answer went
out (in the resume request) is `sent`, as for calls; a restore keeps every status as saved."""

class SubagentStatus(str, enum.Enum):
    """The life of one subagent invocation; the value is what `subagent.status` shows."""

    UNSEEN = "unseen"              # no SUBAGENT_* event named it yet (never a `subagent.status`)
    RUNNING = "running"            # started; its work is arriving
    FINISHED = "finished"          # SUBAGENT_FINISHED
    SUSPENDED = "suspended"        # SUBAGENT_FINISHED whose outcome says it waits for an interrupt's answer
    ERROR = "error"                # SUBAGENT_ERROR
    INTERRUPTED = "interrupted"    # still running when the turn ended, or when the page died

    def __str__(self) -> str:
        return self.value


class SubagentEvent(enum.Enum):
    """What moves a subagent invocation: its `SUBAGENT_*` events, and the thread's turn ending."""

    STARTED = "STARTED"                        # SUBAGENT_STARTED
    FINISHED = "FINISHED"                      # SUBAGENT_FINISHED
    FINISHED_SUSPENDED = "FINISHED_SUSPENDED"  # SUBAGENT_FINISHED with a "suspended" outcome
    ERROR = "ERROR"                            # SUBAGENT_ERROR
    TURN_ENDED = "TURN_ENDED"                  # the thread's turn ended (finished, stopped, failed)

    def __str__(self) -> str:
        return self.value


_SUBAGENT_ENDS = {SubagentEvent.FINISHED: SubagentStatus.FINISHED,
                  SubagentEvent.FINISHED_SUSPENDED: SubagentStatus.SUSPENDED,
                  SubagentEvent.ERROR: SubagentStatus.ERROR}

SUBAGENT_TRANSITIONS: dict[SubagentStatus, dict[SubagentEvent, SubagentStatus]] = {
    # An end for an invocation never announced is kept (its name unknown).
    SubagentStatus.UNSEEN: {SubagentEvent.STARTED: SubagentStatus.RUNNING, **_SUBAGENT_ENDS},
    SubagentStatus.RUNNING: {SubagentEvent.STARTED: SubagentStatus.RUNNING, **_SUBAGENT_ENDS,
                             SubagentEvent.TURN_ENDED: SubagentStatus.INTERRUPTED},
    SubagentStatus.INTERRUPTED: {SubagentEvent.STARTED: SubagentStatus.RUNNING, **_SUBAGENT_ENDS,
                                 SubagentEvent.TURN_ENDED: SubagentStatus.INTERRUPTED},
    # Ended: a later run may start it again (a suspended one continues); a second end is refused.
    SubagentStatus.SUSPENDED: {SubagentEvent.STARTED: SubagentStatus.RUNNING,
                               SubagentEvent.TURN_ENDED: SubagentStatus.SUSPENDED},
    SubagentStatus.FINISHED: {SubagentEvent.STARTED: SubagentStatus.RUNNING,
                              SubagentEvent.TURN_ENDED: SubagentStatus.FINISHED},
    SubagentStatus.ERROR: {SubagentEvent.STARTED: SubagentStatus.RUNNING,
                           SubagentEvent.TURN_ENDED: SubagentStatus.ERROR},
}
"""The server drives this table: `pyclient._conversation._subagents` reports a refused pair (a warning) and
ignores its event; the run goes on."""


def next_subagent_status(status: SubagentStatus, event: SubagentEvent, *, subagent: str = "") -> SubagentStatus:
    """The subagent status `event` leads to from `status` (`SUBAGENT_TRANSITIONS`).

    Raises:
        LocalProtocolError: the table has no such transition (an invocation ends once).
    """
    def refusal(status: SubagentStatus, event: SubagentEvent) -> str:
        return (f"Cannot handle SUBAGENT_{event} for subagent run {subagent or '(unnamed)'} in status "
                f"{status.value!r}: an invocation ends once, and starts again only with SUBAGENT_STARTED.")

    return transition(SUBAGENT_TRANSITIONS, status, event, refusal)


RESTORE_RUN: dict[RunState, RunEvent | None] = {
    RunState.IDLE: None,
    RunState.ERROR: RunEvent.STOP,           # the error object is gone; the history is kept, send() works
    RunState.STREAMING: RunEvent.STOP,       # the request died with the page: not resumed, its text is kept
    RunState.ENDED: RunEvent.STOP,           # the same: its calls were never worked out
    RunState.AWAITING_TOOLS: None,           # its calls are answered (again), then the follow-up goes out
    RunState.CLOSED: None,                   # never saved (a closed thread stops saving)
}
"""Restoring a conversation: the event applied to the saved run state (None: kept)."""

RESTORE_CALL: dict[CallStatus, CallEvent | None] = {
    CallStatus.STREAMING: CallEvent.CANCEL,          # its run is not resumed: told it was cancelled
    CallStatus.UNAVAILABLE: None,                    # still waits for a registration
    CallStatus.AWAITING_APPROVAL: CallEvent.LOSE,    # served again when its registration mounts: asked again
    CallStatus.AWAITING_INPUT: CallEvent.LOSE,       # served again: the page shows its card again
    CallStatus.EXECUTING: CallEvent.INTERRUPT,       # its handler died with the page: the user retries or cancels
    CallStatus.INTERRUPTED: None,
    CallStatus.COMPLETED: None,
    CallStatus.FAILED: None,
    CallStatus.CANCELLED: None,
}
"""Restoring a conversation: the event applied to each saved call status (None: kept).

An `"executing"` call of an idempotent tool (`client_tool(idempotent=True)`) gets
`RESTORE_IDEMPOTENT` instead: it runs again by itself."""

RESTORE_IDEMPOTENT = CallEvent.LOSE

RUN_STATUS: dict[RunState, RunStatus] = {
    RunState.IDLE: "idle", RunState.STREAMING: "running", RunState.ENDED: "running",
    RunState.AWAITING_TOOLS: "running",
    RunState.ERROR: "error", RunState.CLOSED: "closed",
}

_RUN_HINTS = {
    RunEvent.START: "a run is already in flight; wait for it, or call `thread.stop()` first.",
    RunEvent.END: "no request is in flight: events are fed between `start_run()` and `end_stream()` only.",
}


def transition(table: Mapping[S, Mapping[E, S]], state: S, event: E, refusal: Callable[[S, E], str]) -> S:
    """The state `event` leads to from `state` in `table`: the one move of every lifecycle here.

    Raises:
        LocalProtocolError: the table has no such pair; its message is `refusal(state, event)`.
    """
    after = table[state].get(event)
    if after is None:
        raise LocalProtocolError(refusal(state, event))
    return after


def _run_refusal(state: RunState, event: RunEvent) -> str:
    hint = CLOSED_HINT if state is RunState.CLOSED \
        else _RUN_HINTS.get(event, "this is a bug in pyclient; please report it.")
    return f"Cannot handle {event} in run state {state}: {hint}"


def next_run_state(state: RunState, event: RunEvent) -> RunState:
    """The run state `event` leads to from `state` (`RUN_TRANSITIONS`).

    Raises:
        LocalProtocolError: the table has no such transition.
    """
    return transition(RUN_TRANSITIONS, state, event, _run_refusal)


def next_call_status(status: CallStatus, event: CallEvent, *, call: str = "") -> CallStatus:
    """The call status `event` leads to from `status` (`CALL_TRANSITIONS`).

    Args:
        call: names the call in the error message (e.g. "'c1' (save_note)").

    Raises:
        LocalProtocolError: the table has no such transition.
    """
    def refusal(status: CallStatus, event: CallEvent) -> str:
        what = f"tool call {call} " if call else "a tool call "
        if status in TERMINAL:
            hint = "it already has its answer; each call is answered once."
        else:
            hint = f"only {', '.join(str(e) for e in CALL_TRANSITIONS[status])} can happen in that status."
        return f"Cannot handle {event} for {what}in status {status.value!r}: {hint}"

    return transition(CALL_TRANSITIONS, status, event, refusal)


def next_interrupt_status(status: InterruptStatus, event: InterruptEvent, *, interrupt: str = "") -> InterruptStatus:
    """The interrupt status `event` leads to from `status` (`INTERRUPT_TRANSITIONS`).

    Raises:
        LocalProtocolError: the table has no such transition (the interrupt has its answer).
    """
    def refusal(status: InterruptStatus, event: InterruptEvent) -> str:
        return (f"Cannot {str(event).lower()} interrupt {interrupt or '(unnamed)'}: it is {status.value!r}, "
                "and an interrupt is answered once. Read `thread.interrupts` for the open ones.")

    return transition(INTERRUPT_TRANSITIONS, status, event, refusal)


# -- saving a thread kept in a store (`pyclient._driver._persistence`) ------------------------------


class SaveState(enum.Enum):
    """Where a thread kept in a store is with its saved copy."""

    UNLOADED = "UNLOADED"      # the saved copy is not read yet (no event loop so far)
    LOADING = "LOADING"        # taking the lock and reading the saved copy; changes are not saved
    HELD = "HELD"              # this page holds the thread and everything is saved
    SAVING = "SAVING"          # a save is being written
    DIRTY = "DIRTY"            # a save is being written and the thread changed since: one more pass
    READ_ONLY = "READ_ONLY"    # another tab holds the thread: shown here, never saved from here
    DELETED = "DELETED"        # deleted from the store elsewhere (another tab, another process): never saved again
    CLOSED = "CLOSED"          # `thread.close()`: nothing is saved any more

    def __str__(self) -> str:
        return self.value


class SaveEvent(enum.Enum):
    """What moves a thread's saving between save states."""

    LOAD = "LOAD"              # restore() starts (at the first chance inside an event loop)
    HOLD = "HOLD"              # the lock is this page's and the saved copy is read
    SHARE = "SHARE"            # another tab holds the lock: read-only here
    CHANGE = "CHANGE"          # a transition that matters (a checkpoint of the machine)
    WRITE = "WRITE"            # a save pass takes the snapshot: every change so far is in it
    SAVED = "SAVED"            # a save pass ended (written, or failed and logged)
    GONE = "GONE"              # the store no longer holds the thread it held: deleted elsewhere
    CLOSE = "CLOSE"            # the thread closed

    def __str__(self) -> str:
        return self.value


SAVE_TRANSITIONS: dict[SaveState, dict[SaveEvent, SaveState]] = _closing(SaveEvent.CLOSE, SaveState.CLOSED, {
    SaveState.UNLOADED: {SaveEvent.LOAD: SaveState.LOADING, SaveEvent.CHANGE: SaveState.UNLOADED},
    # A change while loading is not saved: the load replaces it, and its own end saves.
    SaveState.LOADING: {SaveEvent.HOLD: SaveState.HELD, SaveEvent.SHARE: SaveState.READ_ONLY,
                        SaveEvent.CHANGE: SaveState.LOADING},
    SaveState.HELD: {SaveEvent.CHANGE: SaveState.SAVING, SaveEvent.GONE: SaveState.DELETED},
    SaveState.SAVING: {SaveEvent.CHANGE: SaveState.DIRTY, SaveEvent.WRITE: SaveState.SAVING,
                       SaveEvent.SAVED: SaveState.HELD, SaveEvent.GONE: SaveState.DELETED},
    SaveState.DIRTY: {SaveEvent.CHANGE: SaveState.DIRTY, SaveEvent.WRITE: SaveState.SAVING,
                      SaveEvent.SAVED: SaveState.SAVING, SaveEvent.GONE: SaveState.DELETED},
    SaveState.READ_ONLY: {SaveEvent.CHANGE: SaveState.READ_ONLY, SaveEvent.GONE: SaveState.DELETED},
    # Deleted elsewhere: a save in flight still ends (and what it wrote is deleted again); the
    # thread's changes are not saved, and another tab's delete heard twice changes nothing.
    SaveState.DELETED: {SaveEvent.CHANGE: SaveState.DELETED, SaveEvent.SAVED: SaveState.DELETED,
                        SaveEvent.GONE: SaveState.DELETED},
    # A save in flight when the thread closed still ends; a closed thread's changes are not saved.
    SaveState.CLOSED: {SaveEvent.CHANGE: SaveState.CLOSED, SaveEvent.SAVED: SaveState.CLOSED,
                       SaveEvent.HOLD: SaveState.CLOSED, SaveEvent.SHARE: SaveState.CLOSED},
})

WRITING = frozenset({SaveState.SAVING, SaveState.DIRTY})
"""The save states in which a save pass is being written."""


def _save_refusal(state: SaveState, event: SaveEvent) -> str:
    return f"Cannot handle {event} in save state {state}: this is a bug in pyclient; please report it."


def next_save_state(state: SaveState, event: SaveEvent) -> SaveState:
    """The save state `event` leads to from `state` (`SAVE_TRANSITIONS`).

    Raises:
        LocalProtocolError: the table has no such transition.
    """
    return transition(SAVE_TRANSITIONS, state, event, _save_refusal)
