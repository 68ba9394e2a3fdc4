"""The dev server's ASGI app: the demo pages, the browser runtime and the embedded agent.

| path | what |
| --- | --- |
| `POST /agent` | the embedded AG-UI agent (pydantic-ai `AGUIAdapter`) |
| `/pyodide/…` | Pyodide core, the wheels and the local `pyodide-lock.json` |
| `/pyscript/…` | PyScript's `dist/` |
| `/…` | `web/` (pages, config, demo) |

```python
import uvicorn
from devserver.app import create_app

uvicorn.run(create_app(), host="127.0.0.1", port=8000)
```
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .assets import ROOT, RUNTIME
from .static import StaticDir

__all__ = ["WEB", "create_app"]

WEB = ROOT / "web"
# Pyodide's files are pinned by version, so browsers may keep them a day; the lock keeps
# its name while its content changes, so it always revalidates.
RUNTIME_MAX_AGE = 86400


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


class CrossOriginIsolation:
    """Adds COOP/COEP so `<script type="py" worker>` gets SharedArrayBuffer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    (b"cross-origin-opener-policy", b"same-origin"),
                    (b"cross-origin-embedder-policy", b"require-corp"),
                    (b"cross-origin-resource-policy", b"same-origin"),
                ]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(
    *,
    web: Path = WEB,
    runtime: Path = RUNTIME,
    model: str | None = None,
    coi: bool = False,
    max_body_bytes: int = 1_000_000,
    body_timeout: float = 30.0,
    extra_routes: list | None = None,
) -> ASGIApp:
    """Build the dev server app.

    Args:
        web: the folder of pages.
        runtime: the folder `devserver.assets.build()` filled.
        model: a pydantic-ai model name (`PROVIDER:NAME`); None is the deterministic demo model.
        coi: send COOP/COEP headers (cross-origin isolation, for PyScript workers).
        max_body_bytes: larger agent requests get 413.
        body_timeout: seconds a request body may take to arrive once the app reads it; a
            slower one gets 408.
        extra_routes: more Starlette routes, placed first (tests add endpoints here).

    Returns:
        An ASGI app.
    """
    from .agent import agent_endpoint

    routes = [
        *(extra_routes or []),
        Route("/agent", agent_endpoint(model, max_body_bytes=max_body_bytes), methods=["POST"]),
        Mount("/pyodide", app=StaticDir(runtime / "pyodide", max_age=RUNTIME_MAX_AGE,
                                        no_cache=frozenset({"pyodide-lock.json"}))),
        Mount("/pyscript", app=StaticDir(runtime / "pyscript", max_age=RUNTIME_MAX_AGE)),
        Mount("/", app=StaticDir(web)),
    ]
    app: ASGIApp = BodyTimeout(Starlette(routes=routes), body_timeout)
    return CrossOriginIsolation(app) if coi else app
