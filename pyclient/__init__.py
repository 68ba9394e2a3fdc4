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
from ._context import ToolContext
from ._errors import (
    ConfigurationError,
    LocalProtocolError,
    ProtocolError,
    PyClientError,
    RemoteProtocolError,
    RunAborted,
    ToolError,
    TransportError,
)

__version__ = "0.1.0"

__all__ = [
    "AbortController",
    "AbortSignal",
    "ConfigurationError",
    "LocalProtocolError",
    "ProtocolError",
    "PyClientError",
    "RemoteProtocolError",
    "RunAborted",
    "ToolContext",
    "ToolError",
    "TransportError",
]
