"""The run status in words, and what the chat's form allows then: pure functions of the thread's state.

The chat's header says where the run is in a polite live region ("Ready", "Thinking…",
"Waiting for your answer", "Read-only: open in another tab", ...: the list is in docs/chat.md),
and its form enables Send, Stop and the input to match. Both come from `run_view()`, which
reads nothing but its arguments: the thread's `run_status`, whether it is read-only or was
deleted elsewhere, whether a send is scheduled (it counts as running), whether calls or
interrupts wait for the person (`thread.waiting_for_person`: Send stays enabled, and a new
message cancels what is open) and how the last turn ended (`thread.run_end`). `store_notice()`
is the line shown above the messages when the saved copy could not be read, or the thread was
deleted elsewhere. No `js`, `pyodide` or `pyscript` here: it is tested on CPython, every branch.

```python
from pyclient._conversation._records import RunEnd
from pyclient.browser._chat._status import run_view

view = run_view("running", sending=False, read_only=False, waiting=True, working=True, run_end=None)
print(view.words, view.can_stop)                                  # Waiting for you True
stopped = run_view("idle", sending=False, read_only=False, waiting=False, working=False,
                   run_end=RunEnd("stopped", "stopped by the user", "r1"))
print(stopped.words, stopped.status, stopped.can_send)            # Stopped idle True
asked = run_view("running", sending=True, read_only=False, waiting=False, working=False, run_end=None,
                 asking=True, waiting_for_person=True)
print(asked.words, asked.can_send)                                # Waiting for your answer True
gone = run_view("idle", sending=False, read_only=False, waiting=False, working=False, run_end=None, deleted=True)
print(gone.words, gone.can_send, gone.can_type)                   # Deleted in another tab False False
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..._conversation._records import RunEnd

__all__ = ["RunView", "can_send", "run_view", "store_notice"]


@dataclass(frozen=True)
class RunView:
    """What the chat shows of the run.

    Attributes:
        status: `data-status` of the chat and of its status line: the run status, or
            `"running"` while a send is scheduled (and the thread is not closed).
        words: the status line's text.
        can_send: Send is enabled (and the chat sends: a message, a suggestion, a Retry).
        can_stop: Stop is enabled.
        can_type: the input is enabled.
    """

    status: str
    words: str
    can_send: bool
    can_stop: bool
    can_type: bool


def can_send(run_status: str, *, sending: bool, read_only: bool, waiting_for_person: bool = False) -> bool:
    """Whether the chat may send a message now: no send scheduled, no run in flight (or one that
    waits only for the person), the thread open and its own.

    Args:
        run_status: `thread.run_status`.
        sending: a send or rerun the chat scheduled has not finished.
        read_only: `thread.read_only` (another tab holds the thread).
        waiting_for_person: `thread.waiting_for_person`: the run waits for nothing but the
            person, whose new message cancels what is open (`thread.send`).
    """
    if read_only or run_status == "closed":
        return False
    return waiting_for_person or not (sending or run_status == "running")


def run_view(
    run_status: str,
    *,
    sending: bool,
    read_only: bool,
    waiting: bool,
    working: bool,
    run_end: RunEnd | None,
    asking: bool = False,
    waiting_for_person: bool = False,
    deleted: bool = False,
) -> RunView:
    """What the chat shows of a run in these circumstances; see the module docstring.

    Args:
        run_status: `thread.run_status` (`"idle"`, `"running"`, `"error"` or `"closed"`).
        sending: a send or rerun the chat scheduled has not finished (it counts as running).
        read_only: `thread.read_only`: said before anything else, the thread is another tab's.
        waiting: some call of the run waits for the user (an approval, an input).
        working: some call of the run has its handler running.
        run_end: `thread.run_end`, how the last turn ended (None while one is in flight).
        asking: the agent asked the person something (open interrupts: `thread.interrupts`).
        waiting_for_person: `thread.waiting_for_person` (Send stays enabled).
        deleted: `thread.deleted`: deleted from its store elsewhere; said first, and nothing
            can be sent or typed (it would not be saved).

    Returns:
        The status, its words and which controls are enabled.
    """
    status = "running" if sending and run_status != "closed" else run_status
    if deleted:
        words = "Deleted in another tab"
    elif read_only:
        words = "Read-only: open in another tab"
    elif status == "closed":
        words = "Closed"
    elif status == "error":
        words = "Something went wrong"
    elif status == "running":
        words = ("Waiting for your answer" if asking else "Waiting for you" if waiting or waiting_for_person
                 else "Working…" if working else "Thinking…")
    elif run_end is not None and run_end.how == "stopped":
        words = "Stopped"
    elif run_end is not None and run_end.how == "cancelled":
        words = "Cancelled by the agent"
    else:
        words = "Ready"
    return RunView(
        status=status,
        words=words,
        can_send=can_send(run_status, sending=sending, read_only=read_only or deleted,
                          waiting_for_person=waiting_for_person),
        can_stop=status == "running",
        can_type=not (read_only or deleted) and status != "closed",
    )


def store_notice(*, set_aside: bool, deleted: bool) -> str:
    """The line above the chat's messages about its saved copy ("" for none).

    Args:
        set_aside: `thread.set_aside` is set: the saved copy could not be read, was kept aside,
            and the thread started afresh.
        deleted: `thread.deleted`: the thread was deleted from its store elsewhere.
    """
    if deleted:
        return ("This chat was deleted in another tab: nothing here is saved any more. "
                "Start a new chat to go on.")
    if set_aside:
        return ("The saved copy of this chat could not be read, so it starts afresh. "
                "The copy was kept aside, unchanged.")
    return ""
