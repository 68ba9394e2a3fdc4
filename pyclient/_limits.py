"""`Limits`: how large the files an agent's threads send and keep may be.

Checked before anything is sent or added: a file over `max_attachment_bytes`, or a message's
files over `max_message_bytes` together, is refused with an `AttachmentError` that names the
file and the limit. A saved thread (`store=`) keeps each file up to `max_stored_file_bytes`;
a larger one is kept as a text part that names it (the chat shows "not kept").

```python
from pyclient._limits import Limits

limits = Limits(max_attachment_bytes=2_000_000)
print(limits.max_attachment_bytes, limits.max_message_bytes)   # 2000000 20000000
```
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ._errors import ConfigurationError

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    """The size limits of an `Agent`'s threads, in bytes (decimal: 10 MB is 10,000,000).

    Attributes:
        max_attachment_bytes: one file the user attaches (10 MB).
        max_message_bytes: all the files of one message together (20 MB).
        max_stored_file_bytes: one file a saved thread keeps with its bytes (10 MB).
    """

    max_attachment_bytes: int = 10_000_000
    max_message_bytes: int = 20_000_000
    max_stored_file_bytes: int = 10_000_000

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigurationError(
                    f"{field.name}={value!r} is not a size in bytes. Pass an int >= 0, e.g. "
                    f"{field.name}={field.default:_}."
                )
