"""pyclient's exceptions, one tree.

```
PyClientError
├── ConfigurationError      a tool or registration that can never work (raised at decoration)
├── ProtocolError
│   ├── LocalProtocolError  the caller misused the API (wrong state, unknown id)
│   └── RemoteProtocolError the server sent a stream pyclient cannot read
├── TransportError          the request failed: HTTP status, dropped connection
├── RunAborted              a run or a tool execution was aborted (stop, unmount, resolution)
└── ToolError               a tool call ended in error (the message goes to the model)
```

```python
from pyclient import ConfigurationError, client_tool

try:
    @client_tool
    def bad(x):            # no type hint
        ...
except ConfigurationError as exc:
    print(exc)             # names the parameter and the fix
```
"""

from __future__ import annotations

__all__ = [
    "ConfigurationError",
    "LocalProtocolError",
    "ProtocolError",
    "PyClientError",
    "RemoteProtocolError",
    "RunAborted",
    "ToolError",
    "TransportError",
]


class PyClientError(Exception):
    """Base class of every error pyclient raises."""


class ConfigurationError(PyClientError, ValueError):
    """A tool definition or registration that can never work; raised at decoration time."""


class ProtocolError(PyClientError):
    """The AG-UI conversation went somewhere it cannot go."""


class LocalProtocolError(ProtocolError):
    """The caller used the API in a state that does not allow it."""


class RemoteProtocolError(ProtocolError):
    """The server sent something that is not a readable AG-UI stream."""


class TransportError(PyClientError):
    """The HTTP request failed.

    `status` is the HTTP status (None when the connection itself failed) and `body` an
    excerpt of the response body, so the UI can show what the server said.
    """

    def __init__(self, message: str, *, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class RunAborted(PyClientError):
    """A run or a tool execution was aborted; `reason` says why."""

    def __init__(self, reason: object = None) -> None:
        super().__init__(f"aborted: {reason}" if reason is not None else "aborted")
        self.reason = reason


class ToolError(PyClientError):
    """A tool call ended in error; the message is what the model receives."""
