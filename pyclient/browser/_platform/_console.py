"""Send pyclient's log records to the browser console: `log_to_console()`.

PyScript shows anything written to stderr as an error box on the page; a tool that fails on
purpose (its message goes back to the model) must not look like a crashed page. The library
itself never configures logging: a page that wants pyclient's records in devtools calls
`log_to_console()` once. Records go to `console.warn`/`console.error`/`console.info`.
See https://developer.mozilla.org/en-US/docs/Web/API/console

```python
import logging
from pyclient.browser import log_to_console

log_to_console()                       # pyclient's warnings and errors, in devtools
logging.getLogger("pyclient").warning("shown in devtools, not on the page")
```
"""

from __future__ import annotations

import logging

import js

__all__ = ["ConsoleHandler", "log_to_console"]


class ConsoleHandler(logging.Handler):
    """A logging handler that writes to the JS console."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
            if record.levelno >= logging.ERROR:
                js.console.error(text)
            elif record.levelno >= logging.WARNING:
                js.console.warn(text)
            else:
                js.console.info(text)
        except Exception:  # logging must never break the caller
            self.handleError(record)


def log_to_console(level: int = logging.INFO, logger: str = "pyclient") -> ConsoleHandler:
    """Add a `ConsoleHandler` to `logger` (once) and set its level.

    Args:
        level: the least severe level sent to the console.
        logger: which logger; "pyclient" by default, "" for the root logger.

    Returns:
        The handler (remove it with `logging.getLogger(logger).removeHandler(handler)`).
    """
    target = logging.getLogger(logger)
    for handler in target.handlers:
        if isinstance(handler, ConsoleHandler):
            handler.setLevel(level)
            return handler
    handler = ConsoleHandler(level)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s: %(message)s"))
    target.addHandler(handler)
    if target.level == logging.NOTSET or target.level > level:
        target.setLevel(level)
    return handler
