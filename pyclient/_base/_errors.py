"""pyclient's exceptions, one tree.

Every error pyclient raises is a `PyClientError`, so a page can catch them all in one
`except`; below it, each kind names who is at fault: a tool or registration that can never
work (`ConfigurationError`), the caller's use of the API (`LocalProtocolError`), the server's
stream (`RemoteProtocolError`), the request (`TransportError`), the agent's run (`RunError`).
Each message says what happened, why, and the fix. The whole tree, with what each one means:
docs/troubleshooting.md ("pyclient's exceptions").

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
    "AttachmentError",
    "CLOSED_HINT",
    "ConfigurationError",
    "FollowUpLimitError",
    "InterruptError",
    "LocalProtocolError",
    "ProtocolError",
    "PyClientError",
    "RemoteProtocolError",
    "RequestTooLargeError",
    "RunAborted",
    "RunError",
    "ToolError",
    "TransportError",
    "clause",
]


CLOSED_HINT = "the thread is closed; create a new one with `agent.thread()`."
"""How every "the thread is closed" error ends: what to do instead."""


def clause(text: object) -> str:
    """`text` without the full stop it may end with, to go inside a sentence of ours.

    What others wrote (a server's error, a provider's message, a response body) may end with a
    period or not; every sentence pyclient builds around it adds its own, once
    ("Connection error." + "." would read "Connection error..").
    """
    return str(text).rstrip().rstrip(".").rstrip()


class PyClientError(Exception):
    """Base class of every error pyclient raises."""


class ConfigurationError(PyClientError, ValueError):
    """A tool definition or registration that can never work; raised when it is made (a type
    hint with no JSON Schema: when the tool's schema is first needed, see `ClientTool.build_schema`)."""


class ProtocolError(PyClientError):
    """The AG-UI conversation went somewhere it cannot go."""


class LocalProtocolError(ProtocolError):
    """The caller used the API in a state that does not allow it."""


class RemoteProtocolError(ProtocolError):
    """The server sent something that is not a readable AG-UI stream."""


class TransportError(PyClientError):
    """The HTTP request failed.

    `status` is the HTTP status (None when the connection itself failed) and `body` an
    excerpt of the response body, so the UI can show what the server said. `cross_origin` is
    True when a request to another origin than the page's failed without a response: the
    browser may have refused it for CORS, and says so to no one but its own console.
    `content_type` is the Content-Type of a 2xx answer that was not an event stream (a login
    page's `text/html`; "" when it had none), None for every other failure. `upstream` is the
    URL of the agent `pyclient serve --agent` forwards to, when that agent gave the error status
    (the proxy says so in a header), else None.
    """

    def __init__(self, message: str, *, status: int | None = None, body: str = "", cross_origin: bool = False,
                 content_type: str | None = None, upstream: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.cross_origin = cross_origin
        self.content_type = content_type
        self.upstream = upstream


class RequestTooLargeError(PyClientError):
    """A run's request body is larger than `Agent(max_request_bytes=...)`; it was not sent.

    Every request carries the whole conversation (its files too), so it fails the run (and
    `await thread.run()` would fail again) until the limit is raised or a new thread starts.

    Attributes:
        size: the body's size in bytes.
        limit: the limit it went over (`max_request_bytes`).
    """

    def __init__(self, url: str, size: int, limit: int) -> None:
        super().__init__(
            f"The request to {url} is {size:,} bytes, over this agent's max_request_bytes of {limit:,}: it "
            "was not sent. Each request carries the whole conversation, files included: start a new "
            "thread, or raise `Agent(max_request_bytes=...)` (the server must accept the size too)."
        )
        self.size = size
        self.limit = limit


class RunAborted(PyClientError):
    """A run or a tool execution was aborted; `reason` says why."""

    def __init__(self, reason: object = None) -> None:
        super().__init__(f"aborted: {reason}" if reason is not None else "aborted")
        self.reason = reason


class RunError(PyClientError):
    """The agent ended a run with `RUN_ERROR`; `message` and `code` are the server's."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(
            f"The agent reported an error: {clause(message)}" + (f" (code {code})" if code else "")
            + ". See the agent server's log for the cause; `await thread.run()` retries."
        )
        self.message = message
        self.code = code


class FollowUpLimitError(RunError):
    """The agent called client tools in `follow_ups` follow-up runs in a row; pyclient stopped.

    Attributes:
        follow_ups: how many automatic follow-up runs were sent.
        tool_names: the names of the tools the last run called (sorted).
    """

    def __init__(self, follow_ups: int, tool_names: list[str]) -> None:
        message = (
            f"Stopped after {follow_ups} automatic follow-up runs in a row: the agent kept "
            f"calling tools ({', '.join(tool_names)}). Check the agent's instructions, or raise "
            "`thread.max_follow_ups`."
        )
        # Not RunError.__init__: the agent reported nothing, pyclient stopped the loop.
        PyClientError.__init__(self, message)
        self.message = message
        self.code = None
        self.follow_ups = follow_ups
        self.tool_names = tool_names


class ToolError(PyClientError):
    """A tool call ended in error; the message is what the model receives."""


class InterruptError(PyClientError, ValueError):
    """An interrupt's answer was refused before anything was sent: it does not fit the
    interrupt's `response_schema`, or the interrupt expired.

    Attributes:
        errors: one line per field that is wrong ("approved: must be a boolean, got a string").
    """

    def __init__(self, message: str, errors: list[str] | None = None) -> None:
        super().__init__(message)
        self.errors = list(errors or [])


class AttachmentError(PyClientError, ValueError):
    """A file cannot be attached or returned: it is over a size limit, not a file pyclient can
    read, or its type cannot be told. Raised before anything is sent or added.

    Attributes:
        filename: the file's name, when it has one.
        limit: the limit in bytes it went over, for a size error.
    """

    def __init__(self, message: str, *, filename: str | None = None, limit: int | None = None) -> None:
        super().__init__(message)
        self.filename = filename
        self.limit = limit
