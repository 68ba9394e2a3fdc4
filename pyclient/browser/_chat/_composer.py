"""The chat's composer: the form the person writes in, Send and Stop, the files they attach, and
the messages the shell took before Python was ready.

A `Chat` has one. It makes the form's nodes, or keeps the shell's (`_shell`: the input keeps its
focus, caret and text), sends what the person submits through the chat's `Commands`, and hands
on, one at a time and each exactly once, what the shell's outbox holds once the thread may send;
a message that can never go (a read-only or deleted thread) comes back into the input. What may
be pressed follows the run's view (`show`).

```python
from pyscript import document
from pyclient import Agent
from pyclient.browser import Chat

chat = Chat(Agent("main", url="/agent").thread(), document.body)   # its composer at its foot
field = document.querySelector(".pyclient-form input[name=message]")
print(field.placeholder, document.querySelector(".pyclient-send").disabled)   # Ask the agent… False
chat.dispose()
```
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .._page._nodes import Listeners, el
from ._attachment_rules import send_refusal
from ._attachments import Attachments, Held
from ._commands import Commands
from ._shell import PLACEHOLDER, Outbox, Shell
from ._status import RunView

if TYPE_CHECKING:
    from ..._api._thread import Thread

__all__ = ["Composer"]


class Composer:
    """The form of one `Chat`; see the module docstring.

    Attributes:
        form: the `<form>`.
        input: its message field.
        attachments: the files held for the next message.
        outbox: the shell's messages not yet sent and drawn (None: the chat drew its own form).
    """

    def __init__(self, thread: Thread, commands: Commands, root: Any, shell: Shell | None, *,
                 prefix: str, placeholder: str | None, accept: Iterable[str] | None) -> None:
        """Make the composer's nodes, or take the shell's, and listen to them.

        Args:
            thread: the chat's thread.
            commands: the chat's commands (`send`, `stop`).
            root: the chat's root: it takes dropped files, and every form's submit in it is cancelled.
            shell: the shell the chat adopts, if any.
            prefix: the chat's id prefix (the input's id is `<prefix>-input`).
            placeholder: the input's placeholder; None: the shell's, else `PLACEHOLDER`.
            accept: the MIME patterns of the files the person may attach (`Attachments`).
        """
        self._thread = thread
        self._commands = commands
        self._shell = shell
        self._disposed = False
        self.form = el("form", "pyclient-form") if shell is None else shell.form
        self.input = el("input", "", name="message", autocomplete="off") if shell is None else shell.input
        self.input.id = f"{prefix}-input"
        if shell is None or placeholder is not None:
            self.input.placeholder = placeholder or PLACEHOLDER
        self._label = el("label", "pyclient-visually-hidden", "Message")
        self._label.htmlFor = self.input.id
        self._send = el("button", "pyclient-send", "Send", type="submit")
        self._stop = el("button", "pyclient-stop", "Stop", type="button", data_command="stop")
        self._stop.title = "Stop the answer (Escape)"
        agent = thread.agent
        self.attachments = Attachments(accept=accept, limits=lambda: agent.limits, drop_zone=root,
                                       paste_target=self.input)
        self.outbox = Outbox(shell.outbox) if shell is not None else None
        listeners = self._listeners = Listeners(self)
        listeners.listen(root, "submit", "_on_submit", prevent="always")
        listeners.listen(self.input, "keydown", "_on_key", prevent="escape")
        if shell is not None:  # what the shell hands over (see _shell)
            listeners.listen(self.form, "pyclient-send", "_on_shell_send")
            listeners.listen(self.form, "pyclient-attach", "_on_shell_attach")
        self._finalizer = weakref.finalize(self, listeners.release)

    def place(self, root: Any, *above: Any) -> None:
        """Put the form at the foot of `root`, under `above` (the chat's other parts); around the
        shell's nodes, which do not move, when it adopts one."""
        files = self.attachments
        if self.outbox is None:
            self.form.append(files.tray, files.button, self._label, self.input, self._send, self._stop)
            root.append(*above, self.form, files.picker)  # the picker is outside: the form's one input is the message
        else:
            self.outbox.node.before(*above)
            self.input.before(files.tray, files.button, self._label)
            self.input.after(self._send, self._stop)
            self.form.after(files.picker)

    def dispose(self) -> None:
        """Remove the composer's listeners (its nodes go with the chat's root)."""
        self._disposed = True
        self.attachments.dispose()
        self._finalizer()

    def show(self, view: RunView) -> None:
        """Enable what the run's view allows."""
        self._send.disabled = not view.can_send
        self._stop.disabled = not view.can_stop
        self.input.disabled = not view.can_type
        self.attachments.enable(view.can_type)

    def sent(self) -> None:
        """The person's own message went: empty the input (the shell empties its own, at once)."""
        if self._shell is None:
            self.input.value = ""
        self.input.focus()

    def drawn(self, messages: int) -> None:
        """The chat drew `messages` messages: the shell's message sent last is taken once shown,
        and the next one goes if the thread may send."""
        if self.outbox is not None and self.outbox.waiting:
            self.outbox.drawn(messages=messages)
            self.send_waiting()

    # -- the person's input ----------------------------------------------------------------

    def _on_submit(self, event: Any) -> None:
        event.preventDefault()  # the edit forms of approval cards submit nothing either
        if event.target != self.form or self._shell is not None:
            return  # the shell's composer sends through _on_shell_send
        text = str(self.input.value).strip()
        held = self.attachments.held
        if self._commands.send(text, [item.file for item in held], refused=self._refusal(text, held)):
            self.attachments.take()

    def _on_key(self, event: Any) -> None:
        if event.key == "Escape" and self._thread.run_status == "running":
            event.preventDefault()
            self._commands.stop()

    def _refusal(self, text: str, held: tuple[Held, ...]) -> Callable[[Exception], None]:
        def refused(error: Exception) -> None:
            """`thread.send` refused the message's files (nothing was sent): they and the text come back."""
            if self._disposed:
                return
            if self.outbox is not None:
                self.outbox.refused()
            self.attachments.put_back(held)
            self.attachments.say(send_refusal(error))
            if not self.input.value:
                self.input.value = text
        return refused

    def _on_shell_send(self, event: Any) -> None:
        """A message the person sent in the shell (before Python was ready, or just now)."""
        if self.outbox is not None:
            detail = event.detail
            self.outbox.receive(int(detail.id), str(detail.text), list(detail.files or []))
            self.send_waiting()

    def _on_shell_attach(self, event: Any) -> None:
        """Files the person attached in the shell before Python was ready."""
        self.attachments.add(list(event.detail.files or []))

    def send_waiting(self) -> None:
        """Send the shell's next message, if the thread may send; give them all back if it never will."""
        outbox = self.outbox
        if outbox is None or self._disposed:
            return
        if self._thread.read_only or self._thread.deleted:
            self._give_back(" ".join(item.text for item in outbox.give_back() if item.text))
            return
        if not self._commands.can_send():
            return  # the run ends first: the chat's next draw asks again (`drawn`)
        item = outbox.next_to_send()
        if item is None:
            return
        files = self.attachments
        attached = len(files.held)
        files.add(item.files)  # the chat's rules for files, as for any attached: refused ones said why
        if len(files.held) - attached < len(item.files):
            outbox.take(item.id)  # not sent without a file the person meant to send
            self._give_back(item.text)
            return
        held = files.held
        before = len(self._thread.message_view())
        if self._commands.send(item.text, [each.file for each in held], refused=self._refusal(item.text, held)):
            files.take()
            outbox.sending(item.id, messages=before)
        else:  # nothing to send (an empty message with no files)
            outbox.take(item.id)

    def _give_back(self, text: str) -> None:
        """Put a message that could not go back into the input (unless the person typed since)."""
        if text and not str(self.input.value):
            self.input.value = text
