"""`ThreadRow`: one saved thread in a `ThreadList`: its title, when it was last updated, and its
open, rename and delete buttons, built once and updated from the list's state.

```python
from pyclient._driver._summaries import ThreadSummary
from pyclient.browser._thread_list._thread_row import ThreadRow

row = ThreadRow("t1")
row.show(ThreadSummary("main/t1", "main", "t1", "Groceries", False, 2, 0.0), 30.0, current=True, mode="")
print(row.key, row.node.dataset.current, row.title.textContent, row.edit.hidden)   # t:t1 true Groceries True
```
"""

from __future__ import annotations

from typing import Any

from ..._driver._summaries import ThreadSummary
from .._page._nodes import el, set_visible
from .._page._visible import visible
from .._widgets._widget import Widget
from ._thread_words import full_time, iso_time, shown_title, updated_words

__all__ = ["ThreadRow"]


class ThreadRow(Widget):
    """The nodes of one listed thread (`node`, its `<li>`), built once; `show()` updates them
    from the list's state.

    Args:
        thread_id: the saved thread's id (`data-thread-id`; the row's key is `"t:<id>"`).
    """

    def __init__(self, thread_id: str) -> None:
        super().__init__("t:" + thread_id, el("li", "pyclient-thread", data_thread_id=thread_id))
        self.open = el("button", "pyclient-thread-open", type="button", data_command="open")
        self.title = el("span", "pyclient-thread-title")
        self.time = el("time", "pyclient-thread-time")
        self.open.append(self.title, self.time)
        self.rename = el("button", "pyclient-thread-rename", "✎", type="button", data_command="rename")
        self.delete = el("button", "pyclient-thread-delete", "×", type="button", data_command="delete")
        self.edit = el("form", "pyclient-thread-edit")
        self.input = el("input", "pyclient-thread-input", name="title", autocomplete="off", maxlength="200")
        self.edit.append(self.input, el("button", "pyclient-thread-save", "Save", type="submit"),
                         el("button", "pyclient-thread-cancel", "Cancel", type="button", data_command="cancel"))
        self.confirm = el("div", "pyclient-thread-confirm", role="group")
        self.question = el("span", "pyclient-thread-question")
        self.yes = el("button", "pyclient-thread-confirm-delete", "Delete", type="button", data_command="confirm-delete")
        self.no = el("button", "pyclient-thread-cancel", "Cancel", type="button", data_command="cancel")
        self.confirm.append(self.question, self.yes, self.no)
        self.node.append(self.open, self.rename, self.delete, self.edit, self.confirm)
        self._shown: tuple[Any, ...] = ()

    def show(self, summary: ThreadSummary, moment: float, *, current: bool, mode: str) -> None:
        """Show `summary` as of `moment` (for its "… ago"), marked `current` when the chat shows
        it, in `mode`: "" (the list), "edit" (its title being renamed) or "confirm" (asking to delete)."""
        title = shown_title(summary.title)
        state = (title, summary.updated_at, updated_words(summary.updated_at, moment), current, mode)
        if state == self._shown:
            return
        self._shown = state
        # A title is the first message's words, which a snapshot may have brought from the
        # server: invisible characters marked (an attribute holds no marker span, only its text).
        set_visible(self.title, title)
        named = visible(title)
        self.time.textContent = state[2]
        self.time.setAttribute("datetime", iso_time(summary.updated_at))
        self.time.title = f"Updated {full_time(summary.updated_at)}"
        self.rename.setAttribute("aria-label", f"Rename “{named}”")
        self.rename.title = "Rename"
        self.delete.setAttribute("aria-label", f"Delete “{named}”")
        self.delete.title = "Delete"
        self.input.setAttribute("aria-label", f"New title for “{named}”")
        set_visible(self.question, f"Delete “{title}”?")
        self.confirm.setAttribute("aria-label", f"Delete “{named}”")
        if current:
            self.open.setAttribute("aria-current", "true")
            self.node.dataset.current = "true"
        else:
            self.open.removeAttribute("aria-current")
            self.node.removeAttribute("data-current")
        self.node.dataset.mode = mode or "list"
        self.open.hidden = mode == "edit"                       # the title gives way to its field
        self.rename.hidden = self.delete.hidden = mode != ""    # no other action while one is asked
        self.edit.hidden = mode != "edit"
        self.confirm.hidden = mode != "confirm"
