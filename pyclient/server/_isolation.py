"""Cross-origin isolation for pages that run Python in a PyScript worker: which pages need it, and the headers that give it.

A `<script type="py" worker>` (or `type="mpy"`, or `<py-script worker>`) reaches the page's
`document` through a `SharedArrayBuffer`, which browsers give only to a cross-origin isolated
page: two headers on its own response make it so (`ISOLATION_HEADERS`: COOP `same-origin`,
COEP `credentialless`). They cost something (a popup to another origin loses
`window.opener`), so only the pages that need them get them: `runs_python_in_worker(html)`
tells such a page (`pyclient serve` sends the headers to those), `worker_pages(folder)` finds
them in a folder, and `headers_file(pages)` writes a `_headers` file for Netlify and Cloudflare
Pages (`pyclient vendor`). The runtime's own responses need none: PyScript starts its worker
from a `blob:` URL, which takes the page's policies. Why each header: docs/deployment.md
("Worker mode").

```python
from pyclient.server._isolation import headers_file, page_paths, runs_python_in_worker

print(runs_python_in_worker('<script type="py" worker src="main.py"></script>'))   # True
print(runs_python_in_worker('<script type="py" src="main.py"></script>'))          # False
print(page_paths("guides/index.html"))        # ['/guides/', '/guides/index.html']
print(headers_file(["chat.html"]).count("Cross-Origin-Embedder-Policy: credentialless"))   # 2
```
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal
from urllib.parse import quote

__all__ = ["HEADERS_NAME", "ISOLATION_HEADERS", "CoiMode", "headers_file", "page_paths", "runs_python_in_worker",
           "worker_pages"]

CoiMode = Literal["auto", "always", "never"]
"""When `pyclient serve` isolates a page: "auto" the pages with a worker script, "always" every
response (`--coi`), "never" none (`--no-coi`)."""

ISOLATION_HEADERS = (
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Embedder-Policy", "credentialless"),
)
"""The headers that make a page cross-origin isolated, as (name, value)."""

HEADERS_NAME = "_headers"
"""The file of response headers that Netlify and Cloudflare Pages read at the top of a site."""

# PyScript 0.7's interpreters, by the `type` of their scripts and the prefix of their tags.
_TYPES = ("py", "mpy")
_HTML = (".html", ".htm")


class _WorkerScripts(HTMLParser):
    """Notes whether any `<script type="py|mpy" worker>` or `<py-script worker>` is in the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name: value or "" for name, value in attrs}
        kind = names.get("type", "").strip().lower() if tag == "script" else tag.removesuffix("-script")
        if kind in _TYPES and "worker" in names:
            self.found = True


def runs_python_in_worker(html: str) -> bool:
    """Whether the page `html` has a PyScript worker script, and so needs cross-origin isolation.

    A worker started from Python (`pyscript.PyWorker(...)`) is not seen here: serve such a page
    with `pyclient serve --coi`.
    """
    found = _WorkerScripts()
    found.feed(html)
    found.close()
    return found.found


def page_paths(page: str) -> list[str]:
    """The URL paths a static host answers with the page `page` (relative to the site's top, `/`-separated).

    `index.html` is also its folder's path; `x.html` is also `x`, the "pretty URL" Netlify and
    Cloudflare Pages serve it at.
    """
    path = "/" + quote(page)
    folder, _, name = path.rpartition("/")
    if name == "index.html":
        return [folder + "/", path]
    if name.endswith(".html"):
        return [path, path.removesuffix(".html")]
    return [path]


def headers_file(pages: Iterable[str]) -> str:
    """A `_headers` file that isolates the worker pages `pages` (paths relative to the site's top)."""
    lines = [
        "# Written by pyclient vendor: cross-origin isolation for the pages that run Python in a worker",
        '# (<script type="py" worker>), read by Netlify and Cloudflare Pages. Run pyclient vendor again',
        "# after adding such a page; on other hosts, send these headers for it in the host's own way.",
    ]
    listed = sorted(pages)
    if not listed:
        lines.append("# No page of the folder has a worker script yet.")
    for page in listed:
        for path in page_paths(page):
            lines += ["", path, *(f"  {name}: {value}" for name, value in ISOLATION_HEADERS)]
    return "\n".join(lines) + "\n"


def worker_pages(root: Path, skip: Collection[str] = ()) -> list[str]:
    """The pages under `root` that run Python in a worker, relative to it and `/`-separated, sorted.

    Folders named in `skip` (at the top: the runtime's) and hidden ones are not searched.
    """
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] in skip or any(part.startswith(".") for part in rel.parts):
            continue
        if path.suffix.lower() in _HTML and path.is_file() \
                and runs_python_in_worker(path.read_text(encoding="utf-8", errors="replace")):
            found.append(rel.as_posix())
    return found
