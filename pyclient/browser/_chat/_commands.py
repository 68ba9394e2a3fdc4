"""What the person's commands in the chat do to its thread: send, rerun, stop, answer a tool call or an interrupt.

The chat's buttons carry `data-command`; the chat handles those that only change its own view
and hands every other click to `Commands.click()`. Stop acts on any click (stopping never does
harm); everything else sends or answers, so it acts only on a trusted event
(`event.isTrusted`): a script's click is not the person's consent, and is logged and ignored.
A button that answers carries `data-for`, the status it answers (a call's, or `"open"` for an
interrupt inside `data-interrupt-id`), and does nothing once its call or interrupt has left
that status. An answer that does not read or fit its schema is shown in the bar or the card
and nothing is sent; files `thread.send` refused go back to the composer (`refused`). Every
answer goes through `answer()` (`answer_interrupt()` for an interrupt). No `js`, `pyodide` or
`pyscript` here: it is tested on CPython with a stand-in thread.

```python
from pyclient import Agent
from pyclient.browser._chat._commands import Commands

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
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, cast, get_args

from ..._base._errors import (
    AttachmentError,
    InterruptError,
    LocalProtocolError,
    ToolError,
)
from .._widgets._forms import FormError
from ._status import can_send

if TYPE_CHECKING:
    from ..._api._thread import Thread
    from ..._conversation._action_handle import Action
    from ..._conversation._interrupt_handle import Interrupt

__all__ = ["CANCEL_REASON", "REJECT_REASON", "Answer", "AnswerBox", "Commands", "EditBar", "InterruptAnswer",
           "answer", "answer_interrupt"]

logger = logging.getLogger("pyclient")

Answer = Literal["approve", "reject", "retry", "cancel"]
"""The answers a card's buttons give a call."""

_ANSWERS: frozenset[str] = frozenset(get_args(Answer))

InterruptAnswer = Literal["approve", "reject", "resolve", "cancel"]
"""The answers the buttons of a server tool's approval bar and of an interrupt card give an interrupt."""

_INTERRUPT_ANSWERS: frozenset[str] = frozenset(get_args(InterruptAnswer))

REJECT_REASON = "the user clicked Reject"
"""What the model is told when the person rejects a call."""

CANCEL_REASON = "the user clicked Cancel"
"""What the model is told when the person cancels an interrupted call."""


class EditBar(Protocol):
    """What the commands need of a call's approval bar (`pyclient.browser._widgets._approval.ApprovalBar`)."""

    @property
    def editing(self) -> bool: ...

    def read(self) -> dict[str, Any]: ...

    def show_error(self, message: str | None) -> None: ...


class AnswerBox(Protocol):
    """What the commands need of an interrupt card (`pyclient.browser._widgets._interrupt_cards.InterruptCard`)."""

    def read(self) -> Any: ...

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


def answer_interrupt(interrupt: Interrupt, command: InterruptAnswer, payload: Any = None) -> None:
    """Give `interrupt` the person's answer: `answer()`'s twin, the one place the chat answers an interrupt.

    Args:
        interrupt: the open `Interrupt`.
        command: which answer: `"approve"` and `"reject"` a server tool's approval,
            `"resolve"` a question, `"cancel"` either.
        payload: for `"approve"`, the arguments the person edited (None: as the model made
            them); for `"resolve"`, the answer.

    Raises:
        InterruptError: the answer does not fit the interrupt's schema, or it expired; nothing is sent.
        LocalProtocolError: the interrupt already has its answer.
    """
    if command == "approve":
        interrupt.resolve({"approved": True} if payload is None else {"approved": True, "editedArgs": payload})
    elif command == "reject":
        interrupt.resolve({"approved": False, "reason": REJECT_REASON})
    elif command == "resolve":
        interrupt.resolve(payload)
    else:
        interrupt.cancel(CANCEL_REASON)


class _Answered(Protocol):
    """What `Commands` reads of the call (`Action`) or interrupt a button answers."""

    @property
    def status(self) -> str: ...


_Subject = TypeVar("_Subject", bound=_Answered)


def _edited(bar: EditBar | None, command: str) -> dict[str, Any] | None:
    """For `"approve"`, the arguments the person edited in the call's bar while its form is open;
    None otherwise (the model's own)."""
    return bar.read() if command == "approve" and bar is not None and bar.editing else None


class Commands:
    """The chat's commands on `thread`; see the module docstring.

    Args:
        thread: the chat's thread.
        suggestions: the texts the `"suggest"` buttons send, by `data-index`.
        bar: the approval bar of a call, by call id (None: it has none now).
        form: the card of an interrupt, by interrupt id (None: it has none now).
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
        form: Callable[[str], AnswerBox | None] = lambda interrupt_id: None,
    ) -> None:
        self.thread = thread
        self.suggestions = tuple(suggestions)
        self._bar = bar
        self._form = form
        self._changed = changed
        self._sending_text = sending_text
        self._tasks: set[asyncio.Task[None]] = set()  # asyncio holds tasks weakly
        # Sends not started yet: until a send's first step has run the thread still looks as
        # if it waited for the person, and a second click must not send twice.
        self._unstarted: set[asyncio.Task[None]] = set()
        self._disposed = False

    @property
    def sending(self) -> bool:
        """True from a send or rerun the chat made until it returns (it counts as running)."""
        return bool(self._tasks)

    def can_send(self) -> bool:
        """Whether a message would go now: nothing scheduled and no run in flight, or a run that
        waits for nothing but the person; the thread open and ours."""
        thread = self.thread
        return not self._unstarted and can_send(thread.run_status, sending=self.sending,
                                                read_only=thread.read_only or thread.deleted,
                                                waiting_for_person=thread.waiting_for_person)

    def _can_run(self) -> bool:
        """Whether a rerun would go now (nothing scheduled, no run in flight at all)."""
        thread = self.thread
        return can_send(thread.run_status, sending=self.sending, read_only=thread.read_only or thread.deleted)

    def act(self, start: Callable[[], Coroutine[Any, Any, None]]) -> bool:
        """Run `start()` (a message action: a regenerate, an edit) as the chat's own send, when a
        rerun may go now (nothing scheduled, no run in flight). Returns True when it started."""
        if not self._can_run():
            return False
        self._run(start())
        return True

    def dispose(self) -> None:
        """Stop telling the chat: it is gone (what is scheduled still runs)."""
        self._disposed = True

    def send(self, text: str, attachments: Sequence[Any] = (), *,
             refused: Callable[[Exception], None] | None = None) -> bool:
        """Send `text` and `attachments` as the person's message, if there is either and the
        chat may send (while the run waits for the person, the thread cancels what is open).

        Args:
            text: the message's text.
            attachments: its files (`thread.send`'s `attachments=`).
            refused: called with the error when `thread.send` refused the files
                (`AttachmentError`, or `ToolError` for a file it could not read): nothing
                was sent. Without it the error is logged.

        Returns:
            True when it was sent.
        """
        if not (text or attachments) or not self.can_send():
            return False
        self._sending_text()
        self._run(self._send(text, list(attachments), refused) if attachments else self.thread.send(text))
        return True

    async def _send(self, text: str, files: list[Any], refused: Callable[[Exception], None] | None) -> None:
        try:
            await self.thread.send(text, attachments=files)
        except (AttachmentError, ToolError) as error:  # raised before anything was added or sent
            if refused is None or self._disposed:
                raise
            refused(error)

    def stop(self) -> None:
        """Stop the run (Stop, Escape): the thread says so (`thread.run_end`), the chat marks it."""
        self.thread.stop()

    def click(self, command: str, *, trusted: bool, call_id: str | None = None, interrupt_id: str | None = None,
              status: str | None = None, index: str | None = None) -> None:
        """A click on a button with `data-command="<command>"`.

        Args:
            command: the button's `data-command`.
            trusted: `event.isTrusted`: the person clicked, not a script.
            call_id: the `toolCallId` of the card the button is in, if any.
            interrupt_id: the `data-interrupt-id` of the bar or card the button is in, if any.
            status: the button's `data-for`: the call or interrupt status it answers.
            index: the button's `data-index` (a suggestion's position).
        """
        if command == "stop":
            self.stop()
        elif not trusted:  # a script's synthetic click is not the person's
            logger.warning("pyclient: ignored an untrusted click for %s", interrupt_id or call_id or command)
        elif command == "suggest" and index is not None:
            self.send(self.suggestions[int(index)])
        elif command == "retry-run":
            if self._can_run():
                self._run(self.thread.run())
        elif interrupt_id is not None:
            self._interrupt_command(interrupt_id, call_id, command, status)
        elif call_id is not None:
            self._call_command(call_id, command, status)

    def _interrupt_command(self, interrupt_id: str, call_id: str | None, command: str, status: str | None) -> None:
        """A trusted click on an interrupt's button: act if it is still in the status it answers."""
        found = self._answerable(self.thread.interrupt, interrupt_id, call_id, command, status, _INTERRUPT_ANSWERS)
        if found is None:
            return
        interrupt, bar = found
        shown: EditBar | AnswerBox | None = bar if command in ("approve", "reject") else self._form(interrupt_id)
        try:
            if command == "resolve":
                if shown is None:
                    return  # no card to read the answer from
                payload = shown.read()
            else:
                payload = _edited(bar, command)
            answer_interrupt(interrupt, cast(InterruptAnswer, command), payload)
        except (FormError, InterruptError, LocalProtocolError) as exc:  # LocalProtocolError: answered meanwhile
            if shown is not None:
                shown.show_error(str(exc))

    def _call_command(self, call_id: str, command: str, status: str | None) -> None:
        """A trusted click on a card's button: act if the call is still in the status it answers."""
        found = self._answerable(self.thread.action, call_id, call_id, command, status, _ANSWERS)
        if found is None:
            return
        action, bar = found
        try:
            answer(action, cast(Answer, command), _edited(bar, command))
        except (FormError, ToolError) as exc:
            if bar is not None:
                bar.show_error(str(exc))

    def _answerable(self, find: Callable[[str], _Subject], subject_id: str, call_id: str | None, command: str,
                    status: str | None, answers: frozenset[str]) -> tuple[_Subject, EditBar | None] | None:
        """The call or interrupt (`find(subject_id)`) a trusted click answers, and the call's
        bar; None when there is nothing to answer: not one of this thread (any more), or a command
        or status other than the ones the button answers (Edit is the card's own: `Card.on_command`)."""
        try:
            subject = find(subject_id)
        except LocalProtocolError:
            return None
        bar = self._bar(call_id) if call_id is not None else None
        if command not in answers or subject.status != status:
            return None
        return subject, bar

    def _run(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(self._start(coroutine))
        self._tasks.add(task)
        self._unstarted.add(task)
        task.add_done_callback(self._sent)
        self._changed()  # "running" from the click on: the send starts a moment later

    async def _start(self, coroutine: Coroutine[Any, Any, None]) -> None:
        # The send's first step (the thread cancels what is open, adds the message) runs right
        # after this line, before any other click can be handled.
        self._unstarted.discard(cast("asyncio.Task[None]", asyncio.current_task()))
        await coroutine

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._unstarted.discard(task)
        if not task.cancelled() and task.exception() is not None:
            # send() raises only for misuse or a bug; say so instead of "never retrieved".
            logger.error("pyclient: sending from the chat failed", exc_info=task.exception())
        if not self._disposed:
            self._changed()
