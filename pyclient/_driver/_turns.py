"""A thread's turns: `send()` and `run()` from the checks to the idle thread.

A turn first waits for the saved conversation (`restore`), refuses when another tab holds the
thread (`read_only`) or when it was deleted from its store elsewhere (`deleted`: the store is
asked first, so a `FileStore` thread another process deleted refuses before anything is sent),
and builds the schemas of the tools it serves (a hint with no JSON
Schema raises before anything is sent); then the drive loop (`pyclient._driver._loop`) runs it until
the thread is idle, and, with a store, until the last state is saved. A message sent while
the run waits only for the person cancels what is open and goes in the request that tells the
agent (after a LangGraph interrupt, the cancellation first and the message right after it).

```python
import asyncio
from pyclient import Agent, MemoryStore

async def main():
    thread = Agent("main", "http://127.0.0.1:8000/agent").thread(thread_id="t1", store=MemoryStore())
    await thread.send("hi")             # restored, checked, run until idle, saved
    print(thread.run_status, thread.read_only)  # idle False

asyncio.run(main())
```
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._base._errors import LocalProtocolError
from .._conversation._records import SendRequest
from .._tools._content import read_attachments

if TYPE_CHECKING:
    from .._binding._scopes import ThreadScope
    from .._conversation._machine import Conversation
    from ._host import Host
    from ._loop import Driver
    from ._persistence import Persistence
    from ._publisher import Publisher

__all__ = ["Turns"]


class Turns:
    """The turns of one thread: its machine, drive loop, publisher, scope and (optional) persistence."""

    def __init__(self, agent: Host, machine: Conversation, driver: Driver, publisher: Publisher, scope: ThreadScope,
                 persistence: Persistence | None) -> None:
        self._agent = agent
        self._machine = machine
        self._driver = driver
        self._publisher = publisher
        self._scope = scope
        self._persistence = persistence

    @property
    def read_only(self) -> bool:
        """True when another tab holds this stored thread."""
        return self._persistence is not None and self._persistence.read_only

    @property
    def deleted(self) -> bool:
        """True once the stored thread was deleted from its store elsewhere."""
        return self._persistence is not None and self._persistence.deleted

    @property
    def set_aside(self) -> str | None:
        """The key the unreadable saved copy was moved to (None: none)."""
        return self._persistence.set_aside if self._persistence is not None else None

    async def restore(self) -> bool:
        """Load the saved conversation (once); True when one was restored."""
        if self._persistence is None:
            return False
        return await self._persistence.restore()

    async def _writable(self, what: str) -> None:
        """Restored, still in its store, and writable here (`check_writable`)."""
        await self.restore()
        if self._persistence is not None:
            await self._persistence.check_kept()
        self.check_writable(what)

    async def saved(self) -> None:
        """Wait until the latest state is saved (nothing without a store)."""
        if self._persistence is not None:
            await self._persistence.saved()

    async def send(self, text: str, attachments: Iterable[Any]) -> None:
        """`Thread.send`: append the user's message and run until idle."""
        if not isinstance(text, str):
            raise LocalProtocolError(
                f"thread.send() takes the user's message as a str, got {type(text).__name__}. "
                "Pass the text, e.g. `await thread.send('make it blue')`."
            )
        limits = self._agent.limits
        files = await read_attachments(attachments, self._agent.platform.read_media,
                                       per_file=limits.max_attachment_bytes, per_message=limits.max_message_bytes)
        await self._writable("send a message")
        self.build_schemas()
        machine = self._machine
        # The run waits only for the person, who wrote instead: what is open is cancelled and
        # the request that carries the message tells the agent (the turn in flight sends it).
        if machine.waiting_for_person and any(record.legacy for record in machine.interrupts.open()):
            # ag-ui-langgraph drops the new messages of a request that resumes: after its
            # interrupts the cancellation goes first, alone, and the message after it.
            machine.interrupts.cancel_open("the user sent a new message instead")
            self._driver.changed()
            await self._driver.turn_finished()
        if machine.waiting_for_person:
            machine.add_user_message(text, files)
            self._driver.changed()
            await self._driver.turn_finished()
            await self.saved()
            return
        machine.add_user_message(text, files)
        self._publisher.publish()
        await self.run()

    async def run(self) -> None:
        """`Thread.run`: run the agent on the current history until idle."""
        await self._writable("start a run")
        self._machine.check_can_start("start a run")
        self.build_schemas()
        await self._driver.run_turn(SendRequest())
        await self.saved()  # idle means nothing in flight: the last save included

    async def ready(self, what: str) -> None:
        """Restored, writable here, and the schemas built: a message action may go on."""
        await self._writable(what)
        self.build_schemas()

    def build_schemas(self) -> None:
        """Build the schemas of the tools this thread serves, if not yet: a hint with no JSON
        Schema raises its `ConfigurationError` here, before anything is sent."""
        for tool in self._scope.every_mounted_tool():
            tool.build_schema()

    def check_writable(self, what: str) -> None:
        """Raise `LocalProtocolError` when another tab holds the thread, or it was deleted from its
        store elsewhere (`what` names the act)."""
        if self.deleted:
            raise LocalProtocolError(
                f"Cannot {what} in thread {self._machine.thread_id!r}: it was deleted from its store elsewhere "
                "(another tab or process), so nothing here would be saved. Start a new thread; reloading the "
                "page starts this one afresh."
            )
        if self.read_only:
            raise LocalProtocolError(
                f"Cannot {what} in thread {self._machine.thread_id!r}: another tab holds it, so it is shown "
                "read-only here. Continue in that tab, or close it and reload this one."
            )
