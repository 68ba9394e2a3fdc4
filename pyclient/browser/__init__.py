"""pyclient's browser bridge: the only package that imports `js`, `pyodide` or `pyscript`.

Imported by `pyclient` itself when it runs in Pyodide. It plugs the page's pieces into the
core: the fetch transport (streamed `ReadableStream` reads) as the default transport, and
real JS `AbortController`s behind `AbortSignal.js`.

```python
from pyclient.browser import FetchTransport     # already the default transport in the page
```
"""

from __future__ import annotations

from .. import _abort, _transport
from . import _console
from ._abort import js_controller
from ._chat import Chat
from ._fetch import FetchTransport

__all__ = ["Chat", "FetchTransport"]

_abort._js_controller_factory = js_controller
_transport._default_transport_factory = FetchTransport
_console.install()
