"""`Limits`: how large what an agent's threads send, keep and read may be.

The `Agent(...)` size arguments are held here, so that a hostile or broken handler, page or
server cannot make a thread send, keep or read without end: a file over a limit is refused
before anything is sent (`AttachmentError`), a saved thread keeps a file too large as a text
part naming it, a tool result is cut with a note the model reads, a request body too large is
not sent (`RequestTooLargeError`) and an event too large fails its run. The fixed limits
(`MAX_DOCUMENT_CHARS`, `MAX_PATCH_COPY_CHARS` for the shared state and activities,
`MAX_SCHEMA_STEPS` for checking an answer against a server's schema) are far past what a
well-behaved peer reaches. Each limit, its default and what happens past it:
docs/troubleshooting.md ("Size limits").

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
