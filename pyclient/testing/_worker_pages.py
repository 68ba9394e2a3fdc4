"""A page served for worker mode: its Python in a PyScript worker, the page cross-origin isolated.

The site serves any of its HTML pages this way when asked with `?pyclient-worker=1`
(`PyclientPage.open(path, worker=True)`): each `<script type="py">` gains the `worker`
attribute, and the response the headers a worker's `pyscript.document` needs
(`Cross-Origin-Opener-Policy: same-origin`, `Cross-Origin-Embedder-Policy: credentialless`),
so one page is tested in both modes without a copy. A page that has a worker script of its
own gets the headers without asking.

```python
from pyclient.testing._worker_pages import WORKER_QUERY, as_worker_page, has_worker_script

page = b'<script type="py" src="main.py" config="pyscript.json"></script>'
print(as_worker_page(page).decode())       # <script type="py" worker src="main.py" config="pyscript.json"></script>
print(has_worker_script(as_worker_page(page)), WORKER_QUERY)     # True pyclient-worker=1
```
"""

from __future__ import annotations

import re

__all__ = ["ISOLATION_HEADERS", "WORKER_QUERY", "as_worker_page", "has_worker_script"]

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


def has_worker_script(html: bytes) -> bool:
    """Whether `html` has a `<script type="py" worker>` (or `mpy`)."""
    return any(_is_python(tag) and _WORKER.search(tag[:-1] + b" ") for tag in _SCRIPT_TAG.findall(html))
