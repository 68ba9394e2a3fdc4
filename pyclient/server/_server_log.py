"""The logger of `pyclient serve` ("pyclient.server") and the rules each of its lines follows: one line, no secret.

A filter on the logger rewrites every record once its %-args are merged:

- **one line**: control characters become `?`. A path, an origin or a tool name is the client's
  or the agent's text, and a `%0A` in a URL must not start a line that looks like the server's.
- **no secret**: the value of every environment variable named like a key, token, secret or
  password (at least 8 characters) is shown as `***`. A provider's error may quote the key it
  was sent, and an agent's `RUN_ERROR` may too.

`excerpt(value)` is how a value appears in a line: JSON on one line, cut at `EXCERPT` characters.

```python
import logging, os
from pyclient.server._server_log import excerpt, logger

os.environ["EXAMPLE_API_KEY"] = "sk-example-123456"
record = logger.makeRecord("pyclient.server", logging.WARNING, "example.py", 1,
                           "%s refused\\nFAKE LINE", ("sk-example-123456",), None)
logger.filter(record)
print(record.getMessage())          # *** refused?FAKE LINE
print(excerpt("a" * 100, 10))      # "aaaaaaaa…
del os.environ["EXAMPLE_API_KEY"]
```
"""

from __future__ import annotations

import json
import logging
import os
import re
from typing import Any

__all__ = ["EXCERPT", "excerpt", "logger", "redact"]

logger = logging.getLogger("pyclient.server")

EXCERPT = 60
"""Characters of a value shown in a line (an event's field with `-v`)."""
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def redact(text: str) -> str:
    """`text` with the value of every environment variable named like a key, token or secret replaced by `***`."""
    for name, value in os.environ.items():
        if len(value) >= 8 and _SECRET_NAME.search(name) and value in text:
            text = text.replace(value, "***")
    return text


def excerpt(value: Any, limit: int = EXCERPT) -> str:
    """`value` as one line of JSON, cut to `limit` characters (an ellipsis marks the cut)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _OneLineNoSecret(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = _CONTROL.sub("?", redact(record.getMessage())), None
        return True


logger.addFilter(_OneLineNoSecret())
