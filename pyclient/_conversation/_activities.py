"""AG-UI activities: `ACTIVITY_SNAPSHOT` and `ACTIVITY_DELTA` folded into activity messages (sans-I/O).

An activity is progress or generative UI that is neither text nor a tool call (a search's
sources, a plan card). AG-UI keeps each as an `ActivityMessage` (`activityType`, `content`: a
JSON object) in its place in the history, sent back with the next run like any message.
`fold(current, event, problems)` returns the message an event makes of the current one: a
snapshot adds it, or replaces the content of the one with its id (unless `replace: false`); a
delta applies its JSON Patch to a copy, within the limits of `pyclient._base._json_patch`.
What does not fold never fails the run: the last good content stays, a warning is logged, and
`problems` (message id -> what went wrong) tells the UI until a later snapshot clears it. The
cases: docs/chat.md ("Activities and shared state").

```python
from ag_ui.core import ActivityDeltaEvent, ActivitySnapshotEvent
from pyclient._conversation._activities import fold

problems: dict[str, str] = {}
first = fold(None, ActivitySnapshotEvent(message_id="a1", activity_type="search", content={"done": 0}), problems)
second = fold(first, ActivityDeltaEvent(message_id="a1", activity_type="search",
                                        patch=[{"op": "replace", "path": "/done", "value": 2}]), problems)
print(second.role, second.content)                         # activity {'done': 2}
bad = fold(second, ActivityDeltaEvent(message_id="a1", activity_type="search",
                                      patch=[{"op": "remove", "path": "/nothing"}]), problems)
print(bad is None, problems["a1"][:36])                    # True the activity's update does not apply
```
"""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

from .._base._json_patch import (
    PatchError,
    PatchLimitError,
    check_document,
    patch_document,
)
from .._wire._events import event_type

if TYPE_CHECKING:
    from ag_ui.core import ActivityMessage, Message

__all__ = ["ACTIVITY_EVENTS", "fold"]

logger = logging.getLogger("pyclient")

ACTIVITY_EVENTS = frozenset({"ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA"})

_WHAT = {"user": "the user's own message", "tool": "a tool result"}


def fold(current: Message | None, event: Any, problems: MutableMapping[str, str]) -> ActivityMessage | None:
    """The activity message `event` makes of `current` (the history's message with the event's
    id, or None), or None when the history stays as it is. See the module docstring."""
    from ag_ui.core import ActivityMessage

    message_id = event.message_id
    extra: dict[str, Any] = {}
    if event.subagent_run_id is not None:
        extra["subagent_run_id"] = event.subagent_run_id
    if event.type == "ACTIVITY_SNAPSHOT":
        if current is not None and event.replace is False:
            return None  # "leave what is already there"
        if current is not None and current.role in ("user", "tool"):
            # Replacing the person's words (or a call's one answer) would erase what was said.
            _refuse(problems, event,
                    f"message {message_id} is {_WHAT[current.role]}, which an activity never replaces")
            return None
        try:
            check_document(event.content)
        except PatchLimitError as exc:
            _refuse(problems, event, f"its content is too large to keep: {exc}")
            return None
        problems.pop(message_id, None)
        return ActivityMessage(id=message_id, activity_type=event.activity_type, content=event.content, **extra)
    if not isinstance(current, ActivityMessage):
        what = "no activity of the history has this id" if current is None else f"message {message_id} is not an activity"
        _refuse(problems, event, what)
        return None
    try:
        content = patch_document(current.content, event.patch)  # a copy
    except PatchLimitError as exc:
        _refuse(problems, event, f"the patch is refused: {exc}")
        return None
    except PatchError as exc:
        _refuse(problems, event, f"the patch does not apply ({exc})")
        return None
    if not isinstance(content, dict):
        _refuse(problems, event, f"the patch made its content a {type(content).__name__}, not an object")
        return None
    problems.pop(message_id, None)
    return current.model_copy(update={"content": content, **extra})


def _refuse(problems: MutableMapping[str, str], event: Any, what: str) -> None:
    problem = problems[event.message_id] = f"the activity's update does not apply: {what}"
    logger.warning("pyclient: an %s for %s activity %s was not applied: %s", event_type(event), event.activity_type,
                   event.message_id, problem)
