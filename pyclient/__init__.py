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
from ._branches import BranchPoint
from ._context import ToolContext
from ._errors import (
    AttachmentError,
    ConfigurationError,
    FollowUpLimitError,
    InterruptError,
    LocalProtocolError,
    ProtocolError,
    PyClientError,
    RemoteProtocolError,
    RequestTooLargeError,
    RunAborted,
    RunError,
    ToolError,
    TransportError,
)
from ._environment import use_client_tool
from ._events import UnknownEvent
from ._feedback import Rating
from ._interrupt import Interrupt
from ._media import Attachment, Audio, Document, Image, Video
from ._parts import ToolPart, ToolPartState
from ._platform import Platform
from ._scopes import Registration
from ._lifecycle import CallStatusName, InterruptStatusName, RunStatus
from ._store import FileStore, GuardedStore, ListingStore, MemoryStore, RecordStore, Store
from ._saved_threads import SavedThreads
from ._subagents import Subagent
from ._summaries import ThreadSummary
from ._listeners import ThreadEvent
from ._thread import Thread
from ._results import ToolResult
from ._tools import ClientTool, client_tool
from ._transport import HttpxTransport, MockTransport, Request, Transport

__version__ = "0.1.0"

__all__ = [
    "AbortController",
    "AbortSignal",
    "Action",
    "Agent",
    "Attachment",
    "AttachmentError",
    "Audio",
    "BranchPoint",
    "CallStatusName",
    "ClientTool",
    "ConfigurationError",
    "Document",
    "FileStore",
    "FollowUpLimitError",
    "GuardedStore",
    "HttpxTransport",
    "Image",
    "Interrupt",
    "InterruptError",
    "InterruptStatusName",
    "ListingStore",
    "LocalProtocolError",
    "MemoryStore",
    "MockTransport",
    "Platform",
    "ProtocolError",
    "PyClientError",
    "Rating",
    "RecordStore",
    "Registration",
    "RemoteProtocolError",
    "Request",
    "RequestTooLargeError",
    "RunAborted",
    "RunError",
    "RunStatus",
    "SavedThreads",
    "Store",
    "Subagent",
    "Thread",
    "ThreadEvent",
    "ThreadSummary",
    "ToolContext",
    "ToolError",
    "ToolPart",
    "ToolPartState",
    "ToolResult",
    "Transport",
    "TransportError",
    "UnknownEvent",
    "Video",
    "client_tool",
    "use_client_tool",
]

import logging as _logging

# A library's logger stays silent until the application configures logging (in the page,
# `pyclient.browser.log_to_console()` sends it to devtools).
_logging.getLogger("pyclient").addHandler(_logging.NullHandler())
