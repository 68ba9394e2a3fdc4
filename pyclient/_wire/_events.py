"""AG-UI event decoding: one SSE `data:` payload in, one `ag_ui.core` event model out.

Known event types become ag-ui-protocol's models (through `TypeAdapter(ag_ui.core.Event)`).
An event type this version of ag-ui-protocol does not know, or a known type whose fields do
not validate, becomes an `UnknownEvent` that keeps the raw object: listeners still see it
and a run never fails because a server is newer than the client. A payload that is not a
JSON object with a `type` is a `RemoteProtocolError` that quotes what was received, and so is
one nested deeper than 200 levels (its state could not be sent back). Unpaired surrogates
(`\\ud800` escapes, valid JSON but not UTF-8) become U+FFFD, so the history can always be sent.

```python
from pyclient._wire._events import UnknownEvent, decode_event

event = decode_event('{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hi"}')
assert event.delta == "Hi"
other = decode_event('{"type": "SOMETHING_NEW", "x": 1}')
assert isinstance(other, UnknownEvent) and other.raw["x"] == 1
```
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Union

from pydantic_core import ValidationError

from .._base._errors import RemoteProtocolError
from .._base._json import MAX_DEPTH, JSONLimitError, loads

if TYPE_CHECKING:
    from ag_ui.core import BaseEvent, Message
    from pydantic import TypeAdapter

__all__ = ["AGUIEvent", "UnknownEvent", "decode_event", "event_adapter", "event_type", "text_content_class"]

logger = logging.getLogger("pyclient")

_EVENT_ADAPTER: TypeAdapter[BaseEvent] | None = None
_KNOWN_TYPES: frozenset[str] = frozenset()
_TEXT_CONTENT: type[BaseEvent] | None = None
_EXCERPT = 200
# Shorter payloads cannot hold an integer over CPython's 4,300-digit limit (which `loads` reports).
_FAST_MAX_CHARS = 4_300


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


AGUIEvent = Union["BaseEvent", UnknownEvent]
"""What the decoder yields: an `ag_ui.core` event model or an `UnknownEvent`."""


_message_adapter: TypeAdapter[Message] | None = None


def message_adapter() -> TypeAdapter[Message]:
    """The `TypeAdapter` of ag-ui's `Message` union, built once: building one costs far more than using it."""
    global _message_adapter
    if _message_adapter is None:
        from ag_ui.core import Message
        from pydantic import TypeAdapter

        _message_adapter = TypeAdapter(Message)
    return _message_adapter


def event_adapter() -> TypeAdapter[BaseEvent]:
    """The `TypeAdapter` of ag-ui's `Event` union, built on first use.

    `import ag_ui.core` is most of what pyclient would cost a page at boot (it defines some
    120 pydantic models, every event and message type at once, and
    `ag_ui.core.types` alone cannot be had without `events`), so no module imports it at
    import time: it is imported here, when the first event is decoded or the thread's
    platform preloads it (`pyclient.Thread` asks for that once the page is idle).
    """
    global _EVENT_ADAPTER, _KNOWN_TYPES, _TEXT_CONTENT
    if _EVENT_ADAPTER is None:
        from ag_ui.core import Event, EventType, TextMessageContentEvent
        from pydantic import (  # pydantic.main and its schema machinery, on first use too
            ConfigDict,
            TypeAdapter,
        )

        _KNOWN_TYPES = frozenset(member.value for member in EventType)
        _TEXT_CONTENT = TextMessageContentEvent
        # Keys only: pydantic-core's cache of string values (16,384 of them, process-wide) kept
        # every id and argument an event brought until it filled, which looked like memory kept
        # per tool round trip; an id repeated by a long answer's deltas costs a new short string
        # instead, freed with its event (decoding is as fast either way).
        _EVENT_ADAPTER = TypeAdapter(Event, config=ConfigDict(cache_strings="keys"))
    return _EVENT_ADAPTER


def text_content_class() -> type[BaseEvent]:
    """ag-ui's `TextMessageContentEvent` (imported on first use, like `event_adapter`).

    Most of a long answer's events are of this class: the thread applies a run of them in
    one step, and tells them apart with `type(event) is text_content_class()`.
    """
    if _TEXT_CONTENT is None:
        event_adapter()
    assert _TEXT_CONTENT is not None
    return _TEXT_CONTENT


def event_type(event: AGUIEvent) -> str:
    """The wire name of an event's type (`"RUN_FINISHED"`), for models and `UnknownEvent` alike."""
    kind = event.type
    return kind.value if isinstance(kind, Enum) else str(kind)


def _excerpt(text: str) -> str:
    return repr(text if len(text) <= _EXCERPT else text[:_EXCERPT] + "…")


def decode_event(data: str) -> AGUIEvent:
    """Decode one SSE `data:` payload into an AG-UI event.

    Args:
        data: the payload (the SSE event's `data`, lines already joined).

    Returns:
        The `ag_ui.core` event model, or an `UnknownEvent` for a type this client does not
        know or a known type whose fields do not validate.

    Raises:
        RemoteProtocolError: the payload is not a JSON object with a string `type`, or it
            is nested deeper than `pyclient._base._json.MAX_DEPTH` or holds an integer of more
            than 4,300 digits (decoding it could exhaust the stack: in Pyodide, fatally).
    """
    adapter = _EVENT_ADAPTER or event_adapter()
    if len(data) < _FAST_MAX_CHARS and data.count("{") + data.count("[") <= MAX_DEPTH:
        # Within every limit by construction (too short for a 4,300-digit integer, too few
        # brackets to nest deeper than MAX_DEPTH): pydantic-core parses and validates in one
        # native pass, faster than json.loads + validate_python. Anything it refuses
        # (an unknown type, bad fields, a lone surrogate escape) takes the careful path below.
        try:
            return adapter.validator.validate_json(data)  # type: ignore[no-any-return]
        except ValidationError:
            pass
    try:
        obj = loads(data)
    except JSONLimitError as exc:
        raise RemoteProtocolError(
            f"The server sent an AG-UI event pyclient does not read ({len(data)} characters, "
            f"starting {_excerpt(data[:60])}): {exc} The run stops here; what arrived before it is "
            "kept. Fix the server (or the state or tool arguments it echoes) so its events stay "
            "within these limits; `await thread.run()` retries."
        ) from None
    except ValueError as exc:
        raise RemoteProtocolError(
            f"The server sent an SSE event whose data is not JSON: {_excerpt(data)} ({exc}). "
            "An AG-UI server sends one JSON event per `data:` line; check that the URL is an "
            "AG-UI endpoint and that nothing between (proxy, middleware) rewrites the stream."
        ) from None
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
        return adapter.validate_python(obj)
    except ValidationError as exc:
        # A known type with fields this version of ag-ui-protocol rejects: keep it for the
        # listeners instead of failing the run; the thread treats it as unknown.
        logger.warning("pyclient: a %s event did not validate, kept as UnknownEvent: %s", kind, exc)
        return UnknownEvent(kind, obj, error=str(exc))
