"""The chat's progress line: the step the agent is on (`STEP_STARTED` / `STEP_FINISHED`), while a run works.

Agents built on frameworks with steps (LangGraph's nodes, a planner's phases) say which one
runs with `STEP_STARTED` and `STEP_FINISHED` (`stepName`). `ActiveSteps`
(`pyclient.browser._widgets._active_steps`, pure: `pyclient.browser._chat._changes` feeds it) keeps the steps
started and not finished, and forgets them when the run ends, however it ends;
`StepLine` shows the latest as a line under the conversation ("search", or "book · 2 steps"
when several are open), in a polite live region, and hides while none is. `Chat(steps=False)`
hides it for good.

```python
from pyclient.browser._widgets._active_steps import ActiveSteps
from pyclient.browser._widgets._steps import StepLine

steps = ActiveSteps()
steps.started("search")
steps.started("rank")
steps.finished("search")
line = StepLine()
line.show(steps.names)
print(line.node.hidden, line.node.textContent)   # False rank
steps.clear()                                    # the run ended
line.show(steps.names)
print(line.node.hidden)                          # True
```
"""

from __future__ import annotations

from .._page._nodes import el, set_visible

__all__ = ["StepLine"]


class StepLine:
    """The line that shows the open steps (`node`, hidden while there are none)."""

    def __init__(self) -> None:
        self.node = el("p", "pyclient-steps", "", role="status", aria_live="polite")
        self.node.hidden = True
        self._mark = el("span", "pyclient-steps-mark")
        self._text = el("span", "pyclient-steps-text")
        self.node.append(self._mark, self._text)
        self._shown: tuple[str, ...] = ()

    def show(self, names: list[str]) -> None:
        """Show the latest of `names` (and how many are open), or hide the line when empty."""
        shown = tuple(names)
        if shown == self._shown:
            return
        self._shown = shown
        self.node.hidden = not names
        if names:
            more = f" · {len(names)} steps" if len(names) > 1 else ""
            set_visible(self._text, names[-1] + more)  # the server's step name: invisible characters marked
            self.node.dataset.step = names[-1]
