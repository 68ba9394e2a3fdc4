"""`thread.on_custom(name, callback)`: a page's callback for the agent's `CUSTOM` events of one name.

An AG-UI `CUSTOM` event carries a `name` and a `value` (any JSON) that only the page and its
agent give a meaning to: a progress figure, a "play a sound", a document to open. The callback
gets the event's `value` (`"*"` as the name takes every `CUSTOM` event, and the callback then
gets `(name, value)`), once the event is applied, in the run loop: keep it short. A callback
that raises is logged (`"pyclient: a thread listener raised on %s"`, the same words as any
listener's) and never breaks the run, the chat or the other callbacks. LangGraph's own
`on_interrupt` events are interrupts (`thread.interrupts`) and reach these callbacks too.

```python
from ag_ui.core import CustomEvent
from pyclient._base._custom import custom_listener

seen = []
listener = custom_listener("progress", seen.append)
listener(CustomEvent(name="progress", value={"done": 3, "of": 5}))
listener(CustomEvent(name="other", value=1))
print(seen)   # [{'done': 3, 'of': 5}]
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

__all__ = ["ANY_NAME", "custom_listener"]

logger = logging.getLogger("pyclient")

ANY_NAME = "*"
"""The name that takes every `CUSTOM` event (its callback gets `(name, value)`)."""


def custom_listener(name: str, callback: Callable[..., Any]) -> Callable[[Any], None]:
    """An event listener (`thread.subscribe_events`) that calls `callback(value)` for each
    `CUSTOM` event named `name` (`callback(name, value)` for every one when `name` is `"*"`).

    Raises:
        TypeError: `name` is not a string, or `callback` is not callable.
    """
    if not isinstance(name, str):
        raise TypeError(f"on_custom() takes the CUSTOM event's name as a string, not {type(name).__name__}.")
    if not callable(callback):
        raise TypeError(f"on_custom({name!r}, ...) needs a callable, not {type(callback).__name__}.")

    def on_event(event: Any) -> None:
        if event.type != "CUSTOM":  # EventType is a str enum: it equals its name (and an UnknownEvent's type)
            return
        event_name = getattr(event, "name", None)
        if event_name is None and hasattr(event, "raw"):  # a CUSTOM event that did not validate
            event_name = event.raw.get("name")
        if name != ANY_NAME and event_name != name:
            return
        value = getattr(event, "value", None) if not hasattr(event, "raw") else event.raw.get("value")
        try:
            if name == ANY_NAME:
                callback(event_name, value)
            else:
                callback(value)
        except Exception:  # a broken callback must not break the run
            logger.exception("pyclient: a thread listener raised on %s", f"CUSTOM {event_name!r}")

    return on_event
