"""A page served for worker mode: its Python in a PyScript worker, the page cross-origin isolated.

The site serves any of its HTML pages this way when asked with `?pyclient-worker=1`
(`PyclientPage.open(path, worker=True)`): each `<script type="py">` gains the `worker`
attribute, and the response the headers a worker's `pyscript.document` needs
(`Cross-Origin-Opener-Policy: same-origin`, `Cross-Origin-Embedder-Policy: credentialless`),
so one page is tested in both modes without a copy. A page that has a worker script of its
own gets the headers without asking. `Site` serves its folder this way, and `WorkerPages` puts
the same in front of any other ASGI app of pages (this repository's dev server in its tests).

```python
from pyclient.testing._worker_pages import WORKER_QUERY, as_worker_page, has_worker_script, worker_path

page = b'<script type="py" src="main.py" config="pyscript.json"></script>'
print(as_worker_page(page).decode())       # <script type="py" worker src="main.py" config="pyscript.json"></script>
print(has_worker_script(as_worker_page(page)), worker_path("/chat.html?theme=dark"))
# True /chat.html?theme=dark&pyclient-worker=1
```
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ._server import ASGIApp, Receive, Scope, Send

__all__ = ["ISOLATION_HEADERS", "WORKER_QUERY", "WorkerPages", "as_worker_page", "has_worker_script",
           "serve_worker_page", "worker_path"]

WORKER_QUERY = "pyclient-worker=1"
"""The query that asks the site for a page in worker mode."""

ISOLATION_HEADERS = [(b"cross-origin-opener-policy", b"same-origin"),
                     (b"cross-origin-embedder-policy", b"credentialless")]
"""What a worker page's response carries (credentialless: no CORP headers needed elsewhere)."""

_SCRIPT_TAG = re.compile(rb"<script\b[^>]*>", re.IGNORECASE)
_PYTHON = re.compile(rb"""\stype\s*=\s*["']?m?py["'\s>]""", re.IGNORECASE)
_WORKER = re.compile(rb"""\sworker(?:[\s=>]|$)""", re.IGNORECASE)


def _is_python(tag: bytes) -> bool:
    return _PYTHON.search(tag) is not None


def as_worker_page(html: bytes) -> bytes:
    """`html` with each `<script type="py">` (or `mpy`) that has no `worker` given it."""
    def add(match: re.Match[bytes]) -> bytes:
        tag = match.group(0)
        if not _is_python(tag) or _WORKER.search(tag[:-1] + b" "):
            return tag
        return tag.replace(b'type="py"', b'type="py" worker', 1) if b'type="py"' in tag \
            else b"<script worker" + tag[len(b"<script"):]

    return _SCRIPT_TAG.sub(add, html)


def worker_path(path: str) -> str:
    """`path` with the query that asks for the page in worker mode (before any `#fragment`)."""
    base, hash_, fragment = path.partition("#")
    return base + ("&" if "?" in base else "?") + WORKER_QUERY + hash_ + fragment


def has_worker_script(html: bytes) -> bool:
    """Whether `html` has a `<script type="py" worker>` (or `mpy`)."""
    return any(_is_python(tag) and _WORKER.search(tag[:-1] + b" ") for tag in _SCRIPT_TAG.findall(html))


async def serve_worker_page(root: Path, scope: Scope, send: Send,
                            headers: Sequence[tuple[bytes, bytes]] = ()) -> bool:
    """Answer a GET or HEAD of an HTML page of `root` that runs in worker mode: asked for with
    `WORKER_QUERY`, or with a worker script of its own. False for anything else, left to the caller.
    `headers` are added to the page's (those its server would send with it)."""
    if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
        return False
    name = scope["path"].lstrip("/") or "index.html"
    if name.endswith("/"):
        name += "index.html"
    file = root / name
    if not name.endswith(".html") or ".." in Path(name).parts or not file.is_file():
        return False
    html = file.read_bytes()
    asked = WORKER_QUERY.encode() in scope.get("query_string", b"").split(b"&")
    if not asked and not has_worker_script(html):
        return False
    body = as_worker_page(html) if asked else html
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/html; charset=utf-8"), (b"cache-control", b"no-cache"),
                            *ISOLATION_HEADERS, *headers]})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
    return True


class WorkerPages:
    """ASGI middleware: `app`'s HTML pages of `root` in worker mode when asked (`serve_worker_page`),
    with `headers` (those `app` sends with its pages: `pyclient serve`'s Server-Timing mark, say)."""

    def __init__(self, app: ASGIApp, root: Path, *, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
        self.app, self.root, self.headers = app, root, tuple(headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not await serve_worker_page(self.root, scope, send, self.headers):
            await self.app(scope, receive, send)
