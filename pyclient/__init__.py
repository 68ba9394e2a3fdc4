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

from ._api._agent import Agent
from ._api._saved_threads import SavedThreads
from ._api._thread import Thread
from ._base._abort import AbortController, AbortSignal
from ._base._errors import (
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
from ._base._listeners import ThreadEvent
from ._base._store import (
    FileStore,
    GuardedStore,
    ListingStore,
    MemoryStore,
    RecordStore,
    Store,
)
from ._binding._platform import Platform
from ._binding._scopes import Registration
from ._conversation._action_handle import Action
from ._conversation._branches import BranchPoint
from ._conversation._feedback import Rating
from ._conversation._interrupt_handle import Interrupt
from ._conversation._lifecycle import CallStatusName, InterruptStatusName, RunStatus
from ._conversation._parts import ToolPart, ToolPartState
from ._conversation._subagents import Subagent
from ._driver._summaries import ThreadSummary
from ._environment import use_client_tool
from ._tools._client_tool import ClientTool, client_tool
from ._tools._context import ToolContext
from ._tools._media import Attachment, Audio, Document, Image, Video
from ._tools._results import ToolResult
from ._wire._events import UnknownEvent
from ._wire._transport import HttpxTransport, MockTransport, Request, Transport

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
