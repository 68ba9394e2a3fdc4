"""Server-sent events decoding: bytes in, `ServerSentEvent` objects out, no I/O.

Follows the event-stream interpretation rules of the HTML standard
(https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
UTF-8 decoded incrementally (a chunk may end inside a character), lines ended by `\\r\\n`,
`\\r` or `\\n` (a chunk may end between the `\\r` and the `\\n`), `:` comments, multi-line
`data:`, `event:`, `id:` and `retry:` fields, a blank line dispatching the event.

The cost is linear in the stream length: every character is scanned once, lines and
`data:` values are collected as lists of pieces and joined once.

```python
from pyclient._wire._sse import SSEDecoder

decoder = SSEDecoder()
events = decoder.feed(b'data: {"type": "RUN_STA')      # [] : the event is not complete yet
events += decoder.feed(b'RTED"}\\r\\n\\r\\n: keep-alive\\n\\n')
assert [e.data for e in events] == ['{"type": "RUN_STARTED"}']
assert decoder.close() == []
```
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["SSEDecoder", "ServerSentEvent"]

# One line terminator; finditer scans each decoded chunk exactly once.
_LINE_END = re.compile(r"\r\n|\r|\n")


# Not frozen: a frozen dataclass's __init__ sets each field through object.__setattr__, a cost
# on the one object made per event (bench/README.md has the figure).
@dataclass(slots=True)
class ServerSentEvent:
    """One dispatched event.

    Attributes:
        data: the `data:` lines joined with `\\n`.
        event: the `event:` field, `"message"` when the event had none.
        id: the last event ID seen so far in the stream (it persists across events), or None.
    """

    data: str
    event: str = "message"
    id: str | None = None


class SSEDecoder:
    """Turns the bytes of a `text/event-stream` body into `ServerSentEvent` objects.

    Sans-I/O: call `feed(chunk)` with whatever bytes arrived, in order, and `close()` once at
    the end of the body. Chunk boundaries may fall anywhere, even inside a UTF-8 character.
    """

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._line: list[str] = []        # pieces of the line not terminated yet
        self._data: list[str] = []        # `data:` values of the event being built
        self._event = ""
        self._last_id: str | None = None
        self._skip_lf = False             # the previous chunk ended with "\r"
        self._started = False             # the BOM check is done
        self._closed = False
        self._wrap = True                 # events out as ServerSentEvent (feed) or data only (feed_data)
        self.retry: int | None = None
        """The last valid `retry:` value (milliseconds), or None."""

    @property
    def incomplete(self) -> bool:
        """True while part of an event (or of a line) has arrived without its final blank line."""
        return bool(self._line) or bool(self._data) or bool(self._event)

    @property
    def pending_size(self) -> int:
        """How many characters of the unfinished event (and of its unfinished line) are held."""
        return sum(map(len, self._line)) + sum(map(len, self._data)) + len(self._event)

    def pending_text(self, limit: int = 200) -> str:
        """The start of the unfinished event, for error messages (at most `limit` characters)."""
        text = "\n".join(f"data: {value}" for value in self._data[:4])
        if self._line:
            text += ("\n" if text else "") + "".join(self._line)[:limit]
        return text[:limit]

    def feed(self, data: bytes) -> list[ServerSentEvent]:
        """Decode the next bytes of the stream.

        Args:
            data: the bytes that arrived, in stream order; may be empty.

        Returns:
            The events completed by these bytes, in order (often none).

        Raises:
            RuntimeError: if called after `close()`.
        """
        return self._feed(data, True)

    def feed_data(self, data: bytes) -> list[str]:
        """`feed`, giving only each event's `data`: for a protocol that reads nothing else
        (AG-UI: every event is one JSON object in `data:`), without an object per event."""
        return self._feed(data, False)

    def _feed(self, data: bytes, wrap: bool) -> list[Any]:
        if self._closed:
            raise RuntimeError("Cannot feed an SSEDecoder after close(): create a new decoder per stream.")
        self._wrap = wrap
        return self._feed_text(self._utf8.decode(data))

    def close(self) -> list[ServerSentEvent]:
        """Mark the end of the stream.

        Per the HTML standard, an event not terminated by a blank line is discarded; check
        `incomplete` before calling this to report a truncated stream.

        Returns:
            Always an empty list (kept for symmetry with `feed`).
        """
        if not self._closed:
            self._feed_text(self._utf8.decode(b"", final=True))
            self._closed = True
            self._line.clear()
            self._data.clear()
            self._event = ""
        return []

    def _feed_text(self, text: str) -> list[Any]:
        events: list[Any] = []
        if not text:
            return events
        pos = 0
        if not self._started:
            self._started = True
            if text[0] == "\ufeff":  # one leading BOM is not content
                pos = 1
        if self._skip_lf:
            self._skip_lf = False
            if text[pos:pos + 1] == "\n":  # the "\n" of a "\r\n" split across chunks
                pos += 1
        if "\r" not in text:
            self._feed_lf_lines(text, pos, events)
            return events
        for match in _LINE_END.finditer(text, pos):
            piece = text[pos:match.start()]
            if self._line:
                self._line.append(piece)
                line = "".join(self._line)
                self._line.clear()
            else:
                line = piece
            self._process_line(line, events)
            pos = match.end()
            if pos == len(text) and match.group() == "\r":
                self._skip_lf = True
        if pos < len(text):
            self._line.append(text[pos:])
        return events

    def _feed_lf_lines(self, text: str, pos: int, events: list[Any]) -> None:
        """The common case (every AG-UI server ends lines with "\\n"). Once no event is pending,
        the text is cut into events with one C-level split on the blank lines, and an event
        that is one `data: ` line (nearly all of them) is taken whole, without a step per line."""
        if self._line or self._data or self._event:
            # Finish the pending event line by line, up to and including its blank line.
            if not self._line and text.startswith("\n", pos):
                cut = pos + 1
            else:
                blank = text.find("\n\n", pos)
                cut = len(text) if blank < 0 else blank + 2
            self._feed_lines(text[pos:cut], events)
            pos = cut
            if pos == len(text):
                return
        blocks = text[pos:].split("\n\n")
        tail = blocks.pop()  # after the last blank line: an event not complete yet ("" if none)
        last_id, wrap = self._last_id, self._wrap
        for block in blocks:
            if block.startswith("data: ") and "\n" not in block:
                events.append(ServerSentEvent(block[6:], "message", last_id) if wrap else block[6:])
            else:  # comments, other fields, several lines, extra blank lines: line by line
                self._feed_lines(block + "\n\n", events)
                last_id = self._last_id
        if tail:
            self._feed_lines(tail, events)

    def _feed_lines(self, text: str, events: list[Any]) -> None:
        """Text without "\\r", line by line: a line left without its "\\n" waits for the next chunk."""
        lines = text.split("\n")
        tail = lines.pop()  # after the last "\n": a line not terminated yet ("" if none)
        if self._line:
            self._line.append(lines[0] if lines else tail)
            if not lines:
                return
            lines[0] = "".join(self._line)
            self._line.clear()
        for line in lines:
            self._process_line(line, events)
        if tail:
            self._line.append(tail)

    def _process_line(self, line: str, events: list[Any]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line[0] == ":":  # a comment (servers send them as keep-alives)
            return
        colon = line.find(":")
        if colon < 0:
            name, value = line, ""
        else:
            name, value = line[:colon], line[colon + 1:]
            if value[:1] == " ":
                value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self.retry = int(value)
        # Any other field name is ignored, as the standard says.

    def _dispatch(self, events: list[Any]) -> None:
        if not self._data:  # no data field: nothing to dispatch, only the type resets
            self._event = ""
            return
        data = "\n".join(self._data)
        events.append(ServerSentEvent(data, self._event or "message", self._last_id) if self._wrap else data)
        self._data = []
        self._event = ""
