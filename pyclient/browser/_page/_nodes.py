"""DOM helpers of the chat: elements with text (never HTML), invisible characters marked, frame scheduling, listeners.

Every helper writes text nodes: `el(tag, cls, text)` sets `textContent` (the chat's own
words); `marked`, `append_visible` and `set_visible` write untrusted text (a server's, a
model's) with each run of bidi controls or zero-width characters shown as one marker span
(`pyclient.browser._page._visible`), appending to the last text node when they can, so text
that streams in piece by piece costs linear time. `FrameScheduler` runs a callback once per
animation frame however often it is asked, with a timer for hidden tabs, where browsers pause
`requestAnimationFrame`. `Listeners` adds a widget's JS event listeners that call its methods
through a weak reference (a listener must not keep it alive), and removes them and destroys
their proxies in one go.

```python
import js
from pyclient.browser._page._nodes import append_visible, el

box = el("pre", "pyclient-tool-args")
append_visible(box, '{"to": "\\u202eecila"}')
print(box.textContent)                                    # {"to": "⟨U+202E⟩ecila"}
print(box.querySelector(".pyclient-invisible").title)     # invisible character U+202E
```
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Literal, get_args

from ._document import page_document
from ._mirror import MirrorElement
from ._page_window import IN_PAGE
from ._visible import split_invisible

if IN_PAGE:
    import js
    from pyodide.ffi import create_once_callable, create_proxy

__all__ = ["PREVENT_RULES", "FrameScheduler", "Listeners", "Prevent", "append_visible", "el", "later", "marked",
           "set_visible"]

Prevent = Literal["always", "files_only", "dragged_files", "escape"]
"""When the page cancels a listened event itself (`preventDefault()` where it happens, for a
worker's handler that runs after the event is over): the rules `assets/renderer.js`'s `PREVENT`
table decides. Always, a paste of files with no text, a drag that carries files, the Escape key."""

PREVENT_RULES: frozenset[str] = frozenset(get_args(Prevent))

TEXT_NODE = 3


def el(tag: str, cls: str = "", text: str | None = None, **attributes: str) -> Any:
    """A new element with a class, text (as `textContent`, never HTML) and attributes."""
    node = page_document().createElement(tag)
    if cls:
        node.className = cls
    if text is not None:
        node.textContent = text
    for name, value in attributes.items():
        node.setAttribute(name.replace("_", "-"), value)
    return node


def append_visible(parent: Any, text: str) -> None:
    """Append untrusted `text` to `parent`, each run of invisible characters shown as one marker
    span whose title says how many and which (`pyclient.browser._page._visible`)."""
    for run, title in split_invisible(text):
        if title is not None:
            mark = el("span", "pyclient-invisible", run)
            mark.title = title
            parent.append(mark)
            continue
        last = parent.lastChild
        if last and last.nodeType == TEXT_NODE:  # an empty parent's lastChild is JS null
            last.appendData(run)
        else:
            parent.append(page_document().createTextNode(run))


def marked(tag: str, cls: str = "", text: str = "", **attributes: str) -> Any:
    """A new element holding untrusted `text` (a server's, a model's), invisible characters marked."""
    node = el(tag, cls, **attributes)
    if text:
        set_visible(node, text)
    return node


def set_visible(parent: Any, text: str) -> None:
    """Replace `parent`'s content with untrusted `text` (invisible characters marked)."""
    pieces = split_invisible(text)
    if len(pieces) <= 1 and (not pieces or pieces[0][1] is None):
        # Plain text (most is): one text node in one write, not four calls into JS a card's text.
        parent.textContent = pieces[0][0] if pieces else ""
        return
    parent.textContent = ""
    append_visible(parent, text)


class FrameScheduler:
    """Calls `callback` at the next animation frame, once however many times `request()` is called.

    A timer (`fallback_ms`) calls it too when no frame comes (a hidden tab pauses
    `requestAnimationFrame`); whichever fires first runs it, the other finds nothing to do.
    The callback is held weakly through its owner: a pending frame does not keep a disposed
    chat alive. Each JS callback is a `create_once_callable`, released when it runs.

    Args:
        owner: the object whose method `method` is the callback.
        method: the name of that method (called with no arguments).
        fallback_ms: the timer's delay.
    """

    def __init__(self, owner: object, method: str, fallback_ms: int = 250) -> None:
        self._owner = weakref.ref(owner)
        self._method = method
        self._fallback_ms = fallback_ms
        self._pending = 0      # the generation a frame or timer is scheduled for (0: none)
        self._generation = 0

    @property
    def pending(self) -> bool:
        """True while a run is scheduled."""
        return self._pending != 0

    def request(self) -> None:
        """Run the callback at the next frame (or the fallback timer), once."""
        if self._pending:
            return
        self._generation += 1
        generation = self._pending = self._generation
        fire = self._fire
        js.requestAnimationFrame(create_once_callable(lambda timestamp: fire(generation)))
        js.setTimeout(create_once_callable(lambda: fire(generation)), self._fallback_ms)

    def run_now(self) -> None:
        """Run the callback now; a frame or timer already scheduled then does nothing."""
        self._pending = 0
        self._call()

    def cancel(self) -> None:
        """Forget what is scheduled (the JS callbacks still fire once, and do nothing)."""
        self._pending = 0

    def _fire(self, generation: int) -> None:
        if self._pending != generation:
            return
        self._pending = 0
        self._call()

    def _call(self) -> None:
        owner = self._owner()
        if owner is not None:
            getattr(owner, self._method)()


def later(callback: Callable[[], None], ms: int) -> None:
    """Run `callback` once after `ms` milliseconds (a `setTimeout` with a once-callable)."""
    js.setTimeout(create_once_callable(callback), ms)


class Listeners:
    """The JS event listeners of one widget (`owner`), each calling one of its methods.

    The proxies reach the owner through a weak reference, so the page's listeners never keep
    it alive; `release()` (on dispose, or from a `weakref.finalize` of the owner: it holds no
    reference to it) removes them all and destroys their proxies.

    Args:
        owner: the widget whose methods the listeners call.
    """

    def __init__(self, owner: object) -> None:
        self._owner = weakref.ref(owner)
        self._proxies: list[tuple[Any, str, Any]] = []

    def listen(self, target: Any, kind: str, method: str, *, prevent: Prevent | None = None) -> None:
        """Call `owner.<method>(event)` on each `kind` event of `target`.

        `prevent` names when the page cancels the event itself (`Prevent`), for a chat in a
        worker whose handler runs after the event is over; on the main thread the handler does it.
        """
        reference = self._owner

        def listener(event: Any) -> None:
            owner = reference()
            if owner is not None:
                getattr(owner, method)(event)

        if isinstance(target, MirrorElement):  # a worker's mirror: no JS proxy to make
            target.addEventListener(kind, listener, prevent=prevent)
            self._proxies.append((target, kind, listener))
            return
        proxy = create_proxy(listener)
        target.addEventListener(kind, proxy)
        self._proxies.append((target, kind, proxy))

    def release(self) -> None:
        """Remove every listener and destroy its proxy (again: nothing to do)."""
        for target, kind, proxy in self._proxies:
            target.removeEventListener(kind, proxy)
            if not isinstance(target, MirrorElement):
                proxy.destroy()
        self._proxies.clear()
