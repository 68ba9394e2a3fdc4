"""The drive loop of a thread: do what the machine asks, over the network, until it is idle.

`Driver` is the async half of a thread (h11's split: the machine decides, this does). From
a step of `Conversation.next_step()` it sends the request (the agent's transport), feeds the
machine each decoded event, starts the handlers the machine names (`pyclient._driver._executions`),
waits while calls wait for the page, serves unavailable calls as registrations mount, and
stops, fails or closes what is in flight. A failed request, a dropped connection, `RUN_ERROR`,
or a request body or an event over the agent's limits ends the run in the machine's `"error"`
status, never as an exception out of `run_turn`. One turn (a `send()`/`run()` and its
follow-ups) is in flight at a time; `stop()` aborts it, its request and its handlers at once.

```python
import asyncio
from pyclient import Agent

async def main():
    thread = Agent("main", "http://127.0.0.1:8000/agent").thread()
    # A listener that stops the turn at the first text: the driver aborts the request at once.
    thread.subscribe(lambda event: thread.stop("enough") if event.kind == "messages" else None)
    await thread.send("hello")
    print(thread.run_status, thread.run_end.how, thread.run_end.reason)   # idle stopped enough

asyncio.run(main())
```
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from contextlib import aclosing
from datetime import datetime, timezone
from typing import Any, Protocol

from .._base._abort import AbortController
from .._base._errors import (
    RemoteProtocolError,
    RequestTooLargeError,
    RunAborted,
    ToolError,
    TransportError,
)
from .._base._limits import Limits
from .._base._listeners import Listeners
from .._binding._platform import Platform
from .._binding._scopes import Registration, ThreadScope
from .._conversation._machine import Conversation
from .._conversation._records import RunHandlers, SendRequest, Step, WaitForActions
from .._tools._results import ToolResult
from .._wire._event_stream import read_event_batches
from .._wire._transport import Request, Transport
from ._answering import ThreadAnswers
from ._executions import Executions
from ._publisher import Publisher

__all__ = ["Driver", "Endpoint"]

logger = logging.getLogger("pyclient")


class Endpoint(Protocol):
    """Where a thread's requests go (its agent): the URL, extra headers, the transport, and
    the size limits (`max_request_bytes` of a body sent, `max_event_chars` of an event read)."""

    @property
    def url(self) -> str: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def transport(self) -> Transport: ...
    @property
    def limits(self) -> Limits: ...


class _Turn:
    """One `send()`/`run()`: aborted by `stop()`; woken when a call or an interrupt changes while
    it waits; `finished` once it returns."""

    __slots__ = ("controller", "finished", "wake")

    def __init__(self, controller: AbortController) -> None:
        self.controller = controller
        self.wake = asyncio.Event()
        self.finished = asyncio.Event()
        controller.signal.on_abort(lambda reason: self.wake.set())

    @property
    def aborted(self) -> bool:
        return self.controller.signal.aborted


class Driver:
    """Runs one thread's turns; see the module docstring.

    Args:
        machine: the thread's conversation machine.
        scope: the thread's registrations (what requests advertise, what serves calls).
        endpoint: the agent: URL, headers, transport.
        platform: makes the turns' abort controllers.
        executions: the thread's handler tasks.
        answers: the thread's answering (hands out each call's `Action`).
        publisher: tells listeners what changed.
        listeners: the thread's listeners (each AG-UI event is told as it is applied).
        before_send: awaited before each request goes out (a store's write-ahead save), or None.
    """

    def __init__(
        self,
        machine: Conversation,
        scope: ThreadScope,
        endpoint: Endpoint,
        platform: Platform,
        executions: Executions,
        answers: ThreadAnswers,
        publisher: Publisher,
        listeners: Listeners,
        before_send: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._machine = machine
        self._scope = scope
        self._endpoint = endpoint
        self._platform = platform
        self._executions = executions
        self._answers = answers
        self._publisher = publisher
        self._listeners = listeners
        self._before_send = before_send
        self._turn: _Turn | None = None
        self._resuming: asyncio.Future[None] | None = None

    # -- outside inputs --------------------------------------------------------------------

    def changed(self) -> None:
        """An input from outside the loop changed the machine: publish, and wake the loop."""
        self._publisher.publish()
        turn = self._turn
        if turn is not None:
            turn.wake.set()

    def registration_changed(self, registration: Registration, lost: str | None) -> None:
        """A registration that may serve the thread was added, mounted, unmounted or disposed."""
        if lost is not None:
            for call in self._machine.calls.release(registration):
                self._executions.renew(call.id, lost)
                logger.info("pyclient: call %s of tool %r lost its registration (%s)", call.id, call.name, lost)
        self.serve_unavailable()
        self._publisher.publish()
        self._publisher.notify("tools")
        self.changed()

    def serve_unavailable(self) -> None:
        """Serve every unavailable call whose tool has a mounted registration now."""
        machine = self._machine
        waiting = machine.calls.unavailable()
        if not waiting or not machine.busy:
            return
        serving = self._scope.resolve()
        for call in waiting:
            registration = serving.get(call.name)
            if registration is None:
                if call.execution == 0:
                    logger.info("pyclient: no registration of tool %r is mounted in thread %s; call %s waits for one",
                                call.name, machine.thread_id, call.id)
                continue
            tool = registration.tool
            machine.calls.serve(call.id, tool, registration, input=tool.render_only)
            if tool.render_only:
                # Nothing runs to validate the arguments: check them before the user is asked.
                try:
                    tool.validate_arguments(self._answers.action_for(call).arguments)
                except ToolError as exc:
                    machine.calls.answer(call.id, ToolResult.failure(str(exc)))
                    self._executions.abort(call.id, "failed")

    # -- turns -----------------------------------------------------------------------------

    def restored(self, read_only: bool) -> None:
        """A saved conversation was restored: tell the listeners; a finished run whose calls still
        wait is resumed (its calls answered again, its follow-up sent), unless another tab holds it."""
        if read_only:
            self._machine.drain()  # nothing to save or resume here; listeners learn of the history
            self._publisher.notify("messages")
            self._publisher.notify("status", self._machine.run_status)
            return
        self._publisher.publish()
        if self._machine.busy:
            self._resuming = asyncio.ensure_future(self._resume())

    async def _resume(self) -> None:
        self.serve_unavailable()
        self._publisher.publish()
        try:
            await self.run_turn(self._machine.next_step())
        except Exception:  # run_turn has logged it and failed the run
            pass
        finally:
            self._resuming = None

    async def run_turn(self, step: Step) -> None:
        """Drive the machine from `step` until it is idle or failed, or the turn is stopped.

        Raises:
            asyncio.CancelledError: the task awaiting it was cancelled (the run is stopped first).
            Exception: a bug (pyclient's or a transport's); the run is failed first.
        """
        turn = self._turn = _Turn(self._platform.abort_controller())
        try:
            await self._drive(turn, step)
        except asyncio.CancelledError:
            if not turn.aborted:
                self.stop("cancelled")
            raise
        except Exception as exc:  # a bug (ours, a transport's): surface it, never leave "running"
            if not turn.aborted and self._machine.busy:
                for call in self._machine.fail(exc):
                    self._executions.abort(call.id, f"the run failed: {type(exc).__name__}")
                logger.warning("pyclient: run of thread %s failed: %s", self._machine.thread_id, exc)
                self._publisher.publish()
            raise
        finally:
            turn.finished.set()
            if self._turn is turn:
                self._turn = None

    async def turn_finished(self) -> None:
        """Wait until the turn in flight returns; with none (and the machine busy), drive it here."""
        turn = self._turn
        if turn is not None:
            await turn.finished.wait()
        elif self._machine.busy:
            await self.run_turn(self._machine.next_step())

    async def _wait(self, turn: _Turn) -> None:
        """Wait for an answer; an open interrupt's expiry wakes the wait too (and expires it)."""
        machine = self._machine
        expires = machine.interrupts.next_expiry()
        if expires is None:
            await turn.wake.wait()
        else:
            seconds = (expires - datetime.now(timezone.utc)).total_seconds()
            try:
                await asyncio.wait_for(turn.wake.wait(), timeout=max(seconds, 0.0))
            except asyncio.TimeoutError:
                pass
            if machine.expire_due(datetime.now(timezone.utc)):
                self._publisher.publish()
        turn.wake.clear()

    async def _drive(self, turn: _Turn, step: Step) -> None:
        machine = self._machine
        while not turn.aborted:
            if isinstance(step, SendRequest):
                await self._request(turn)
                self._answers.forget_settled()
                if turn.aborted:
                    return
                self.serve_unavailable()
                self._publisher.publish()
            elif isinstance(step, RunHandlers):
                for call in step.calls:
                    action = self._answers.action_for(call)  # a fresh Action (and signal) for an id used again
                    self._executions.start(call, call.edited if call.edited is not None else action.arguments)
            elif isinstance(step, WaitForActions):
                await self._wait(turn)
            else:  # Idle, Failed: the machine has set the status and told the listeners
                if machine.error is not None and machine.run_status == "error":
                    logger.warning("pyclient: run of thread %s failed: %s", machine.thread_id, machine.error)
                return
            if turn.aborted:
                return
            step = machine.next_step()

    async def _request(self, turn: _Turn) -> None:
        """Send the next request and feed its events to the machine until the stream ends."""
        served = self._scope.serving_tools()
        run_request = self._machine.start_run([tool for tool in served if not tool.server_declared],
                                              [tool for tool in served if tool.server_declared])
        endpoint = self._endpoint
        limit = endpoint.limits.max_request_bytes
        if len(run_request.body) > limit:  # before the write-ahead save: nothing counts as sent
            self._fail(RequestTooLargeError(endpoint.url, len(run_request.body), limit))
            return
        request = Request(endpoint.url, {
            **endpoint.headers,
            # pydantic-ai answers 415 without this content type.
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
        }, run_request.body)
        logger.debug("pyclient: run %s of thread %s: POST %s", run_request.run_id, self._machine.thread_id,
                     endpoint.url)
        self._publisher.publish()
        if self._before_send is not None:
            # Write-ahead: the answers this request carries are saved as sent before it goes
            # out, so a reload never sends them in a second follow-up.
            await self._before_send()
            if turn.aborted:
                return
        task = asyncio.ensure_future(self._consume(turn, request))

        def on_abort(reason: Any) -> None:
            # stop() from a listener runs inside the task: it notices the abort before the next
            # event; cancelling itself would interrupt the transport's clean-up instead.
            if task is not asyncio.current_task():
                task.cancel()

        remove = turn.controller.signal.on_abort(on_abort)
        try:
            await task
        except asyncio.CancelledError:
            task.cancel()
            current = asyncio.current_task()
            if turn.aborted and not (current is not None and current.cancelling()):
                return  # thread.stop(): the machine is already idle
            raise
        except RunAborted:
            return
        except (TransportError, RemoteProtocolError) as exc:
            self._fail(exc)
            return
        finally:
            remove()
        if not turn.aborted:
            self._machine.end_stream(request.url)  # published by the loop, once calls are served

    async def _consume(self, turn: _Turn, request: Request) -> None:
        machine = self._machine
        signal = turn.controller.signal
        # aclosing: a raising receive() closes the stream now, not when the generator is collected.
        endpoint = self._endpoint
        async with aclosing(read_event_batches(endpoint.transport, request, signal,
                                               max_event_chars=endpoint.limits.max_event_chars)) as batches:
            async for batch in batches:
                # Each event is applied, then told to the event listeners; the changes of a
                # chunk's events are published once, after them (a long answer's words would
                # otherwise cost a publish each).
                listeners = self._listeners
                try:
                    for event in batch:
                        ended = machine.receive(event)
                        if listeners.wants_events:
                            listeners.event(event)
                        if ended:
                            break
                finally:
                    self._publisher.publish()
                if machine.run_ended:
                    # RUN_FINISHED / RUN_ERROR: the run is over even if the server holds the
                    # connection open; leaving the block closes it.
                    break

    def _fail(self, error: BaseException) -> None:
        for call in self._machine.fail(error):
            self._executions.abort(call.id, "failed")
        self._publisher.publish()

    def stop(self, reason: str) -> None:
        """Abort the turn in flight: its request, running handlers, actions waiting for an answer.

        Calls not answered yet get an error tool message saying they were cancelled. Does
        nothing when no turn is in flight.
        """
        turn, self._turn = self._turn, None
        if turn is None:
            return
        turn.controller.abort(reason)
        for call in self._machine.stop(reason):
            self._executions.abort(call.id, reason)  # the handler's signal says why: the stop reason
        self._publisher.publish()

    def close(self, reason: str) -> None:
        """Stop for good: the turn, every call without an answer, every handler task."""
        self.stop(reason)
        for call in self._machine.close(reason):
            self._executions.abort(call.id, reason)
        self._executions.cancel_all()
