"""A run's response as AG-UI events: transport bytes → SSE events → `ag_ui.core` models.

The one pipeline under every environment: the transport streams bytes (`pyclient._wire._transport`),
`SSEDecoder` cuts them into events, `decode_event` maps each onto ag-ui-protocol's models
(and the `THINKING_*` events of servers before AG-UI 1.0 are read as their `REASONING_*` names:
`pyclient._wire._thinking_names`).
Events come in batches, one per chunk the transport delivered: the thread tells its
listeners about a batch's changes once, so a long answer costs a publish per chunk, not one
per word. Keep-alives (empty `data:`) are skipped. A body that ends in the middle of an
event is a `RemoteProtocolError`, and so is an event longer than `max_event_chars` (the
agent's limit): refused as soon as that much of it has arrived, so no server can make the
page hold an endless event. An aborted signal stops before the next event.

```python
import asyncio
from pyclient import AbortController, MockTransport, Request
from pyclient._wire._event_stream import read_event_batches

transport = MockTransport(lambda request: [b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\\n',
                                           b'\\n: keep-alive\\n\\n'])

async def main():
    request = Request("http://agent.test/agent", {}, b"{}")
    async for batch in read_event_batches(transport, request, AbortController().signal):
        print([(event.type.value, event.thread_id) for event in batch])    # [('RUN_STARTED', 't')]

asyncio.run(main())
```
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator

from .._base._abort import AbortSignal
from .._base._errors import RemoteProtocolError, RunAborted
from ._events import AGUIEvent, UnknownEvent, decode_event
from ._sse import SSEDecoder
from ._thinking_names import LegacyThinking
from ._transport import Request, Transport

__all__ = ["read_event_batches"]


async def read_event_batches(transport: Transport, request: Request, signal: AbortSignal, *,
                             max_event_chars: int | None = None) -> AsyncGenerator[Iterator[AGUIEvent], None]:
    """Send `request` through `transport` and yield its AG-UI events, an iterator per chunk that completed any.

    Each iterator decodes its events as it is iterated, so an event is alive while it is
    applied and no longer: a chunk's events held at once would survive into the garbage
    collector's older generations, whose collections a long answer then pays for again and
    again. An event that does not decode raises when it is reached, after the events before it.

    Args:
        transport: sends the request.
        request: the run's request.
        signal: aborts the run.
        max_event_chars: the longest event read, in characters (None: no limit).

    Raises:
        TransportError: from the transport (HTTP status, connection failure or drop).
        RemoteProtocolError: a payload that is not an AG-UI event, an event longer than
            `max_event_chars`, or a body that ends in the middle of an event.
        RunAborted: `signal` aborted (checked before each event).
    """
    decoder = SSEDecoder()
    stream = transport.stream(request, signal)
    # Bytes since the chunk that completed the last event: the unfinished event is within
    # them (a character is at least a byte), so it is measured only once they pass the limit.
    window = 0
    legacy = LegacyThinking()  # older servers' THINKING_* events, read as REASONING_*
    try:
        async for chunk in stream:
            events = decoder.feed_data(chunk)
            if signal.aborted:  # stopped by a listener: not one more event
                raise RunAborted(signal.reason)
            window = len(chunk) if events else window + len(chunk)
            if max_event_chars is not None and window > max_event_chars \
                    and decoder.pending_size > max_event_chars:
                raise _too_large(request, max_event_chars, f"{decoder.pending_size:,} characters have arrived")
            if events:
                yield _decode(events, signal, request, max_event_chars, legacy)
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
    if decoder.incomplete and not signal.aborted:
        raise RemoteProtocolError(
            f"The stream from {request.url} ended in the middle of an event: "
            f"{decoder.pending_text()!r}. The server closed the connection early; "
            "`await thread.run()` retries."
        )
    decoder.close()


def _decode(events: list[str], signal: AbortSignal, request: Request,
            max_event_chars: int | None, legacy: LegacyThinking) -> Iterator[AGUIEvent]:
    for data in events:
        if signal.aborted:
            raise RunAborted(signal.reason)
        if max_event_chars is not None and len(data) > max_event_chars:
            raise _too_large(request, max_event_chars, f"it has {len(data):,} characters")
        if data.strip():  # an empty data line is a keep-alive
            event = decode_event(data)
            yield legacy.translate(event) if type(event) is UnknownEvent else event


def _too_large(request: Request, limit: int, size: str) -> RemoteProtocolError:
    return RemoteProtocolError(
        f"An event from {request.url} is longer than this agent's max_event_chars of {limit:,} ({size}): "
        "pyclient stopped reading the stream there. If the server's events are that large (a "
        "MESSAGES_SNAPSHOT of a long history with files), raise `Agent(max_event_chars=...)`."
    )
