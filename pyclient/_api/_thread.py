"""`Thread`: one conversation with an agent, driven over the network; the facade a page author holds.

Behind it each concept has its room (`docs/architecture.md`): the sans-I/O machine
(`pyclient._conversation._machine`), the drive loop (`pyclient._driver._loop`), the answering (`pyclient._driver._answering`),
the listeners (`pyclient._driver._publisher`), the store (`pyclient._driver._persistence`). Its methods about
calls, tools and message actions are mixins: `pyclient._api._thread_calls`, `pyclient._api._thread_tools`,
`pyclient._api._thread_messages`. `send()` never raises for a failed run: it returns with
`run_status == "error"` and `thread.error` set, and `run()` retries.

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
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._base._custom import custom_listener
from .._base._errors import ConfigurationError
from .._base._forward import Forward
from .._base._ids import new_id
from .._base._listeners import Listeners, ThreadEvent
from .._base._store import Store
from .._binding._scopes import ThreadScope
from .._conversation._lifecycle import RunStatus
from .._conversation._machine import DEFAULT_MAX_FOLLOW_UPS, Conversation
from .._conversation._records import RunEnd
from .._conversation._shared_state import patched
from .._conversation._subagents import Subagent
from .._driver._answering import ThreadAnswers
from .._driver._executions import Executions
from .._driver._host import Host
from .._driver._loop import Driver
from .._driver._message_actions import MessageActions
from .._driver._persistence import Persistence, resolve_store
from .._driver._publisher import Publisher
from .._driver._turns import Turns
from ._thread_calls import ThreadCalls
from ._thread_messages import ThreadMessageActions
from ._thread_tools import ThreadTools

if TYPE_CHECKING:
    from ag_ui.core import Context, Message

    from .._wire._events import AGUIEvent

__all__ = ["Thread"]


class Thread(ThreadCalls, ThreadTools, ThreadMessageActions):
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
        scope: the thread's registrations (`pyclient._binding._scopes.ThreadScope`).
    """

    def __init__(
        self,
        agent: Host,
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
        platform = agent.platform
        kept = resolve_store(store, thread_id, platform)
        self.agent = agent
        machine = self._machine = Conversation(
            thread_id or new_id(), messages=messages, state=state, context=context,
            forwarded_props=forwarded_props, max_follow_ups=max_follow_ups,
        )
        self._listeners = Listeners()
        executions = Executions(platform, machine.thread_id, lambda *result: answers.handler_returned(*result),
                                machine.messages)
        answers = ThreadAnswers(machine, executions, platform.to_python,
                                                changed=lambda: driver.changed(),
                                                serve=lambda: driver.serve_unavailable(),
                                                max_result_chars=agent.limits.max_result_chars)
        self._publisher = Publisher(machine, self._listeners, answers.action_for, answers.interrupt_for)
        self.scope = ThreadScope(agent.scope, machine.thread_id, self,
                                 lambda registration, lost: driver.registration_changed(registration, lost),
                                 lambda connected: self._publisher.notify("mounted", connected))
        self._persistence: Persistence | None = None
        if kept is not None:
            self._persistence = Persistence(kept, f"{agent.name}/{machine.thread_id}", machine, platform,
                                            self._publisher, self.registered_tools,
                                            lambda restored: driver.restored(self.read_only) if restored else None,
                                            agent.limits.max_stored_file_bytes, agent.name)
        driver = self._driver = Driver(machine, self.scope, agent, platform, executions, answers, self._publisher,
                                       self._listeners, self._persistence.saved if self._persistence else None)
        turns = self._turns = Turns(agent, machine, driver, self._publisher, self.scope, self._persistence)
        ThreadCalls.__init__(self, answers)
        ThreadMessageActions.__init__(self, MessageActions(machine, publish=self._publisher.publish, ready=turns.ready,
                                                           writable=turns.check_writable, run=self.run))
        self._unmount: Callable[[], None] | None = None
        platform.warm_up()
        if self._persistence is not None:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass  # no loop yet (a CPython script): the first restore()/send()/run() starts it
            else:
                self._persistence.start()

    def __repr__(self) -> str:
        return f"<Thread {self.thread_id!r} of agent {self.agent.name!r} {self.run_status}>"

    # -- the element ---------------------------------------------------------------------

    def mount(self, element: Any) -> None:
        """Live on `element` (what `agent.thread(element)` does): mounted while it is connected.

        Raises:
            ConfigurationError: the platform has no DOM, the element carries another live
                thread, or this thread's id is mounted on another element.
        """
        binding = self.agent.platform.elements
        if binding is None:
            raise ConfigurationError(
                f"thread.mount({element!r:.60}) needs the page (the browser platform, pyclient.browser)."
            )
        self._unmount = binding.mount(self.scope, element)

    element: Forward[Any] = Forward("scope", "The DOM element the thread is mounted on (None on CPython and once closed).")

    # -- saving and restoring -------------------------------------------------------------

    @property
    def store(self) -> Store | None:
        """Where the thread is kept across page loads (None: nowhere)."""
        return self._persistence.store if self._persistence is not None else None

    read_only: Forward[bool] = Forward(
        "_turns", "True when another tab holds this stored thread: it is shown here; `send()`/`run()` raise.")
    deleted: Forward[bool] = Forward("_turns", """True once this stored thread was deleted from its store
        elsewhere (another tab's `SavedThreads.delete`, another process's for a `FileStore`): it is no
        longer saved, and `send()`/`run()` raise; the Chat says "Deleted in another tab".""")
    set_aside: Forward[str | None] = Forward("_turns", """The key the saved copy was moved to when
        `restore()` could not read it (its JSON cut short, not a snapshot this pyclient reads) and the
        thread started afresh; None when it was read, or there was none. The copy is kept there unchanged.""")

    @property
    def streaming_save_interval(self) -> float:
        """With a store, while text streams, the seconds between two saves of the partial text
        (1.0; saves otherwise follow completed messages and call changes, never each delta)."""
        return self._persistence.streaming_save_interval if self._persistence is not None else 0.0

    @streaming_save_interval.setter
    def streaming_save_interval(self, seconds: float) -> None:
        if self._persistence is not None:
            self._persistence.streaming_save_interval = seconds

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
        thread, it is shown read-only (`read_only`): `send()` and `run()` raise. A saved copy
        that cannot be read is moved aside (`set_aside`) and the thread starts afresh.

        Returns:
            True when a saved conversation was restored.
        """
        return await self._turns.restore()

    async def saved(self) -> None:
        """Wait until the latest state is saved (nothing when the thread has no store)."""
        await self._turns.saved()

    # -- reading -------------------------------------------------------------------------

    thread_id: Forward[str] = Forward("_machine", "The AG-UI `threadId`.")
    context: Forward[list[Context]] = Forward(
        "_machine", "`ag_ui.core.Context` items sent with every run (a list you may change).")
    forwarded_props: Forward[Any] = Forward(
        "_machine", "A JSON value sent as `forwardedProps` with every run.", writable=True)
    max_follow_ups: Forward[int] = Forward(
        "_machine", "Automatic follow-up runs allowed in a row before `FollowUpLimitError`.", writable=True)

    @property
    def messages(self) -> list[Message]:
        """The history as `ag_ui.core` message models (a new list on each access).

        Built on each access from what the history keeps (a message a request carried is kept
        as its JSON only): changing a model changes nothing, and reading one message is
        cheaper with `message(id)`.
        """
        return self._machine.messages()

    def message_view(self) -> Sequence[Message]:
        """The history as a read-only sequence that builds a model only for the message read
        (`pyclient._conversation._message_view`): its length and its last messages cost what they read, where
        `messages` builds them all. It follows the history as it changes."""
        return self._machine.history.view()

    def message(self, message_id: str) -> Message | None:
        """The message with this id, or None: one model built, where `messages` builds them all
        (a message a request carried is kept as its JSON, its model built when read)."""
        return self._machine.message(message_id)

    @property
    def state(self) -> Any:
        """The shared agent state (JSON), sent with every run and updated by the server."""
        return self._machine.state

    @state.setter
    def state(self, value: Any) -> None:
        self._machine.state = value
        self._publisher.publish()

    def update_state(self, patch: Iterable[Any]) -> None:
        """JSON Patch `state` now, all or none (else `LocalProtocolError`), sent with the next request
        (and while a run streams: `pyclient._conversation._shared_state`)."""
        self.state = patched(self._machine.state, patch)

    activity_problems: Forward[dict[str, str]] = Forward(
        "_machine", "Activity message id -> why its last update did not apply (the UI shows the last good content).")
    run_status: Forward[RunStatus] = Forward(
        "_machine", """`"idle"`, `"running"` (a request in flight or tool calls being answered), `"error"` or `"closed"`.""")
    run_end: Forward[RunEnd | None] = Forward("_machine", """How the last turn ended (`RunEnd`: `how` is
        `"finished"`, `"stopped"`, `"failed"` or `"closed"`, with the reason), or None while one is in
        flight and before the first ends.""")
    error: Forward[BaseException | None] = Forward(
        "_machine", "The error of the last run (`TransportError`, `RemoteProtocolError`, `RunError`), or None.")
    waiting_for_person: Forward[bool] = Forward("_machine", """True while the run waits for nothing but the
        person at the page: open interrupts, or calls awaiting approval or input, no handler running.
        `send()` is allowed then: what is open is cancelled and the agent is told with the new message.""")

    # -- registering and listening -------------------------------------------------------

    def subscribe(self, callback: Callable[[ThreadEvent], Any], *, events: bool = True) -> Callable[[], None]:
        """Call `callback(ThreadEvent)` on every event and change (kinds: `pyclient._base._listeners`).

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

        The same events as `subscribe`'s `"event"` kind, at the same moment, without a
        `ThreadEvent` built for each: for a UI that follows a long stream, with
        `subscribe(..., events=False)` for the changes. Returns the function that unsubscribes.
        """
        return self._listeners.add_events(callback)

    def on_custom(self, name: str, callback: Callable[..., Any]) -> Callable[[], None]:
        """Call `callback(value)` for each `CUSTOM` event named `name` (`"*"`: every one, as
        `callback(name, value)`); see `pyclient._base._custom`. Returns the function that unsubscribes."""
        return self._listeners.add_events(custom_listener(name, callback))

    @property
    def subagents(self) -> list[Subagent]:
        """The subagent invocations the agent announced (`SUBAGENT_*` events), in order; a
        message a subagent produced carries its `subagent_run_id` (see `pyclient._conversation._subagents`)."""
        return self._machine.subagents.runs()

    def subagent(self, subagent_run_id: str | None) -> Subagent | None:
        """The subagent invocation with this id, or None."""
        return self._machine.subagents.get(subagent_run_id)

    # -- running -------------------------------------------------------------------------

    async def send(self, text: str, attachments: Iterable[Any] = ()) -> None:
        """Append a user message and run until idle (all tool calls answered and followed up,
        and with a store, the last state saved).

        With `attachments` the message's content is a list of AG-UI parts: the text first,
        then one part per file (an image, audio, video or document part, by MIME type).

        Does not raise for HTTP errors, dropped connections or `RUN_ERROR`: it returns with
        `run_status == "error"` and the cause in `thread.error`. After `stop()` it returns
        with `run_status == "idle"`.

        While the run waits only for the person (open interrupts, calls awaiting approval or
        input), a new message is not refused: what is open is cancelled, the agent is told in
        the same request as the message, and this returns when that turn is idle (after a
        LangGraph interrupt, the cancellation is sent first and the message right after it).

        Args:
            text: the user's message.
            attachments: files sent with it: `pyclient.Attachment`s (or `Image`, `Document`,
                …), `pathlib.Path`s, bytes (their type read from them); in the page also JS
                `File`s and `Blob`s.

        Raises:
            LocalProtocolError: a run is already in flight in this thread (a request or a
                handler), the thread is closed, another tab holds it (`read_only`), it was
                deleted from its store elsewhere (`deleted`), or `text` is not a str.
            AttachmentError: a file is not one pyclient can read, or is over the agent's
                limits (`Agent(max_attachment_bytes=..., max_message_bytes=...)`); the message
                names it. Nothing is added or sent.
            ConfigurationError: a tool this thread serves has a type hint with no JSON Schema
                (its schema is built on first need; nothing is sent and no message is added).
        """
        await self._turns.send(text, attachments)

    async def run(self) -> None:
        """Run the agent on the current history until idle; retries after an error.

        Same contract as `send()`, without adding a message.

        Raises:
            LocalProtocolError: a run is already in flight in this thread, it is closed,
                another tab holds it (`read_only`), or it was deleted from its store elsewhere
                (`deleted`).
            ConfigurationError: a tool this thread serves has a type hint with no JSON Schema.
            asyncio.CancelledError: the task awaiting this was cancelled (the run is stopped first).
        """
        await self._turns.run()

    def stop(self, reason: str = "stopped by the user") -> None:
        """Abort the run in flight: the request, running handlers, actions waiting for an answer.

        Calls not answered yet get an error tool message saying they were cancelled, so the
        history stays valid for the next run. No follow-up run is sent. `run_status` becomes
        "idle" at once; the `send()`/`run()` in progress returns. Does nothing when idle.
        """
        self._driver.stop(reason)

    def close(self, reason: str = "closed") -> None:
        """Stop for good: abort what runs, dispose the thread's registrations, release its element.

        Calls not answered yet are cancelled with `reason`. Afterwards `run_status` is
        `"closed"`, and `send()`/`run()`/`register_tool()` raise `LocalProtocolError`.
        Idempotent.
        """
        if self._machine.run_status == "closed":
            return
        self._driver.close(reason)
        if self._persistence is not None:
            self._persistence.close()
        self.scope.close()
        unmount, self._unmount = self._unmount, None
        if unmount is not None:
            unmount()
        self._publisher.publish()
