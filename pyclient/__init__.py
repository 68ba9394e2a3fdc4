"""pyclient: client tools for AG-UI agents, in browser Python.

Register tools with `@client_tool`, bind an AG-UI endpoint with `Agent`, mount threads on
DOM elements; when the model calls a tool, its handler runs in the page and the result goes
back to the agent in a follow-up run.

```python
from pyclient import client_tool

@client_tool
def change_background(background: str) -> str:
    \"\"\"Change the page background. Accepts any CSS background value.\"\"\"
    return f"background is now {background}"

print(change_background.to_agui_tool().model_dump_json())
```
"""

from ._abort import AbortController, AbortSignal
from ._actions import Action
from ._agent import Agent
from ._context import ToolContext
from ._errors import (
    ConfigurationError,
    FollowUpLimitError,
    LocalProtocolError,
    ProtocolError,
    PyClientError,
    RemoteProtocolError,
    RunAborted,
    RunError,
    ToolError,
    TransportError,
)
from ._events import UnknownEvent
from ._scopes import Registration, use_client_tool
from ._thread import Thread, ThreadEvent
from ._tools import ClientTool, ToolResult, client_tool
from ._transport import HttpxTransport, MockTransport, Request, Transport

__version__ = "0.1.0"

__all__ = [
    "AbortController",
    "AbortSignal",
    "Action",
    "Agent",
    "ClientTool",
    "ConfigurationError",
    "FollowUpLimitError",
    "HttpxTransport",
    "LocalProtocolError",
    "MockTransport",
    "ProtocolError",
    "PyClientError",
    "Registration",
    "RemoteProtocolError",
    "Request",
    "RunAborted",
    "RunError",
    "Thread",
    "ThreadEvent",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "Transport",
    "TransportError",
    "UnknownEvent",
    "client_tool",
    "use_client_tool",
]

import logging as _logging

# A library's logger stays silent until the application configures logging.
_logging.getLogger("pyclient").addHandler(_logging.NullHandler())

# In Pyodide the browser bridge plugs in the fetch transport and JS abort signals. Detected
# explicitly (never by trying `import js`), and CPython never imports the bridge.
import sys as _sys

if _sys.platform == "emscripten":
    from . import browser as _browser  # noqa: F401
