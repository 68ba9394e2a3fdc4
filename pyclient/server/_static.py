"""Static files for pyclient's servers: right MIME types, gzip, ETags and cache headers.

Starlette's `StaticFiles` sends no gzip and `GZipMiddleware` recompresses Pyodide's wasm on
every request, so this serves files gzipped once and kept in
memory, keyed by path, size and mtime. A path it has no file for is noted, with the folder,
for the request's log line (`RequestLog`); `on_file` sees each file it serves and may add
headers to its response (`pyclient serve` reads its HTML pages there, and isolates those that
run Python in a worker).

```python
from pathlib import Path
from starlette.applications import Starlette
from starlette.routing import Mount
from pyclient.server import StaticDir

app = Starlette(routes=[Mount("/", app=StaticDir(Path("web")))])
print(StaticDir(Path("web"), max_age=60).max_age)   # 60
```
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from collections.abc import Callable, Mapping
from email.utils import formatdate
from pathlib import Path

from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

from ._request_log import note

__all__ = ["StaticDir"]

# What the browser needs for module scripts and streaming wasm compilation.
MIME = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".css": "text/css",
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".toml": "text/plain; charset=utf-8",
    ".py": "text/x-python; charset=utf-8",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".svg": "image/svg+xml",
}
# Zips and wheels are already deflated; gzip would only cost time.
COMPRESSIBLE = {".wasm", ".mjs", ".js", ".css", ".html", ".json", ".map", ".toml", ".py", ".svg"}
MIN_GZIP_SIZE = 1024
# Longer paths are refused (414) before they reach the file system (which fails on them).
MAX_PATH_LENGTH = 1024


class StaticDir:
    """An ASGI app serving one folder.

    Args:
        root: the folder.
        max_age: seconds a browser may reuse a file without asking; 0 means revalidate every
            time (ETag → 304), which is right for pages that change while you edit them.
        no_cache: file names that always revalidate whatever `max_age` says (a lock file whose
            name never changes while its content does).
        on_file: called with the request's scope and the file before each file is served; the
            headers it returns (or None) are added to the response.
    """

    def __init__(self, root: Path, *, max_age: int = 0, no_cache: frozenset[str] = frozenset(),
                 on_file: Callable[[Scope, Path], Mapping[str, str] | None] | None = None) -> None:
        self.root = root.resolve()
        self.max_age = max_age
        self.no_cache = no_cache
        self.on_file = on_file
        self._gz: dict[Path, tuple[tuple[int, int], bytes]] = {}

    def _resolve(self, rel: str) -> Path | None:
        try:
            path = (self.root / rel.lstrip("/")).resolve()
            if path != self.root and self.root not in path.parents:
                return None  # a `..` that escapes the folder
            if path.is_dir():
                path = path / "index.html"
            return path if path.is_file() else None
        except (OSError, ValueError):  # a name the file system refuses: no such file
            return None

    def _gzipped(self, path: Path, key: tuple[int, int]) -> bytes:
        cached = self._gz.get(path)
        if cached is None or cached[0] != key:
            # Level 6: within a few percent of level 9's size at a third of the time.
            cached = (key, gzip.compress(path.read_bytes(), compresslevel=6, mtime=0))
            self._gz[path] = cached
        return cached[1]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await PlainTextResponse("Method Not Allowed", status_code=405)(scope, receive, send)
            return
        # Under a Mount, Starlette keeps the full path and puts the prefix in root_path.
        route_path = scope["path"].removeprefix(scope.get("root_path", ""))
        if "\0" in route_path:
            await PlainTextResponse("Bad Request: a NUL byte in the path", status_code=400)(scope, receive, send)
            return
        if len(route_path) > MAX_PATH_LENGTH:
            await PlainTextResponse(f"URI Too Long: paths are at most {MAX_PATH_LENGTH} characters",
                                    status_code=414)(scope, receive, send)
            return
        path = self._resolve(route_path)
        if path is None:
            note(f"no such file in {self.root}")
            await PlainTextResponse("Not Found", status_code=404)(scope, receive, send)
            return
        added = self.on_file(scope, path) if self.on_file is not None else None
        stat = path.stat()
        key = (stat.st_size, stat.st_mtime_ns)
        etag = '"' + hashlib.md5(f"{path}:{key}".encode()).hexdigest() + '"'
        suffix = path.suffix.lower()
        max_age = 0 if path.name in self.no_cache else self.max_age
        headers = {
            "etag": etag,
            "last-modified": formatdate(stat.st_mtime, usegmt=True),
            "cache-control": f"public, max-age={max_age}" if max_age else "no-cache",
            "vary": "accept-encoding",
            **(added or {}),
        }
        request_headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if etag in request_headers.get("if-none-match", ""):
            await Response(status_code=304, headers=headers)(scope, receive, send)
            return
        media_type = MIME.get(suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        wants_gzip = "gzip" in request_headers.get("accept-encoding", "")
        if wants_gzip and suffix in COMPRESSIBLE and stat.st_size >= MIN_GZIP_SIZE:
            body = self._gzipped(path, key)
            headers["content-encoding"] = "gzip"
            response: Response = Response(body, media_type=media_type, headers=headers)
        else:
            response = FileResponse(path, media_type=media_type, headers=headers, stat_result=stat)
        await response(scope, receive, send)
