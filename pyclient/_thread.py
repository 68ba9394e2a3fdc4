"""`Thread`: one conversation with an agent: its history, run status, pending tool calls and listeners.

`await thread.send(text)` appends a user message and runs the agent until the thread is
idle: every client tool call is answered and followed up automatically (see `pyclient._run`).
HTTP errors, dropped connections and `RUN_ERROR` do not raise: `send()` returns with
`run_status == "error"` and `thread.error` set, the history keeps everything received, and
`await thread.run()` retries. `thread.stop()` aborts the request and the running handlers.

Listeners (`thread.subscribe(callback)`) receive a `ThreadEvent(kind, payload)`:

| kind | payload | when |
| --- | --- | --- |
| `"event"` | the AG-UI event (`ag_ui.core` model or `UnknownEvent`) | every decoded event, after it is applied |
| `"messages"` | None | the history changed (new message, text delta, tool result) |
| `"state"` | the new shared state | `STATE_SNAPSHOT` / `STATE_DELTA` applied |
| `"status"` | `"idle"`, `"running"` or `"error"` | `run_status` changed |
| `"action"` | the `Action` | a pending action appeared, changed status or was answered |
| `"tools"` | None | the available tools may have changed (a registration was added, mounted, unmounted or disposed); call `thread.available_tools()` |
| `"error"` | the exception | `thread.error` was set |
| `"mounted"` | True or False | in the page: the thread's element was connected or disconnected |

Tools: the agent's binding tools, the agent-level registrations that apply to the thread
(`agent.register_tool`) and the thread's own (`thread.register_tool`); see `pyclient._scopes`
for which one serves a name. A call whose tool has no mounted registration when the run
finishes waits as an `"unavailable"` action until one mounts (or `action.cancel()`).

```python
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

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ag_ui.core import Context, ToolMessage, UserMessage

from . import _scopes
from ._actions import Action
from ._errors import ConfigurationError, LocalProtocolError
from ._messages import History, new_id
from ._state import IDLE, STOP, RunState
from ._tools import ClientTool, ToolResult

if TYPE_CHECKING:
    from ._agent import Agent
    from ._run import RunContext

__all__ = ["Thread", "ThreadEvent"]

logger = logging.getLogger("pyclient")

DEFAULT_MAX_FOLLOW_UPS = 10


@dataclass(frozen=True)
class ThreadEvent:
    """What a `thread.subscribe()` callback receives; see the table in this module's docstring.

    Attributes:
        kind: "event", "messages", "state", "status", "action", "tools" or "error".
        payload: depends on `kind`.
    """

    kind: str
    payload: Any = None


class Thread:
    """One conversation with an agent. Create it with `agent.thread()`.

    Args:
        agent: the `Agent` whose endpoint, transport and binding tools the thread uses.
        thread_id: the AG-UI `threadId`; a new UUID by default.
        messages: a history to start from (`ag_ui.core` messages or their JSON dicts).
        state: the initial shared state (JSON; `{}` by default).
        context: `ag_ui.core.Context` items or `{"description", "value"}` dicts.
        forwarded_props: see Attributes.
        max_follow_ups: see Attributes.

    Raises:
        ConfigurationError: `max_follow_ups` is not an int >= 0.

    Attributes:
        thread_id: the AG-UI `threadId`.
        context: `ag_ui.core.Context` items sent with every run.
        forwarded_props: a JSON value sent as `forwardedProps` with every run.
        max_follow_ups: how many automatic follow-up runs in a row one `send()`/`run()` may
            make before it stops with `FollowUpLimitError` (a guard against a model that never
            stops calling tools).
        element: the DOM element the thread is mounted on (set by the browser bridge; None
            on CPython). `applies_to` predicates of agent-level registrations look at it.
    """

    def __init__(
        self,
        agent: Agent,
        thread_id: str | None = None,
        *,
        messages: Iterable[Any] = (),
        state: Any = None,
        context: Iterable[Context | dict[str, str]] = (),
        forwarded_props: Any = None,
        max_follow_ups: int = DEFAULT_MAX_FOLLOW_UPS,
    ) -> None:
        if not isinstance(max_follow_ups, int) or max_follow_ups < 0:
            raise ConfigurationError(
                f"max_follow_ups={max_follow_ups!r} is not a count of runs. Pass an int >= 0 "
                f"(default {DEFAULT_MAX_FOLLOW_UPS})."
            )
        self.agent = agent
        self.thread_id = thread_id or new_id()
        self.context = [item if isinstance(item, Context) else Context(**item) for item in context]
        self.forwarded_props = forwarded_props
        self.max_follow_ups = max_follow_ups
        self._history = History([_message(m) for m in messages], state)
        self._run_state = RunState()
        self._error: BaseException | None = None
        # In the page: the DOM element the thread is mounted on, and whether it is connected
        # (set by pyclient.browser). On CPython: None and True.
        self.element: Any = None
        self.mounted = True
        self._actions: dict[str, Action] = {}
        self._registrations: list[_scopes.Registration] = []   # THREAD level, oldest first
        self._listeners: list[Callable[[ThreadEvent], Any]] = []
        self._current: RunContext | None = None
        agent._threads.add(self)

    def __repr__(self) -> str:
        return f"<Thread {self.thread_id!r} of agent {self.agent.name!r} {self.run_status}>"

    # -- reading -------------------------------------------------------------------------

    @property
    def messages(self) -> list[Any]:
        """The history as `ag_ui.core` message models (a new list on each access)."""
        return self._history.messages()

    @property
    def state(self) -> Any:
        """The shared agent state (JSON), sent with every run and updated by the server."""
        return self._history.state

    @state.setter
    def state(self, value: Any) -> None:
        self._history.state = value
        self._notify("state", value)

    @property
    def run_status(self) -> str:
        """`"idle"`, `"running"` (a request in flight or tool calls being answered) or `"error"`."""
        return self._run_state.run_status

    @property
    def error(self) -> BaseException | None:
        """The error of the last run (`TransportError`, `RemoteProtocolError`, `RunError`), or None."""
        return self._error

    @property
    def pending_actions(self) -> list[Action]:
        """The tool calls of the finished run still waiting for their answer, in call order."""
        return [action for action in self._actions.values() if not action.done]

    def available_tools(self) -> list[ClientTool]:
        """The tools the next request will advertise (its snapshot).

        One tool per name: the most specific mounted registration wins (thread-level over
        agent-level over the agent's binding tools), the newest within a level. Binding tools
        come first, then agent-level, then thread-level ones. Calls the bridge's refresh hook
        first, so an element removed a moment ago is already left out.

        Returns:
            A new list: later registrations do not change it.
        """
        return _scopes.snapshot(self)

    # -- registering ---------------------------------------------------------------------

    def register_tool(self, tool: ClientTool, *, replace: bool = False, mounted: bool = True) -> _scopes.Registration:
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
        """
        return _scopes.register(self, _scopes.THREAD, tool, replace=replace, mounted=mounted,
                                api="thread.register_tool")

    def subscribe(self, callback: Callable[[ThreadEvent], Any]) -> Callable[[], None]:
        """Call `callback(ThreadEvent)` on every event and change (see the module docstring).

        Callbacks run synchronously in the run loop: keep them short. An exception in a
        callback is logged and never breaks the run.

        Returns:
            A function that unsubscribes the callback.
        """
        self._listeners.append(callback)

        def unsubscribe() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unsubscribe

    def _tools_changed(self) -> None:
        """A registration for this thread changed: serve the calls waiting for one, then tell listeners."""
        for action in list(self._actions.values()):
            action._serve()  # does nothing unless it is unavailable and now served
        self._notify("tools")

    def _notify(self, kind: str, payload: Any = None) -> None:
        event = ThreadEvent(kind, payload)
        for callback in list(self._listeners):
            try:
                callback(event)
            except Exception:  # a broken listener must not break the run
                logger.exception("pyclient: a thread listener raised on %s", kind)

    # -- running -------------------------------------------------------------------------

    async def send(self, text: str) -> None:
        """Append a user message and run until idle (all tool calls answered and followed up).

        Does not raise for HTTP errors, dropped connections or `RUN_ERROR`: it returns with
        `run_status == "error"` and the cause in `thread.error`. After `stop()` it returns
        with `run_status == "idle"`.

        Args:
            text: the user's message.

        Raises:
            LocalProtocolError: a run is already in flight in this thread, or `text` is not a str.
        """
        if not isinstance(text, str):
            raise LocalProtocolError(
                f"thread.send() takes the user's message as a str, got {type(text).__name__}. "
                "Pass the text, e.g. `await thread.send('make it blue')`."
            )
        self._check_idle("send a message")
        self._history.append(UserMessage(id=new_id(), content=text))
        self._notify("messages")
        await self.run()

    async def run(self) -> None:
        """Run the agent on the current history until idle; retries after an error.

        Same contract as `send()`, without adding a message.

        Raises:
            LocalProtocolError: a run is already in flight in this thread.
        """
        from ._run import run_until_idle

        self._check_idle("start a run")
        await run_until_idle(self)

    def stop(self, reason: str = "stopped by the user") -> None:
        """Abort the run in flight: the request, running handlers, actions waiting for an answer.

        Calls not answered yet get an error tool message saying they were cancelled, so the
        history stays valid for the next run. No follow-up run is sent. `run_status` becomes
        "idle" at once; the `send()`/`run()` in progress returns. Does nothing when idle.
        """
        ctx = self._current
        if ctx is None:
            return
        self._current = None
        ctx.controller.abort(reason)
        for action in self.pending_actions:
            action._cancel(reason, reason)  # the handler's signal says why: the stop reason
        self._settle(f"Tool call cancelled: {reason}")
        self._transition(STOP)

    def approve_tool(self, tool_call_id: str) -> None:
        """Let a call that awaits approval run its handler.

        Raises:
            LocalProtocolError: no pending call has this id, or it is not awaiting approval.
        """
        self._action(tool_call_id)._approve()

    def reject_tool(self, tool_call_id: str, reason: str | None = None) -> None:
        """Refuse a pending call: the model receives "rejected by the user" (and `reason`).

        Raises:
            LocalProtocolError: no pending call has this id.
        """
        message = f"rejected by the user: {reason}" if reason else "rejected by the user"
        self._action(tool_call_id).fail(message)

    def _action(self, tool_call_id: str) -> Action:
        action = self._actions.get(tool_call_id)
        if action is None or action.done:
            pending = ", ".join(repr(a.id) for a in self.pending_actions) or "none"
            raise LocalProtocolError(
                f"No pending tool call has id {tool_call_id!r} in thread {self.thread_id!r} "
                f"(pending: {pending}). It may have been answered or cancelled already; "
                "use an id from `thread.pending_actions`."
            )
        return action

    def _check_idle(self, what: str) -> None:
        if self._run_state.busy:
            raise LocalProtocolError(
                f"Cannot {what} in thread {self.thread_id!r} while run status is "
                f"{self.run_status!r} (state {self._run_state.state}): a run is in flight. "
                "Wait for the current `send()`/`run()` to return, or call `thread.stop()`."
            )

    # -- used by the run loop ------------------------------------------------------------

    def _transition(self, event: Any) -> None:
        before = self.run_status
        self._run_state.handle(event)
        if self._run_state.state is IDLE:
            self._actions.clear()
        if self.run_status != before:
            self._notify("status", self.run_status)

    def _set_error(self, error: BaseException | None) -> None:
        self._error = error
        if error is not None:
            self._notify("error", error)

    def _add_tool_result(self, tool_call_id: str, result: ToolResult) -> None:
        self._history.append(
            ToolMessage(id=new_id(), tool_call_id=tool_call_id, content=result.content, error=result.error)
        )
        self._notify("messages")

    def _settle(self, message: str) -> None:
        """Give every call of the current run that has no answer an error tool message.

        Used when a run ends without its tool loop (stop, error, follow-up cap), so the next
        request never carries a tool call without its result (model APIs reject that).
        """
        for call in self._history.unanswered_run_calls():
            self._add_tool_result(call.id, ToolResult.failure(message))


_message_adapter: Any = None


def _message(message: Any) -> Any:
    """A message model from a model or its JSON form (camelCase or snake_case keys)."""
    global _message_adapter
    if isinstance(message, dict):
        if _message_adapter is None:  # built once: a TypeAdapter per message is 100x slower
            from ag_ui.core import Message
            from pydantic import TypeAdapter

            _message_adapter = TypeAdapter(Message)
        return _message_adapter.validate_python(message)
    return message
