"""The page's transport: `fetch()` with the response body read as a stream.

PyScript's own `pyscript.fetch` only reads whole bodies; an AG-UI run is a long-lived
`text/event-stream`, so this reads `response.body.getReader()` chunk by chunk and hands the
bytes to the same run loop the CPython transport feeds; an answer that is not
`text/event-stream` (a login page, a site's fallback page) is refused before its body is
read (`pyclient._wire._transport.check_event_stream`, as on CPython). Each run gets its own JS
`AbortController` (through `AbortSignal.js`), so `thread.stop()` cancels the request in the
browser too. A request to another origin than the page's that fails without a response may
be a CORS refusal (the browser does not say): its error names the flag that allows the page. See https://developer.mozilla.org/en-US/docs/Web/API/Streams_API/Using_readable_streams

```python
from pyclient import Agent
from pyclient.browser import FetchTransport

agent = Agent("main", url="/agent", transport=FetchTransport())   # the default in the page
```
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import js
from pyodide.ffi import to_js

from ..._base._abort import AbortSignal
from ..._base._errors import RunAborted, TransportError
from ..._wire._transport import (
    BODY_EXCERPT,
    UPSTREAM_HEADER,
    Request,
    Transport,
    check_event_stream,
    connection_dropped,
    connection_failed,
    http_error,
)
from .._page._page_window import page_url, page_window

__all__ = ["FetchTransport"]


class FetchTransport(Transport):
    """Streams a run's response with the browser's `fetch()`.

    Args:
        credentials: fetch's `credentials` mode (`"same-origin"` by default; `"include"` to
            send cookies to another origin).
    """

    def __init__(self, *, credentials: str = "same-origin") -> None:
        self.credentials = credentials

    async def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[bytes]:
        signal.throw_if_aborted()
        init = to_js(
            {
                "method": request.method,
                "headers": dict(request.headers),
                # Bytes become a Uint8Array (one copy); a str body cost a UTF-8 decode, a
                # conversion to a JS string and fetch's own encoding back, each the whole
                # history's size. Content-Type is set by the run loop.
                "body": request.body,
                "credentials": self.credentials,
                "signal": signal.js,
            },
            dict_converter=js.Object.fromEntries,
        )
        response = await _settle(js.fetch(page_url(request.url), init))  # a worker's base is not the page's
        if _failed(response):
            if signal.aborted:
                raise RunAborted(signal.reason)
            raise connection_failed(request, _describe(response), page_origin=_other_origin(request.url))
        if not response.ok:
            text = await _text_or_empty(response)
            upstream = response.headers.get(UPSTREAM_HEADER)  # JS null when there is none
            raise http_error(request, int(response.status), text[: BODY_EXCERPT * 4],
                             upstream=upstream if isinstance(upstream, str) else None)
        content_type = response.headers.get("content-type")  # JS null when there is none
        try:
            check_event_stream(request, int(response.status), content_type if isinstance(content_type, str) else None)
        except TransportError:
            cancel = getattr(response.body, "cancel", None)  # no body: JS null
            if cancel is not None:  # not read: the browser drops the connection
                cancel().catch(js.Object)
            raise

        reader = response.body.getReader()
        received = 0
        finished = False
        try:
            while True:
                chunk = await _settle(reader.read())
                if _failed(chunk):
                    if signal.aborted:
                        raise RunAborted(signal.reason)
                    raise connection_dropped(request, received, _describe(chunk))
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
                reader.cancel().catch(js.Object)  # its rejection, if any, is nobody's business
            reader.releaseLock()


async def _settle(promise: Any) -> Any:
    """Await a JS promise safely when the awaiting task may be cancelled mid-way.

    Returns its value, or the JS error it rejected with (check with `_failed`).

    Why: `stop()` aborts the JS request and cancels the Python task reading it in the same
    turn. Pyodide then either resolves a future that was cancelled ("InvalidStateError" in
    the event loop) or rejects one whose exception nobody retrieves. So the promise never
    rejects (`catch(Object)`: `Object(error)` is the error itself, and no function of ours,
    hence no proxy, is handed to JS) and the future it settles is shielded from cancellation.
    """
    return await asyncio.shield(promise.catch(js.Object))


def _failed(value: Any) -> bool:
    """True for what `_settle` made of a rejection: a JS Error/DOMException (name + message)."""
    return getattr(value, "name", None) is not None and getattr(value, "message", None) is not None


def _other_origin(url: str) -> str | None:
    """The page's origin when `url` is on another one, else None.

    A fetch the browser refuses for CORS rejects with the same `TypeError` as one to a server
    that is down ("Failed to fetch"): the page cannot tell them apart, only that a
    cross-origin request could be either.
    """
    location = page_window().location
    page = str(location.origin)
    try:
        target = str(js.URL.new(url, location.href).origin)
    except Exception:  # not a URL (fetch refused it for that): no origin to compare
        return None
    return page if target != page else None


def _describe(error: Any) -> str:
    name, message = getattr(error, "name", None), getattr(error, "message", None)
    return f"{name}: {message}" if name and message else str(error)


async def _text_or_empty(response: Any) -> str:
    text = await _settle(response.text())  # the body of an error response is best-effort
    return "" if _failed(text) else str(text)
