"""The author's folder as `pyclient serve` shows it: its files, a page that says what to do when it has no index.html, a warning for a page that would be blank offline, and isolation for pages that run Python in a worker.

- `GET /` on a folder without `index.html` answers a small HTML page (404) that says so, links
  the folder's other pages, and names the command that writes a starter: `pyclient new DIR`.
- Each HTML page served is read once (again when it changes) with `blank_page_reason()`; a page
  whose interpreter would come from a CDN is logged once, as a WARNING on logger
  "pyclient.server": `index.html would be a blank page offline: its <script type="py"> has no config=, ...`.
  Its local config is read as this server answers it: the folder's own file, else the default
  `/pyscript.json`.
- With `isolate_workers`, a page with a PyScript worker script (`runs_python_in_worker()`) is
  answered with `ISOLATION_HEADERS` (COOP `same-origin`, COEP `credentialless`), and any other
  page without them: COOP would cut a main-thread page off from the popups it opens.

```python
from pathlib import Path
from starlette.testclient import TestClient
from pyclient.server._pages import Pages

print(TestClient(Pages(Path("no-such-folder"))).get("/").status_code)   # 404
```
"""

from __future__ import annotations

import html
import shlex
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

from starlette.responses import HTMLResponse
from starlette.types import Receive, Scope, Send

from ._isolation import ISOLATION_HEADERS, runs_python_in_worker
from ._page_check import blank_page_reason
from ._page_errors import SERVE_MARK
from ._request_log import note
from ._server_log import logger
from ._static import StaticDir
from ._vendor import CONFIG_NAME, config_text

__all__ = ["Pages", "starter_page"]

# Larger pages are not read for the blank-page check.
_MAX_PAGE = 2_000_000
# Pages of the folder linked from the page shown instead of a missing index.html.
_MAX_LINKS = 20
_HTML = (".html", ".htm")


def starter_page(folder: str, pages: list[str]) -> str:
    """The HTML shown at `/` when `folder` (as the command line named it) has no index.html."""
    command = f"pyclient new {shlex.quote(folder)}"
    links = "".join(f'<li><a href="{quote(page)}">{html.escape(page)}</a></li>' for page in pages)
    others = f"<p>Pages in the folder:</p><ul>{links}</ul>" if links else ""
    return f"""<!doctype html>
<html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>No index.html in {html.escape(folder)}</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}}
code{{background:#eee;padding:.1em .3em;border-radius:3px}}</style>
<h1>No index.html in <code>{html.escape(folder)}</code></h1>
<p><code>pyclient serve</code> serves this folder, but it has no <code>index.html</code> to show here.</p>
<p>To write a starter page (index.html, main.py with a tool and a chat, a test, pyscript.json), run</p>
<pre><code>{html.escape(command)}</code></pre>
<p>and reload this page.</p>
{others}</html>
"""


class Pages:
    """An ASGI app serving the author's folder (`StaticDir`), with the starter page and the blank-page warning.

    Args:
        root: the folder, named in the starter page as given (`Path(".")` shows `.`).
        isolate_workers: send `ISOLATION_HEADERS` with the pages that run Python in a worker.
    """

    def __init__(self, root: Path, *, isolate_workers: bool = False) -> None:
        self.root = root
        self.isolate_workers = isolate_workers
        self.static = StaticDir(root, on_file=self._on_file)
        self._read: dict[Path, int] = {}  # page -> the mtime it was read at
        self._warned: set[Path] = set()
        self._workers: dict[Path, tuple[int, bool]] = {}  # page -> (its mtime, has a worker script)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route_path = scope["path"].removeprefix(scope.get("root_path", ""))
        if scope["method"] in ("GET", "HEAD") and route_path in ("", "/") \
                and not (self.static.root / "index.html").is_file():
            folder = str(self.root)
            note(f"{folder} has no index.html: `pyclient new {shlex.quote(folder)}` writes a starter page")
            pages = sorted(p.name for p in self.static.root.glob("*") if p.suffix.lower() in _HTML and p.is_file())
            response = HTMLResponse(starter_page(folder, pages[:_MAX_LINKS]), status_code=404,
                                    headers={"cache-control": "no-cache"})
            await response(scope, receive, send)
            return
        await self.static(scope, receive, send)

    def _on_file(self, scope: Scope, path: Path) -> dict[str, str] | None:
        if path.suffix.lower() not in _HTML:
            return None
        self._read_page(scope, path)
        headers = {"server-timing": SERVE_MARK}  # the page's renderer.js reports start-up errors here
        if self.isolate_workers and self._has_worker(path):
            headers.update(ISOLATION_HEADERS)
        return headers

    def _has_worker(self, path: Path) -> bool:
        mtime = path.stat().st_mtime_ns
        known = self._workers.get(path)
        if known is None or known[0] != mtime:
            known = (mtime, runs_python_in_worker(path.read_text(encoding="utf-8", errors="replace")))
            self._workers[path] = known
        return known[1]

    def _read_page(self, scope: Scope, path: Path) -> None:
        if path in self._warned:
            return
        stat = path.stat()
        if self._read.get(path) == stat.st_mtime_ns or stat.st_size > _MAX_PAGE:
            return
        self._read[path] = stat.st_mtime_ns
        page_url: str = scope["path"]
        host = next((v.decode("latin-1") for k, v in scope["headers"] if k.lower() == b"host"), "")

        def read_config(url: str) -> str | None:
            target = urlsplit(urljoin(page_url, url.strip())).path
            file = (self.static.root / target.lstrip("/")).resolve()
            if self.static.root not in file.parents:
                return None
            if file.is_file():
                return file.read_text(encoding="utf-8", errors="replace")
            return config_text() if target == f"/{CONFIG_NAME}" else None  # the default this server answers

        reason = blank_page_reason(path.read_text(encoding="utf-8", errors="replace"), read_config=read_config,
                                   hosts=[host] if host else [])
        if reason:
            self._warned.add(path)
            page = path.relative_to(self.static.root).as_posix()
            logger.warning("%s would be a blank page offline: %s. See \"Blank page\" in pyclient's troubleshooting "
                           "guide (docs/troubleshooting.md).", page, reason)
