"""pyclient's browser bridge: the only package that imports `js`, `pyodide` or `pyscript`.

Imported by `pyclient` itself when it runs in Pyodide. It plugs the page's pieces into the
core: the fetch transport (streamed `ReadableStream` reads) as the default transport, real
JS `AbortController`s behind `AbortSignal.js`, threads and registrations that follow DOM
elements, and log records sent to the JS console.

```python
from pyscript import document
from pyclient import Agent
from pyclient.browser import Chat, FetchTransport   # FetchTransport is already the default

agent = Agent("main", url="/agent")
chat = Chat(agent.thread("#chat"), document.querySelector("#chat"))
```
"""

from __future__ import annotations

# Aliased: importing a submodule of this package binds its name here, so the core modules
# must not share names with ours (`_abort` is both).
from .. import _abort as _core_abort
from .. import _agent as _core_agent
from .. import _scopes as _core_scopes
from .. import _transport as _core_transport
from . import _console, _mount
from . import _elements
from ._abort import js_controller
from ._chat import Chat
from ._fetch import FetchTransport
from ._elements import ElementRegistration

__all__ = ["Chat", "ElementRegistration", "FetchTransport"]

_core_abort._js_controller_factory = js_controller
_core_transport._default_transport_factory = FetchTransport
_core_agent._mount_thread = _elements.mount_thread
_core_scopes._use_agent_tool = _elements.use_agent_tool
_core_scopes._use_tool = _elements.use_tool
# The MutationObserver reports a removal a microtask later; a snapshot must not wait for it.
_core_scopes._before_snapshot = _mount.check
_console.install()
