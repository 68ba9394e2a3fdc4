"""The shared-state panel of the chat: `agent.state_renderer(fn)`'s view of `thread.state`.

AG-UI's shared state (a plan's steps, a document being written) changes as the agent sends
`STATE_SNAPSHOT` and `STATE_DELTA` and as the page sets it (`thread.state = ...`,
`thread.update_state(patch)`). The chat marks a `"state"` change (`pyclient.browser._chat._changes`)
and, at the next animation frame, draws the panel once however many deltas came in between:
`StateView.update(state, renderer)` calls the renderer with the state and puts what it
returns (an element, a `pyscript.web` element or a str) in the panel, a region between the
conversation and the input (`.pyclient-state`, `aria-label="Agent state"`), hidden when there is
no renderer or it returns None. A renderer that raises gets a contained fallback (the
traceback goes to the console); the conversation goes on.

```python
from pyclient.browser._widgets._state_view import StateView

view = StateView()
view.update({"steps": ["plan", "ship"]}, lambda state: " → ".join(state["steps"]))
print(view.node.hidden, view.node.textContent, view.renders)   # False plan → ship 1
view.update({}, None)
print(view.node.hidden)                                        # True
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .._page._nodes import el
from ._cards import put_view, render_error

__all__ = ["StateView"]

logger = logging.getLogger("pyclient")


class StateView:
    """The panel (`node`) showing a state renderer's view of the thread's state.

    Args:
        thread_id: the thread's id, for the log line of a renderer that raised.

    Attributes:
        node: the panel's element.
        renders: how many times the renderer was called (tests read it: once a frame at most).
    """

    def __init__(self, thread_id: str = "") -> None:
        self.thread_id = thread_id
        self.node = el("section", "pyclient-state", aria_label="Agent state")
        self.node.hidden = True
        self.renders = 0

    def update(self, state: Any, renderer: Callable[[Any], Any] | None) -> None:
        """Draw `renderer(state)` in the panel (None: hide it)."""
        if renderer is None:
            self.node.replaceChildren()
            self.node.hidden = True
            return
        self.renders += 1
        self.node.dataset.renders = str(self.renders)
        try:
            shown = put_view(self.node, renderer(state))
        except Exception as exc:
            logger.exception("pyclient: the state renderer raised in thread %s", self.thread_id)
            shown = put_view(self.node, render_error("The agent's state could not be shown. ", exc))
        self.node.hidden = not shown

