"""`Thread`: one conversation with an agent, driven over the network.

The conversation itself (history, runs, every call's status, the run status) is a sans-I/O
machine (`pyclient._machine.Conversation`); `Thread` is its async driver: it sends the
requests the machine asks for through the agent's transport, feeds it the decoded events,
runs the handlers it names (`pyclient._executions`), resolves registrations
(`pyclient._scopes`) and tells listeners what changed.

`await thread.send(text)` appends a user message and runs the agent until the thread is
idle: every client tool call is answered and followed up automatically. HTTP errors,
dropped connections and `RUN_ERROR` do not raise: `send()` returns with
`run_status == "error"` and `thread.error` set, the history keeps everything received, and
`await thread.run()` retries. `thread.stop()` aborts the request and the running handlers;
`thread.close()` stops for good and releases the thread's registrations and element.

Listeners (`thread.subscribe(callback)`) receive a `ThreadEvent(kind, payload)` for every
event and change; the kinds are in `pyclient._listeners`.

```python
import asyncio
from pyclient import Agent, client_tool

@client_tool
def change_background(background: str) -> str:
    \"\"\"Change the page background.\"\"\"
    return f"background is now {background}"

async def main():
    agent = Agent("main", "http://127.0.0.1:8000/agent", client_tools=[change_background])
    thread = agent.thread()
    thread.subscribe(lambda event: print(event.kind))
    await thread.send("make it blue")
    print(thread.run_status, thread.messages[-1].content)

asyncio.run(main())
```
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from ._abort import AbortController
from ._actions import Action
from ._errors import (
    ConfigurationError,
    LocalProtocolError,
    RemoteProtocolError,
    RunAborted,
    ToolError,
    TransportError,
)
from ._executions import Executions
from ._listeners import EventKind, Listeners, ThreadEvent
from ._machine import DEFAULT_MAX_FOLLOW_UPS, Conversation
from ._events import event_adapter
from ._history import message_adapter, new_id
from ._parts import ToolPart, decode_output, part_state, waits_for_user
from ._scopes import Registration, ThreadScope
from ._lifecycle import CallStatusName, RunStatus
from ._records import Call, RunEnd, RunHandlers, SendRequest, Step, WaitForActions
from ._store import Store
from ._stream import read_event_batches
from ._results import ToolResult
from ._tools import ClientTool, build_pending_schemas
from ._transport import Request

if TYPE_CHECKING:
    from ag_ui.core import Context, Message

    from ._agent import Agent
    from ._events import AGUIEvent
    from ._platform import Platform

__all__ = ["Thread"]

logger = logging.getLogger("pyclient")

STREAMING_SAVE_INTERVAL = 1.0
"""Seconds between saves of a thread kept in a store while text streams (`thread.streaming_save_interval`)."""


_preloading = False


def _preload(platform: Platform) -> None:
    """Have the platform build the tools' schemas and import ag-ui's models ahead of the first
    request (once per process; two separate steps, so the page can answer input in between)."""
    global _preloading
    if not _preloading:
        _preloading = True
        platform.preload(build_pending_schemas)
        platform.preload(_load_protocol)


def _load_protocol() -> None:
    started = time.perf_counter()
    loaded = "ag_ui.core" in sys.modules
    event_adapter()
    message_adapter()
    if not loaded:
        logger.info("pyclient: AG-UI models loaded ahead of the first request (%.0f ms)",
                    (time.perf_counter() - started) * 1000)


class _Turn:
    """One `send()`/`run()`: aborted by `stop()`; woken when a call changes while it waits."""

    __slots__ = ("controller", "wake")

    def __init__(self, controller: AbortController) -> None:
        self.controller = controller
        self.wake = asyncio.Event()
        controller.signal.on_abort(lambda reason: self.wake.set())

    @property
    def aborted(self) -> bool:
        return self.controller.signal.aborted


class Thread:
    """One conversation with an agent. Create it with `agent.thread()`.

    Args:
        agent: the `Agent` whose endpoint, transport, platform and binding tools it uses.
        thread_id: the AG-UI `threadId`; a new UUID by default.
        messages: a history to start from (`ag_ui.core` messages or their JSON dicts).
        state: the initial shared state (JSON; `{}` by default).
        context: `ag_ui.core.Context` items or `{"description", "value"}` dicts.
        forwarded_props: a JSON value sent as `forwardedProps` with every run.
        max_follow_ups: how many automatic follow-up runs in a row one `send()`/`run()` may
            make before it stops with `FollowUpLimitError` (a guard against a model that never
            stops calling tools).
        store: keep the thread across page loads: a `pyclient.Store` (`MemoryStore`,
            `FileStore(path)`, or any object with its async `load`/`save`/`delete`), or True
            for the platform's (IndexedDB in the page). The conversation is saved at every
            transition that matters and restored by `restore()` (which `send()`/`run()`
            await). None (the default) keeps nothing.

    Raises:
        ConfigurationError: `max_follow_ups` is not an int >= 0; `store` is not a `Store`,
            or is given without a `thread_id`, or is True on a platform without a store.

    Attributes:
        agent: the agent.
        scope: the thread's registrations (`pyclient._scopes.ThreadScope`).
        streaming_save_interval: with a store, while text streams, the seconds between two
            saves of the partial text (1.0; saves otherwise follow completed messages and
            call changes, never each delta).
    """

    def __init__(
        self,
        agent: Agent,
        thread_id: str | None = None,
        *,
        messages: Iterable[Message | dict[str, Any]] = (),
        state: Any = None,
        context: Iterable[Context | dict[str, str]] = (),
        forwarded_props: Any = None,
        max_follow_ups: int = DEFAULT_MAX_FOLLOW_UPS,
        store: Store | bool | None = None,
    ) -> None:
        if not isinstance(max_follow_ups, int) or max_follow_ups < 0:
            raise ConfigurationError(
                f"max_follow_ups={max_follow_ups!r} is not a count of runs. Pass an int >= 0 "
                f"(default {DEFAULT_MAX_FOLLOW_UPS})."
            )
        self.agent = agent
        self._machine = Conversation(
            thread_id or new_id(), messages=messages, state=state, context=context,
            forwarded_props=forwarded_props, max_follow_ups=max_follow_ups,
        )
        self._platform = agent.platform
        self._executions = Executions(self._platform, self._machine.thread_id, self._handler_returned)
        self._actions: dict[str, tuple[Call, Action]] = {}  # by id; a later run may use an id again
        self._listeners = Listeners()
        self._turn: _Turn | None = None
        self._publishing = False
        self._store = self._check_store(store, thread_id)
        self._store_key = f"{agent.name}/{self._machine.thread_id}"
        self._restoring: asyncio.Future[bool] | None = None
        self._restored = store is None
        self._saving: asyncio.Future[None] | None = None
        self._dirty = False
        self._save_timer: asyncio.TimerHandle | None = None
        self.streaming_save_interval = STREAMING_SAVE_INTERVAL
        self._resuming: asyncio.Future[None] | None = None
        self._release_lock: Callable[[], None] | None = None
        self.read_only = False
        self.scope = ThreadScope(agent.scope, self, self._registration_changed, self._connection_changed)
        _preload(self._platform)
        if self._store is not None:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass  # no loop yet (a CPython script): the first restore()/send()/run() starts it
            else:
                self._start_restore()

    def __repr__(self) -> str:
        return f"<Thread {self.thread_id!r} of agent {self.agent.name!r} {self.run_status}>"

    def _check_store(self, store: Store | bool | None, thread_id: str | None) -> Store | None:
        if store is None or store is False:
            return None
        if thread_id is None:
            raise ConfigurationError(
                "store= keeps a thread across page loads under its thread_id, but no thread_id was "
                "given (a new random one would never be found again). Pass e.g. "
                "agent.thread(..., thread_id='support', store=...)."
            )
        if store is True:
            return self._platform.default_store()
        if not isinstance(store, Store):
            raise ConfigurationError(
                f"store must be a pyclient Store (async load, save and delete), True or None, got "
                f"{type(store).__name__}. Pass pyclient.MemoryStore() or pyclient.FileStore(path)."
            )
        return store

    # -- saving and restoring -------------------------------------------------------------

    @property
    def store(self) -> Store | None:
        """Where the thread is kept across page loads (None: nowhere)."""
        return self._store

    @property
    def interrupted_messages(self) -> list[str]:
        """The ids of the messages whose run was streaming when the page died: their text is partial."""
        return list(self._machine.interrupted)

    async def restore(self) -> bool:
        """Load the saved conversation (once; later calls wait for the same load).

        The messages come back, and every unfinished call: a result computed but not sent is
        sent in a follow-up; a call that was executing becomes `"interrupted"` (an idempotent
        tool's runs again); a call awaiting approval or input waits again; a run that was
        streaming keeps its partial text (`interrupted_messages`). If another tab holds the
        thread, it is shown read-only (`read_only`): `send()` and `run()` raise.

        Returns:
            True when a saved conversation was restored.
        """
        if self._store is None:
            return False
        return await asyncio.shield(self._start_restore())

    def _start_restore(self) -> asyncio.Future[bool]:
        if self._restoring is None:
            self._restoring = asyncio.ensure_future(self._load())
        return self._restoring

    async def _load(self) -> bool:
        assert self._store is not None
        try:
            release = await self._platform.hold_thread(self._store_key)
            if release is None:
                self.read_only = True
                logger.info("pyclient: thread %s is held by another tab: read-only here", self.thread_id)
            else:
                self._release_lock = release
            data = await self._store.load(self._store_key)
            if data is None or self._machine.run_status == "closed":
                return False
            machine = self._machine
            try:
                restored = Conversation.from_snapshot(
                    data, tools={tool.name: tool for tool in self.registered_tools()}, context=machine.context,
                    forwarded_props=machine.forwarded_props, max_follow_ups=machine.max_follow_ups,
                )
            except LocalProtocolError as exc:
                logger.warning("pyclient: thread %s starts afresh: %s", self.thread_id, exc)
                return False
            self._machine = restored
        finally:
            self._restored = True
        logger.info("pyclient: restored thread %s (%d messages)", self.thread_id, len(restored.messages()))
        if self.read_only:
            restored.drain()  # nothing to save here; listeners learn of the history below
            self._notify("messages")
            self._notify("status", self.run_status)
            return True
        self._publish()
        if restored.busy:  # a finished run's calls: answer them (again) and send the follow-up
            self._resuming = asyncio.ensure_future(self._resume())
        return True

    async def _resume(self) -> None:
        self._serve_unavailable()
        self._publish()
        try:
            await self._run_turn(self._machine.next_step())
        except Exception:  # _run_turn has logged it and failed the run
            pass
        finally:
            self._resuming = None

    def _schedule_save(self) -> None:
        if self._store is None or not self._restored or self.read_only or self._machine.run_status == "closed":
            return
        self._dirty = True
        if self._saving is None:
            try:
                self._saving = asyncio.ensure_future(self._save_loop())
            except RuntimeError:
                pass  # no event loop: the next change inside one saves

    async def _save_loop(self) -> None:
        # At most one save in flight; changes made meanwhile are written by the next pass, so
        # the last state is always the one saved.
        assert self._store is not None
        try:
            while self._dirty and self._machine.run_status != "closed":
                self._dirty = False
                try:
                    await self._store.save(self._store_key, self._machine.snapshot())
                except Exception as exc:
                    logger.warning("pyclient: saving thread %s failed: %s", self.thread_id, exc)
        finally:
            self._saving = None

    def _save_streaming_text(self) -> None:
        """Text is streaming: save what arrived, at most every `streaming_save_interval` seconds.

        Never one write per delta, yet a page that dies mid-answer keeps what had arrived by the
        last timed save (restored as interrupted text).
        """
        if self._store is None or self._save_timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._save_timer = loop.call_later(self.streaming_save_interval, self._save_timer_fired)

    def _save_timer_fired(self) -> None:
        self._save_timer = None
        self._schedule_save()

    async def saved(self) -> None:
        """Wait until the latest state is saved (nothing when the thread has no store)."""
        while self._saving is not None:
            await asyncio.shield(self._saving)

    # -- reading -------------------------------------------------------------------------

    @property
    def thread_id(self) -> str:
        """The AG-UI `threadId`."""
        return self._machine.thread_id

    @property
    def context(self) -> list[Context]:
        """`ag_ui.core.Context` items sent with every run (a list you may change)."""
        return self._machine.context

    @property
    def forwarded_props(self) -> Any:
        """A JSON value sent as `forwardedProps` with every run."""
        return self._machine.forwarded_props

    @forwarded_props.setter
    def forwarded_props(self, value: Any) -> None:
        self._machine.forwarded_props = value

    @property
    def max_follow_ups(self) -> int:
        """Automatic follow-up runs allowed in a row before `FollowUpLimitError`."""
        return self._machine.max_follow_ups

    @max_follow_ups.setter
    def max_follow_ups(self, value: int) -> None:
        self._machine.max_follow_ups = value

    @property
    def element(self) -> Any:
        """The DOM element the thread is mounted on (None on CPython and once closed)."""
        return self.scope.element

    @property
    def messages(self) -> list[Message]:
        """The history as `ag_ui.core` message models (a new list on each access).

        The models are the history's own: read them, never change them (each message is
        serialized once for the requests, so a model changed in place is not sent again).
        """
        return self._machine.messages()

    @property
    def state(self) -> Any:
        """The shared agent state (JSON), sent with every run and updated by the server."""
        return self._machine.state

    @state.setter
    def state(self, value: Any) -> None:
        self._machine.state = value
        self._publish()

    @property
    def run_status(self) -> RunStatus:
        """`"idle"`, `"running"` (a request in flight or tool calls being answered), `"error"` or `"closed"`."""
        return self._machine.run_status

    @property
    def run_end(self) -> RunEnd | None:
        """How the last turn ended (`RunEnd`: `how` is `"finished"`, `"stopped"`, `"failed"` or
        `"closed"`, with the reason), or None while one is in flight and before the first ends."""
        return self._machine.run_end

    @property
    def error(self) -> BaseException | None:
        """The error of the last run (`TransportError`, `RemoteProtocolError`, `RunError`), or None."""
        return self._machine.error

    @property
    def pending_actions(self) -> list[Action]:
        """The tool calls of the finished run still waiting for their answer, in call order."""
        return [self._action(call) for call in self._machine.pending()]

    def action(self, tool_call_id: str) -> Action:
        """The `Action` of a client tool call of this thread, pending or answered.

        Raises:
            LocalProtocolError: no call of a finished run has this id.
        """
        call = self._machine.calls.get(tool_call_id)
        if call is None or call.tool is None:
            pending = ", ".join(repr(a.id) for a in self.pending_actions) or "none"
            raise LocalProtocolError(
                f"No tool call of thread {self.thread_id!r} has id {tool_call_id!r} (pending: "
                f"{pending}). Use an id from `thread.pending_actions`."
            )
        return self._action(call)

    def tool_part(self, tool_call_id: str) -> ToolPart:
        """What a renderer sees of a tool call now (`pyclient.ToolPart`); any call of the history.

        Raises:
            LocalProtocolError: no tool call of this thread has this id.
        """
        machine = self._machine
        arguments = machine.arguments(tool_call_id)
        if arguments is None:
            raise LocalProtocolError(
                f"No tool call of thread {self.thread_id!r} has id {tool_call_id!r}. "
                "Use an id from an assistant message's `tool_calls`."
            )
        call = machine.calls.get(tool_call_id)
        result = call.result if call is not None else None
        if result is None:
            message = machine.tool_result(tool_call_id)
            if message is not None:
                content = message.content if isinstance(message.content, str) else str(message.content)
                result = ToolResult(content=content, error=getattr(message, "error", None))
        if call is not None:
            name: str = call.name
        else:
            tool_call = machine.tool_call(tool_call_id)
            assert tool_call is not None  # it has arguments, so the history holds it
            name = tool_call.function.name
        status: CallStatusName | None = None
        if call is not None:
            status = call.status.value
        return ToolPart(
            tool_call_id=tool_call_id,
            tool_name=name,
            state=part_state(status, result is not None, result is not None and result.error is not None),
            arguments=arguments,
            output=decode_output(result.content) if result is not None and result.error is None else None,
            error_text=result.error if result is not None else None,
            cancelled=status == "cancelled",
            run_status=self.run_status,
            action=self._action(call) if call is not None and call.tool is not None and waits_for_user(status) else None,
            status=status,
            tool=call.tool if call is not None else None,
            edited=call is not None and call.edited is not None,
        )

    def tool_parts(self) -> list[ToolPart]:
        """Every tool call of the history as a `ToolPart`, in the order the model made them."""
        return [self.tool_part(tool_call.id) for message in self.messages
                for tool_call in getattr(message, "tool_calls", None) or ()]

    def renderer(self, tool_name: str) -> Callable[[ToolPart], Any] | None:
        """The renderer of a tool's calls in this thread, or None (the UI's default card).

        The serving tool's own `client_tool(render=...)` first, then the agent's
        `agent.tool_renderer(tool_name)`, then its catch-all `agent.tool_renderer("*")`.
        """
        registration = self.scope.serving().get(tool_name)
        if registration is not None and registration.tool.render is not None:
            return registration.tool.render
        return self.agent.renderer(tool_name)

    def available_tools(self) -> list[ClientTool]:
        """The tools the next request will advertise (its snapshot).

        One tool per name: the most specific mounted registration wins (thread-level over
        agent-level over the agent's binding tools), the newest within a level. Binding tools
        come first, then agent-level, then thread-level ones. The platform re-checks element
        connections first, so an element removed a moment ago is already left out.

        Server-declared tools (`client_tool(..., server_declared=True)`) are left out: the
        agent declares them itself; `registered_tools()` lists them too.

        Returns:
            A new list: later registrations do not change it.
        """
        return self.scope.snapshot()

    def registered_tools(self) -> list[ClientTool]:
        """Every tool this thread can serve now: the advertised ones and the server-declared ones.

        Same rule and order as `available_tools()`; a server-declared tool is listed here but
        never advertised, and a call to it from this thread's agent runs its handler.

        Returns:
            A new list: later registrations do not change it.
        """
        return self.scope.served()

    # -- registering and listening -------------------------------------------------------

    def register_tool(self, tool: ClientTool, *, replace: bool = False, mounted: bool = True) -> Registration:
        """Register `tool` on this thread; it is in the very next request's tools while mounted.

        A thread-level registration is the most specific: it wins over an agent-level one and
        a binding tool of the same name. Calls of that tool waiting as `"unavailable"` run
        with it at once.

        Args:
            tool: a `ClientTool` (decorate the function with `@client_tool`).
            replace: take over from a live registration of the same name on this thread (it
                serves again once this one is unmounted or disposed) instead of raising.
            mounted: False registers it unmounted; `registration.set_mounted(True)` mounts it.

        Returns:
            The `Registration`: `set_mounted(bool)`, `dispose()`.

        Raises:
            ConfigurationError: `tool` is not a `ClientTool`, or a live registration of the
                same name exists on this thread and `replace` is False.
            LocalProtocolError: the thread is closed.
        """
        self._check_open("register a tool")
        return self.scope.register(tool, replace=replace, mounted=mounted)

    def subscribe(self, callback: Callable[[ThreadEvent], Any], *, events: bool = True) -> Callable[[], None]:
        """Call `callback(ThreadEvent)` on every event and change (kinds: `pyclient._listeners`).

        Callbacks run synchronously in the run loop, after the change is fully applied: keep
        them short. The events that arrive together (one chunk of the response) are applied
        and told one by one, then their changes are told once (a long answer's text deltas in
        one chunk are one `"messages"`). An exception in a callback is logged and never breaks
        the run.

        Args:
            events: False leaves out the `"event"` kind (one per AG-UI event); see
                `subscribe_events` for the cheaper way to get those.

        Returns:
            A function that unsubscribes the callback.
        """
        return self._listeners.add(callback, events=events)

    def subscribe_events(self, callback: Callable[[AGUIEvent], Any]) -> Callable[[], None]:
        """Call `callback(event)` with each AG-UI event the thread receives, once it is applied.

        The same events as `subscribe`'s `"event"` kind, at the same moment (before the
        changes they cause), without a `ThreadEvent` built for each: for a UI that follows a
        long stream (a long answer is tens of thousands of text deltas), with
        `subscribe(..., events=False)` for the changes.

        Returns:
            A function that unsubscribes the callback.
        """
        return self._listeners.add_events(callback)

    # -- running -------------------------------------------------------------------------

    async def send(self, text: str) -> None:
        """Append a user message and run until idle (all tool calls answered and followed up,
        and with a store, the last state saved).

        Does not raise for HTTP errors, dropped connections or `RUN_ERROR`: it returns with
        `run_status == "error"` and the cause in `thread.error`. After `stop()` it returns
        with `run_status == "idle"`.

        Args:
            text: the user's message.

        Raises:
            LocalProtocolError: a run is already in flight in this thread, the thread is
                closed, or `text` is not a str.
            ConfigurationError: a tool this thread serves has a type hint with no JSON Schema
                (its schema is built on first need; nothing is sent and no message is added).
        """
        if not isinstance(text, str):
            raise LocalProtocolError(
                f"thread.send() takes the user's message as a str, got {type(text).__name__}. "
                "Pass the text, e.g. `await thread.send('make it blue')`."
            )
        if self._store is not None:
            await self.restore()
        self._check_writable("send a message")
        self._build_schemas()
        self._machine.add_user_message(text)
        self._publish()
        await self.run()

    async def run(self) -> None:
        """Run the agent on the current history until idle; retries after an error.

        Same contract as `send()`, without adding a message.

        Raises:
            LocalProtocolError: a run is already in flight in this thread, it is closed, or
                another tab holds it (`read_only`).
            ConfigurationError: a tool this thread serves has a type hint with no JSON Schema.
            asyncio.CancelledError: the task awaiting this was cancelled (the run is stopped first).
        """
        if self._store is not None:
            await self.restore()
        self._check_writable("start a run")
        self._machine.check_can_start("start a run")
        self._build_schemas()
        await self._run_turn(SendRequest(follow_up=False))
        if self._store is not None:
            await self.saved()  # idle means nothing in flight: the last save included

    def _build_schemas(self) -> None:
        """Build the schemas of the tools this thread serves, if not yet: a hint with no JSON
        Schema raises its `ConfigurationError` here, before anything is sent."""
        for tool in self.scope.mounted_tools():
            tool.build_schema()

    async def _run_turn(self, step: Step) -> None:
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
                logger.warning("pyclient: run of thread %s failed: %s", self.thread_id, exc)
                self._publish()
            raise
        finally:
            if self._turn is turn:
                self._turn = None

    async def _drive(self, turn: _Turn, step: Step) -> None:
        """Do what the machine asks, from `step`, until it is idle or failed, or the turn is stopped."""
        machine = self._machine
        while not turn.aborted:
            if isinstance(step, SendRequest):
                await self._request(turn)
                if turn.aborted:
                    return
                self._serve_unavailable()
                self._publish()
            elif isinstance(step, RunHandlers):
                for call in step.calls:
                    action = self._action(call)  # a fresh Action (and signal) for an id used again
                    self._executions.start(call, call.edited if call.edited is not None else action.arguments)
            elif isinstance(step, WaitForActions):
                await turn.wake.wait()
                turn.wake.clear()
            else:  # Idle, Failed: the machine has set the status and told the listeners
                if machine.error is not None and machine.run_status == "error":
                    logger.warning("pyclient: run of thread %s failed: %s", self.thread_id, machine.error)
                return
            if turn.aborted:
                return
            step = machine.next_step()

    async def _request(self, turn: _Turn) -> None:
        """Send the next request and feed its events to the machine until the stream ends."""
        served = self.registered_tools()
        run_request = self._machine.start_run([tool for tool in served if not tool.server_declared],
                                              [tool for tool in served if tool.server_declared])
        agent = self.agent
        request = Request(agent.url, {
            **agent.headers,
            # pydantic-ai answers 415 without this content type.
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
        }, run_request.body)
        logger.debug("pyclient: run %s of thread %s: POST %s", run_request.run_id, self.thread_id, agent.url)
        self._publish()
        if self._store is not None:
            # Write-ahead: the answers this request carries are saved as sent before it goes
            # out, so a reload never sends them in a second follow-up.
            await self.saved()
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
        async with aclosing(read_event_batches(self.agent.transport, request, signal)) as batches:
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
                    self._publish()
                if machine.run_ended:
                    # RUN_FINISHED / RUN_ERROR: the run is over even if the server holds the
                    # connection open; leaving the block closes it.
                    break

    def _fail(self, error: BaseException) -> None:
        for call in self._machine.fail(error):
            self._executions.abort(call.id, "failed")
        self._publish()

    def stop(self, reason: str = "stopped by the user") -> None:
        """Abort the run in flight: the request, running handlers, actions waiting for an answer.

        Calls not answered yet get an error tool message saying they were cancelled, so the
        history stays valid for the next run. No follow-up run is sent. `run_status` becomes
        "idle" at once; the `send()`/`run()` in progress returns. Does nothing when idle.
        """
        turn, self._turn = self._turn, None
        if turn is None:
            return
        turn.controller.abort(reason)
        for call in self._machine.stop(reason):
            self._executions.abort(call.id, reason)  # the handler's signal says why: the stop reason
        self._publish()

    def close(self, reason: str = "closed") -> None:
        """Stop for good: abort what runs, dispose the thread's registrations, release its element.

        Calls not answered yet are cancelled with `reason`. Afterwards `run_status` is
        `"closed"`, and `send()`/`run()`/`register_tool()` raise `LocalProtocolError`.
        Idempotent.
        """
        if self._machine.run_status == "closed":
            return
        self.stop(reason)
        for call in self._machine.close(reason):
            self._executions.abort(call.id, reason)
        self._executions.cancel_all()
        if self._save_timer is not None:
            self._save_timer.cancel()
            self._save_timer = None
        self.scope.close()
        self._platform.release_thread(self)
        release, self._release_lock = self._release_lock, None
        if release is not None:
            release()
        self._publish()

    # -- answering calls -------------------------------------------------------------------

    def approve_tool(self, tool_call_id: str, arguments: Mapping[str, Any] | None = None) -> None:
        """Let a call that awaits approval run its handler, with the user's edits if any.

        Args:
            arguments: the arguments the user edited, in place of the model's (a dict; a JS
                object from the page is converted). They are validated against the tool's
                parameters first; the handler gets them, and the tool message tells the model
                the user changed them, and to what. None (or arguments equal to the model's)
                approves the call as the model made it.

        Raises:
            ToolError: the edited arguments do not match the tool's parameters (the message
                names each field); the call keeps waiting for approval.
            LocalProtocolError: no call has this id, or it is not awaiting approval.
        """
        edited = None
        if arguments is not None:
            action = self.action(tool_call_id)
            if action.status != "awaiting_approval":
                self._machine.approve(tool_call_id)  # raises, naming the status
            tool = action.tool
            assert tool is not None  # an Action exists only for a call with a tool
            given = self.agent.platform.to_python(arguments)
            if not isinstance(given, Mapping):
                raise ToolError(
                    f"The edited arguments of {tool.name!r} must be an object of its parameters, got "
                    f"{type(given).__name__}. Pass a dict such as {{'name': value}}."
                )
            tool.validate_arguments(given)  # raises ToolError for the page, naming each field
            try:
                edited = json.dumps(dict(given), ensure_ascii=False, separators=(",", ":"))
            except (TypeError, ValueError) as exc:
                raise ToolError(f"The edited arguments of {tool.name!r} are not JSON data ({exc}).") from None
            try:
                original = json.loads(action.arguments) if action.arguments.strip() else {}
            except ValueError:
                original = None
            if original == json.loads(edited):
                edited = None  # unchanged: approved as the model made it
        self._machine.approve(tool_call_id, edited)
        self._changed()

    def reject_tool(self, tool_call_id: str, reason: str | None = None) -> None:
        """Refuse a pending call: the model receives "rejected by the user" (and `reason`).

        Raises:
            LocalProtocolError: no call has this id, or it already has its answer.
        """
        message = f"rejected by the user: {reason}" if reason else "rejected by the user"
        self._answer(tool_call_id, ToolResult.failure(message), "failed")

    def submit_tool(self, tool_call_id: str, output: Any) -> None:
        """Answer a pending call with a result (`action.submit`); a running handler aborts ("submitted").

        Args:
            output: a `str` is sent as is, anything else as JSON (checked against the tool's
                output schema when it has one). JS values from the page are converted first.

        Raises:
            ToolError: the output does not match the tool's output schema or is not JSON data;
                nothing is answered and the call keeps waiting.
            LocalProtocolError: no call has this id, or it already has its answer.
        """
        action = self.action(tool_call_id)
        tool = action.tool
        assert tool is not None  # an Action exists only for a call with a tool
        if action.done:  # said before the output is checked: no output can help now
            raise LocalProtocolError(
                f"Cannot submit an output for tool call {tool_call_id!r} ({action.name}) in status "
                f"{action.status!r}: it already has its answer."
            )
        self._answer(tool_call_id, tool.submitted_result(self.agent.platform.to_python(output)), "submitted")

    def fail_tool(self, tool_call_id: str, message: str) -> None:
        """Answer a pending call with an error (`action.fail`); a running handler aborts ("failed").

        Raises:
            LocalProtocolError: no call has this id, or it already has its answer.
        """
        self._answer(tool_call_id, ToolResult.failure(str(message)), "failed")

    def retry_tool(self, tool_call_id: str) -> None:
        """Run an `"interrupted"` call again (`action.retry()`): it is served by its registration.

        Raises:
            LocalProtocolError: no call has this id, or it is not interrupted.
        """
        self._machine.retry(tool_call_id)
        self._serve_unavailable()
        self._changed()

    def cancel_tool(self, tool_call_id: str, reason: str | None = None) -> None:
        """Cancel a pending call (`action.cancel`); does nothing if it already has its answer.

        Raises:
            LocalProtocolError: no call has this id.
        """
        if self._machine.cancel(tool_call_id, reason) is not None:
            self._executions.abort(tool_call_id, "cancelled")
            self._changed()

    def _answer(self, tool_call_id: str, result: ToolResult, why: str) -> None:
        self._machine.answer(tool_call_id, result)
        self._executions.abort(tool_call_id, why)
        self._changed()

    def _handler_returned(self, call_id: str, execution: int, result: ToolResult) -> None:
        if self._machine.handler_returned(call_id, execution, result):
            self._executions.abort(call_id, "finished")
            self._changed()

    # -- registrations and the element -------------------------------------------------------

    def _registration_changed(self, registration: Registration, lost: str | None) -> None:
        if lost is not None:
            for call in self._machine.release(registration):
                self._executions.renew(call.id, lost)
                logger.info("pyclient: call %s of tool %r lost its registration (%s)", call.id, call.name, lost)
        self._serve_unavailable()
        self._publish()
        self._notify("tools")
        self._changed()

    def _connection_changed(self, connected: bool) -> None:
        self._notify("mounted", connected)

    def _serve_unavailable(self) -> None:
        """Serve every unavailable call whose tool has a mounted registration now."""
        machine = self._machine
        waiting = machine.unavailable()
        if not waiting or not machine.busy:
            return
        serving = self.scope.serving()
        for call in waiting:
            registration = serving.get(call.name)
            if registration is None:
                if call.execution == 0:
                    logger.info("pyclient: no registration of tool %r is mounted in thread %s; call %s waits for one",
                                call.name, self.thread_id, call.id)
                continue
            tool = registration.tool
            machine.serve(call.id, tool, registration, input=tool.render_only)
            if tool.render_only:
                # Nothing runs to validate the arguments: check them before the user is asked.
                try:
                    tool.validate_arguments(self._action(call).arguments)
                except ToolError as exc:
                    machine.answer(call.id, ToolResult.failure(str(exc)))
                    self._executions.abort(call.id, "failed")

    def _changed(self) -> None:
        """An input from outside the loop changed the machine: publish, and wake the loop."""
        self._publish()
        turn = self._turn
        if turn is not None:
            turn.wake.set()

    # -- listeners ---------------------------------------------------------------------------

    def _action(self, call: Call) -> Action:
        known = self._actions.get(call.id)
        if known is not None and known[0] is call:
            return known[1]
        if known is not None:  # the id's earlier call is answered; its signal and task are not this one's
            self._executions.forget(call.id)
        tool_call = self._machine.tool_call(call.id)
        assert tool_call is not None
        action = Action(self, call, tool_call, self._executions)
        self._actions[call.id] = (call, action)
        return action

    def _publish(self) -> None:
        """Tell listeners what the machine changed (after the input is fully applied)."""
        if self._publishing:
            return  # a listener's own input: the loop below picks its changes up
        self._publishing = True
        try:
            while True:
                changes = self._machine.drain()
                if not changes:
                    return
                for change in changes:
                    if change.kind == "checkpoint":
                        self._schedule_save()
                    elif change.kind == "messages" and self._machine.run_status == "running":
                        self._save_streaming_text()
                    if change.kind == "checkpoint" or not self._listeners:
                        continue
                    elif change.kind == "action":
                        call = self._machine.calls[change.payload]
                        if call.tool is None:
                            continue  # not a client tool call (a server-side one)
                        self._notify("action", self._action(call))
                    else:
                        self._notify(change.kind, change.payload)
        finally:
            self._publishing = False

    def _notify(self, kind: EventKind, payload: object = None) -> None:
        self._listeners.send(kind, payload)

    def _check_writable(self, what: str) -> None:
        if self.read_only:
            raise LocalProtocolError(
                f"Cannot {what} in thread {self.thread_id!r}: another tab holds it, so it is shown "
                "read-only here. Continue in that tab, or close it and reload this one."
            )

    def _check_open(self, what: str) -> None:
        if self._machine.run_status == "closed":
            raise LocalProtocolError(
                f"Cannot {what} in thread {self.thread_id!r}: it is closed. Create a new thread "
                "with `agent.thread()`."
            )
