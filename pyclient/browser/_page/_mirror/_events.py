"""Events the page forwarded to the worker, as the chat's handlers read them.

`renderer.js` listens on the page's node, does there what cannot wait (`preventDefault()` by
the rule the listener named) and posts what the handler reads: the type, `isTrusted` as the
browser set it, the key and modifiers, the files of an input, a paste or a drop (cloned to
the worker), the pasted text and the dragged types. `MirrorEvent` gives them the names of a DOM
event, its target being the nearest mirror node.

```python
from pyclient.browser._page._mirror._events import MirrorEvent

event = MirrorEvent({"type": "paste", "isTrusted": True, "text": "hi", "files": []}, target=None, current=None)
print(event.type, event.isTrusted, event.clipboardData.getData("text/plain"), event.dataTransfer)   # paste True hi None
```
"""

from __future__ import annotations

from typing import Any

__all__ = ["Detail", "Files", "MirrorEvent", "Transfer"]


class Files(list[Any]):
    """A `FileList` of files cloned to the worker: a list with `length` and `item()`."""

    @property
    def length(self) -> int:
        return len(self)

    def item(self, index: int) -> Any:
        return self[index] if 0 <= index < len(self) else None


class Transfer:
    """`event.clipboardData` or `event.dataTransfer`: the files (worker copies), text and types."""

    def __init__(self, files: list[Any], text: str, types: list[str]) -> None:
        self.files = Files(files)
        self.text = text
        self.types = types
        self.dropEffect = "copy"  # set by a handler, too late to matter: the page decided

    def getData(self, kind: str) -> str:
        return self.text if kind in ("text", "text/plain") else ""


class Detail:
    """A `CustomEvent`'s `detail` from the chat's shell (`assets/shell.js`): its outbox id, text and files."""

    def __init__(self, fields: dict[str, Any], files: list[Any]) -> None:
        self.id = int(fields.get("id") or 0)
        self.text = str(fields.get("text") or "")
        self.files = Files(files)


class MirrorEvent:
    """A forwarded event (see the module docstring).

    Args:
        data: what renderer.js posted.
        target: the mirror node of the event's target (the nearest one the worker knows).
        current: the mirror node listened on.
    """

    def __init__(self, data: dict[str, Any], target: Any, current: Any) -> None:
        self.type = str(data.get("type", ""))
        self.isTrusted = bool(data.get("isTrusted"))
        self.key = data.get("key")
        self.shiftKey = bool(data.get("shiftKey"))
        self.ctrlKey = bool(data.get("ctrlKey"))
        self.metaKey = bool(data.get("metaKey"))
        self.altKey = bool(data.get("altKey"))
        self.defaultPrevented = bool(data.get("defaultPrevented"))
        self.target = target if target is not None else current
        self.currentTarget = current
        transfer = Transfer(list(data.get("files") or []), str(data.get("text") or ""), list(data.get("types") or []))
        self.clipboardData = transfer if self.type in ("paste", "copy", "cut") else None
        self.dataTransfer = transfer if self.type.startswith("drag") or self.type == "drop" else None
        detail = data.get("detail")
        self.detail = Detail(detail, transfer.files) if isinstance(detail, dict) else None

    def preventDefault(self) -> None:
        # The page already did it, or not, by the listener's rule: it cannot wait for the worker.
        self.defaultPrevented = True

    def stopPropagation(self) -> None:
        pass
