"""What the chat says about a failed run: the error bubble's sentence and the console line.

Two readers, two texts. The person at the page reads `error_text(error)` in the error bubble:
what happened in plain words, and "try again" only where trying again can help (a network
failure, a 5xx but 501, a 408 or a 429; never another 4xx, where the agent URL or the page is
what needs fixing, nor a 405 or 501, a static server's "no POST here"; an error of the agent
behind `pyclient serve --agent` names that flag). The page's author reads `console_line(thread_id, error)` in devtools and the
error itself in the bubble's "Details": the URL, the status, the server's answer and the fix
(worded by the transports, `pyclient._wire._transport`). An answer that is not an event stream (a
login page) points at the agent URL or what is in front of the server, never "try again".
Only where the agent server's log holds the cause (a 5xx, a `RUN_ERROR`) do they point at it.
Pure functions: the unit tests go over every branch on CPython.

```python
from pyclient._wire._transport import Request, http_error
from pyclient.browser._widgets._error_words import console_line, error_text

error = http_error(Request("/agnet"), 404, "Not Found")
print(error_text(error))           # The assistant's server answered with an error (HTTP 404): the agent URL may be wrong. Check it, and its path.
print(console_line("t1", error))   # pyclient: the run of thread t1 failed: TransportError: The agent at /agnet answered HTTP 404: ...
```
"""

from __future__ import annotations

from ..._base._errors import (
    FollowUpLimitError,
    RemoteProtocolError,
    RunError,
    TransportError,
    clause,
)
from ..._wire._transport import AGUI_PROTOBUF

__all__ = ["console_line", "error_text"]


def error_text(error: BaseException | None) -> str:
    """What the error bubble tells the person at the page about `error` (`thread.error`)."""
    if isinstance(error, TransportError):
        return _transport_text(error)
    if isinstance(error, FollowUpLimitError):
        return "The assistant kept calling tools without finishing, so it was stopped. Try again or rephrase."
    if isinstance(error, RunError):
        return "The assistant ran into a problem and could not answer. Try again."
    if isinstance(error, RemoteProtocolError):
        return "The assistant's reply could not be read. Try again."
    return "Something went wrong and the assistant could not answer. Try again."


def _transport_text(error: TransportError) -> str:
    status = error.status
    if error.content_type is not None:  # a 2xx that is not an event stream: retrying cannot help
        media_type = error.content_type.split(";")[0].strip().lower()
        if media_type == AGUI_PROTOBUF:
            return ("The assistant's server answered in AG-UI's binary format, which this page does not "
                    "read: the server must send an event stream. The details say how.")
        what = ("a web page (text/html)" if media_type == "text/html"
                else f"something else ({media_type})" if media_type else "something else (no content type)")
        return (f"The assistant's server answered with {what}, not the assistant's reply: the agent URL "
                "may be wrong, or a login page or a proxy is in between. Check the agent URL.")
    if error.upstream and status is not None and 400 <= status < 500 and status not in (408, 429):
        return (f"The agent behind this page's server (`pyclient serve --agent`) answered with an error "
                f"(HTTP {status}): that --agent URL may be wrong. Check it; the details name it.")
    if status is None:
        if error.cross_origin:  # a CORS refusal and a server that is down look the same
            return ("The assistant could not be reached: its server may be down, or it may not allow "
                    "this page (CORS: the details say how to allow it). Check your connection and try again.")
        return "The assistant could not be reached. Check your connection and try again."
    if status in (405, 501):  # a static file server refuses POST: the URL, not the moment, is wrong
        return (f"The server at the agent URL does not take POST requests (HTTP {status}): it is not an "
                "assistant's server (a static file server answers so). Point the agent URL at the agent server.")
    if status >= 500:
        return f"The assistant's server answered with an error (HTTP {status}). Try again in a moment."
    if status == 429:
        return "The assistant's server is busy (HTTP 429). Try again in a moment."
    if status == 408:
        return "The assistant's server gave up waiting for the request (HTTP 408). Try again in a moment."
    if status == 404:
        return ("The assistant's server answered with an error (HTTP 404): the agent URL may be "
                "wrong. Check it, and its path.")
    if status in (401, 403):
        return (f"The assistant's server refused the request (HTTP {status}): it expects credentials "
                "this page did not send.")
    if 400 <= status < 500:
        return f"The assistant's server refused the request (HTTP {status}); the details say why."
    return f"The assistant's server answered HTTP {status}, which is not an assistant's answer. Check the agent URL."


def console_line(thread_id: str, error: BaseException) -> str:
    """The line the chat writes to the console for a failed run: the error's type and its
    whole message (one full stop at the end, whatever the message ended with)."""
    return f"pyclient: the run of thread {thread_id} failed: {type(error).__name__}: {clause(str(error))}."
