"""The part of `Thread` for what a person does to its messages: regenerate, edit, branches, ratings.

`ThreadMessageActions` is a mixin of `Thread` (`pyclient._api._thread`): each method is the public
face of `MessageActions` (`pyclient._driver._message_actions`), which makes the checks and drives the
machine; its docstring tells the whole story, with a runnable example.
```python
import asyncio
from pyclient import Agent
from pyclient.testing import ScriptedAgent

agent = ScriptedAgent()
agent.on("hi").say("Hello")

async def main():
    thread = Agent("main", "http://agent.test/agent", transport=agent.transport()).thread()
    await thread.send("hi")
    thread.set_feedback(thread.messages[-1].id, "up")
    print(thread.feedback(thread.messages[-1].id), thread.branch_points())    # up []

asyncio.run(main())
```
"""

from __future__ import annotations

from .._conversation._branches import BranchPoint
from .._conversation._feedback import Rating
from .._driver._message_actions import MessageActions

__all__ = ["ThreadMessageActions"]


class ThreadMessageActions:
    """A thread's message actions (a mixin of `Thread`).

    Args:
        actions: the thread's `MessageActions`.
    """

    def __init__(self, actions: MessageActions) -> None:
        self._message_actions = actions


    async def regenerate(self) -> None:
        """Answer the last user message again, keeping the answer it replaces as a branch;
        returns when idle, as `run()` does.

        Raises:
            LocalProtocolError: a run is in flight or waits for an answer (`stop()` first), no
                user message, the thread is closed or read-only here; nothing changes then.
        """
        await self._message_actions.regenerate()

    async def edit(self, message_id: str, text: str) -> None:
        """Replace the user message `message_id` with `text` (files kept) and run from there, the
        old message and its answers kept as a branch; returns when idle.

        Raises:
            LocalProtocolError: as `regenerate()`, or `message_id` is not a user message shown.
        """
        await self._message_actions.edit(message_id, text)

    def branches(self, message_id: str) -> BranchPoint | None:
        """The alternatives of a message shown (`BranchPoint(message_id, index, count)`), or None."""
        return self._message_actions.point(message_id)

    def branch_points(self) -> list[BranchPoint]:
        """Every message shown that has alternatives, in history order."""
        return self._message_actions.points()

    def show_branch(self, message_id: str, index: int) -> BranchPoint:
        """Show alternative `index` (from 0) of `message_id`'s: the history and the next request
        read with it. Returns the `BranchPoint` of the one now shown.

        Raises:
            LocalProtocolError: as `regenerate()`, or no such message or alternative.
        """
        return self._message_actions.show(message_id, index)

    def feedback(self, message_id: str) -> Rating | None:
        """The person's rating of an answer: `"up"`, `"down"` or None."""
        return self._message_actions.rating(message_id)

    def set_feedback(self, message_id: str, rating: Rating | None) -> None:
        """Rate an assistant message shown `"up"` or `"down"` (None clears); saved with the thread.

        Raises:
            LocalProtocolError: not an assistant message shown, not a rating, or read-only here.
        """
        self._message_actions.rate(message_id, rating)
