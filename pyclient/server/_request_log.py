"""The log `pyclient serve` writes: one line per agent run and per request it could not serve, with the cause; no header value, key or body.

An agent run is one INFO line (WARNING for `RUN_ERROR`): its status, time, how it ended and its
tool calls; a request it could not serve (a failed run, a path not served, a POST elsewhere, a
refused CORS preflight) is a WARNING with the cause, and a client that hung up mid-body an INFO
line. The only header values it shows are a preflight's `Origin` and requested method: the flag
that allows them takes exactly those. Endpoints add a cause with `note(text)` (an exception
with `describe_error(exc)`); it reaches the line of the request being served through a context
variable the middleware sets, so elsewhere (a test's own app) `note` does nothing. The runs'
own words come from `RunRecord`; the logger keeps each line on one line and hides secrets
(`pyclient.server._server_log`). Each kind of line: docs/deployment.md.

```python
import asyncio
from pyclient.server._request_log import RequestLog, note

async def app(scope, receive, send):
    note("the folder has no such page")
    await send({"type": "http.response.start", "status": 404, "headers": []})
    await send({"type": "http.response.body", "body": b""})

async def main():
    async def receive():
        return {"type": "http.request", "body": b""}
    async def send(message):
        pass
    await RequestLog(app)({"type": "http", "method": "GET", "path": "/x", "headers": []}, receive, send)

asyncio.run(main())   # logs "GET /x 404 in 0.00 s: the folder has no such page" (logger "pyclient.server")
```
"""

from __future__ import annotations

import http
import logging
import time
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._run_log import RunRecord
from ._server_log import logger

__all__ = ["RequestLog", "describe_error", "note", "safe_url"]

# Bytes of an agent request read for its tool names; a larger body gets 413 from the endpoint.
_MAX_READ = 1_000_000
# Longer paths and origins are cut in a line.
_MAX_SHOWN = 200

_CAUSES: ContextVar[list[str] | None] = ContextVar("pyclient_request_causes", default=None)


def note(cause: str) -> None:
    """Say why the request being served failed: the text ends its log line (nothing happens outside `RequestLog`)."""
    causes = _CAUSES.get()
    if causes is not None:
        causes.append(cause)


def safe_url(url: object) -> str:
    """`url` without what may carry a secret: no user or password, no query, no fragment."""
    parts = urlsplit(str(url))
    if not parts.scheme or not parts.hostname:
        return parts.path
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"


def describe_error(error: BaseException) -> str:
    """An exception and what caused it, in one line: its type, each distinct message down the chain, and the URL of
    the request that failed, if one did (`ModelConnectionError: Connection error.: ... (POST http://...)`)."""
    messages: list[str] = []
    request = ""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen and len(seen) < 10:
        seen.add(id(current))
        text = str(current).strip() or type(current).__name__
        if text not in messages:
            messages.append(text)
        if not request:
            try:  # httpx's errors raise RuntimeError for a request they were not given
                method, url = current.request.method, current.request.url  # type: ignore[attr-defined]
                request = f" ({method} {safe_url(url)})"
            except (AttributeError, RuntimeError):
                pass
        # The context too when `from None` hid it: httpx's connection errors keep the errno there.
        current = current.__cause__ or current.__context__
    return f"{type(error).__name__}: {': '.join(messages)}{request}"


def _cut(text: str, limit: int = _MAX_SHOWN) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class _Exchange:
    """What passed through for one request: the body read so far (agent runs only) and the response's start."""

    causes: list[str] = field(default_factory=list)
    body: list[bytes] = field(default_factory=list)
    read: int = 0
    received: int = 0  # body bytes received, of any request
    body_done: bool = False  # its last body message arrived
    status: int = 0
    media_type: str = ""
    cors: bool = False  # the response carried Access-Control-Allow-Origin
    done: bool = False  # the response's last byte was sent
    hung_up: bool = False  # the client left before that


def _headers(scope_or_message: Scope | Message) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope_or_message.get("headers", [])}


class RequestLog:
    """ASGI middleware: logs each agent run and each request that failed, in one line, when it ends.

    Args:
        app: the app to log.
        agent_path: the agent's path; a POST there is a run, and a POST elsewhere names it.
        allow_origins: the origins CORS allows (`--allow-origin`), to tell a refused origin from a refused method.
    """

    def __init__(self, app: ASGIApp, *, agent_path: str = "/agent", allow_origins: Sequence[str] = ()) -> None:
        self.app = app
        self.agent_path = agent_path
        self.allow_origins = tuple(allow_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], _cut(scope["path"])
        run = RunRecord(f"{method} {path}") if method == "POST" and scope["path"] == self.agent_path else None
        seen = _Exchange()
        token = _CAUSES.set(seen.causes)
        started = time.perf_counter()

        async def logged_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                seen.received += len(message.get("body", b""))
                seen.body_done = not message.get("more_body", False)
            if message["type"] == "http.request" and run is not None and seen.read < _MAX_READ:
                seen.body.append(message.get("body", b""))
                seen.read += len(seen.body[-1])
            elif message["type"] == "http.disconnect" and not seen.done:
                seen.hung_up = True
            return message

        async def logged_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                seen.status = message["status"]
                headers = _headers(message)
                seen.media_type = headers.get("content-type", "").split(";")[0].strip()
                seen.cors = "access-control-allow-origin" in headers
            elif message["type"] == "http.response.body":
                if run is not None and seen.media_type == "text/event-stream":
                    run.feed(message.get("body", b""))
                if not message.get("more_body", False):
                    seen.done = True
            try:
                await send(message)
            except OSError:  # ASGI 2.4 servers raise on a send after the client left
                seen.hung_up = True
                raise

        try:
            await self.app(scope, logged_receive, logged_send)
        except Exception as exc:
            seen.status = seen.status or 500
            seen.causes.append("the server failed: " + describe_error(exc))
            raise
        finally:
            _CAUSES.reset(token)
            status = f" {seen.status}" if seen.status else ""  # none: nothing was answered
            head = f"{method} {path}{status} in {time.perf_counter() - started:.2f} s"
            if run is not None:
                run.read_request(b"".join(seen.body))
            self._log(scope, head, seen, run)

    def _log(self, scope: Scope, head: str, seen: _Exchange, run: RunRecord | None) -> None:
        if seen.hung_up and not seen.status and not seen.body_done:  # `HungUpClients` ended it quietly
            declared = _headers(scope).get("content-length", "")
            of = f" of its {declared}" if declared.isdigit() else ""
            logger.info("%s: the client hung up after %d%s body bytes; nothing was answered",
                        head, seen.received, of)
            return
        cause = "; ".join(seen.causes)
        if run is not None and 200 <= seen.status < 300:
            if seen.media_type != "text/event-stream":
                logger.warning("%s: answered %s, not text/event-stream", head, seen.media_type or "no content type")
                return
            level = logging.WARNING if run.error is not None else logging.INFO
            logger.log(level, "%s: %s%s", head, run.summary(hung_up=seen.hung_up), f"; cause: {cause}" if cause else "")
            return
        request_headers = _headers(scope)
        origin = request_headers.get("origin")
        wanted = request_headers.get("access-control-request-method")
        if scope["method"] == "OPTIONS" and origin and wanted and (seen.status != 200 or not seen.cors):
            origin = _cut(origin)
            if self._allowed(origin):
                cause = (f"refused the CORS preflight from origin {origin}: the origin is allowed, "
                         f"but not the method {_cut(wanted, 20)} (GET and POST are)")
            else:
                cause = (f"refused the CORS preflight from origin {origin}: pass --allow-origin {origin} "
                         "to let its pages call this server")
        elif seen.status < 400:
            return
        elif not cause and scope["method"] == "POST" and seen.status in (404, 405) \
                and scope["path"] != self.agent_path:
            cause = f"only POST {self.agent_path} takes a POST here"
        elif not cause:
            cause = _phrase(seen.status)
        logger.log(self._level(scope, seen.status), "%s: %s", head, cause)

    @staticmethod
    def _level(scope: Scope, status: int) -> int:
        """WARNING, but DEBUG (`-v`) for the browser's own 404s: the icon, devtools' `/.well-known/` files."""
        if status == 404 and (scope["path"] == "/favicon.ico" or scope["path"].startswith("/.well-known/")):
            return logging.DEBUG
        return logging.WARNING

    def _allowed(self, origin: str) -> bool:
        return "*" in self.allow_origins or origin in self.allow_origins


def _phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return f"status {status}"
