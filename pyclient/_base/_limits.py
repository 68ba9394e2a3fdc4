"""`Limits`: how large what an agent's threads send, keep and read may be.

Files are checked before anything is sent or added: a file over `max_attachment_bytes`, or a
message's files over `max_message_bytes` together, is refused with an `AttachmentError` that
names the file and the limit. A saved thread (`store=`) keeps each file up to
`max_stored_file_bytes`; a larger one is kept as a text part that names it (the chat shows
"not kept"). A tool's result (a handler's, or an output the page submits) is cut to
`max_result_chars`, with a note the model reads saying so (`ToolResult.within`); a request
body over `max_request_bytes` is not sent (`RequestTooLargeError`), and an event of the
response over `max_event_chars` fails its run (`RemoteProtocolError`): a hostile or broken
server cannot make the page hold an endless event.

The rest are fixed, what no well-behaved server or page comes near, so that a hostile one
cannot make the page work for minutes: `MAX_DOCUMENT_CHARS` and `MAX_PATCH_COPY_CHARS` for a
thread's shared state and each activity's content (JSON Patch can copy a document into itself,
doubling it with each operation), `MAX_SCHEMA_STEPS` for checking an answer against a schema
the server sent.

```python
from pyclient._base._limits import Limits

limits = Limits(max_attachment_bytes=2_000_000)
print(limits.max_attachment_bytes, limits.max_message_bytes)   # 2000000 20000000
print(limits.max_result_chars, limits.max_request_bytes, limits.max_event_chars)   # 1000000 50000000 50000000
```
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ._errors import ConfigurationError

__all__ = ["MAX_DOCUMENT_CHARS", "MAX_PATCH_COPY_CHARS", "MAX_SCHEMA_STEPS", "Limits"]

MAX_DOCUMENT_CHARS = 10_000_000
"""The largest shared state, or content of one activity, a thread keeps: its size as JSON text
(estimated: characters of its strings and keys, and a few per value). Each request carries
them back. A server's `STATE_SNAPSHOT`, `ACTIVITY_SNAPSHOT` or patch that makes one larger is
refused; the depth bound is `pyclient._base._json.MAX_DOCUMENT_DEPTH`."""

MAX_PATCH_COPY_CHARS = 1_000_000
"""The most one JSON Patch (one `STATE_DELTA` or `ACTIVITY_DELTA`, or `thread.update_state()`)
may copy and move deeper, in total, in the same units: a `copy` costs as much work as the
value it copies, whose size its operation does not show, so a patch of a few hundred bytes
could otherwise make the page copy gigabytes."""

MAX_SCHEMA_STEPS = 20_000
"""The most schemas visited to check one answer against an interrupt's `responseSchema`
(`pyclient._tools._json_schema`): a form's answer takes tens, a list of a thousand rows a few
thousand; a schema whose `$ref`s and `allOf`/`anyOf` multiply each other would otherwise take
hours."""


@dataclass(frozen=True)
class Limits:
    """The size limits of an `Agent`'s threads: bytes (decimal: 10 MB is 10,000,000) or characters.

    Attributes:
        max_attachment_bytes: one file the user attaches (10 MB).
        max_message_bytes: all the files of one message together (20 MB).
        max_stored_file_bytes: one file a saved thread keeps with its bytes (10 MB).
        max_result_chars: the text of one tool result (1,000,000 characters); a longer one
            is cut there and ends with a note saying so.
        max_request_bytes: one request body, the whole conversation as sent (50 MB).
        max_event_chars: one event of the response while it arrives (50,000,000 characters:
            a `MESSAGES_SNAPSHOT` repeats the history, files included).
    """

    max_attachment_bytes: int = 10_000_000
    max_message_bytes: int = 20_000_000
    max_stored_file_bytes: int = 10_000_000
    max_result_chars: int = 1_000_000
    max_request_bytes: int = 50_000_000
    max_event_chars: int = 50_000_000

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                unit = "characters" if field.name.endswith("_chars") else "bytes"
                raise ConfigurationError(
                    f"{field.name}={value!r} is not a size in {unit}. Pass an int >= 0, e.g. "
                    f"{field.name}={field.default:_}."
                )
