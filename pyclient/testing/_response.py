"""What a scripted agent answers one request with (`Response`), as SSE bytes, and served in this process.

`Response` is what `ScriptedAgent.respond()` returns; `_server.agent_app` sends it over HTTP,
and `in_process(agent)` hands it to the client without a server: a `pyclient.MockTransport`
whose handler calls `agent.respond()`. Both send it the same way: one chunk per event, a
delay before each, a dropped connection, or a response held open. An event is an `ag_ui.core`
model, a dict (its JSON, as given), or a `str` (the data of one SSE event, as written).

```python
from ag_ui.core import RunStartedEvent
from pyclient.testing._response import Response, sse

response = Response(events=[RunStartedEvent(thread_id="t", run_id="r"), {"type": "BRAND_NEW"}, "not JSON"])
print(sse(response.events[1]), sse(response.events[2]))   # b'data: {"type": "BRAND_NEW"}\\n\\n' b'data: not JSON\\n\\n'
```
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, Union

from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder

from .. import MockTransport, Request, TransportError
from .._base._json import loads
from .._wire._transport import MockHTTPResponse

__all__ = ["PLAIN_TEXT", "REQUEST_MAX_DEPTH", "Event", "Responder", "Response", "in_process", "request_json", "sse"]

REQUEST_MAX_DEPTH = 256
"""The deepest request body a scripted agent reads. A body nests no deeper than its writer
serializes (pydantic-core: 255 levels on CPython, about 49 in Pyodide); one deeper is refused
before it is parsed, as pyclient refuses deep events, rather than exhausting the stack."""

_ENCODER = EventEncoder()

PLAIN_TEXT = "text/plain; charset=utf-8"
"""The Content-Type of an HTTP error's body, unless the script names another."""

Event = Union[BaseEvent, Mapping[str, Any], str]
"""One event of a response: an `ag_ui.core` event, a dict sent as its JSON, or SSE data as written."""


@dataclass
class Response:
    """What the agent answers one request with.

    Attributes:
        events: the events, in order (sent as SSE): `ag_ui.core` events, dicts (sent as their
            JSON, as given: an event type pyclient does not know, a field of the wrong type),
            or strings (the data of one event as written: JSON whose escapes must stay as they
            are, JSON nested deeper than `json.dumps` goes, or not JSON at all).
        status: the HTTP status; anything but 200 sends `body` instead of events.
        body: the body of an HTTP error, or of an answer that is not an event stream.
        content_type: the Content-Type of `body`; set, `body` is sent instead of events even
            with status 200 (a login page's `text/html`). None: events (`text/event-stream`),
            or an error's body as `text/plain`.
        drop_after: close the connection after this many events (no `RUN_FINISHED`).
        delay_s: seconds to wait before each event.
        hold: after the events, keep the response open (no `RUN_FINISHED`) until the client
            goes away or stops the run.
        waits: before the event at an index, wait until its `threading.Event` is set (a test's
            barrier: `Turn.call(..., halfway=...)`).
    """

    events: list[Event] = field(default_factory=list)
    status: int = 200
    body: str = ""
    content_type: str | None = None
    drop_after: int | None = None
    delay_s: float = 0.0
    hold: bool = False
    waits: Mapping[int, threading.Event] = field(default_factory=dict)

    async def wait_before(self, index: int) -> None:
        """Wait until the event at `index` may go: its barrier is set (polled: cancelled with
        the request, which a thread blocked on the event would not be)."""
        gate = self.waits.get(index)
        while gate is not None and not gate.is_set():
            await asyncio.sleep(0.01)


class Responder(Protocol):
    """What serves requests: a `ScriptedAgent`, or anything with its `respond()`."""

    def respond(self, body: Mapping[str, Any]) -> Response: ...


def sse(event: Event) -> bytes:
    """One event as an SSE message (`data: ...` and a blank line)."""
    if isinstance(event, BaseEvent):
        return _ENCODER.encode(event).encode()
    # A dict's JSON is ASCII: a lone surrogate in it goes out as its escape, as a server's would.
    data = event if isinstance(event, str) else json.dumps(event)
    return b"data: " + data.encode() + b"\n\n"


def dropped(index: int) -> TransportError:
    """The error of a connection closed after `index` events, as `Response.drop_after` scripts."""
    return TransportError(f"The connection dropped after {index} events, as scripted (`drop(after={index})`).")


def request_json(body: bytes | str) -> Any:
    """A request's body as JSON data, read with pyclient's bounded parser (`pyclient._base._json.loads`).

    Raises:
        ValueError: the body is not UTF-8, not JSON, or nested deeper than `REQUEST_MAX_DEPTH`
            (`pyclient._base._json.JSONLimitError`).
    """
    text = body.decode("utf-8") if isinstance(body, (bytes, bytearray)) else body
    return loads(text, max_depth=REQUEST_MAX_DEPTH)


def in_process(agent: Responder) -> MockTransport:
    """A `pyclient.MockTransport` whose every request `agent.respond()` answers, with no server.

    The body streams one event a chunk (the client's loop runs between two), as a server sends
    it; `drop_after` raises `TransportError` where the connection would close, and a held
    response waits until the client stops reading.
    """

    async def stream(response: Response) -> AsyncIterator[bytes]:
        for index, event in enumerate(response.events):
            if response.drop_after is not None and index >= response.drop_after:
                raise dropped(index)
            if response.delay_s:
                await asyncio.sleep(response.delay_s)
            await response.wait_before(index)
            yield sse(event)
        if response.hold:  # open until the client goes away: stop() cancels this wait
            await asyncio.Event().wait()

    def handle(request: Request) -> Any:
        response = agent.respond(request_json(request.body))
        if response.status != 200 or response.content_type is not None:
            return MockHTTPResponse(response.status, response.body.encode(),
                                    content_type=response.content_type or PLAIN_TEXT)
        if response.drop_after is None and not response.delay_s and not response.hold and not response.waits:
            return [sse(event) for event in response.events]
        return stream(response)

    return MockTransport(handle)
