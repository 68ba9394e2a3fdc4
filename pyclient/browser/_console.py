"""Send pyclient's log records to the browser console instead of stderr.

PyScript shows anything written to stderr as an error box on the page; a tool that fails on
purpose (its message goes back to the model) must not look like a crashed page. Records go
to `console.warn`/`console.error`/`console.info`, where devtools shows them with tracebacks.
See https://developer.mozilla.org/en-US/docs/Web/API/console

```python
import logging
logging.getLogger("pyclient").warning("shown in devtools, not on the page")
```
"""

from __future__ import annotations

import logging

import js

__all__ = ["ConsoleHandler", "install"]


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


def install() -> None:
    """Route the `pyclient` logger to the console (once), and stop it reaching stderr."""
    logger = logging.getLogger("pyclient")
    if not any(isinstance(h, ConsoleHandler) for h in logger.handlers):
        handler = ConsoleHandler()
        handler.setFormatter(logging.Formatter("%(name)s %(levelname)s: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
