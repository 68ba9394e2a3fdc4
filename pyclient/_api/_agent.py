"""`Agent`: a binding to one AG-UI endpoint, its stable client tools, and the threads that talk to it.

The agent owns the transport (httpx on CPython, fetch in the page, or one you pass) and
creates threads. What differs between CPython and the page comes from its platform, picked
once for the process (`pyclient._environment`) or passed as `Agent(..., platform=...)`.
On CPython `agent.thread()` takes no element: the thread advertises the binding tools, the
agent-level registrations (`agent.register_tool`) that apply to it and its own
(`thread.register_tool`). In the page, `agent.thread(element)` mounts the thread on a DOM
element and `agent.use_client_tool(tool, element)` scopes a tool to an element.

```python
import asyncio
from pyclient import Agent, client_tool

@client_tool
def change_background(background: str) -> str:
    \"\"\"Change the page background. Accepts any CSS background value.\"\"\"
    return f"background is now {background}"

async def main():
    async with Agent("main", "http://127.0.0.1:8000/agent", client_tools=[change_background]) as agent:
        thread = agent.thread()
        await thread.send("make it blue")
        print(thread.run_status, thread.error)

asyncio.run(main())
```
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from .._base._errors import ConfigurationError
from .._base._forward import Forward
from .._base._limits import Limits
from .._binding._platform import Platform, current_platform
from .._binding._scopes import AgentScope, Registration, ThreadScope, check_tool
from .._conversation._interrupt_handle import Interrupt
from .._conversation._machine import DEFAULT_MAX_FOLLOW_UPS
from .._conversation._parts import ToolPart
from .._tools._client_tool import ClientTool
from .._wire._transport import Transport
from ._renderers import Renderers
from ._thread import Thread

__all__ = ["Agent"]


class Agent:
    """An AG-UI endpoint binding.

    Args:
        name: a name for the agent (logs, UI).
        url: the AG-UI endpoint (`POST`, answers `text/event-stream`).
        client_tools: tools advertised in every thread of this agent.
        headers: extra request headers (e.g. `Authorization`).
        transport: how requests are sent; by default the platform's (fetch in the page,
            httpx on CPython).
        max_follow_ups: default for `thread.max_follow_ups`.
        platform: the environment (`pyclient._binding._platform.Platform`); by default the one picked
            for this process. Tests pass a fake one (an in-memory DOM).
        max_attachment_bytes: the largest file a user may attach (10 MB); larger ones are
            refused before anything is sent, with an `AttachmentError` naming the file.
        max_message_bytes: the most all the files of one message may come to (20 MB).
        max_stored_file_bytes: the largest file a saved thread (`store=`) keeps with its bytes
            (10 MB); a larger one is kept as a text part that names it.
        max_result_chars: the longest text a tool result may have (1,000,000 characters, about
            1 MB): a longer one is cut there and ends with a note the model reads ("[truncated:
            the result was 52,428,800 characters, over this agent's max_result_chars of
            1,000,000]"), and a warning is logged. Files in a result are not counted.
        max_request_bytes: the largest request body (50 MB): each one carries the whole
            conversation, files included; a larger one is not sent and fails the run with a
            `RequestTooLargeError` naming its size and this limit.
        max_event_chars: the longest event of a response (50,000,000 characters; a
            `MESSAGES_SNAPSHOT` repeats the whole history): a longer one fails the run with a
            `RemoteProtocolError` as soon as that much of it has arrived.

    Raises:
        ConfigurationError: an empty name or URL, a tool that is not a `ClientTool`, two
            tools with the same name, a transport / platform of the wrong type, or a limit
            that is not an int >= 0.

    Attributes:
        name, url, headers, client_tools, max_follow_ups: as given.
        limits: the size limits (`pyclient._base._limits.Limits`).
        platform: the environment.
        scope: the agent's registrations (`pyclient._binding._scopes.AgentScope`).
    """

    def __init__(
        self,
        name: str,
        url: str,
        *,
        client_tools: Iterable[ClientTool] = (),
        headers: Mapping[str, str] | None = None,
        transport: Transport | None = None,
        max_follow_ups: int = DEFAULT_MAX_FOLLOW_UPS,
        platform: Platform | None = None,
        max_attachment_bytes: int = Limits.max_attachment_bytes,
        max_message_bytes: int = Limits.max_message_bytes,
        max_stored_file_bytes: int = Limits.max_stored_file_bytes,
        max_result_chars: int = Limits.max_result_chars,
        max_request_bytes: int = Limits.max_request_bytes,
        max_event_chars: int = Limits.max_event_chars,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ConfigurationError(f"Agent name must be a non-empty string, got {name!r}. Pass e.g. Agent('main', url).")
        if not isinstance(url, str) or not url:
            raise ConfigurationError(
                f"Agent {name!r} needs the URL of its AG-UI endpoint, got {url!r}. Pass e.g. url='/agent'."
            )
        tools = tuple(client_tools)
        seen: set[str] = set()
        for tool in tools:
            if not isinstance(tool, ClientTool):
                raise ConfigurationError(
                    f"client_tools of agent {name!r} must be ClientTool objects, got "
                    f"{type(tool).__name__} {tool!r:.60}. Decorate the function with @client_tool."
                )
            if tool.name in seen:
                raise ConfigurationError(
                    f"Agent {name!r} has two client tools named {tool.name!r}; the model could not "
                    "tell them apart. Rename one with client_tool(name=...)."
                )
            seen.add(tool.name)
        if transport is not None and not isinstance(transport, Transport):
            raise ConfigurationError(
                f"transport must be a pyclient Transport, got {type(transport).__name__}. "
                "Subclass pyclient.Transport and implement stream(), or omit it."
            )
        if platform is not None and not isinstance(platform, Platform):
            raise ConfigurationError(
                f"platform must be a pyclient Platform, got {type(platform).__name__}. "
                "Omit it to use this process's platform."
            )
        self.url = url
        self.client_tools = tools
        self.headers: dict[str, str] = dict(headers or {})
        self.max_follow_ups = max_follow_ups
        self.limits = Limits(max_attachment_bytes=max_attachment_bytes, max_message_bytes=max_message_bytes,
                             max_stored_file_bytes=max_stored_file_bytes, max_result_chars=max_result_chars,
                             max_request_bytes=max_request_bytes, max_event_chars=max_event_chars)
        self.platform = platform if platform is not None else current_platform()
        self._transport = transport
        self.scope = AgentScope(name, tools, self.platform.refresh)
        self.name = name
        self._tool_renderers: Renderers[Callable[[ToolPart], Any]] = Renderers(
            "tool_renderer", "a ToolPart", example="create_task", owner=lambda: self.name)
        self._interrupt_renderers: Renderers[Callable[[Interrupt], Any]] = Renderers(
            "interrupt_renderer", "an Interrupt", example="input_required", owner=lambda: self.name)
        self._activity_renderers: Renderers[Callable[[Any], Any]] = Renderers(
            "activity_renderer", "an ActivityMessage", example="search", owner=lambda: self.name)
        self._state_renderers: Renderers[Callable[[Any], Any]] = Renderers(
            "state_renderer", "the state", example=None, owner=lambda: self.name)

    def __repr__(self) -> str:
        return f"<Agent {self.name!r} {self.url}>"

    name: Forward[str] = Forward("scope", "The agent's name (logs, the UI, the key of its stored threads).", writable=True)

    @property
    def transport(self) -> Transport:
        """The transport requests go through (created on first use when none was given)."""
        if self._transport is None:
            self._transport = self.platform.transport()
        return self._transport

    @property
    def threads(self) -> list[Thread]:
        """The agent's threads that are alive and not closed."""
        return [cast(Thread, scope.owner) for scope in list(self.scope.threads) if not scope.closed]

    def thread(self, element_or_selector: Any = None, thread_id: str | None = None, **options: Any) -> Thread:
        """Create a thread with this agent.

        Args:
            element_or_selector: in the page, the DOM element (or CSS selector) the thread is
                mounted on; must be None on CPython.
            thread_id: the AG-UI `threadId`; a new UUID by default.
            **options: passed to `Thread` (`messages`, `state`, `context`,
                `forwarded_props`, `max_follow_ups`, `store`: `True` for IndexedDB in the
                page, or a `pyclient.Store` such as `FileStore(path)` / `MemoryStore()`).

        Returns:
            A new idle `Thread`.

        Raises:
            ConfigurationError: an element was given but the platform has no DOM (CPython),
                no element matches, or the element carries another live thread.
        """
        options.setdefault("max_follow_ups", self.max_follow_ups)
        if element_or_selector is None:
            return Thread(self, thread_id, **options)
        binding = self.platform.elements
        if binding is None:
            raise ConfigurationError(
                f"agent.thread({element_or_selector!r:.60}) mounts a thread on a DOM element, "
                "which needs the page (the browser platform, pyclient.browser). "
                "On CPython call agent.thread() without an element."
            )
        element = binding.element(element_or_selector, "agent.thread()")
        existing = binding.scope_on(element)
        if existing is not None and existing.element is element:
            if existing.agent_scope is self.scope and thread_id in (None, existing.thread_id):
                return cast(Thread, existing.owner)  # the same call twice: one element, one thread
            raise ConfigurationError(
                f"The element already carries thread {existing.thread_id!r} of agent {existing.agent_scope.name!r}. "
                "Mount each thread on its own element, or close that thread first (`thread.close()`)."
            )
        thread = Thread(self, thread_id, **options)
        thread.mount(element)
        return thread

    def register_tool(
        self,
        tool: ClientTool,
        *,
        applies_to: Callable[[Thread], bool] | None = None,
        replace: bool = False,
        mounted: bool = True,
    ) -> Registration:
        """Register `tool` for the threads of this agent that `applies_to` selects.

        An agent-level registration wins over a binding tool of the same name and loses to a
        thread-level one. Unavailable calls of that tool in the selected threads run with it
        as soon as it is registered mounted (or mounts).

        Args:
            tool: a `ClientTool` (decorate the function with `@client_tool`).
            applies_to: `applies_to(thread) -> bool`, asked at every snapshot; None selects
                every thread of the agent. The bridge passes "the registration's element
                contains the thread's element".
            replace: take over from a live agent-level registration of the same name (it
                serves again once this one is unmounted or disposed) instead of raising.
            mounted: False registers it unmounted; `registration.set_mounted(True)` mounts it.

        Returns:
            The `Registration`: `set_mounted(bool)`, `dispose()`.

        Raises:
            ConfigurationError: `tool` is not a `ClientTool`, `applies_to` is not callable, or
                a live agent-level registration of the same name exists and `replace` is False.
        """
        check_tool(tool, "agent.register_tool")
        if applies_to is not None and not callable(applies_to):
            raise ConfigurationError(
                f"applies_to for tool {tool.name!r} must be a function thread -> bool, got "
                f"{type(applies_to).__name__}. Pass e.g. applies_to=lambda thread: thread.thread_id == 't1', "
                "or None for every thread of the agent."
            )
        applies = None
        if applies_to is not None:
            chosen = applies_to

            def applies(scope: ThreadScope) -> bool:
                return chosen(cast(Thread, scope.owner))

        return self.scope.register(tool, applies_to=applies, replace=replace, mounted=mounted)

    def use_client_tool(self, tool: ClientTool, element: Any, *, replace: bool = False) -> Any:
        """Scope `tool` to a DOM element: advertised while `element` is connected (page only).

        Inside a thread element it is registered on that thread; around thread elements it
        applies to the threads it encloses. The browser bridge implements it; on CPython use
        `agent.register_tool()` or `thread.register_tool()`.

        Args:
            tool: a `ClientTool`.
            element: a DOM element (or selector).
            replace: take over a registration of the same name at the same level.

        Returns:
            The bridge's registration handle (`tool`, `mounted`, `dispose()`); dispose it when
            the component goes away for good.

        Raises:
            ConfigurationError: `tool` is not a `ClientTool`, the platform has no DOM
                (CPython), or a duplicate registration without `replace`.
        """
        check_tool(tool, "agent.use_client_tool")
        binding = self.platform.elements
        if binding is None:
            raise ConfigurationError(
                f"agent.use_client_tool({tool.name!r}, {element!r:.60}) scopes a tool to a DOM element, "
                "which needs the page (the browser platform, pyclient.browser). On CPython the "
                "equivalents are agent.register_tool(tool, applies_to=...) and thread.register_tool(tool)."
            )
        return binding.use_client_tool(tool, element, agent=self.scope, replace=replace)

    def tool_renderer(
        self, name: str, *, replace: bool = False
    ) -> Callable[[Callable[[ToolPart], Any]], Callable[[ToolPart], Any]]:
        """Decorator: render the calls of tool `name` (a client tool or a backend one) in the page.

        The renderer gets a `ToolPart` each time the call changes and returns an element (a
        JS element or a `pyscript.web` element), a string (shown as text) or None (the
        chat's default card). A tool's own `client_tool(render=...)` wins over it; `"*"`
        renders every call no other renderer takes. A renderer that raises shows a fallback
        card with the error; the conversation goes on.

        ```python
        from pyclient import Agent

        agent = Agent("main", url="/agent")

        @agent.tool_renderer("create_task")
        def task_card(part):
            return f"{part.input.get('title', '…')} ({part.state})"

        print(agent.renderer("create_task") is task_card)   # True
        ```

        Args:
            name: the tool name the model calls, or `"*"`.
            replace: take over from a renderer already set for `name` instead of raising.

        Raises:
            ConfigurationError: `name` is not a string, the renderer is not callable, or a
                renderer for `name` exists and `replace` is False.
        """
        return self._tool_renderers.decorator(name, replace=replace)

    def interrupt_renderer(
        self, reason: str, *, replace: bool = False
    ) -> Callable[[Callable[[Interrupt], Any]], Callable[[Interrupt], Any]]:
        """Decorator: render the AG-UI interrupts with this `reason` in the chat, in place of its form.

        The renderer gets the `Interrupt` each time it changes and returns an element, a
        string or None (the chat's own: an approval card for a tool call's approval, else the
        message and a form made from its `response_schema`); it answers with
        `interrupt.resolve(payload)` or `interrupt.cancel()`. `"*"` renders every interrupt
        no other renderer takes. A renderer that raises shows a fallback with the error.

        ```python
        from pyclient import Agent

        agent = Agent("main", url="/agent")

        @agent.interrupt_renderer("input_required")
        def ask(interrupt):
            return interrupt.message or "The agent needs an answer"

        print(agent.renderer_for_interrupt("input_required") is ask)   # True
        ```

        Args:
            reason: the interrupt's `reason` (`"tool_call"`, `"input_required"`,
                `"langgraph:interrupt"`, ...), or `"*"`.
            replace: take over from a renderer already set for `reason` instead of raising.

        Raises:
            ConfigurationError: `reason` is not a string, the renderer is not callable, or a
                renderer for `reason` exists and `replace` is False.
        """
        return self._interrupt_renderers.decorator(reason, replace=replace)

    def renderer_for_interrupt(self, reason: str) -> Callable[[Interrupt], Any] | None:
        """The renderer set with `interrupt_renderer` for `reason` (or `"*"`), or None."""
        return self._interrupt_renderers.get(reason)

    def renderer(self, tool_name: str) -> Callable[[ToolPart], Any] | None:
        """The renderer set with `tool_renderer` for `tool_name` (or `"*"`), or None."""
        return self._tool_renderers.get(tool_name)

    def activity_renderer(
        self, activity_type: str, *, replace: bool = False
    ) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
        """Decorator: render the AG-UI activities of this `activity_type` in the chat, in place of its default card.

        An activity (`ACTIVITY_SNAPSHOT`, patched by `ACTIVITY_DELTA`) is an `ag_ui.core.ActivityMessage`
        of the history: `id`, `activity_type`, `content` (a dict). The renderer gets it each time
        it changes and returns an element, a string or None (the default card: the type and a
        summary of the content). `"*"` renders every activity no other renderer takes. A renderer
        that raises shows a fallback card with the error; the conversation goes on.

        ```python
        from pyclient import Agent

        agent = Agent("main", url="/agent")

        @agent.activity_renderer("search")
        def sources(activity):
            return f"Searching: {len(activity.content.get('sources', []))} sources"

        print(agent.renderer_for_activity("search") is sources)   # True
        ```

        Raises:
            ConfigurationError: `activity_type` is not a string, the renderer is not callable,
                or one is set for it and `replace` is False.
        """
        return self._activity_renderers.decorator(activity_type, replace=replace)

    def renderer_for_activity(self, activity_type: str) -> Callable[[Any], Any] | None:
        """The renderer set with `activity_renderer` for `activity_type` (or `"*"`), or None."""
        return self._activity_renderers.get(activity_type)

    def state_renderer(self, render: Callable[[Any], Any] | None = None, *, replace: bool = False) -> Any:
        """Render the thread's shared state in the chat: `@agent.state_renderer` or `agent.state_renderer(fn)`.

        `render(state)` gets `thread.state` (the JSON the agent and the page share: a plan's
        steps, a document being written) and returns an element, a string or None (nothing
        shown). The chat shows it below the conversation and calls it again when the state
        changes (`STATE_SNAPSHOT`, `STATE_DELTA`, `thread.state = ...`, `thread.update_state`),
        at most once an animation frame. A renderer that raises shows a fallback with the error.

        ```python
        from pyclient import Agent

        agent = Agent("main", url="/agent")

        @agent.state_renderer
        def plan(state):
            return " / ".join(step["description"] for step in state.get("steps", []))

        print(agent.renderer_for_state() is plan)   # True
        ```

        Raises:
            ConfigurationError: the renderer is not callable, or one is set and `replace` is False.
        """
        register = self._state_renderers.decorator("state", replace=replace)
        return register if render is None else register(render)

    def renderer_for_state(self) -> Callable[[Any], Any] | None:
        """The renderer set with `state_renderer`, or None."""
        return self._state_renderers.get("state")

    async def aclose(self) -> None:
        """Close the transport (its pooled connections)."""
        if self._transport is not None:
            await self._transport.aclose()

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

