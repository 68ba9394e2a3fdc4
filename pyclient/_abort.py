"""Abort signals in plain Python, mirrored to a JS `AbortController` in the page.

A handler that takes a `ToolContext` gets `ctx.signal`. It aborts when the registration
unmounts, when the pending action resolves, on `thread.stop()` and on timeout. Python code
checks `signal.aborted` or registers `signal.on_abort(cb)`; browser code passes `signal.js`
(a real JS `AbortSignal`) to `fetch` so the browser cancels the request too. The signals a
thread hands out are mirrored through its platform (`pyclient.browser` in the page); a
controller made by hand mirrors to JS when given `js=platform.js_abort`.
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

__all__ = ["AbortController", "AbortSignal", "JsAbortFactory"]

logger = logging.getLogger("pyclient")

JsAbortFactory = Callable[[], "tuple[Any, Callable[[Any], None]]"]
"""Makes a JS `AbortSignal` and the function that aborts it (`Platform.js_abort`)."""


class AbortSignal:
    """Tells a running handler it should stop. Read-only: abort through its controller."""

    __slots__ = ("_aborted", "_reason", "_callbacks", "_js", "_js_abort", "_js_factory")

    def __init__(self, js: JsAbortFactory | None = None) -> None:
        self._aborted = False
        self._reason: Any = None
        self._callbacks: list[Callable[[Any], Any]] = []
        self._js: Any = None
        self._js_abort: Callable[[Any], None] | None = None
        self._js_factory = js

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
        if self._js is None and self._js_factory is not None:
            self._js, self._js_abort = self._js_factory()
            if self._aborted:
                self._js_abort(str(self._reason))
        return self._js

    def new_controller(self) -> AbortController:
        """A fresh controller of the same kind: its signal mirrors to JS when this one does."""
        return AbortController(self._js_factory)

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

    def _abort(self, reason: Any) -> None:  # AbortController's, in this module
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
    """Owns an `AbortSignal` and aborts it.

    Args:
        js: makes the JS `AbortSignal` that `signal.js` returns (None: `signal.js` is None).
    """

    __slots__ = ("signal",)

    def __init__(self, js: JsAbortFactory | None = None) -> None:
        self.signal = AbortSignal(js)

    def abort(self, reason: Any = "aborted") -> None:
        """Abort the signal with `reason`; later calls do nothing."""
        self.signal._abort(reason)
