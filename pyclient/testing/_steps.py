"""A scripted turn's steps (a text, a tool call, events given as they are, an activity), and the AG-UI events each becomes.

`Turn` (`pyclient.testing._script`) keeps a list of these steps as the script is written, and
its `Playback` (`pyclient.testing._playback`) writes them as events each time it answers: a
text as `TEXT_MESSAGE_*` events cut in `chunks`, a server call's result as its
`TOOL_CALL_RESULT`, an activity as the wire event given (content that ag-ui would refuse
included, so the page's handling of it is tested).

```python
from pyclient.testing._steps import text_events

print([event.type.value for event in text_events("m1", "Hello", chunks=2)])
# ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END']
```
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallResultEvent,
)

from .._base._json import loads
from .._tools._content import content_of, split_content
from ._response import Event
from ._resumes import Content

__all__ = [
    "ActivityStep", "CallStep", "EmittedStep", "TextStep", "call_arguments", "compact_arguments", "cut_text",
    "result_content", "result_event", "text_events",
]


@dataclass
class CallStep:
    name: str
    arguments: str
    chunks: int
    call_id: str | None         # None: a fresh id each time the turn answers
    result: Content | None = None   # set for a call the agent runs itself (server side)
    approval: bool = False      # a server call that waits for the person's approval (an interrupt)
    halfway: threading.Event | None = None   # the second half of its deltas waits until it is set


@dataclass
class TextStep:
    text: str
    chunks: int
    message_id: str | None      # None: a fresh id each time the turn answers
    halfway: threading.Event | None = None   # the second half of its deltas waits until it is set


@dataclass
class EmittedStep:
    events: tuple[Event, ...]


@dataclass
class ActivityStep:
    activity_type: str
    content: Any
    patch: list[Any] | None
    message_id: str | None      # None: a fresh id each response (a delta: the last of its type)
    replace: bool | None

    def event(self, ids: dict[str, str]) -> dict[str, Any]:
        """The wire event, as given (content or patch that ag-ui would refuse included)."""
        message_id = self.message_id or ids.get(self.activity_type) or f"act_{uuid.uuid4().hex[:12]}"
        ids[self.activity_type] = message_id
        event: dict[str, Any] = {"messageId": message_id, "activityType": self.activity_type}
        if self.patch is not None:
            return {"type": "ACTIVITY_DELTA", **event, "patch": self.patch}
        extra = {"replace": self.replace} if self.replace is not None else {}
        return {"type": "ACTIVITY_SNAPSHOT", **event, "content": self.content, **extra}


def call_arguments(arguments: Mapping[str, Any] | str | None, kwargs: Mapping[str, Any]) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps({**(arguments or {}), **kwargs}, ensure_ascii=False)


def compact_arguments(arguments: str) -> str:
    """Arguments as pydantic-ai writes them in an approval's message: compact JSON."""
    try:
        return json.dumps(loads(arguments), separators=(",", ":"), ensure_ascii=False)
    except ValueError:  # not JSON, or past the parser's limits (JSONLimitError): as given
        return arguments


def result_content(result: Any) -> Content:
    """A server call's `result` as a tool message's content: a str as it is, files as parts."""
    if isinstance(result, str):
        return result
    value, files = split_content(result)
    text = value if isinstance(value, str) else "" if value is None else json.dumps(value)
    return content_of(text, files)


def result_event(call_id: str, content: Content) -> ToolCallResultEvent:
    # Validated from the wire form: content parts given as their JSON become ag-ui's part models.
    return ToolCallResultEvent.model_validate({"messageId": f"msg_{uuid.uuid4().hex[:12]}", "toolCallId": call_id,
                                               "content": content, "role": "tool"})


def cut_text(text: str, pieces: int) -> list[str]:
    if pieces <= 1 or len(text) <= 1:
        return [text]
    size = -(-len(text) // pieces)
    return [text[i:i + size] for i in range(0, len(text), size)]


def text_events(message_id: str, text: str, chunks: int) -> list[Event]:
    return [
        TextMessageStartEvent(message_id=message_id, role="assistant"),
        *(TextMessageContentEvent(message_id=message_id, delta=piece) for piece in cut_text(text, chunks) if piece),
        TextMessageEndEvent(message_id=message_id),
    ]
