"""The open steps of the run in flight (`STEP_STARTED` / `STEP_FINISHED`), for the chat's progress line; pure.

A step is open from its `STEP_STARTED` to the `STEP_FINISHED` of the same `stepName`; all of
them close when the run ends, however it ends (a server that never finishes its steps, a stop,
an error). `pyclient.browser._widgets._steps.StepLine` shows them.

```python
from pyclient.browser._widgets._active_steps import ActiveSteps

steps = ActiveSteps()
steps.started("search")
steps.started("rank")
steps.finished("search")
print(steps.names, steps.changed)   # ['rank'] True
steps.clear()
print(steps.names)                  # []
```
"""

from __future__ import annotations

__all__ = ["ActiveSteps"]


class ActiveSteps:
    """The steps of the run in flight that started and did not finish, in start order.

    Attributes:
        names: their names (one entry per open step: a name started twice is open twice).
        changed: set when `names` changed; the chat clears it once it showed them.
    """

    def __init__(self) -> None:
        self.names: list[str] = []
        self.changed = False

    def started(self, name: str) -> None:
        self.names.append(name)
        self.changed = True

    def finished(self, name: str) -> None:
        """The step `name` finished (the latest one of that name); an unknown name changes nothing."""
        for index in range(len(self.names) - 1, -1, -1):
            if self.names[index] == name:
                del self.names[index]
                self.changed = True
                return

    def clear(self) -> None:
        """The run ended: no step is open any more."""
        if self.names:
            self.names.clear()
            self.changed = True
