"""`settled(target, method, *args)`: await a page API that answers with a promise, from either thread.

On the main thread this is the promise itself. In a worker a call through PyScript's proxy
blocks the worker until the page's promise settles, which for the clipboard's permission
prompt is as long as the user takes: a timeout could never fire, and every thread of the page's
Python would stop meanwhile. There the page's renderer (`assets/renderer.js`, `settle`) makes
the call and answers through a callback, so the worker awaits like any other future. Either
way a rejection is not raised: it comes back as the error's name and message, so a call given
up meanwhile (a timeout, an abort) leaves no unhandled rejection on the page.

```python
from pyclient.browser._page._page_promise import settled
from pyclient.browser._page._page_window import page_window

outcome = await settled(page_window().navigator.clipboard, "readText")   # no permission here
print(outcome.error)   # NotAllowedError
```
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, NamedTuple

from ._page_window import IN_PAGE, IN_WORKER

if IN_PAGE:
    import js
    from pyodide.ffi import create_proxy, to_js

    from ._mirror._connect import renderer

__all__ = ["Settled", "settled"]


class Settled(NamedTuple):
    """How a page promise settled: its value, or the error's name and message (`error` not None)."""

    value: Any
    error: str | None = None
    message: str = ""


async def settled(target: Any, method: str, *args: Any) -> Settled:
    """Call `target[method](*args)` on the page (the arguments JSON data) and await its promise."""
    if not IN_WORKER:
        page_args = [to_js(arg, dict_converter=js.Object.fromEntries) for arg in args]
        value = await getattr(target, method)(*page_args).catch(js.Object)
        name = None if isinstance(value, str) else getattr(value, "name", None)
        if name is None or getattr(value, "message", None) is None:
            return Settled(value)
        return Settled(None, str(name), str(value.message))
    future: asyncio.Future[Settled] = asyncio.get_event_loop().create_future()

    def done(value: Any = None, name: Any = None, message: Any = "") -> None:
        callback.destroy()
        if not future.done():
            future.set_result(Settled(value) if name is None else Settled(None, str(name), str(message)))

    callback = create_proxy(done)
    renderer().settle(target, method, json.dumps(args), callback)
    return await future
