"""The app `pyclient serve` runs: a folder of pages, the offline runtime and an AG-UI agent at `/agent`.

It serves the folder (`Pages`), the runtime (`/pyodide/`, `/pyscript/`), pyclient's page files
(`/pyclient/`), `/pyscript.json` (the folder's own, else `page_config()`) and `POST /agent`: the
embedded agent, or with `agent_url` that AG-UI server through a streaming proxy, so pages
always post to `/agent` on their own origin whichever agent answers. `allow_origins` adds CORS
for pages served elsewhere. `coi` says which responses carry the cross-origin isolation
headers a `<script type="py" worker>` needs: by default the pages that have one, and nothing
else (a main-thread page keeps its popups); "always" or "never". `RequestLog` wraps it all: one
log line per agent run and per failed request, with the cause; a client that hung up mid-body
is one INFO line, never a traceback. What it serves and logs: docs/deployment.md.

```python
from pathlib import Path
from starlette.testclient import TestClient
from pyclient.server import create_app

app = create_app(Path("web"), Path("runtime"))
print(TestClient(app).get("/pyscript.json").json()["packages"])   # ['pyclient-agui']
```
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._wire._transport import UPSTREAM_HEADER
from ._isolation import ISOLATION_HEADERS, CoiMode
from ._page_errors import STARTUP_ERROR_PATH, startup_error
from ._pages import Pages
from ._request_log import RequestLog, describe_error, note, safe_url
from ._runtime import ASSETS
from ._static import StaticDir
from ._vendor import CONFIG_NAME, config_text

__all__ = ["RUNTIME_MAX_AGE", "BodyTimeout", "CrossOriginIsolation", "HungUpClients", "create_app", "proxy_endpoint"]

# Pyodide's files are pinned by version, so browsers may keep them a day; the lock keeps
# its name while its content changes, so it always revalidates.
RUNTIME_MAX_AGE = 86400
# Headers the proxy passes on: the body's type, what the client accepts, its credentials.
_FORWARDED = ("content-type", "accept", "authorization")


class BodyTimeout:
    """Answers 408 to a request whose body has not fully arrived `seconds` after the app asked for it.

    A client that trickles its body (or stops sending it) would otherwise hold a connection
    and a task for as long as it likes. The app sees a disconnect; what it sends afterwards
    is dropped.
    """

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        deadline: float | None = None
        body_done = response_started = timed_out = False
        loop = asyncio.get_running_loop()

        async def timed_receive() -> Message:
            nonlocal deadline, body_done, timed_out
            if body_done or timed_out:
                return await receive() if not timed_out else {"type": "http.disconnect"}
            if deadline is None:
                deadline = loop.time() + self.seconds
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except asyncio.TimeoutError:
                timed_out = True
                note(f"the request body did not arrive within {self.seconds:g} s (--body-timeout)")
                if not response_started:
                    await send({"type": "http.response.start", "status": 408, "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]})
                    await send({"type": "http.response.body", "body": (
                        f"Request Timeout: the request body did not arrive within {self.seconds:g} s."
                    ).encode()})
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal response_started
            if timed_out:
                return  # the 408 is the response
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, timed_receive, guarded_send)
        except Exception:
            if not timed_out:
                raise
            # The app's own error about the disconnect it was handed: the client has its 408.


class HungUpClients:
    """Ends a request quietly when its client hung up in the middle of the body (a closed tab, a
    `thread.stop()` while the body was on its way, a dropped connection).

    Starlette reads the body for an endpoint and raises `ClientDisconnect` when the server says
    the client left; its error middleware would then answer 500 to nobody and uvicorn log the
    traceback as an ERROR. Placed inside Starlette, before that middleware, this ends the
    request without a response, and `RequestLog` writes its one line (INFO, no traceback).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:
            pass  # nobody is left to answer, and it is no failure of the server's


class CrossOriginIsolation:
    """Adds `ISOLATION_HEADERS` to every response (`pyclient serve --coi`), so every page is cross-origin isolated."""

    _HEADERS = [(name.lower().encode(), value.encode()) for name, value in ISOLATION_HEADERS]

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self._HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class _Config:
    """`GET /pyscript.json`: the folder's own file, else the default page config."""

    def __init__(self, root: Path, static: StaticDir) -> None:
        self.root, self.static = root, static

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (self.root / CONFIG_NAME).is_file():
            await self.static(scope, receive, send)
            return
        response = Response(config_text(), media_type="application/json", headers={"cache-control": "no-cache"})
        await response(scope, receive, send)


def proxy_endpoint(url: str, *, max_body_bytes: int = 1_000_000) -> Any:
    """A Starlette endpoint that forwards the request body to the AG-UI server at `url` and streams
    its answer back as it arrives (status, content type and body; 502 when it cannot be reached).

    Hand-written over httpx because Starlette has no proxy; the upstream response is closed when
    the stream ends or the browser goes away (`thread.stop()`). The request's log line gets the
    upstream's status when it is an error (never its body), or why it could not be reached.
    """
    import httpx

    shown = safe_url(url)

    async def endpoint(request: Request) -> Response:
        body = await request.body()
        if len(body) > max_body_bytes:
            note(f"the request body exceeds --max-body ({max_body_bytes} bytes)")
            return JSONResponse({"detail": f"Request body exceeds the limit of {max_body_bytes} bytes."},
                                status_code=413)
        headers = {name: request.headers[name] for name in _FORWARDED if name in request.headers}
        client = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0))
        try:
            upstream = await client.send(client.build_request("POST", url, content=body, headers=headers),
                                         stream=True)
        except httpx.HTTPError as exc:
            await client.aclose()
            note(f"the agent at {shown} (--agent) cannot be reached: {describe_error(exc)}")
            return JSONResponse({"detail": f"The agent at {url} cannot be reached: {exc}"}, status_code=502)

        async def close() -> None:
            await upstream.aclose()
            await client.aclose()

        passed = {name: upstream.headers[name] for name in ("content-type", "cache-control") if name in upstream.headers}
        if upstream.status_code >= 400:
            note(f"the agent at {shown} (--agent) answered {upstream.status_code} {upstream.reason_phrase}")
            passed[UPSTREAM_HEADER] = shown  # the chat names --agent, not the page's /agent
        return StreamingResponse(upstream.aiter_bytes(), status_code=upstream.status_code, headers=passed,
                                 background=BackgroundTask(close))

    return endpoint


def create_app(
    root: Path,
    runtime: Path,
    *,
    model: str | None = None,
    agent_url: str | None = None,
    coi: CoiMode = "auto",
    allow_origins: Sequence[str] = (),
    max_body_bytes: int = 1_000_000,
    body_timeout: float = 30.0,
    extra_routes: Sequence[BaseRoute] = (),
) -> ASGIApp:
    """The `pyclient serve` app.

    Args:
        root: the folder of pages.
        runtime: a built runtime folder (`build()`), holding `pyodide/` and `pyscript/`.
        model: a pydantic-ai model ("PROVIDER:NAME") for the embedded agent; None is the
            deterministic demo model.
        agent_url: another AG-UI server: `/agent` forwards to it, and no agent is embedded.
        coi: which responses are cross-origin isolated (COOP/COEP, for PyScript workers): "auto"
            the pages with a `<script type="py" worker>`, "always" every response, "never" none.
        allow_origins: origins (or "*") whose pages may call this server (CORS).
        max_body_bytes: larger agent requests get 413.
        body_timeout: seconds a request body may take to arrive once the app reads it; a
            slower one gets 408.
        extra_routes: more Starlette routes, placed first (tests add endpoints here).

    Returns:
        An ASGI app.
    """
    if agent_url is not None:
        agent: Any = proxy_endpoint(agent_url, max_body_bytes=max_body_bytes)
    else:
        from ._agent import (
            agent_endpoint,  # pydantic-ai: only when an agent is embedded
        )

        agent = agent_endpoint(model, max_body_bytes=max_body_bytes)
    if coi not in ("auto", "always", "never"):
        raise ValueError(f"coi={coi!r} is not a mode: pass \"auto\", \"always\" or \"never\".")
    pages = Pages(root, isolate_workers=coi == "auto")
    routes = [
        *extra_routes,
        Route("/agent", agent, methods=["POST"]),
        Mount("/pyodide", app=StaticDir(runtime / "pyodide", max_age=RUNTIME_MAX_AGE,
                                        no_cache=frozenset({"pyodide-lock.json"}))),
        Mount("/pyscript", app=StaticDir(runtime / "pyscript", max_age=RUNTIME_MAX_AGE)),
        Route(STARTUP_ERROR_PATH, startup_error, methods=["POST"]),  # a page's start-up error, logged
        # No max-age: the files keep their names from one pyclient to the next.
        Mount("/pyclient", app=StaticDir(ASSETS)),
        Route(f"/{CONFIG_NAME}", _Config(root, pages.static), methods=["GET", "HEAD"]),
        Mount("/", app=pages),
    ]
    app: ASGIApp = BodyTimeout(Starlette(routes=routes, middleware=[Middleware(HungUpClients)]), body_timeout)
    if allow_origins:
        app = CORSMiddleware(app, allow_origins=list(allow_origins), allow_methods=["GET", "POST"],
                             allow_headers=["*"])
    return RequestLog(CrossOriginIsolation(app) if coi == "always" else app, allow_origins=allow_origins)
