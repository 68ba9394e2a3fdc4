"""A run's response as AG-UI events: transport bytes → SSE events → `ag_ui.core` models.

The one pipeline under every environment: the transport streams bytes (`pyclient._transport`),
`SSEDecoder` cuts them into events, `decode_event` maps each onto ag-ui-protocol's models.
Events come in batches, one per chunk the transport delivered: the thread tells its
listeners about a batch's changes once, so a long answer costs a publish per chunk, not one
per word. Keep-alives (empty `data:`) are skipped. A body that ends in the middle of an
event is a `RemoteProtocolError`; an aborted signal stops before the next event.

```python
import asyncio
from pyclient import AbortController, MockTransport, Request
from pyclient._stream import read_event_batches

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

from ._abort import AbortSignal
from ._errors import RemoteProtocolError, RunAborted
from ._events import AGUIEvent, decode_event
from ._sse import SSEDecoder
from ._transport import Request, Transport

__all__ = ["read_event_batches"]


async def read_event_batches(transport: Transport, request: Request,
                             signal: AbortSignal) -> AsyncGenerator[Iterator[AGUIEvent], None]:
    """Send `request` through `transport` and yield its AG-UI events, an iterator per chunk that completed any.

    Each iterator decodes its events as it is iterated, so an event is alive while it is
    applied and no longer: a chunk's events held at once would survive into the garbage
    collector's older generations, whose collections a long answer then pays for again and
    again. An event that does not decode raises when it is reached, after the events before it.

    Raises:
        TransportError: from the transport (HTTP status, connection failure or drop).
        RemoteProtocolError: a payload that is not an AG-UI event, or a body that ends in the
            middle of an event.
        RunAborted: `signal` aborted (checked before each event).
    """
    decoder = SSEDecoder()
    stream = transport.stream(request, signal)
    try:
        async for chunk in stream:
            events = decoder.feed_data(chunk)
            if signal.aborted:  # stopped by a listener: not one more event
                raise RunAborted(signal.reason)
            if events:
                yield _decode(events, signal)
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


def _decode(events: list[str], signal: AbortSignal) -> Iterator[AGUIEvent]:
    for data in events:
        if signal.aborted:
            raise RunAborted(signal.reason)
        if data.strip():  # an empty data line is a keep-alive
            yield decode_event(data)
