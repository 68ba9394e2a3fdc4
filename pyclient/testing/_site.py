"""Serving the author's folder of pages with the offline runtime, and the agent path routed to a scripted agent.

`Site` serves what `pyclient serve` would, so a test sees the page as it will run: the runtime
(`/pyodide/…`, `/pyscript/…`), pyclient's page files (`/pyclient/…`), `/pyscript.json` (the
folder's own, else `pyclient.server.page_config()`) and the author's folder, each HTML page with
a worker script (or asked for with `?pyclient-worker=1`: `pyclient.testing._worker_pages`) with
the cross-origin isolation a worker needs; `POST <agent_path>` (default `/agent`) reaches the
current `ScriptedAgent` (`site.agent`), so the page's `Agent(url="/agent")` needs no change.
`site.page_headers` are sent with every HTML page besides: the headers your host sends, such as
a `Content-Security-Policy`. Each path: docs/testing.md ("The fixtures").

```python
from pathlib import Path
from pyclient.testing import ScriptedAgent, ServerThread, Site
import httpx

site = Site(Path("web"), Path("runtime"))
site.agent = ScriptedAgent()
site.agent.on("hello").say("Hi")
site.page_headers = {"Content-Security-Policy": "default-src 'self'"}
with ServerThread(site) as server:
    print(httpx.post(server.url + "/agent", json={}).status_code)   # 422
    print(httpx.get(server.url + "/index.html").headers["content-security-policy"])   # default-src 'self'
```
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ._server import ASGIApp, Message, Receive, Scope, Send, agent_app
from ._worker_pages import serve_worker_page

if TYPE_CHECKING:
    from ._scripted import ScriptedAgent

__all__ = ["Site"]

# Pyodide's files are pinned by version, so browsers may keep them a day; the lock keeps
# its name while its content changes, so it always revalidates.
RUNTIME_MAX_AGE = 86400


class Site:
    """An ASGI app: a folder of pages, the runtime at `/pyodide/` and `/pyscript/`, and the agent path.

    Args:
        root: the author's folder of pages.
        runtime: a built runtime folder (`pyclient.server.build()`), holding `pyodide/` and `pyscript/`.
        agent_path: the path the pages' `Agent(url=...)` posts to.

    Attributes:
        agent: the `ScriptedAgent` that answers `POST agent_path` (the plugin sets the current
            test's); while None the path answers 503.
        url: `http://127.0.0.1:<port>` while the plugin serves it, else None.
        page_headers: headers added to every HTML page's response (a `Content-Security-Policy`,
            say); a test that sets them on the plugin's shared site clears them after.
    """

    def __init__(self, root: Path, runtime: Path, agent_path: str = "/agent") -> None:
        from pyclient.server import ASSETS, StaticDir

        self.root, self.agent_path = root, agent_path
        self.agent: ScriptedAgent | None = None
        self.url: str | None = None
        self.page_headers: dict[str, str] = {}
        self._mounts: list[tuple[str, ASGIApp]] = [
            ("/pyodide", StaticDir(runtime / "pyodide", max_age=RUNTIME_MAX_AGE,
                                   no_cache=frozenset({"pyodide-lock.json"}))),
            ("/pyscript", StaticDir(runtime / "pyscript", max_age=RUNTIME_MAX_AGE)),
            ("/pyclient", StaticDir(ASSETS)),
            ("", StaticDir(root)),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if self.page_headers:
            send = _with_page_headers(send, self.page_headers)
        path = scope["path"]
        if path == self.agent_path:
            if self.agent is None:
                await _plain(send, 503, f"No scripted agent answers {self.agent_path} now: use the "
                                        "`scripted_agent` fixture in the test.")
                return
            await agent_app(self.agent, self.agent_path)(scope, receive, send)
            return
        if path == "/pyscript.json" and not (self.root / "pyscript.json").is_file():
            from pyclient.server import page_config

            await _plain(send, 200, json.dumps(page_config()), "application/json")
            return
        if await serve_worker_page(self.root, scope, send):
            return
        for prefix, app in self._mounts:
            if path == prefix or path.startswith(prefix + "/"):
                await app({**scope, "root_path": prefix}, receive, send)
                return


def _with_page_headers(send: Send, headers: dict[str, str]) -> Send:
    """`send`, adding `headers` to the start of an HTML response."""
    extra = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            own = list(message.get("headers", []))
            if any(name.lower() == b"content-type" and value.startswith(b"text/html") for name, value in own):
                message = {**message, "headers": [*own, *extra]}
        await send(message)

    return sending


async def _plain(send: Send, status: int, text: str, media_type: str = "text/plain; charset=utf-8") -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", media_type.encode())]})
    await send({"type": "http.response.body", "body": text.encode()})
