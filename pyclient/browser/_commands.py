"""What the person's commands in the chat do to its thread: send, rerun, stop, answer a tool call.

The chat's buttons carry `data-command`; the chat handles the ones that only change its own
view (jump to the latest, open the event log, download it) and hands every other click to
`Commands.click()`. Stop acts on any click (stopping never does harm). Everything else sends
or answers, so it acts only on a trusted user event (`event.isTrusted`): a script's
synthetic click is not the person's consent, and is logged and ignored.

- `"suggest"` sends a suggestion, `"retry-run"` runs the thread again after an error; both
  only when the chat may send (`pyclient.browser._status.can_send`).
- A card's buttons (`"approve"`, `"reject"`, `"retry"`, `"cancel"`) carry `data-for`, the
  call status they answer; a click answers only while the call is still in that status, so
  a button that outlived its moment (the call was answered elsewhere, its tool unmounted)
  does nothing. `"edit"` shows or hides the approval's edit form; Approve with the form
  open sends the edited arguments, and one that does not read or validate shows its
  message in the bar while the call keeps waiting.

Every answer goes through `answer()`, the one place the chat answers a call. This module
imports no `js`, `pyodide` or `pyscript`: it is tested on CPython with a stand-in thread.
See https://developer.mozilla.org/en-US/docs/Web/API/Event/isTrusted

```python
from pyclient import Agent
from pyclient.browser._commands import Commands

thread = Agent("main", url="/agent").thread()
commands = Commands(thread, suggestions=("Make it blue",), bar=lambda call_id: None,
                    changed=lambda: None, sending_text=lambda: None)
commands.click("suggest", trusted=False, index="0")   # a script's click: ignored, and logged
print(commands.sending)                                # False
```
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, get_args

from .._errors import LocalProtocolError, ToolError
from ._forms import FormError
from ._status import can_send

if TYPE_CHECKING:
    from .._actions import Action
    from .._thread import Thread

__all__ = ["CANCEL_REASON", "REJECT_REASON", "Answer", "Commands", "EditBar", "answer"]

logger = logging.getLogger("pyclient")

Answer = Literal["approve", "reject", "retry", "cancel"]
"""The answers a card's buttons give a call."""

_ANSWERS: frozenset[str] = frozenset(get_args(Answer))

REJECT_REASON = "the user clicked Reject"
"""What the model is told when the person rejects a call."""

CANCEL_REASON = "the user clicked Cancel"
"""What the model is told when the person cancels an interrupted call."""


class EditBar(Protocol):
    """What the commands need of a call's approval bar (`pyclient.browser._approval.ApprovalBar`)."""

    @property
    def editing(self) -> bool: ...

    def toggle_edit(self) -> None: ...

    def read(self) -> dict[str, Any]: ...

    def show_error(self, message: str | None) -> None: ...


def answer(action: Action, command: Answer, arguments: dict[str, Any] | None = None) -> None:
    """Give `action` the person's answer: the one place the chat answers a call.

    Args:
        action: the call's pending `Action`.
        command: which answer.
        arguments: for `"approve"`, the arguments the person edited (None: as the model made them).

    Raises:
        ToolError: the edited arguments do not match the tool's parameters; the call keeps waiting.
        LocalProtocolError: the call cannot take that answer in its status.
    """
    if command == "approve":
        action.approve(arguments=arguments)
    elif command == "reject":
        action.reject(REJECT_REASON)
    elif command == "retry":
        action.retry()
    else:
        action.cancel(CANCEL_REASON)


class Commands:
    """The chat's commands on `thread`; see the module docstring.

    Args:
        thread: the chat's thread.
        suggestions: the texts the `"suggest"` buttons send, by `data-index`.
        bar: the approval bar of a call, by call id (None: it has none now).
        changed: called when the chat should draw everything at once (a send starts or ends).
        sending_text: called just before the person's message (typed or a suggestion) is sent.
    """

    def __init__(
        self,
        thread: Thread,
        *,
        suggestions: Iterable[str],
        bar: Callable[[str], EditBar | None],
        changed: Callable[[], None],
        sending_text: Callable[[], None],
    ) -> None:
        self.thread = thread
        self.suggestions = tuple(suggestions)
        self._bar = bar
        self._changed = changed
        self._sending_text = sending_text
        self._tasks: set[asyncio.Task[None]] = set()  # asyncio holds tasks weakly
        self._disposed = False

    @property
    def sending(self) -> bool:
        """True from a send or rerun the chat made until it returns (it counts as running)."""
        return bool(self._tasks)

    def can_send(self) -> bool:
        """Whether a send would go now (nothing scheduled, no run in flight, the thread open and ours)."""
        thread = self.thread
        return can_send(thread.run_status, sending=self.sending, read_only=thread.read_only)

    def dispose(self) -> None:
        """Stop telling the chat: it is gone (what is scheduled still runs)."""
        self._disposed = True

    def send(self, text: str) -> bool:
        """Send `text` as the person's message, if it is not empty and the chat may send.

        Returns:
            True when it was sent.
        """
        if not text or not self.can_send():
            return False
        self._sending_text()
        self._run(self.thread.send(text))
        return True

    def stop(self) -> None:
        """Stop the run (Stop, Escape): the thread says so (`thread.run_end`), the chat marks it."""
        self.thread.stop()

    def click(self, command: str, *, trusted: bool, call_id: str | None = None, status: str | None = None,
              index: str | None = None) -> None:
        """A click on a button with `data-command="<command>"`.

        Args:
            command: the button's `data-command`.
            trusted: `event.isTrusted`: the person clicked, not a script.
            call_id: the `toolCallId` of the card the button is in, if any.
            status: the button's `data-for`: the call status it answers.
            index: the button's `data-index` (a suggestion's position).
        """
        if command == "stop":
            self.stop()
        elif not trusted:  # a script's synthetic click is not the person's
            logger.warning("pyclient: ignored an untrusted click for %s", call_id or command)
        elif command == "suggest" and index is not None:
            self.send(self.suggestions[int(index)])
        elif command == "retry-run":
            if self.can_send():
                self._run(self.thread.run())
        elif call_id is not None:
            self._call_command(call_id, command, status)

    def _call_command(self, call_id: str, command: str, status: str | None) -> None:
        """A trusted click on a card's button: act if the call is still in the status it answers."""
        try:
            action = self.thread.action(call_id)
        except LocalProtocolError:
            return  # not a call of this thread (any more)
        bar = self._bar(call_id)
        if command == "edit":
            if bar is not None:
                bar.toggle_edit()
            return
        if command not in _ANSWERS or action.status != status:
            return
        try:
            arguments = bar.read() if command == "approve" and bar is not None and bar.editing else None
            answer(action, cast(Answer, command), arguments)
        except (FormError, ToolError) as exc:
            if bar is not None:
                bar.show_error(str(exc))

    def _run(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._sent)
        self._changed()  # "running" from the click on: the send starts a moment later

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            # send() raises only for misuse or a bug; say so instead of "never retrieved".
            logger.error("pyclient: sending from the chat failed", exc_info=task.exception())
        if not self._disposed:
            self._changed()
