"""A run's response as AG-UI events: transport bytes → SSE events → `ag_ui.core` models.

The one pipeline under every environment: the transport streams bytes (`pyclient._transport`),
`SSEDecoder` cuts them into events, `decode_event` maps each onto ag-ui-protocol's models.
Keep-alives (empty `data:`) are skipped. A body that ends in the middle of an event is a
`RemoteProtocolError`; an aborted signal stops before the next event.

```python
import asyncio
from pyclient import AbortController, MockTransport, Request
from pyclient._stream import read_events

transport = MockTransport(lambda request: [b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\\n',
                                           b'\\n: keep-alive\\n\\n'])

async def main():
    request = Request("http://agent.test/agent", {}, b"{}")
    async for event in read_events(transport, request, AbortController().signal):
        print(event.type.value, event.thread_id)       # RUN_STARTED t

asyncio.run(main())
```
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from ._abort import AbortSignal
from ._errors import RemoteProtocolError, RunAborted
from ._events import AGUIEvent, decode_event
from ._sse import SSEDecoder
from ._transport import Request, Transport

__all__ = ["read_events"]


async def read_events(transport: Transport, request: Request, signal: AbortSignal) -> AsyncGenerator[AGUIEvent, None]:
    """Send `request` through `transport` and yield its AG-UI events as they arrive.

    Raises:
        TransportError: from the transport (HTTP status, connection failure or drop).
        RemoteProtocolError: a payload that is not an AG-UI event, or a body that ends in the
            middle of an event.
        RunAborted: `signal` aborted.
    """
    decoder = SSEDecoder()
    stream = transport.stream(request, signal)
    try:
        async for chunk in stream:
            for sse in decoder.feed(chunk):
                if signal.aborted:  # stopped from a listener: not one more event
                    raise RunAborted(signal.reason)
                if sse.data.strip():  # an empty data line is a keep-alive
                    yield decode_event(sse.data)
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
