"""Publishing a thread's changes: what the machine queued, told to the listeners once it is applied.

The conversation machine queues a `Change` for everything it changes; `Publisher.publish()`
drains the queue after an input is fully applied and tells the thread's listeners
(`pyclient._base._listeners`), in one vocabulary (`ChangeKind`). A call's change is told with its
`Action` (client tool calls only), an interrupt's with its `Interrupt`. Watchers (the thread's persistence) are told after each
round of changes, and whenever the machine's checkpoint moved, so a store saves after every
transition that matters without riding the listeners' channel. A listener's own input (an
answer from inside a callback) is published by the round in progress, never re-entrantly.

```python
from pyclient._base._listeners import Listeners
from pyclient._conversation._machine import Conversation
from pyclient._driver._publisher import Publisher

machine, listeners = Conversation("t1"), Listeners()
publisher = Publisher(machine, listeners, action_for=lambda call: None)
listeners.add(lambda event: print(event.kind))
publisher.watch(lambda changes: print("checkpoint", machine.checkpoint))
machine.add_user_message("hi")
publisher.publish()          # messages, then: checkpoint 1
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._base._listeners import ChangeKind, Listeners
from .._conversation._machine import Conversation
from .._conversation._records import Call, Change, InterruptRecord

__all__ = ["Publisher"]


class Publisher:
    """Tells listeners and watchers what the machine changed; see the module docstring.

    Args:
        machine: the thread's conversation machine.
        listeners: the thread's listeners.
        action_for: the `Action` of a client tool call (what an `"action"` change carries).
        interrupt_for: the `Interrupt` of an interrupt (what an `"interrupt"` change carries).
    """

    def __init__(self, machine: Conversation, listeners: Listeners, action_for: Callable[[Call], Any],
                 interrupt_for: Callable[[InterruptRecord], Any] = lambda record: record) -> None:
        self._machine = machine
        self._listeners = listeners
        self._action_for = action_for
        self._interrupt_for = interrupt_for
        self._watchers: tuple[Callable[[list[Change]], None], ...] = ()
        self._checkpoint = machine.checkpoint
        self._publishing = False

    def watch(self, watcher: Callable[[list[Change]], None]) -> None:
        """Call `watcher(changes)` after each round of changes and whenever the checkpoint moved."""
        self._watchers += (watcher,)

    def publish(self) -> None:
        """Tell listeners and watchers what the machine changed (after the input is fully applied)."""
        if self._publishing:
            return  # a listener's own input: the loop below picks its changes up
        self._publishing = True
        machine = self._machine
        try:
            while True:
                changes = machine.drain()
                if self._watchers and (changes or machine.checkpoint != self._checkpoint):
                    self._checkpoint = machine.checkpoint
                    for watcher in self._watchers:
                        watcher(changes)
                if not changes:
                    return
                if not self._listeners:
                    continue
                for change in changes:
                    if change.kind == "action":
                        call = machine.calls[change.payload]
                        if call.tool is None:
                            continue  # not a client tool call (a server-side one)
                        self._listeners.send("action", self._action_for(call))
                    elif change.kind == "interrupt":
                        record = machine.interrupts.get(change.payload)
                        if record is not None:
                            self._listeners.send("interrupt", self._interrupt_for(record))
                    else:
                        self._listeners.send(change.kind, change.payload)
        finally:
            self._publishing = False

    def notify(self, kind: ChangeKind, payload: object = None) -> None:
        """Tell the listeners of a change the machine does not track (tools, mounted)."""
        self._listeners.send(kind, payload)
