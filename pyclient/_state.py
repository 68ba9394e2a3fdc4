"""The run state of a thread and its transitions, as a table (h11 style).

Rules:

1. Every change of a thread's run state goes through `RunState.handle(event)` here; no other
   module assigns a state.
2. A transition missing from `_TRANSITIONS` is a bug or a misuse, never ignored: `handle`
   raises `LocalProtocolError` naming the state and the event.
3. No I/O and no asyncio here: the table is tested by driving it directly.
4. The public `run_status` is derived from the state: IDLE → "idle", STREAMING and
   AWAITING_TOOLS → "running", ERROR → "error".

```python
from pyclient._state import IDLE, START, NOTHING_PENDING, RunState

state = RunState()
state.handle(START)              # a request is in flight
state.handle(NOTHING_PENDING)    # RUN_FINISHED left no tool call to answer
assert state.state is IDLE and state.run_status == "idle"
```
"""

from __future__ import annotations

from ._errors import LocalProtocolError

__all__ = [
    "AWAITING_TOOLS",
    "ERROR",
    "FAIL",
    "IDLE",
    "NOTHING_PENDING",
    "RunState",
    "START",
    "STOP",
    "STREAMING",
    "TOOLS_PENDING",
]


class _Sentinel:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


# States.
IDLE = _Sentinel("IDLE")                      # no request in flight, nothing pending
STREAMING = _Sentinel("STREAMING")            # a request is in flight, events are arriving
AWAITING_TOOLS = _Sentinel("AWAITING_TOOLS")  # the run finished; its client tool calls are being answered
ERROR = _Sentinel("ERROR")                    # the last run failed; `thread.error` says why

# Events.
START = _Sentinel("START")                    # a request (first run or follow-up) is sent
TOOLS_PENDING = _Sentinel("TOOLS_PENDING")    # RUN_FINISHED left client tool calls to answer
NOTHING_PENDING = _Sentinel("NOTHING_PENDING")  # RUN_FINISHED left nothing to answer
FAIL = _Sentinel("FAIL")                      # HTTP error, dropped stream, RUN_ERROR, follow-up cap
STOP = _Sentinel("STOP")                      # thread.stop()

_TRANSITIONS: dict[_Sentinel, dict[_Sentinel, _Sentinel]] = {
    IDLE: {START: STREAMING, STOP: IDLE},
    ERROR: {START: STREAMING, STOP: IDLE},
    STREAMING: {TOOLS_PENDING: AWAITING_TOOLS, NOTHING_PENDING: IDLE, FAIL: ERROR, STOP: IDLE},
    AWAITING_TOOLS: {START: STREAMING, FAIL: ERROR, STOP: IDLE},
}

_STATUS = {IDLE: "idle", STREAMING: "running", AWAITING_TOOLS: "running", ERROR: "error"}


class RunState:
    """The run state machine of one thread."""

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state: _Sentinel = IDLE

    @property
    def run_status(self) -> str:
        """`"idle"`, `"running"` or `"error"`."""
        return _STATUS[self.state]

    @property
    def busy(self) -> bool:
        """True while a request is in flight or tool calls are being answered."""
        return self.state is STREAMING or self.state is AWAITING_TOOLS

    def handle(self, event: _Sentinel) -> _Sentinel:
        """Apply `event` and return the new state.

        Raises:
            LocalProtocolError: the event is not allowed in the current state.
        """
        try:
            self.state = _TRANSITIONS[self.state][event]
        except KeyError:
            raise LocalProtocolError(
                f"Cannot handle {event} in run state {self.state}: "
                + ("a run is already in flight; wait for it, or call `thread.stop()` first."
                   if event is START else "this is a bug in pyclient; please report it.")
            ) from None
        return self.state
