"""The handler tasks of one thread's tool calls, and the abort signal of each attempt.

The conversation machine says when a call executes and which execution is current; this
module does the I/O it leaves out: one asyncio task per execution, one `AbortController`
per attempt (mirrored to JS by the platform), and the rule that a call coming back after an
unmount never runs twice at once (the new execution waits for the aborted one to unwind).

```python
import asyncio
from pyclient import client_tool
from pyclient._driver._executions import Executions
from pyclient._conversation._records import Call
from pyclient._binding._platform import Platform

@client_tool
def double(x: int) -> int:
    \"\"\"Double a number.\"\"\"
    return 2 * x

async def main():
    answered = asyncio.Queue()
    executions = Executions(Platform(), "t1", lambda call_id, n, result: answered.put_nowait(result))
    call = Call("c1", "double")
    call.tool, call.execution = double, 1
    executions.start(call, '{"x": 21}')
    result = await answered.get()      # the handler ran in its own task
    print(result.content)              # 42

asyncio.run(main())
```
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any

from .._base._abort import AbortController, AbortSignal
from .._base._errors import RunAborted
from .._binding._platform import Platform
from .._conversation._records import Call
from .._tools._client_tool import ClientTool
from .._tools._results import ToolResult

__all__ = ["Executions"]

logger = logging.getLogger("pyclient")

ResultCallback = Callable[[str, int, ToolResult], None]
"""`on_result(call_id, execution, result)`: a handler finished (stale results included)."""


class Executions:
    """Handler tasks and per-attempt signals of one thread's calls.

    Args:
        platform: makes the abort controllers (JS-mirrored in the page).
        thread_id: passed to handlers in `ToolContext.thread_id`.
        on_result: called when a handler finishes; the machine decides if it still counts.
        history: the thread's messages, for a handler's `ToolContext.messages`.
    """

    def __init__(self, platform: Platform, thread_id: str, on_result: ResultCallback,
                 history: Callable[[], Sequence[Any]] = tuple) -> None:
        self._platform = platform
        self._history = history
        self._thread_id = thread_id
        self._on_result = on_result
        self._controllers: dict[str, AbortController] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def signal(self, call_id: str) -> AbortSignal:
        """The signal of the call's current attempt (a fresh one after `renew`)."""
        controller = self._controllers.get(call_id)
        if controller is None:
            controller = self._controllers[call_id] = self._platform.abort_controller()
        return controller.signal

    def start(self, call: Call, arguments: str) -> None:
        """Run the handler of `call.tool` for execution `call.execution` in a task."""
        tool = call.tool
        assert tool is not None, "a call executes only once a registration serves it"
        signal = self.signal(call.id)
        previous = self._tasks.get(call.id)
        task = asyncio.get_running_loop().create_task(
            self._execute(call.id, call.execution, tool, arguments, signal, previous)
        )
        self._tasks[call.id] = task
        task.add_done_callback(functools.partial(self._finished, call.id))

    def _finished(self, call_id: str, task: asyncio.Task[None]) -> None:
        if self._tasks.get(call_id) is task:
            del self._tasks[call_id]

    async def _execute(
        self,
        call_id: str,
        execution: int,
        tool: ClientTool,
        arguments: str,
        signal: AbortSignal,
        previous: asyncio.Task[None] | None,
    ) -> None:
        if previous is not None and not previous.done():
            # Remounted right after an unmount: the aborted handler is still unwinding (its
            # `finally` blocks); it must be gone before the call runs again.
            await asyncio.wait({previous})
        try:
            result = await tool.execute(arguments, tool_call_id=call_id, thread_id=self._thread_id, signal=signal,
                                        convert=self._platform.to_python, read=self._platform.read_media,
                                        describe=self._platform.describe_failure, messages=self._history())
        except RunAborted:
            return  # answered meanwhile, or the registration went away: report nothing
        except Exception as exc:  # execute() reports handler errors itself; this is a last resort
            logger.exception("pyclient: executing tool %r failed", tool.name)
            result = ToolResult.failure(f"Tool {tool.name!r} failed: {exc}")
        if not signal.aborted:
            self._on_result(call_id, execution, result)

    def abort(self, call_id: str, reason: str) -> None:
        """The call has its answer: abort its attempt for good (its signal stays aborted)."""
        self.signal(call_id)  # a call answered before it ever ran still shows an aborted signal
        self._controllers[call_id].abort(reason)

    def renew(self, call_id: str, reason: str) -> None:
        """The call lost its registration: abort this attempt; the next gets a fresh signal."""
        controller = self._controllers.pop(call_id, None)
        if controller is not None:
            controller.abort(reason)

    def forget(self, call_id: str) -> None:
        """A later run uses the id of an answered call again: the next attempt starts afresh."""
        self._controllers.pop(call_id, None)
        self._tasks.pop(call_id, None)

    def cancel_all(self) -> None:
        """Cancel every handler task still running (the thread is closing)."""
        for task in list(self._tasks.values()):
            task.cancel()
