"""Older servers' `THINKING_*` events read as the `REASONING_*` events AG-UI 1.0 names them.

Before 1.0 a server streamed its reasoning as `THINKING_START`, `THINKING_TEXT_MESSAGE_START`,
`THINKING_TEXT_MESSAGE_CONTENT`, `THINKING_TEXT_MESSAGE_END` and `THINKING_END` (pydantic-ai
still does for a client below 0.1.11: `pydantic_ai/ui/ag_ui/_thinking_0_10.py`). ag-ui-protocol
1.0 has no models for them, so they decode as `UnknownEvent`; `LegacyThinking`, one per
response, turns each into its 1.0 event (`REASONING_START`, `REASONING_MESSAGE_START`, ...),
which the history folds like any other reasoning, and listeners see under the 1.0 name, as
the TypeScript client's compatibility layer does. The old events carry no ids: a span gets a
fresh one at `THINKING_START`, and its first message takes the span's id (as pydantic-ai does
for the 1.0 events); content without a start opens a message. An old event whose fields do not
fit (a `delta` that is not a string) stays an `UnknownEvent`.

```python
from pyclient._wire._events import decode_event
from pyclient._wire._thinking_names import LegacyThinking

legacy = LegacyThinking()
events = [legacy.translate(decode_event(data)) for data in (
    '{"type": "THINKING_START"}', '{"type": "THINKING_TEXT_MESSAGE_START"}',
    '{"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "Let me see"}',
    '{"type": "THINKING_TEXT_MESSAGE_END"}', '{"type": "THINKING_END"}')]
print([event.type.value for event in events])
# ['REASONING_START', 'REASONING_MESSAGE_START', 'REASONING_MESSAGE_CONTENT', 'REASONING_MESSAGE_END', 'REASONING_END']
assert events[2].delta == "Let me see" and events[2].message_id == events[0].message_id
```
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic_core import ValidationError

from .._base._ids import new_id
from ._events import AGUIEvent, UnknownEvent, event_adapter

__all__ = ["LEGACY_NAMES", "LegacyThinking"]

logger = logging.getLogger("pyclient")

LEGACY_NAMES = {
    "THINKING_START": "REASONING_START",
    "THINKING_END": "REASONING_END",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
}
"""Each pre-1.0 event type and the 1.0 type it is read as."""

# The fields every event may carry, kept from the old event as given.
_COMMON = ("timestamp", "rawEvent", "metadata", "subagentRunId")


class LegacyThinking:
    """Translates one response's `THINKING_*` events; see the module docstring."""

    def __init__(self) -> None:
        self._span: str | None = None      # the open span's id
        self._span_used = False            # a message took the span's id already
        self._message: str | None = None   # the open reasoning message's id

    def translate(self, event: AGUIEvent) -> AGUIEvent:
        """The 1.0 event for a `THINKING_*` one; any other event as it is."""
        if not isinstance(event, UnknownEvent) or event.type not in LEGACY_NAMES:
            return event
        raw = event.raw
        kind = event.type
        fields: dict[str, Any] = {key: raw[key] for key in _COMMON if key in raw}
        if kind == "THINKING_START":
            self._span, self._span_used = new_id(), False
            fields["messageId"] = self._span
        elif kind == "THINKING_END":
            fields["messageId"] = self._span or new_id()
            self._span = self._message = None
        elif kind == "THINKING_TEXT_MESSAGE_START":
            fields["messageId"] = self._message = self._new_message()
            fields["role"] = "reasoning"
        elif kind == "THINKING_TEXT_MESSAGE_CONTENT":
            if self._message is None:  # content without a start opens a message
                self._message = self._new_message()
            fields["messageId"] = self._message
            fields["delta"] = raw.get("delta")
        else:  # THINKING_TEXT_MESSAGE_END
            fields["messageId"] = self._message or self._new_message()
            self._message = None
        try:
            return event_adapter().validate_python({"type": LEGACY_NAMES[kind], **fields})
        except ValidationError as exc:
            logger.warning("pyclient: a %s event could not be read as %s, kept as UnknownEvent: %s",
                           kind, LEGACY_NAMES[kind], exc)
            return event

    def _new_message(self) -> str:
        if self._span is not None and not self._span_used:
            self._span_used = True
            return self._span
        return new_id()
