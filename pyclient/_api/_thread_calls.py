"""The part of `Thread` a page answers through: its pending `Action`s, its `Interrupt`s, each call's `ToolPart`.

`ThreadCalls` is a mixin of `Thread` (`pyclient._api._thread`): it holds the thread's
`ThreadAnswers` (`pyclient._driver._answering`) and reads only its public views, so that the answering
stays in one place and `Thread` keeps its other rooms. `thread.pending_actions`,
`thread.action(id)`, `thread.interrupts`, `thread.interrupt(id)`, `thread.all_interrupts()`,
`thread.tool_part(id)` and `thread.tool_parts()` are its methods.
```python
import asyncio
from pyclient import Agent, client_tool
from pyclient.testing import ScriptedAgent

@client_tool(requires_approval=True)
def clear_notes() -> str:
    \"\"\"Delete every note.\"\"\"
    return "cleared"

server = ScriptedAgent()
server.on("clear my notes").call("clear_notes", {}).then_say("All gone")

async def main():
    thread = Agent("main", "http://agent.test/agent", transport=server.transport(),
                   client_tools=[clear_notes]).thread()
    sending = asyncio.ensure_future(thread.send("clear my notes"))
    while not thread.pending_actions:   # the run waits for the person's answer
        await asyncio.sleep(0)
    [action] = thread.pending_actions
    print(action.name, action.status, thread.tool_part(action.id).state)  # clear_notes awaiting_approval input-available
    action.approve()
    await sending
    print(thread.action(action.id).status, thread.pending_actions)  # completed []

asyncio.run(main())
```
"""

from __future__ import annotations

from .._conversation._action_handle import Action
from .._conversation._interrupt_handle import Interrupt
from .._conversation._parts import ToolPart
from .._driver._answering import ThreadAnswers

__all__ = ["ThreadCalls"]


class ThreadCalls:
    """A thread's calls and interrupts, as the page answers them (a mixin of `Thread`).

    Args:
        answers: the thread's answering room.
    """

    def __init__(self, answers: ThreadAnswers) -> None:
        self._answers = answers

    @property
    def pending_actions(self) -> list[Action]:
        """The tool calls of the finished run still waiting for their answer, in call order.

        Answer each through its `Action`: `approve()`, `reject()`, `submit()`, `fail()`,
        `cancel()`, `retry()`.
        """
        return self._answers.pending_actions()

    def action(self, tool_call_id: str) -> Action:
        """The `Action` of a client tool call of this thread, pending or answered.

        Raises:
            LocalProtocolError: no client tool call of a finished run has this id.
        """
        return self._answers.action(tool_call_id)

    @property
    def interrupts(self) -> list[Interrupt]:
        """The open AG-UI interrupts of the thread: the run is paused until each is answered
        (`interrupt.resolve(payload)` or `interrupt.cancel()`); then the thread resumes it by
        itself. Oldest first; empty when nothing waits."""
        return self._answers.open_interrupts()

    def interrupt(self, interrupt_id: str) -> Interrupt:
        """The `Interrupt` with this id, open or answered.

        Raises:
            LocalProtocolError: no interrupt of this thread has this id.
        """
        return self._answers.interrupt(interrupt_id)

    def all_interrupts(self) -> list[Interrupt]:
        """Every interrupt of the thread, open or answered, oldest first."""
        return self._answers.all_interrupts()

    def tool_part(self, tool_call_id: str) -> ToolPart:
        """What a renderer sees of a tool call now (`pyclient.ToolPart`); any call of the history.

        Raises:
            LocalProtocolError: no tool call of this thread has this id.
        """
        return self._answers.tool_part(tool_call_id)

    def tool_parts(self) -> list[ToolPart]:
        """Every tool call of the history as a `ToolPart`, in the order the model made them."""
        return self._answers.tool_parts()
