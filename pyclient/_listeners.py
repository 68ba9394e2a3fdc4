"""What a thread tells its listeners: `ThreadEvent(kind, payload)`, and the list that delivers them.

`thread.subscribe(callback)` receives one `ThreadEvent` per event and change, after the
change is fully applied (so a listener always reads a consistent thread):

| kind | payload | when |
| --- | --- | --- |
| `"event"` | the AG-UI event (`ag_ui.core` model or `UnknownEvent`) | every decoded event, after it is applied |
| `"messages"` | None | the history changed (new message, text delta, tool result) |
| `"state"` | the new shared state | `STATE_SNAPSHOT` / `STATE_DELTA` applied, or `thread.state` set |
| `"status"` | `"idle"`, `"running"`, `"error"` or `"closed"` | `run_status` changed |
| `"action"` | the `Action` | a call of a finished run appeared, changed status or was answered |
| `"tools"` | None | the available tools may have changed (a registration was added, mounted, unmounted or disposed) |
| `"error"` | the exception | `thread.error` was set |
| `"mounted"` | True or False | in the page: the thread's element was connected or disconnected |
| `"closed"` | None | `thread.close()` |

A listener that raises is logged and never breaks the run or the other listeners.

```python
from pyclient._listeners import Listeners, ThreadEvent

listeners = Listeners()
unsubscribe = listeners.add(lambda event: print(event.kind, event.payload))
listeners.notify(ThreadEvent("status", "running"))     # status running
unsubscribe()
listeners.notify(ThreadEvent("status", "idle"))        # (nobody listens)
assert not listeners
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

__all__ = ["EventKind", "Listener", "Listeners", "ThreadEvent"]

logger = logging.getLogger("pyclient")

EventKind = Literal["event", "messages", "state", "status", "action", "tools", "error", "mounted", "closed"]


@dataclass(frozen=True)
class ThreadEvent:
    """What a `thread.subscribe()` callback receives; see the table in this module's docstring.

    Attributes:
        kind: which change.
        payload: depends on `kind`: an AG-UI event (`AGUIEvent`), the state (JSON), a
            `RunStatus`, an `Action`, an exception, a bool or None; narrow it with
            `isinstance` or by `kind`.
    """

    kind: EventKind
    payload: object = None


Listener = Callable[[ThreadEvent], Any]


# One shared event per payload-less kind: a thread sends a "messages" change per text delta,
# and building a frozen dataclass costs about a microsecond in Pyodide.
_BARE: dict[str, ThreadEvent] = {kind: ThreadEvent(kind) for kind in get_args(EventKind)}


class Listeners:
    """The callbacks of one thread, called in subscription order."""

    def __init__(self) -> None:
        # A tuple, replaced on (un)subscribe: notify() iterates it without copying, and a
        # callback that unsubscribes during a notification does not disturb it.
        self._callbacks: tuple[Listener, ...] = ()

    def __bool__(self) -> bool:
        return bool(self._callbacks)

    def add(self, callback: Listener) -> Callable[[], None]:
        """Subscribe `callback`; returns the function that unsubscribes it."""
        self._callbacks += (callback,)

        def remove() -> None:
            callbacks = list(self._callbacks)
            if callback in callbacks:
                callbacks.remove(callback)
                self._callbacks = tuple(callbacks)

        return remove

    def notify(self, event: ThreadEvent) -> None:
        """Call every callback with `event` (those subscribed when it started)."""
        for callback in self._callbacks:
            try:
                callback(event)
            except Exception:  # a broken listener must not break the run
                logger.exception("pyclient: a thread listener raised on %s", event.kind)

    def send(self, kind: EventKind, payload: object = None) -> None:
        """`notify(ThreadEvent(kind, payload))`, with nothing built when nobody listens and one
        shared event for each kind without a payload."""
        if self._callbacks:
            self.notify(_BARE[kind] if payload is None else ThreadEvent(kind, payload))
