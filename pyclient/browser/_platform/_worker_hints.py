"""What a handler written for the main thread is told when, in a worker, it reaches for the page through `js`.

On the main thread `js` is the page's global scope, so `js.window` and `js.localStorage` are
the page's. In a worker (`<script type="py" worker>`) `js` is the worker's own scope: PyScript
gives it the page's `document`, but it has no `window`, no storage, no `alert`, no
`navigator.clipboard`, no `MutationObserver` (checked in Chromium), and its `location` is the
worker script's. Such a handler raises a bare `AttributeError: localStorage`. `describe_failure` (`BrowserPlatform.describe_failure`, what the
tool's error result and the console say) adds, in a worker, what differs and what to write
instead: PyScript's `window` and `document`, which reach the page from either thread.

```python
from pyclient.browser._platform._worker_hints import describe_failure

print(describe_failure(AttributeError("localStorage"), in_worker=False))   # localStorage
hint = describe_failure(AttributeError("localStorage"), in_worker=True)
print(hint.endswith("Write `from pyscript import window` and use `window.localStorage`: it is the page's on both threads."))  # True
```
"""

from __future__ import annotations

from .._page._page_window import IN_WORKER

__all__ = ["MAIN_THREAD_NAMES", "describe_failure"]

MAIN_THREAD_NAMES: dict[str, str] = {
    "window": "window",
    "clipboard": "window.navigator.clipboard",
    **{name: f"window.{name}" for name in (
        "localStorage", "sessionStorage", "alert", "confirm", "prompt", "getSelection", "getComputedStyle",
        "MutationObserver", "ResizeObserver", "IntersectionObserver", "HTMLElement", "Element", "Node",
        "customElements", "history", "scrollTo", "scrollBy", "open", "print", "matchMedia", "innerWidth",
        "innerHeight", "devicePixelRatio", "visualViewport", "speechSynthesis",
    )},
}
"""The page's names a worker's `js` lacks (PyScript gives it `document`), and what reaches each from a worker."""


def describe_failure(exc: BaseException, *, in_worker: bool = IN_WORKER) -> str:
    """`exc`'s message, with the way to reach the page when it is a main-thread name missing in a worker."""
    message = str(exc) or type(exc).__name__
    name = str(exc.args[0]) if isinstance(exc, AttributeError) and len(exc.args) == 1 else ""
    if not in_worker or name not in MAIN_THREAD_NAMES:
        return message
    instead = MAIN_THREAD_NAMES[name]
    usage = f"and use `{instead}`" if instead != "window" else "instead"
    return (f"{message}: this page runs its Python in a PyScript worker (`<script type=\"py\" worker>`), where "
            f"the `js` module is the worker's own scope, which has no `{name}`. "
            f"Write `from pyscript import window` {usage}: it is the page's on both threads.")
