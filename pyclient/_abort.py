"""Abort signals in plain Python, mirrored to a JS `AbortController` in the page.

A handler that takes a `ToolContext` gets `ctx.signal`. It aborts when the registration
unmounts, when the pending action resolves, on `thread.stop()` and on timeout. Python code
checks `signal.aborted` or registers `signal.on_abort(cb)`; browser code passes `signal.js`
(a real JS `AbortSignal`) to `fetch` so the browser cancels the request too.
See https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal

```python
from pyclient import AbortController

controller = AbortController()
controller.signal.on_abort(lambda reason: print("stopped:", reason))
controller.abort("unmounted")          # prints "stopped: unmounted"
assert controller.signal.aborted
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

__all__ = ["AbortController", "AbortSignal"]

logger = logging.getLogger("pyclient")

# Set by pyclient.browser at import: a factory that returns (js_signal, abort_fn) pairs.
# The core never imports js; in CPython this stays None and `signal.js` is None.
_js_controller_factory: Callable[[], tuple[Any, Callable[[Any], None]]] | None = None


class AbortSignal:
    """Tells a running handler it should stop. Read-only: abort through its controller."""

    __slots__ = ("_aborted", "_reason", "_callbacks", "_js", "_js_abort")

    def __init__(self) -> None:
        self._aborted = False
        self._reason: Any = None
        self._callbacks: list[Callable[[Any], Any]] = []
        self._js: Any = None
        self._js_abort: Callable[[Any], None] | None = None

    @property
    def aborted(self) -> bool:
        """True once the signal has aborted."""
        return self._aborted

    @property
    def reason(self) -> Any:
        """Why it aborted (a string such as `"unmounted"`), or None while not aborted."""
        return self._reason

    @property
    def js(self) -> Any:
        """A JS `AbortSignal` that aborts with this one (None outside the browser).

        Created on first use, so executions that never touch JS create no proxy.
        """
        if self._js is None and _js_controller_factory is not None:
            self._js, self._js_abort = _js_controller_factory()
            if self._aborted:
                self._js_abort(str(self._reason))
        return self._js

    def on_abort(self, callback: Callable[[Any], Any]) -> Callable[[], None]:
        """Call `callback(reason)` when the signal aborts (at once if it already has).

        Returns a function that removes the callback.
        """
        if self._aborted:
            callback(self._reason)
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    def throw_if_aborted(self) -> None:
        """Raise `RunAborted(reason)` if the signal has aborted."""
        if self._aborted:
            from ._errors import RunAborted

            raise RunAborted(self._reason)

    def _abort(self, reason: Any) -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = reason
        callbacks, self._callbacks = self._callbacks, []
        if self._js_abort is not None:
            self._js_abort(str(reason))
        for callback in callbacks:
            try:
                callback(reason)
            except Exception:  # one bad listener must not stop the others
                logger.exception("pyclient: an on_abort callback raised")

    def __repr__(self) -> str:
        return f"<AbortSignal aborted={self._aborted} reason={self._reason!r}>"


class AbortController:
    """Owns an `AbortSignal` and aborts it."""

    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: Any = "aborted") -> None:
        """Abort the signal with `reason`; later calls do nothing."""
        self.signal._abort(reason)
