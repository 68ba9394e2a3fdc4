"""A bounded view of untrusted text that may be huge: the first `PREVIEW_CHARS` characters, the rest on request.

A tool card's arguments and result are shown in a `<pre>`; a megabyte there is laid out whole
each time text is added to it (Chromium shapes the whole block again, every frame while a
1 MB argument streams: bench/README.md), and once more after. `Preview(pre)`
shows at most `PREVIEW_CHARS` characters of its text (invisible characters marked, as
`pyclient.browser._page._nodes.append_visible` does) and, when there is more, a button after the
`<pre>` that says how much ("Show all 1,000,012 characters", `data-command="show-all"`, and
`data-part` naming which text it is);
`show_all()` (the chat calls it on that button's click) puts the rest in, and from then on
the whole text is shown as it grows. Text that only grows (`extend`) costs nothing more once
the preview is full: only the button's count changes.

```python
from pyclient.browser._page._nodes import el
from pyclient.browser._widgets._preview import PREVIEW_CHARS, Preview

box = el("div")
preview = Preview(box.appendChild(el("pre")), "args")
preview.extend("x" * (PREVIEW_CHARS + 5))
print(len(box.firstChild.textContent) == PREVIEW_CHARS, box.lastChild.textContent)  # True Show all 100,005 characters
preview.show_all()
print(len(box.firstChild.textContent), box.lastChild.hidden)   # 100005 True
```
"""

from __future__ import annotations

from typing import Any

from .._page._nodes import append_visible, el, set_visible

__all__ = ["PREVIEW_CHARS", "Preview"]

PREVIEW_CHARS = 100_000
"""The characters shown before a "Show all" button (the rest on its click)."""


class Preview:
    """The text of `pre`, shown up to `PREVIEW_CHARS` characters (see the module docstring).

    Args:
        pre: the element the text goes in (emptied by `set`).
        part: the button's `data-part` (which text of its card it shows).

    Attributes:
        text: the whole text.
    """

    def __init__(self, pre: Any, part: str) -> None:
        self.pre = pre
        self.part = part
        self.text = ""
        self._shown = 0      # characters of `text` in `pre`
        self._all = False    # the person asked for all of it
        self._more: Any = None  # the "Show all" button, once there was more
        self._words = ""     # what the button says ("": hidden)

    @property
    def cut(self) -> bool:
        """Part of the text is left out (the button shows)."""
        return self._shown < len(self.text)

    def set(self, text: str) -> None:
        """Show `text` instead of what is there."""
        self.text = text
        self._shown = len(text) if self._all else min(len(text), PREVIEW_CHARS)
        set_visible(self.pre, text[:self._shown])
        self._label()

    def extend(self, text: str) -> None:
        """Show `text`, which starts with the text shown: only what it adds is written."""
        self.text = text
        limit = len(text) if self._all else min(len(text), PREVIEW_CHARS)
        if limit > self._shown:
            append_visible(self.pre, text[self._shown:limit])
            self._shown = limit
        self._label()

    def show_all(self) -> None:
        """Show the whole text, now and as it grows."""
        self._all = True
        self.extend(self.text)

    def _label(self) -> None:
        words = f"Show all {len(self.text):,} characters" if self.cut else ""
        if words == self._words:
            return
        if self._more is None:
            self._more = el("button", "pyclient-show-all", words, type="button", data_command="show-all",
                            data_part=self.part)
            self.pre.after(self._more)
        elif words:
            self._more.textContent = words
        self._more.hidden = not words
        self._words = words
