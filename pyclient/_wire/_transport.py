"""Transports: how a run's HTTP request is sent and its response body streamed back as bytes.

One small interface, as in httpx: subclass `Transport` and implement `stream()`. The run
loop (`Thread`, reading the events through `pyclient._wire._event_stream`) is the same above every
transport: `HttpxTransport` on CPython, the fetch transport in the page (`pyclient.browser`),
`MockTransport` in tests. Every transport raises the same errors, worded once here
(`http_error`, `connection_failed`, `connection_dropped`), and checks a 2xx answer's
Content-Type the same way before it reads a byte of it (`check_event_stream`): a login page,
a site's fallback page or a proxy's error page is not read as SSE.

```python
import asyncio
from pyclient._base._abort import AbortController
from pyclient._wire._transport import MockTransport, Request

async def handler(request):
    yield b'data: {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\\n\\n'

async def main():
    transport = MockTransport(handler)
    request = Request("http://agent.test/agent", {}, b"{}")
    async for chunk in transport.stream(request, AbortController().signal):
        print(chunk)

asyncio.run(main())
```
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

from .._base._abort import AbortSignal
from .._base._errors import RunAborted, TransportError, clause

if TYPE_CHECKING:
    import httpx  # imported lazily at run time: the `cpython` extra, absent in the page

__all__ = ["HttpxTransport", "MockTransport", "Request", "Transport"]

logger = logging.getLogger("pyclient")

BODY_EXCERPT = 500
"""How much of an error response's body `TransportError.body` keeps (characters)."""

EVENT_STREAM = "text/event-stream"
"""The only media type of a run's response pyclient reads (AG-UI over SSE)."""

AGUI_PROTOBUF = "application/vnd.ag-ui.event+proto"
"""AG-UI's binary encoding (`ag_ui.encoder.AGUI_MEDIA_TYPE`, written out: ag_ui is imported
lazily, after the page has booted), which pyclient does not read."""


@dataclass(frozen=True)
class Request:
    """One HTTP request of a run.

    Attributes:
        url: the agent endpoint.
        headers: request headers (the run loop sets Content-Type and Accept).
        body: the JSON-encoded `RunAgentInput`.
        method: always "POST" for AG-UI runs.
    """

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    method: str = "POST"


class Transport:
    """Sends a `Request` and streams the response body.

    Implementations must:

    - raise `TransportError(message, status=<int>, body=<excerpt>)` for a non-2xx response
      (`http_error`), call `check_event_stream` on a 2xx one before reading its body, and
      raise `TransportError(message)` chained `from` the cause when the connection fails or
      drops mid-body;
    - stop promptly when `signal` aborts (the fetch transport passes `signal.js` to fetch;
      the run loop also cancels the task reading the stream);
    - yield bytes as they arrive (never buffer the whole body: runs are streamed).
    """

    def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[bytes]:
        """Send `request` and yield the response body in chunks as they arrive.

        Args:
            request: what to send.
            signal: aborts the request (thread.stop()).

        Returns:
            An async iterator of body chunks (usually an async generator).

        Raises:
            TransportError: non-2xx status, a 2xx that is not `text/event-stream`, connection
                failure, connection dropped mid-body.
            RunAborted: `signal` aborted before or while the request was in flight.
        """
        raise NotImplementedError("The 'stream' method must be implemented.")

    async def aclose(self) -> None:
        """Release pooled connections; the transport may not be used afterwards."""


def _excerpt(text: str) -> str:
    return text if len(text) <= BODY_EXCERPT else text[:BODY_EXCERPT] + "…"


UPSTREAM_HEADER = "x-pyclient-upstream"
"""The header of `pyclient serve --agent URL`'s answer when the agent at URL gave its error status:
the URL (without credentials), so the chat names the flag to fix, not the page's `/agent`."""


def http_error(request: Request, status: int, body: str, *, upstream: str | None = None) -> TransportError:
    """The `TransportError` every transport raises for a non-2xx response (`upstream`: the
    `UPSTREAM_HEADER` it carried, if any)."""
    excerpt = _excerpt(body.strip())
    said = clause(excerpt) or "(empty body)"
    if upstream:
        message = (f"The agent at {request.url} is `pyclient serve`'s proxy; the agent it forwards to, {upstream} "
                   f"(its --agent URL), answered HTTP {status}: {said}. {upstream_advice(status)}")
    else:
        message = f"The agent at {request.url} answered HTTP {status}: {said}. {http_advice(status)}"
    return TransportError(message, status=status, body=excerpt, upstream=upstream or None)


def upstream_advice(status: int) -> str:
    """What to do about an HTTP `status` that the agent behind `pyclient serve --agent` answered."""
    if status >= 500 or status in (408, 429):
        return http_advice(status)
    return ("Fix: check the URL given to `pyclient serve --agent` (it must be the agent's AG-UI endpoint, which "
            "answers POST), and the credentials that agent expects.")


def http_advice(status: int) -> str:
    """What to do about an HTTP `status` from the agent, one sentence: "retries" only where
    sending again can help (5xx, 408, 429), the agent server's log only where it holds the cause
    (5xx: its own failure)."""
    if status in (405, 501):
        return ("Fix: this URL does not take POST requests (a static file server answers so): point the agent "
                "URL (`Agent(url=...)`) at an AG-UI server's endpoint, e.g. `pyclient serve`'s `/agent`.")
    if status == 404:
        return "Fix: check the agent URL (it must be the AG-UI endpoint, e.g. `/agent`, which answers POST)."
    if status in (401, 403):
        return "Fix: pass the credentials the server expects with `Agent(..., headers=...)`."
    if status in (415, 422):
        return "Fix: the server rejected the request body; check that it speaks AG-UI 1.0."
    if status == 413:
        return ("Fix: the request (the whole conversation) is larger than the server accepts; raise its "
                "limit (`pyclient serve --max-body BYTES`) or start a new thread.")
    if status == 408:
        return "The request body reached the server too slowly; `await thread.run()` retries."
    if status == 429:
        return "The server is limiting requests: wait a moment, then `await thread.run()` retries."
    if status >= 500:  # 501 (no POST) is above
        return "The cause is in the agent server's log; `await thread.run()` retries."
    if 400 <= status < 500:
        return "Fix: the server refused the request; its answer above says why."
    return "Fix: check the agent URL (it must be the AG-UI endpoint, which answers POST with an event stream)."


def check_event_stream(request: Request, status: int, content_type: str | None) -> None:
    """Refuse a 2xx response that is not an event stream, before its body is read.

    Every transport calls it with the response's `Content-Type` header (None when it has none).
    Only `text/event-stream` (with any parameters) is read. Anything else, a login page, a
    site's fallback page (`text/html`) or a proxy's JSON, fails the run at once with a message
    naming the type and the URL; AG-UI's protobuf encoding has its own, since the fix is the
    server's choice of encoding, not the URL.

    Raises:
        TransportError: with `status` and `content_type` (the header as sent, "" when missing).
    """
    media_type = (content_type or "").split(";")[0].strip().lower()
    if media_type == EVENT_STREAM:
        return
    if media_type == AGUI_PROTOBUF:
        raise TransportError(
            f"The agent at {request.url} answered with AG-UI's protobuf encoding ({AGUI_PROTOBUF}); "
            f"pyclient reads the SSE encoding ({EVENT_STREAM}) only, so the body was not read. Fix: have "
            f"the server choose its encoding from the request's `Accept: {EVENT_STREAM}` header, which "
            "pyclient sends (check that no proxy in between drops it).",
            status=status, content_type=content_type or "",
        )
    given = f"Content-Type {clause(content_type)}" if content_type and content_type.strip() else "no Content-Type"
    raise TransportError(
        f"The agent at {request.url} answered HTTP {status} with {given}, not {EVENT_STREAM}: that is "
        "not an AG-UI event stream, so the body was not read. Check the agent URL and its path (it must "
        "be the AG-UI endpoint, e.g. `/agent`; a site's fallback page answers any path), and whether a "
        "login page or a proxy in between answered instead of the agent.",
        status=status, content_type=content_type or "",
    )


def connection_failed(request: Request, cause: str, *, before_response: bool = False,
                      page_origin: str | None = None) -> TransportError:
    """The `TransportError` every transport raises when its request fails (no server, a refused
    or dead connection, a CORS refusal), to be raised `from` the cause.

    Args:
        request: the request that failed.
        cause: what the lower layer said (`"ConnectError: ..."`).
        before_response: the connection was open and broke while the response was awaited
            (a pooled connection the server had closed).
        page_origin: the page's origin, when the request went to another one (the fetch
            transport): the browser may then have refused it for CORS, which it tells only its
            own console, so the message names the flag that allows the page.
    """
    when = " before a response arrived" if before_response else ""
    failed = f"The request to {request.url} failed{when} ({clause(cause)})."
    if page_origin is None:
        return TransportError(f"{failed} Check that the agent server is running and reachable; "
                              "`await thread.run()` retries.")
    return TransportError(
        f"{failed} It went to another origin than this page's ({page_origin}): either the agent "
        "server is not running there, or it does not allow this page's origin and the browser "
        "refused it for CORS (the browser's console says which). Fix: start the agent server and "
        f"allow this page, `pyclient serve --allow-origin {page_origin}` (another server must answer "
        f"with `Access-Control-Allow-Origin: {page_origin}`); `await thread.run()` retries.",
        cross_origin=True,
    )


def connection_dropped(request: Request, received: int, cause: str) -> TransportError:
    """The `TransportError` every transport raises when the connection drops after `received`
    bytes of the response body, to be raised `from` the cause."""
    return TransportError(
        f"The connection to {request.url} dropped after {received} bytes of the response "
        f"({clause(cause)}). What arrived is kept; `await thread.run()` retries the run."
    )


# A MockTransport handler returns either a full response or an async iterator of chunks.
MockResponse = Union["MockHTTPResponse", AsyncIterator[bytes], Iterable[bytes], bytes]


@dataclass
class MockHTTPResponse:
    """What a `MockTransport` handler may return to set a status or a Content-Type (None: no
    header): `body` is bytes or chunks."""

    status: int = 200
    body: bytes | Iterable[bytes] | AsyncIterator[bytes] = b""
    content_type: str | None = EVENT_STREAM


class MockTransport(Transport):
    """A transport that calls `handler(request)` instead of the network (tests, demos).

    The handler (plain or async function, or async generator function) receives the
    `Request` and returns bytes, an iterable or async iterator of chunks (an event stream), or
    a `MockHTTPResponse` (for a status or another Content-Type, checked like a server's).
    Exceptions it raises propagate unchanged, so a test can raise `TransportError` to simulate
    a dropped connection.
    """

    def __init__(self, handler: Callable[[Request], MockResponse | Awaitable[MockResponse]]) -> None:
        self.handler = handler
        self.requests: list[Request] = []

    async def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[bytes]:
        self.requests.append(request)
        signal.throw_if_aborted()
        result = self.handler(request)
        response = await result if inspect.isawaitable(result) else result
        status = 200
        content_type: str | None = EVENT_STREAM
        chunks: bytes | Iterable[bytes] | AsyncIterator[bytes]
        if isinstance(response, MockHTTPResponse):
            status, chunks, content_type = response.status, response.body, response.content_type
        else:
            chunks = response
        if not 200 <= status < 300:
            if isinstance(chunks, bytes):
                body = chunks
            elif isinstance(chunks, Iterable):
                body = b"".join(chunks)
            else:  # what b"".join() raised for it
                raise TypeError("can only join an iterable")
            raise http_error(request, status, body.decode("utf-8", "replace"))
        check_event_stream(request, status, content_type)
        if isinstance(chunks, bytes):
            chunks = [chunks]
        if hasattr(chunks, "__aiter__"):
            try:
                async for chunk in chunks:
                    signal.throw_if_aborted()
                    yield chunk
            finally:  # the reader stopped early: close the handler's generator now, as a server would see
                aclose = getattr(chunks, "aclose", None)
                if aclose is not None:
                    await aclose()
        else:
            for chunk in chunks:
                signal.throw_if_aborted()
                yield chunk
                await asyncio.sleep(0)  # let other tasks (stop(), listeners) run between chunks


class HttpxTransport(Transport):
    """The CPython transport, on `httpx.AsyncClient` (imported lazily: not in the browser).

    Args:
        client: an `httpx.AsyncClient` to use (not closed by `aclose()`); by default one is
            created per event loop and closed by `aclose()`.
        timeout: seconds to wait for a connection and between two chunks of the body. Agent
            runs can pause for a long time while a model thinks, so the default is generous.
        retries: how many times to resend a request whose pooled connection turned out to be
            dead before any byte of the response arrived (servers such as pydantic-ai close
            keep-alive connections after an error response; httpx then reads from a dead
            socket).
    """

    def __init__(self, client: httpx.AsyncClient | None = None, *, timeout: float = 300.0, retries: int = 1) -> None:
        self._client = client
        self._owns_client = client is None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self.timeout = timeout
        self.retries = retries

    def _get_client(self) -> httpx.AsyncClient:
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - httpx is a test dependency
            raise TransportError(
                "HttpxTransport needs httpx, which is not installed. On CPython install it with "
                "`pip install 'pyclient-agui[cpython]'`; in the page, import pyclient.browser (it provides the fetch "
                "transport); or pass a transport with `Agent(..., transport=...)`."
            ) from exc
        if not self._owns_client:
            assert self._client is not None  # given by the caller, never cleared
            return self._client
        loop = asyncio.get_running_loop()
        # An AsyncClient's pool is bound to the loop that created it (each asyncio.run()
        # has its own), so a transport reused across loops gets a fresh client.
        if self._client is None or self._client_loop is not loop:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 30.0)))
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._owns_client and self._client is not None:
            client, self._client = self._client, None
            try:
                await client.aclose()
            except RuntimeError:  # created on another, closed loop: nothing left to release
                pass

    async def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[bytes]:
        import httpx

        client = self._get_client()
        attempt = 0
        while True:
            signal.throw_if_aborted()
            received = 0
            answered = False  # response headers arrived: resending could run the agent twice
            try:
                async with client.stream(
                    request.method, request.url, headers=dict(request.headers), content=request.body
                ) as response:
                    answered = True
                    if not 200 <= response.status_code < 300:
                        body = await _read_excerpt(response)
                        raise http_error(request, response.status_code, body,
                                         upstream=response.headers.get(UPSTREAM_HEADER))
                    check_event_stream(request, response.status_code, response.headers.get("content-type"))
                    async for chunk in response.aiter_bytes():
                        received += len(chunk)
                        yield chunk
                        if signal.aborted:
                            raise RunAborted(signal.reason)
                return
            except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as exc:
                if not answered and attempt < self.retries and not signal.aborted:
                    attempt += 1
                    logger.info("pyclient: retrying %s after %r on a pooled connection", request.url, exc)
                    continue
                cause = f"{type(exc).__name__}: {exc}"
                if received:
                    raise connection_dropped(request, received, cause) from exc
                raise connection_failed(request, cause, before_response=True) from exc
            except httpx.HTTPError as exc:
                raise connection_failed(request, f"{type(exc).__name__}: {exc}") from exc


async def _read_excerpt(response: httpx.Response) -> str:
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > BODY_EXCERPT * 4:
                break
    except Exception:  # the body of an error response is best-effort
        logger.debug("pyclient: could not read the error response body", exc_info=True)
    return b"".join(chunks).decode("utf-8", "replace")
