"""The chat composer's files: picked with the attach button, pasted into the input or dropped on the chat, shown before they go.

`Attachments` holds the JS `File`s the person attached to the next message and the nodes that
show them: the attach button (a hidden `<input type="file" multiple>` behind it, its `accept`
the chat's `accept=`), a tray of previews (`pyclient.browser._widgets._media_nodes`) each with
a Remove button, and a polite live region that says why a file was not attached. A drop shows
`data-drop="over"` while files are dragged over the chat. Each file is checked when attached,
before its bytes are read (`pyclient.browser._chat._attachment_rules`); `take()` empties the
tray for a send and `put_back()` restores it when the send refused them. Picking a file is the
browser's own business (the picker opens only from the person's click), so these buttons need
no trusted-event check: none of them answers the agent.

```python
import js
from pyodide.ffi import to_js
from pyclient._base._limits import Limits
from pyclient.browser._chat._attachments import Attachments

files = Attachments(accept=["image/*"], limits=lambda: Limits(), drop_zone=js.document.body,
                    paste_target=js.document.body)
options = to_js({"type": "text/plain"}, dict_converter=js.Object.fromEntries)
files.add([js.File.new(to_js(["hi"]), "notes.txt", options)])
print(files.notice.textContent)       # notes.txt was not attached: this chat takes images.
print(files.picker.accept, len(files.files))    # image/* 0
files.dispose()
```
"""

from __future__ import annotations

import itertools
import mimetypes
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..._base._limits import Limits
from ..._tools._media import Media, kind_of_mime, media_class
from .._page._nodes import Listeners, el
from .._widgets._media_nodes import file_node
from ._attachment_rules import accept_patterns, describe, refusal

__all__ = ["Attachments", "Held"]

_keys = itertools.count(1)


@dataclass(frozen=True)
class Held:
    """One attached file: the JS `File`, the type the chat found for it, and its preview."""

    file: Any
    mime: str | None
    node: Any
    key: str

    @property
    def name(self) -> str:
        return str(self.file.name)


def _files_of(file_list: Any) -> list[Any]:
    """A JS `FileList`'s files, read now (a paste's or drop's list is emptied after its event)."""
    if not file_list:
        return []
    return [file_list.item(index) for index in range(int(file_list.length))]


def _carries_files(event: Any) -> bool:
    # `types`: the page's array, or in a worker the list of strings the renderer forwarded.
    transfer = event.dataTransfer
    return bool(transfer) and any(str(kind) == "Files" for kind in transfer.types)


def _type_of(file: Any) -> str | None:
    """A file's type: the browser's, else its name's extension's (the core, which reads the
    bytes when the message is sent, may tell more)."""
    mime = str(file.type or "")
    return mime.lower() if mime else mimetypes.guess_type(str(file.name), strict=False)[0]


class Attachments:
    """The files attached to the next message, and their nodes; see the module docstring.

    Args:
        accept: MIME patterns of the files the chat takes ("image/*", "application/pdf");
            None takes any file, an empty list none (no attach button then).
        limits: the agent's size limits, read at each attach (`lambda: agent.limits`).
        drop_zone: the element files may be dropped on (the chat's root); it gets
            `data-drop="over"` while files are dragged over it.
        paste_target: the element files may be pasted into (the message input).

    Attributes:
        button: the attach button, for the form.
        picker: the hidden file input it opens (anywhere in the chat, outside its form).
        tray: the previews and the notice, for the form.
        notice: the live region that says why a file was not attached.

    Raises:
        ValueError: a pattern of `accept` is not a MIME type or a `type/*` family.
    """

    def __init__(self, *, accept: Iterable[str] | None, limits: Callable[[], Limits], drop_zone: Any,
                 paste_target: Any) -> None:
        self.patterns = accept_patterns(accept)
        self._limits = limits
        self._drop_zone = drop_zone
        self._paste_target = paste_target
        self._held: list[Held] = []
        self._entered = 0        # dragenter minus dragleave over the drop zone (children fire too)
        self._over = False       # the drop zone shows data-drop="over"
        self._enabled = True
        self.picker = el("input", "pyclient-file-picker", type="file", multiple="", tabindex="-1",
                         aria_hidden="true")
        self.picker.hidden = True
        if self.patterns:
            self.picker.accept = ",".join(self.patterns)
        # A "+", not a paperclip emoji: a font without emoji would show a box.
        self.button = el("button", "pyclient-attach", "+", type="button", aria_label="Attach files")
        self.button.title = ("Attach files" if self.patterns is None else f"Attach {describe(self.patterns)}") \
            + "; you can also paste or drop them"
        self.button.hidden = self.patterns == ()
        self.tray = el("div", "pyclient-attachments")
        self._previews = el("div", "pyclient-attachment-list", role="list", aria_label="Files to send")
        self._previews.hidden = True
        self.notice = el("p", "pyclient-attach-notice", role="status", aria_live="polite")
        self.tray.append(self._previews, self.notice)
        listeners = self._listeners = Listeners(self)
        listeners.listen(self.button, "click", "_on_attach")
        listeners.listen(self.picker, "change", "_on_pick")
        listeners.listen(self._previews, "click", "_on_remove")
        listeners.listen(paste_target, "paste", "_on_paste", prevent="files_only")
        for kind in ("dragenter", "dragover", "dragleave", "drop"):
            listeners.listen(drop_zone, kind, "_on_drag", prevent="dragged_files" if kind in ("dragover", "drop") else None)
        self._finalizer = weakref.finalize(self, listeners.release)

    @property
    def files(self) -> list[Any]:
        """The JS `File`s attached, in order."""
        return [held.file for held in self._held]

    @property
    def held(self) -> tuple[Held, ...]:
        """The attached files with their previews, in order."""
        return tuple(self._held)

    def dispose(self) -> None:
        """Remove the listeners (the nodes go with the chat's)."""
        self._finalizer()

    def enable(self, enabled: bool) -> None:
        """Let the person attach files, or not (a read-only or closed chat)."""
        if enabled != self._enabled:
            self._enabled = enabled
            self.button.disabled = not enabled

    def say(self, words: str) -> None:
        """Show `words` in the live region ("" clears it)."""
        if self.notice.textContent != words:
            self.notice.textContent = words

    # -- attaching -----------------------------------------------------------------------

    def add(self, files: Sequence[Any]) -> None:
        """Attach `files` (JS `File`s): each one the chat takes, within the limits, gets a
        preview; the notice says why each other one was not attached (or is cleared)."""
        limits = self._limits()
        refused: list[str] = []
        for file in files:
            mime = _type_of(file)
            why = refusal(str(file.name), mime, int(file.size), patterns=self.patterns,
                          held=[self._facts(held) for held in self._held], limits=limits)
            if why is not None:
                refused.append(why)
                continue
            key = f"a{next(_keys)}"
            held = Held(file, mime, self._preview(file, mime, key), key)
            self._held.append(held)
            self._previews.append(held.node)
        self._previews.hidden = not self._held
        self.say("\n".join(refused))

    @staticmethod
    def _facts(held: Held) -> Media:
        # The size is what the limits need: a file known by its type, name and size.
        mime = held.mime or "application/octet-stream"
        return media_class(kind_of_mime(mime)).not_kept(mime, held.name, int(held.file.size))

    def _preview(self, file: Any, mime: str | None, key: str) -> Any:
        item = el("div", "pyclient-attachment", role="listitem")
        item.dataset.key = key
        name = str(file.name)
        remove = el("button", "pyclient-attachment-remove", "×", type="button", aria_label=f"Remove {name}")
        remove.title = f"Remove {name}"
        item.append(file_node(file, mime), remove)
        return item

    def remove(self, key: str) -> None:
        """Remove the attached file whose preview has this key (`data-key`); focus goes to the
        next Remove button, else the previous, else the message input."""
        index = next((i for i, held in enumerate(self._held) if held.key == key), None)
        if index is None:
            return
        self._held.pop(index).node.remove()
        self._previews.hidden = not self._held
        if self._held:
            self._held[min(index, len(self._held) - 1)].node.querySelector("button").focus()
        else:
            self._paste_target.focus()

    def take(self) -> list[Held]:
        """Empty the tray for a send (and clear the notice): the files it held, to send, or to
        `put_back()` if the send refused them."""
        taken, self._held = self._held, []
        for held in taken:
            held.node.remove()
        self._previews.hidden = True
        self.say("")
        return taken

    def put_back(self, taken: Sequence[Held]) -> None:
        """Show files taken for a send again, before any attached since."""
        self._held[:0] = taken
        self._previews.prepend(*[held.node for held in taken])
        self._previews.hidden = not self._held

    # -- events --------------------------------------------------------------------------

    def _on_attach(self, event: Any) -> None:
        if self._enabled:
            self.picker.click()  # the browser opens its picker only from the person's click

    def _on_pick(self, event: Any) -> None:
        files = _files_of(self.picker.files)
        self.picker.value = ""  # the same file can be picked again
        self.add(files)

    def _on_remove(self, event: Any) -> None:
        button = event.target.closest(".pyclient-attachment-remove")
        if button:
            self.remove(str(button.closest(".pyclient-attachment").dataset.key))

    def _on_paste(self, event: Any) -> None:
        data = event.clipboardData
        files = _files_of(data.files) if data and self._enabled else []
        if not files:
            return  # text: the input takes it
        # A copied file may come with its name as text; a copied picture with none. Text
        # that is there still goes into the input.
        if not str(data.getData("text/plain") or ""):
            event.preventDefault()
        self.add(files)

    def _on_drag(self, event: Any) -> None:
        if not _carries_files(event):
            return  # a text or a link dragged: the browser's own
        kind = str(event.type)
        taking = self._enabled and self.patterns != ()
        # Cancelled always, even where nothing is taken: else the dropped file replaces the page.
        if kind in ("dragover", "drop"):
            event.preventDefault()
        if kind == "dragenter":
            self._entered += 1
        elif kind == "dragleave":
            self._entered = max(0, self._entered - 1)
        elif kind == "dragover":
            event.dataTransfer.dropEffect = "copy" if taking else "none"  # "none": no drop at all
        else:
            self._entered = 0
            if taking:
                self.add(_files_of(event.dataTransfer.files))
        over = self._entered > 0 and taking
        if over != self._over:
            self._over = over
            if over:
                self._drop_zone.setAttribute("data-drop", "over")
            else:
                self._drop_zone.removeAttribute("data-drop")
