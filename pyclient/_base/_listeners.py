"""What a thread tells its listeners: `ThreadEvent(kind, payload)`, and the list that delivers them.

`thread.subscribe(callback)` receives one `ThreadEvent` per event and change, after the
change is fully applied, so a listener always reads a consistent thread. The events that
arrive together (one chunk of the response) are applied and told one by one, then their
changes are told once: a long answer's thousands of text deltas in one chunk are one
`"messages"`. A listener that raises is logged and never breaks the run or the other
listeners. The kinds, their payloads and when each is told: docs/renderers.md ("Following a
thread").

```python
from pyclient._base._listeners import Listeners, ThreadEvent

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

__all__ = ["ChangeKind", "Listener", "Listeners", "ThreadEvent"]

logger = logging.getLogger("pyclient")

ChangeKind = Literal["event", "messages", "state", "status", "action", "interrupt", "tools", "error", "mounted",
                     "closed", "feedback"]
"""What changed: the one vocabulary of the machine's changes and of `ThreadEvent.kind` (the table above)."""


@dataclass(frozen=True)
class ThreadEvent:
    """What a `thread.subscribe()` callback receives; see the table in this module's docstring.

    Attributes:
        kind: which change.
        payload: depends on `kind`: an AG-UI event (`AGUIEvent`), the state (JSON), a
            `RunStatus`, an `Action`, an `Interrupt`, an exception, a bool or None; narrow it with
            `isinstance` or by `kind`.
    """

    kind: ChangeKind
    payload: object = None


Listener = Callable[[ThreadEvent], Any]


# One shared event per payload-less kind: a thread sends a "messages" change per chunk of text,
# and building a frozen dataclass costs about a microsecond in Pyodide.
_BARE: dict[str, ThreadEvent] = {kind: ThreadEvent(kind) for kind in get_args(ChangeKind)}


class Listeners:
    """The callbacks of one thread, called in subscription order."""

    def __init__(self) -> None:
        # Tuples, replaced on (un)subscribe: a notification iterates one without copying, and a
        # callback that unsubscribes during a notification does not disturb it.
        self._callbacks: tuple[Listener, ...] = ()                 # every kind but "event"
        self._event_callbacks: tuple[Callable[[Any], Any], ...] = ()  # each AG-UI event
        self.wants_events = False
        """True when a callback takes each AG-UI event (`subscribe_events`, or `subscribe` with events)."""

    def __bool__(self) -> bool:
        return bool(self._callbacks) or bool(self._event_callbacks)


    def add(self, callback: Listener, *, events: bool = True) -> Callable[[], None]:
        """Subscribe `callback` to every kind (all but `"event"` when `events` is False);
        returns the function that unsubscribes it."""
        on_event = None
        if events:
            def on_event(event: Any) -> None:
                callback(ThreadEvent("event", event))
        return self._add(callback, on_event)

    def add_events(self, callback: Callable[[Any], Any]) -> Callable[[], None]:
        """Subscribe `callback(event)` to each AG-UI event: the `"event"` kind without a
        `ThreadEvent` built per event. Returns the function that unsubscribes it."""
        return self._add(None, callback)

    def _add(self, callback: Listener | None, on_event: Callable[[Any], Any] | None) -> Callable[[], None]:
        if callback is not None:
            self._callbacks += (callback,)
        if on_event is not None:
            self._event_callbacks += (on_event,)
            self.wants_events = True

        def remove() -> None:
            self._callbacks = _without(self._callbacks, callback)
            self._event_callbacks = _without(self._event_callbacks, on_event)
            self.wants_events = bool(self._event_callbacks)

        return remove

    def notify(self, event: ThreadEvent) -> None:
        """Call every callback with `event` (those subscribed when it started)."""
        if event.kind == "event":
            self.event(event.payload)
            return
        for callback in self._callbacks:
            try:
                callback(event)
            except Exception:  # a broken listener must not break the run
                logger.exception("pyclient: a thread listener raised on %s", event.kind)

    def event(self, event: Any) -> None:
        """Deliver one AG-UI event (the `"event"` kind) to its callbacks."""
        for callback in self._event_callbacks:
            try:
                callback(event)
            except Exception:  # a broken listener must not break the run
                logger.exception("pyclient: a thread listener raised on event")

    def send(self, kind: ChangeKind, payload: object = None) -> None:
        """`notify(ThreadEvent(kind, payload))` for any kind but `"event"`, with nothing built
        when nobody listens and one shared event for each kind without a payload."""
        callbacks = self._callbacks
        if not callbacks:
            return
        event = _BARE[kind] if payload is None else ThreadEvent(kind, payload)
        for callback in callbacks:  # notify()'s loop, inlined: a text delta's "messages" comes here
            try:
                callback(event)
            except Exception:  # a broken listener must not break the run
                logger.exception("pyclient: a thread listener raised on %s", kind)


def _without(callbacks: tuple[Any, ...], callback: Any) -> tuple[Any, ...]:
    if callback is None or callback not in callbacks:
        return callbacks
    index = callbacks.index(callback)
    return callbacks[:index] + callbacks[index + 1:]
