"""Mirror pyclient's Python `AbortSignal` to a real JS `AbortController`.

`signal.js` is created on first use, so an execution that never touches JS costs no JS
object; no Python callable crosses into JS, so there is no proxy to destroy.
See https://developer.mozilla.org/en-US/docs/Web/API/AbortController

```python
from pyclient import AbortController

controller = AbortController()
js_signal = controller.signal.js     # pass to fetch(url, {signal: js_signal})
controller.abort("unmounted")       # js_signal.aborted is now true, reason "unmounted"
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import js

__all__ = ["js_controller"]


def js_controller() -> tuple[Any, Callable[[Any], None]]:
    """A fresh JS AbortController's signal, and a function that aborts it with a reason."""
    controller = js.AbortController.new()

    def abort(reason: Any) -> None:
        controller.abort(js.DOMException.new(str(reason), "AbortError"))

    return controller.signal, abort
