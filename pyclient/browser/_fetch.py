"""The page's transport: `fetch()` with the response body read as a stream.

PyScript's own `pyscript.fetch` only reads whole bodies; an AG-UI run is a long-lived
`text/event-stream`, so this reads `response.body.getReader()` chunk by chunk and hands the
bytes to the same run loop the CPython transport feeds. Each run gets its own JS
`AbortController` (through `AbortSignal.js`), so `thread.stop()` cancels the request in the
browser too. See https://developer.mozilla.org/en-US/docs/Web/API/Streams_API/Using_readable_streams

```python
from pyclient import Agent
from pyclient.browser import FetchTransport

agent = Agent("main", url="/agent", transport=FetchTransport())   # the default in the page
```
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import js
from pyodide.ffi import JsException, to_js

from .._abort import AbortSignal
from .._errors import RunAborted, TransportError
from .._transport import BODY_EXCERPT, Request, Transport, http_error

__all__ = ["FetchTransport"]


class FetchTransport(Transport):
    """Streams a run's response with the browser's `fetch()`.

    Args:
        credentials: fetch's `credentials` mode (`"same-origin"` by default; `"include"` to
            send cookies to another origin).
    """

    def __init__(self, *, credentials: str = "same-origin") -> None:
        self.credentials = credentials

    async def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[bytes]:  # type: ignore[override]
        signal.throw_if_aborted()
        init = to_js(
            {
                "method": request.method,
                "headers": dict(request.headers),
                "body": request.body.decode("utf-8"),
                "credentials": self.credentials,
                "signal": signal.js,
            },
            dict_converter=js.Object.fromEntries,
        )
        try:
            response = await js.fetch(request.url, init)
        except JsException as exc:
            if signal.aborted:
                raise RunAborted(signal.reason) from None
            raise TransportError(
                f"The request to {request.url} failed ({exc}). Check that the agent server is "
                "running and reachable; `await thread.run()` retries."
            ) from exc
        if not response.ok:
            text = await _text_or_empty(response)
            raise http_error(request, int(response.status), text[: BODY_EXCERPT * 4])

        reader = response.body.getReader()
        received = 0
        finished = False
        try:
            while True:
                try:
                    chunk = await reader.read()
                except JsException as exc:
                    if signal.aborted:
                        raise RunAborted(signal.reason) from None
                    raise TransportError(
                        f"The connection to {request.url} dropped after {received} bytes of the "
                        f"response ({exc}). What arrived is kept; `await thread.run()` retries the run."
                    ) from exc
                if chunk.done:
                    finished = True
                    return
                data = chunk.value.to_bytes()
                received += len(data)
                yield data
        finally:
            if not finished:
                # Closed early (stop(), an error above us): cancel so the browser drops the
                # connection instead of buffering the rest of the stream.
                try:
                    reader.cancel()
                except JsException:
                    pass
            reader.releaseLock()


async def _text_or_empty(response) -> str:
    try:
        return str(await response.text())
    except JsException:  # the body of an error response is best-effort
        return ""
