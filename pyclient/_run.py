"""The run loop: transport → SSE decoder → AG-UI events → thread history → client tools → follow-up.

One loop for every environment: only the `Transport` differs (httpx on CPython, fetch in the
page). `run_until_idle(thread)` sends a run, applies its events as they stream in, and when
`RUN_FINISHED` leaves client tool calls unanswered it answers all of them (concurrently,
each exactly once: see `pyclient._actions`) and sends the follow-up run, until a run leaves
nothing pending, the follow-up cap is hit, the thread is stopped, or a run fails.

Each request advertises `thread.available_tools()` taken once, when it is sent. When the run
finishes, a call of an advertised tool is served by the registration that serves that name
now (see `pyclient._scopes`); with none mounted it waits as an `"unavailable"` action, and
the follow-up goes out only once every call of the turn has its answer.

Server behaviour it absorbs (see STACK.md): `TOOL_CALL_ARGS` after `TOOL_CALL_END`
(pydantic-ai, parallel calls), no `outcome` on `RUN_FINISHED` (ag-ui-langgraph: the pending
calls are derived from the stream), many RAW/STEP/snapshot events, unknown event types,
`RUN_ERROR` without `RUN_FINISHED`, a stream that ends without either (a dropped connection).

```python
import asyncio
from pyclient import Agent
from pyclient._transport import MockTransport

def server(request):
    return (b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\\n\\n'
            b'data: {"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"hi"}\\n\\n'
            b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\\n\\n')

async def main():
    thread = Agent("demo", "http://agent.test/agent", transport=MockTransport(server)).thread()
    await thread.send("hello")
    print(thread.run_status, thread.messages[-1].content)    # idle hi

asyncio.run(main())
```
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ag_ui.core import RunAgentInput
from pydantic_core import PydanticSerializationError

from . import _scopes
from ._abort import AbortController
from ._actions import Action
from ._errors import (
    FollowUpLimitError,
    LocalProtocolError,
    RemoteProtocolError,
    RunAborted,
    RunError,
    TransportError,
)
from ._events import UnknownEvent, decode_event, event_type
from ._messages import new_id
from ._sse import SSEDecoder
from ._state import FAIL, NOTHING_PENDING, START, TOOLS_PENDING
from ._tools import ClientTool, ToolResult
from ._transport import Request

if TYPE_CHECKING:
    from ._thread import Thread

# RunError lives in pyclient._errors; re-exported here for code that imported it from _run.
__all__ = ["PROTOCOL_VERSION", "RunContext", "RunError", "run_until_idle"]

logger = logging.getLogger("pyclient")

PROTOCOL_VERSION = "1.0"
"""Sent as `protocolVersion`: servers (pydantic-ai) only report pending tool calls to 1.0 clients."""


@dataclass
class RunContext:
    """One `send()`/`run()` call: its abort controller and the current request's details."""

    controller: AbortController = field(default_factory=AbortController)
    run_id: str = ""
    tools: dict[str, ClientTool] = field(default_factory=dict)  # what the current request advertised
    finished: Any = None        # the RUN_FINISHED event (or UnknownEvent) of the current request
    run_error: Any = None       # the RUN_ERROR event of the current request
    events: int = 0

    @property
    def aborted(self) -> bool:
        return self.controller.signal.aborted


async def run_until_idle(thread: Thread) -> None:
    """Run `thread` until it is idle, stopped or failed; see the module docstring.

    Raises:
        LocalProtocolError: the thread is already running.
        asyncio.CancelledError: the task awaiting this was cancelled (the run is stopped first).
    """
    ctx = RunContext()
    thread._current = ctx
    follow_ups = 0
    try:
        while True:
            pending = await _one_request(thread, ctx)
            if pending is None or thread._current is not ctx:
                return  # failed or stopped: state already set
            if not pending:
                thread._transition(NOTHING_PENDING)
                return
            thread._transition(TOOLS_PENDING)
            if follow_ups >= thread.max_follow_ups:
                error = FollowUpLimitError(follow_ups, sorted({c.function.name for c in pending}))
                thread._settle(f"Not run: {error}")
                _fail(thread, ctx, error)
                return
            await _answer(thread, ctx, pending)
            if thread._current is not ctx:
                return  # stopped while answering: no follow-up
            follow_ups += 1
    except asyncio.CancelledError:
        if thread._current is ctx:
            thread.stop("cancelled")
        raise
    except Exception as exc:  # a bug (ours, a listener's, a transport's): surface it...
        if thread._current is ctx and thread._run_state.busy:
            # ...without handlers still running into the next run's history.
            reason = f"the run failed: {type(exc).__name__}: {exc}"
            for action in thread.pending_actions:
                action.cancel(reason)
            thread._settle(f"Not run: {reason}")
            _fail(thread, ctx, exc)
        raise
    finally:
        if thread._current is ctx:  # ...but never leave the thread "running"
            thread._current = None


def _fail(thread: Thread, ctx: RunContext, error: BaseException) -> None:
    if thread._current is not ctx:
        return
    logger.warning("pyclient: run of thread %s failed: %s", thread.thread_id, error)
    # State first, listeners last: an "error" listener may call stop() or send() again.
    thread._error = error
    thread._transition(FAIL)
    thread._notify("error", error)


def build_request(thread: Thread, ctx: RunContext) -> Request:
    """The HTTP request of the next run: the history, the tool snapshot, state, context.

    Takes the snapshot (`thread.available_tools()`) exactly once and remembers it in
    `ctx.tools`: only those names may run when this request's calls come back.
    """
    tools = thread.available_tools()
    ctx.tools = {tool.name: tool for tool in tools}
    ctx.run_id = new_id()
    run_input = RunAgentInput(
        thread_id=thread.thread_id,
        run_id=ctx.run_id,
        protocol_version=PROTOCOL_VERSION,
        messages=thread.messages,
        tools=[tool.to_agui_tool() for tool in tools],
        state=thread.state if thread.state is not None else {},
        context=thread.context,
        forwarded_props=thread.forwarded_props if thread.forwarded_props is not None else {},
    )
    headers = {
        **thread.agent.headers,
        # pydantic-ai answers 415 without this content type.
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
    }
    try:
        body = run_input.model_dump_json(by_alias=True).encode()
    except PydanticSerializationError as exc:
        raise LocalProtocolError(
            f"Cannot send a run of thread {thread.thread_id!r}: its state, context or "
            f"forwarded_props is not JSON ({exc}). Keep `thread.state` and "
            "`thread.forwarded_props` to dicts, lists, strings, numbers, booleans and None."
        ) from None
    return Request(thread.agent.url, headers, body)


async def _one_request(thread: Thread, ctx: RunContext) -> list[Any] | None:
    """Send one run and apply its events. Returns the calls left to answer, or None if it failed/stopped."""
    thread._transition(START)
    thread._set_error(None)
    thread._history.begin_run()
    ctx.finished = ctx.run_error = None
    ctx.events = 0
    request = build_request(thread, ctx)
    logger.debug("pyclient: run %s of thread %s: POST %s", ctx.run_id, thread.thread_id, request.url)

    task = asyncio.ensure_future(_consume(thread, ctx, request))

    def on_abort(reason: Any) -> None:
        # stop() from a listener runs inside the task: it notices the abort before the next
        # event; cancelling itself would interrupt the transport's clean-up instead.
        if task is not asyncio.current_task():
            task.cancel()

    remove = ctx.controller.signal.on_abort(on_abort)
    try:
        await task
    except asyncio.CancelledError:
        task.cancel()
        current = asyncio.current_task()
        if ctx.aborted and not (current is not None and current.cancelling()):
            return None  # thread.stop(): state already set
        raise
    except RunAborted:
        return None
    except (TransportError, RemoteProtocolError) as exc:
        thread._settle(f"Not run: the run failed before it finished ({exc})")
        _fail(thread, ctx, exc)
        return None
    except Exception as exc:  # not a TransportError: a transport that breaks its contract, or a bug
        thread._settle(f"Not run: {type(exc).__name__}: {exc}")
        raise
    finally:
        remove()

    if ctx.run_error is not None:
        raw = ctx.run_error
        error = RunError(_field(raw, "message") or "(no message)", _field(raw, "code"))
        thread._settle(f"Not run: {error}")
        _fail(thread, ctx, error)
        return None
    if ctx.finished is None:
        error = RemoteProtocolError(
            f"The stream from {request.url} ended before RUN_FINISHED (after {ctx.events} events): "
            "the server closed the connection early or crashed. What arrived is kept; "
            "`await thread.run()` retries."
        )
        thread._settle(f"Not run: {error}")
        _fail(thread, ctx, error)
        return None
    return thread._history.unanswered_run_calls(_pending_ids(ctx.finished))


async def _consume(thread: Thread, ctx: RunContext, request: Request) -> None:
    decoder = SSEDecoder()
    stream = thread.agent.transport.stream(request, ctx.controller.signal)
    try:
        async for chunk in stream:
            for sse in decoder.feed(chunk):
                if ctx.aborted:  # stop() from a listener: not one more event
                    raise RunAborted(ctx.controller.signal.reason)
                if not sse.data.strip():
                    continue  # an empty data line is a keep-alive
                _apply(thread, ctx, decode_event(sse.data))
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
    if decoder.incomplete and ctx.finished is None and ctx.run_error is None:
        raise RemoteProtocolError(
            f"The stream from {request.url} ended in the middle of an event: "
            f"{decoder.pending_text()!r}. The server closed the connection early; "
            "`await thread.run()` retries."
        )
    decoder.close()


def _apply(thread: Thread, ctx: RunContext, event: Any) -> None:
    ctx.events += 1
    kind = event_type(event)
    changes = thread._history.apply(event)
    if kind == "RUN_FINISHED":
        ctx.finished = event
    elif kind == "RUN_ERROR":
        ctx.run_error = event
    elif isinstance(event, UnknownEvent) and event.error is None:
        logger.debug("pyclient: ignoring event type %s", kind)
    thread._notify("event", event)
    if "messages" in changes:
        thread._notify("messages")
    if "state" in changes:
        thread._notify("state", thread.state)


def _field(event: Any, name: str) -> Any:
    if isinstance(event, UnknownEvent):
        return event.raw.get(name)
    return getattr(event, name, None)


def _pending_ids(finished: Any) -> list[str] | None:
    # RUN_FINISHED.outcome.pendingToolCallIds, when the server names them (pydantic-ai does
    # for 1.0 clients); absent or empty means "derive them from the stream".
    outcome = _field(finished, "outcome")
    if isinstance(outcome, dict):
        ids = outcome.get("pendingToolCallIds")
    else:
        ids = getattr(outcome, "pending_tool_call_ids", None)
    return list(ids) if ids else None


async def _answer(thread: Thread, ctx: RunContext, calls: list[Any]) -> None:
    """Answer every call: unadvertised ones at once with an error, the others through actions.

    An advertised call is served by the registration that serves its name now (which may
    differ from the one advertised, or be none: the action then waits as "unavailable").
    """
    actions: list[Action] = []

    def resolved(action: Action, result: ToolResult) -> None:
        thread._add_tool_result(action.id, result)
        thread._notify("action", action)

    _scopes.refresh()  # let the bridge report an element that left a moment ago
    for call in calls:
        advertised = ctx.tools.get(call.function.name)
        if advertised is None:
            names = ", ".join(sorted(ctx.tools)) or "none"
            thread._add_tool_result(call.id, ToolResult.failure(
                f"Tool {call.function.name!r} is not available in this thread: it was not among "
                f"the tools sent with this run (available: {names}). Call one of those instead."
            ))
            continue
        action = Action(thread, call, advertised, resolved)
        thread._actions[action.id] = action
        actions.append(action)
    # Every action is in `pending_actions` before the first listener hears of one.
    for action in actions:
        action._begin()
    if actions:
        await asyncio.gather(*(action._wait() for action in actions))
