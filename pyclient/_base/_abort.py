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


class _State:
    """What a controller and its signal share: the controller writes it, the signal reads it."""

    __slots__ = ("aborted", "callbacks", "js", "js_abort", "js_factory", "reason")

    def __init__(self, js_factory: JsAbortFactory | None) -> None:
        self.aborted = False
        self.reason: Any = None
        self.callbacks: list[Callable[[Any], Any]] = []
        self.js: Any = None
        self.js_abort: Callable[[Any], None] | None = None
        self.js_factory = js_factory


class AbortSignal:
    """Tells a running handler it should stop. Read-only: abort through its controller."""

    __slots__ = ("_state",)

    def __init__(self, state: _State) -> None:
        self._state = state

    @property
    def aborted(self) -> bool:
        """True once the signal has aborted."""
        return self._state.aborted

    @property
    def reason(self) -> Any:
        """Why it aborted (a string such as `"unmounted"`), or None while not aborted."""
        return self._state.reason

    @property
    def js(self) -> Any:
        """A JS `AbortSignal` that aborts with this one (None outside the browser).

        Created on first use, so executions that never touch JS create no proxy.
        """
        state = self._state
        if state.js is None and state.js_factory is not None:
            state.js, state.js_abort = state.js_factory()
            if state.aborted:
                state.js_abort(str(state.reason))
        return state.js

    def new_controller(self) -> AbortController:
        """A fresh controller of the same kind: its signal mirrors to JS when this one does."""
        return AbortController(self._state.js_factory)

    def on_abort(self, callback: Callable[[Any], Any]) -> Callable[[], None]:
        """Call `callback(reason)` when the signal aborts (at once if it already has).

        Returns a function that removes the callback.
        """
        state = self._state
        if state.aborted:
            callback(state.reason)
            return lambda: None
        state.callbacks.append(callback)

        def remove() -> None:
            if callback in state.callbacks:
                state.callbacks.remove(callback)

        return remove

    def throw_if_aborted(self) -> None:
        """Raise `RunAborted(reason)` if the signal has aborted."""
        if self._state.aborted:
            from ._errors import RunAborted

            raise RunAborted(self._state.reason)

    def __repr__(self) -> str:
        return f"<AbortSignal aborted={self._state.aborted} reason={self._state.reason!r}>"


class AbortController:
    """Owns an `AbortSignal` and aborts it.

    Args:
        js: makes the JS `AbortSignal` that `signal.js` returns (None: `signal.js` is None).
    """

    __slots__ = ("_state", "signal")

    def __init__(self, js: JsAbortFactory | None = None) -> None:
        self._state = _State(js)
        self.signal = AbortSignal(self._state)

    def abort(self, reason: Any = "aborted") -> None:
        """Abort the signal with `reason`; later calls do nothing."""
        state = self._state
        if state.aborted:
            return
        state.aborted = True
        state.reason = reason
        callbacks, state.callbacks = state.callbacks, []
        if state.js_abort is not None:
            state.js_abort(str(reason))
        for callback in callbacks:
            try:
                callback(reason)
            except Exception:  # one bad listener must not stop the others
                logger.exception("pyclient: an on_abort callback raised")
