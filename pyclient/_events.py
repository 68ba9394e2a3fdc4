"""AG-UI event decoding: one SSE `data:` payload in, one `ag_ui.core` event model out.

Known event types become ag-ui-protocol's models (through `TypeAdapter(ag_ui.core.Event)`).
An event type this version of ag-ui-protocol does not know, or a known type whose fields do
not validate, becomes an `UnknownEvent` that keeps the raw object: listeners still see it
and a run never fails because a server is newer than the client. A payload that is not a
JSON object with a `type` is a `RemoteProtocolError` that quotes what was received, and so is
one nested deeper than 200 levels (its state could not be sent back). Unpaired surrogates
(`\\ud800` escapes, valid JSON but not UTF-8) become U+FFFD, so the history can always be sent.

```python
from pyclient._events import UnknownEvent, decode_event

event = decode_event('{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hi"}')
assert event.delta == "Hi"
other = decode_event('{"type": "SOMETHING_NEW", "x": 1}')
assert isinstance(other, UnknownEvent) and other.raw["x"] == 1
```
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Union

from ag_ui.core import BaseEvent, Event, EventType
from pydantic import TypeAdapter, ValidationError

from ._errors import RemoteProtocolError

__all__ = ["AGUIEvent", "UnknownEvent", "decode_event", "event_type", "sendable_text"]

logger = logging.getLogger("pyclient")

_EVENT_ADAPTER: TypeAdapter[BaseEvent] = TypeAdapter(Event)
_KNOWN_TYPES = frozenset(member.value for member in EventType)
_EXCERPT = 200


@dataclass(frozen=True)
class UnknownEvent:
    """An event pyclient could not map onto an ag-ui-protocol model; kept, never fatal.

    Attributes:
        type: the event's `type` string as received.
        raw: the whole decoded JSON object.
        error: None for a type ag-ui-protocol does not know; the validation error for a known
            type whose fields did not validate.
    """

    type: str
    raw: dict[str, Any] = field(repr=False)
    error: str | None = None


AGUIEvent = Union[BaseEvent, UnknownEvent]
"""What the decoder yields: an `ag_ui.core` event model or an `UnknownEvent`."""


def event_type(event: AGUIEvent) -> str:
    """The wire name of an event's type (`"RUN_FINISHED"`), for models and `UnknownEvent` alike."""
    kind = event.type
    return kind.value if isinstance(kind, EventType) else str(kind)


def _excerpt(text: str) -> str:
    return repr(text if len(text) <= _EXCERPT else text[:_EXCERPT] + "…")


# `\ud800`..`\udfff` escapes: JSON allows them unpaired, UTF-8 (and so the next request) cannot carry them.
_LONE_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _fix_text(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def sendable_text(text: str) -> str:
    """`text` with every unpaired surrogate replaced by U+FFFD, so it can go out as UTF-8 JSON.

    A tool result may carry one: a handler that returns its arguments, decoded from a model's
    `\\ud800` escape, or a JavaScript string (JS strings may hold unpaired surrogates).
    """
    return _fix_text(text) if _LONE_SURROGATE.search(text) else text


def _without_lone_surrogates(obj: Any) -> Any:
    """`obj` with every unpaired surrogate in its strings (keys too) replaced by U+FFFD.

    Iterative: the value may be nested as deep as `json.loads` allows.
    """
    root = [obj]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        parent, key = stack.pop()
        value = parent[key]
        if isinstance(value, str):
            parent[key] = _fix_text(value)
        elif isinstance(value, list):
            stack.extend((value, i) for i in range(len(value)))
        elif isinstance(value, dict):
            fixed = {_fix_text(k): v for k, v in value.items()}
            parent[key] = fixed
            stack.extend((fixed, k) for k in fixed)
    return root[0]


_MAX_DEPTH = 200
"""The deepest event accepted: its state goes back in the next request, whose encoder stops at 255."""


def _deeper_than(obj: Any, limit: int) -> bool:
    stack = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, (dict, list)))
    return False


def decode_event(data: str) -> AGUIEvent:
    """Decode one SSE `data:` payload into an AG-UI event.

    Args:
        data: the payload (the SSE event's `data`, lines already joined).

    Returns:
        The `ag_ui.core` event model, or an `UnknownEvent` for a type this client does not
        know or a known type whose fields do not validate.

    Raises:
        RemoteProtocolError: the payload is not a JSON object with a string `type`.
    """
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than Python's stack
        raise RemoteProtocolError(
            f"The server sent an SSE event whose data is not JSON: {_excerpt(data)} ({exc}). "
            "An AG-UI server sends one JSON event per `data:` line; check that the URL is an "
            "AG-UI endpoint and that nothing between (proxy, middleware) rewrites the stream."
        ) from None
    if data.count("[") + data.count("{") > _MAX_DEPTH and _deeper_than(obj, _MAX_DEPTH):
        raise RemoteProtocolError(
            f"The server sent an event nested deeper than {_MAX_DEPTH} levels: {_excerpt(data)}. "
            "pyclient could not send such a value back in the next request (JSON encoders stop "
            "at about 255 levels); the server should send flatter state."
        )
    if _LONE_SURROGATE_ESCAPE.search(data):
        obj = _without_lone_surrogates(obj)
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise RemoteProtocolError(
            f"The server sent an SSE event that is not an AG-UI event: {_excerpt(data)}. "
            "Every AG-UI event is a JSON object with a string `type`; check that the URL is "
            "an AG-UI endpoint."
        )
    kind = obj["type"]
    if kind not in _KNOWN_TYPES:
        logger.debug("pyclient: keeping an event of unknown type %s", kind)
        return UnknownEvent(kind, obj)
    try:
        return _EVENT_ADAPTER.validate_python(obj)
    except ValidationError as exc:
        # A known type with fields this version of ag-ui-protocol rejects: keep it for the
        # listeners instead of failing the run; the thread treats it as unknown.
        logger.warning("pyclient: a %s event did not validate, kept as UnknownEvent: %s", kind, exc)
        return UnknownEvent(kind, obj, error=str(exc))
