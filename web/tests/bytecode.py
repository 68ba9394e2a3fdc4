"""Imports pyclient (as the demo's boot does) and notes each module compiled from source on the way.

tests/e2e/test_bytecode_in_page.py reads `<html data-compiled>` (site-packages paths, space-separated),
`data-cached` (pyclient's bytecode file, if the import system found one), `data-traceback`
(a traceback through a pyclient function: its source line is shown, so the sources are still
there), and the same for the standard library (`data-stdlib`: the file `json` came from, and
`data-stdlib-traceback`).

```python
# runs in the page only: web/tests/bytecode.html
```
"""

import importlib.machinery
import traceback

compiled: list[str] = []
_source_to_code = importlib.machinery.SourceFileLoader.source_to_code


def _noting(self, data, path, *args, **kwargs):
    compiled.append(str(path).rpartition("site-packages/")[2])
    return _source_to_code(self, data, path, *args, **kwargs)


importlib.machinery.SourceFileLoader.source_to_code = _noting

import pyclient  # noqa: E402
import pydantic_core  # noqa: E402,F401  (compiled from source: its wheel has no bytecode)
from pyclient.browser import Chat  # noqa: E402,F401
from pyclient.browser.toolkit import notify_tool  # noqa: E402,F401
from pyscript import document  # noqa: E402

try:
    pyclient.client_tool(42)
except Exception:
    shown = traceback.format_exc()
import json  # noqa: E402  (from the standard library's zip)

try:
    json.loads("{")
except ValueError:
    shown_stdlib = traceback.format_exc()

root = document.documentElement
root.dataset.compiled = " ".join(sorted(compiled))
root.dataset.cached = pyclient.__spec__.cached or ""
root.dataset.traceback = shown
root.dataset.stdlib = json.__file__
root.dataset.stdlibTraceback = shown_stdlib
root.dataset.pyclient = "ready"
