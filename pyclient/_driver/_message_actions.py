"""What a person does to a thread's messages besides sending: regenerate, edit, page through branches, rate.

`Thread` hands these to `MessageActions`. `await thread.regenerate()` answers the last user
message again, and `await thread.edit(message_id, text)` replaces a user message (same id, its
files kept) and runs from there; what either replaces is kept as a branch
(`pyclient._conversation._branches`), and both return once the thread is idle, as `send()`
does. `thread.show_branch(message_id, index)` shows another alternative, and the next request
carries only the branch shown; `thread.set_feedback(message_id, rating)` rates an assistant
message. While a run is in flight or waits for an answer, regenerate, edit and show_branch
raise `LocalProtocolError` and change nothing; a rating may change at any time. Ratings and
branches are saved with a stored thread (docs/chat.md, "Message actions").

```python
import asyncio
from pyclient import Agent
from pyclient.testing import ScriptedAgent

agent = ScriptedAgent()
agent.on("hi", times=1).say("Hello")
agent.on("hi").say("Hi there")

async def main():
    thread = Agent("main", "http://agent.test/agent", transport=agent.transport()).thread()
    await thread.send("hi")
    await thread.regenerate()
    answer = thread.messages[-1]
    print(answer.content, thread.branches(answer.id).count)      # Hi there 2
    first = thread.show_branch(answer.id, 0)
    print(thread.messages[-1].content, first.index)              # Hello 0
    thread.set_feedback(first.message_id, "up")
    print(thread.feedback(first.message_id))                     # up

asyncio.run(main())
```
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .._base._errors import LocalProtocolError
from .._conversation._branches import BranchPoint
from .._conversation._feedback import Rating
from .._conversation._machine import Conversation

if TYPE_CHECKING:
    from ag_ui.core import Message

__all__ = ["MessageActions"]


class MessageActions:
    """A thread's message actions; see the module docstring.

    Args:
        machine: the thread's conversation machine (its `branches`, `feedback`, history).
        publish: tells the thread's listeners what the machine changed.
        ready: awaited first by what starts a run: the restore, and the checks that raise
            before anything changes (read-only, the tools' schemas); called with what is done.
        writable: raises when the thread is read-only here; called with what is done.
        run: runs the agent until idle (`thread.run()`).
    """

    def __init__(self, machine: Conversation, *, publish: Callable[[], None],
                 ready: Callable[[str], Awaitable[None]], writable: Callable[[str], None],
                 run: Callable[[], Awaitable[None]]) -> None:
        self._machine = machine
        self._publish = publish
        self._ready = ready
        self._writable = writable
        self._run = run

    async def regenerate(self) -> None:
        """Put the last answer aside as a branch and run again (`thread.regenerate()`)."""
        await self._show_instead("regenerate an answer", self._machine.branches.regenerate)
        await self._run()

    async def edit(self, message_id: str, text: str) -> None:
        """Replace a user message, keep the old one as a branch, and run (`thread.edit()`)."""
        branches = self._machine.branches
        await self._show_instead("edit a message", lambda shown: branches.edit(shown, message_id, text))
        await self._run()

    def point(self, message_id: str) -> BranchPoint | None:
        """The alternatives of a message of the history shown, or None."""
        machine = self._machine
        return machine.branches.point(machine.messages(), message_id) if machine.branches else None

    def points(self) -> list[BranchPoint]:
        """Every message of the history shown that has alternatives, in order."""
        machine = self._machine
        return machine.branches.points(machine.messages()) if machine.branches else []

    def show(self, message_id: str, index: int) -> BranchPoint:
        """Show alternative `index` of `message_id`'s; the point of the alternative now shown."""
        what = "show another branch"
        self._writable(what)
        machine = self._machine
        machine.check_can_start(what)
        shown = machine.messages()
        at = next((i for i, message in enumerate(shown) if message.id == message_id), len(shown))
        messages = machine.branches.show(shown, message_id, index)
        machine.show_messages(messages, what)
        self._publish()
        point = machine.branches.point(messages, messages[at].id)
        assert point is not None  # the fork after messages[at - 1] holds it
        return point

    def rating(self, message_id: str) -> Rating | None:
        """The rating of a message, or None."""
        return self._machine.feedback.get(message_id)

    def rate(self, message_id: str, rating: Rating | None) -> None:
        """Rate an assistant message of the history shown (None clears the rating)."""
        self._writable("rate an answer")
        if not any(m.id == message_id and m.role == "assistant" for m in self._machine.messages()):
            raise LocalProtocolError(
                f"Cannot rate message {message_id!r}: it is not an assistant message of the history shown "
                "(`thread.messages`)."
            )
        self._machine.feedback.set(message_id, rating)
        self._publish()

    async def _show_instead(self, what: str, rewrite: Callable[[list[Message]], list[Message]]) -> None:
        """Check that a new turn may start, then show the history `rewrite` makes of the one shown."""
        await self._ready(what)
        machine = self._machine
        machine.check_can_start(what)
        machine.show_messages(rewrite(machine.messages()), what)
        self._publish()
