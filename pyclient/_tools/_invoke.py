"""Runs one tool call: decodes the model's arguments, then runs the handler with a timeout and an abort signal.

`decode_arguments` turns the arguments the model sent (JSON text, through the bounded parser
`pyclient._base._json`) into a JSON object, with errors written for the model. `run_handler`
runs the handler: an `async def` as a task, a plain `def` inline on the event loop (Pyodide has
no threads, so nothing could interrupt it anyway). Its `ToolContext` gets a signal of its own,
which aborts with "timeout" on timeout and with the caller's reason when the caller's aborts.
Whatever the handler does (raises, times out, raises any `BaseException`) ends the call with a
failed `ToolResult`, never the caller's loop; only the caller's signal ends it with
`RunAborted`, and a `CancelledError` is a cancellation only when someone cancelled the
handler's task (`Task.cancelling()` tells them apart). Nothing here knows tools or schemas.

```python
import asyncio
from pyclient._tools._invoke import decode_arguments, run_handler
from pyclient._tools._results import ToolResult

async def wait(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "done"

ok = asyncio.run(run_handler(wait, (), {"seconds": 0}, tool_name="wait", encode=ToolResult.success))
print(ok.content)                         # done
late = asyncio.run(run_handler(wait, (), {"seconds": 5}, tool_name="wait", timeout_s=0.01,
                               encode=ToolResult.success))
print(late.error)                         # Tool 'wait' timed out after 0.01 s
print(decode_arguments("wait", '{"seconds": 1}'))                  # {'seconds': 1}
```
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, NoReturn

from .._base._abort import AbortController, AbortSignal
from .._base._errors import RunAborted, ToolError
from .._base._json import JSONLimitError, loads
from ._context import ToolContext
from ._results import ToolResult

__all__ = ["decode_arguments", "run_handler"]

logger = logging.getLogger("pyclient")


def decode_arguments(tool_name: str, arguments: str | bytes | Mapping[str, Any] | None) -> dict[str, Any]:
    """The model's arguments for a call of `tool_name` as a JSON object, not yet validated.

    Args:
        tool_name: the tool's name, for the messages.
        arguments: the JSON text of the arguments, or an already decoded mapping. None and
            "" mean no arguments (`{}`).

    Raises:
        ToolError: with a message written for the model: not text, malformed JSON, JSON past
            the parser's limits, or a value that is not an object.
    """
    if arguments is None:
        return {}
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, (bytes, bytearray)):
        arguments = arguments.decode("utf-8", errors="replace")
    if not isinstance(arguments, str):
        raise ToolError(
            f"The arguments of tool {tool_name!r} must be a JSON object, received "
            f"{type(arguments).__name__}. Call {tool_name!r} again with a JSON object."
        )
    if not arguments.strip():
        return {}
    try:
        data = loads(arguments)
    except JSONLimitError as exc:
        raise ToolError(
            f"The arguments of tool {tool_name!r} were not read ({len(arguments)} characters): {exc} "
            f"Call {tool_name!r} again with flat arguments that match its parameters schema."
        ) from None
    except json.JSONDecodeError as exc:
        excerpt = arguments if len(arguments) <= 80 else arguments[:79] + "…"
        raise ToolError(
            f"The arguments of tool {tool_name!r} are not valid JSON ({exc.msg} at line "
            f"{exc.lineno} column {exc.colno}): {excerpt}\n"
            f"Call {tool_name!r} again with its arguments as one JSON object."
        ) from None
    if not isinstance(data, dict):
        raise ToolError(
            f"The arguments of tool {tool_name!r} must be a JSON object, received "
            f"{_json_type(data)}. Call {tool_name!r} again with a JSON object of its parameters."
        )
    return data


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "null" if value is None else type(value).__name__


async def run_handler(
    handler: Callable[..., Any],
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    *,
    tool_name: str,
    encode: Callable[[Any], ToolResult | Awaitable[ToolResult]],
    context_parameter: str | None = None,
    timeout_s: float | None = None,
    tool_call_id: str = "",
    thread_id: str = "",
    signal: AbortSignal | None = None,
    describe: Callable[[BaseException], str] | None = None,
    messages: Sequence[Any] = (),
) -> ToolResult:
    """Call `handler(*args, **kwargs)` for one tool call and make its outcome a `ToolResult`.

    `timeout_s` cancels an async handler at its next `await`; it cannot interrupt a plain
    `def`, whose result is used once it returns.

    Args:
        handler: the tool's function, `async def` or plain `def`.
        args: the validated positional-only arguments.
        kwargs: the validated keyword arguments.
        tool_name: the tool's name, for the failure messages and the log.
        encode: makes the handler's value the result (output schema, JSON; awaited when it
            returns an awaitable, as reading a page's `Blob` does); called once,
            only when the handler returned.
        context_parameter: the handler's `ToolContext` parameter, given the call's context.
        timeout_s: seconds the handler may run; None for no limit.
        tool_call_id: the AG-UI `toolCallId`, passed on in the `ToolContext`.
        thread_id: the thread's id, passed on in the `ToolContext`.
        signal: aborts the call from outside (stop, unmount, resolution).
        describe: what an exception the handler raised says in the failure (`Platform.describe_failure`:
            a worker's page adds what to write instead); its message by default.
        messages: the thread's history, passed on in the `ToolContext`.

    Returns:
        What `encode` made of the handler's value, or a failure: the handler raised, timed
        out or was cancelled.

    Raises:
        RunAborted: `signal` aborted (before or during the call); the handler task was
            cancelled and its `finally` blocks have run. The call reports no result.
    """
    if signal is not None:
        signal.throw_if_aborted()
    # The handler's own signal (it also aborts on timeout), mirrored to JS like the caller's.
    controller = signal.new_controller() if signal is not None else AbortController()
    context = ToolContext(signal=controller.signal, tool_call_id=tool_call_id, thread_id=thread_id,
                          messages=tuple(messages))
    if context_parameter is not None:
        kwargs = {**kwargs, context_parameter: context}

    def call() -> Any:
        """Start the handler (unless the call was aborted meanwhile); what it returned."""
        if signal is not None:
            signal.throw_if_aborted()
        try:
            return handler(*args, **kwargs)
        except Exception:
            raise
        except BaseException as exc:
            _reraise(tool_name, exc)

    loop = asyncio.get_running_loop()
    if not inspect.iscoroutinefunction(handler):
        # A plain def runs inline: nothing can interrupt it anyway, and a task of its own
        # would delay the follow-up request by more turns of the event loop (each a browser
        # task in the page). An awaitable it returns is awaited in a task, as below.
        try:
            value = call()
        except Exception as exc:
            return _failure(tool_name, exc, describe)
        if signal is not None and signal.aborted:  # the handler stopped its own call
            controller.abort(signal.reason)
            raise RunAborted(signal.reason)
        if not inspect.isawaitable(value):
            return await _encoded(encode(value))
        task = loop.create_task(_awaited(tool_name, value))
    else:
        task = loop.create_task(_started(tool_name, call))
    external: asyncio.Future[Any] = loop.create_future()

    def on_external_abort(reason: Any) -> None:
        # The handler's own signal aborts below, as its task is cancelled (so a fetch in it
        # ends with CancelledError); a task not started yet checks `signal` itself (`call`).
        if not external.done():
            external.set_result(reason)

    remove = signal.on_abort(on_external_abort) if signal is not None else None
    try:
        await asyncio.wait({task, external}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        # Whoever awaits the call was cancelled: the handler must not outlive it. Its signal
        # says why the caller gave up when the caller said so first.
        controller.abort(external.result() if external.done() else "cancelled")
        external.cancel()
        await _cancel_and_wait(task)
        raise
    finally:
        if remove is not None:
            remove()

    # The external abort wins over a result that arrived in the same turn: the caller
    # has moved on and will not send it.
    if external.done():
        reason = external.result()
        controller.abort(reason)
        await _cancel_and_wait(task)
        raise RunAborted(reason)
    external.cancel()
    if task.done():
        return await _encoded(_outcome(tool_name, task, encode, describe))
    controller.abort("timeout")
    await _cancel_and_wait(task)
    return ToolResult.failure(f"Tool {tool_name!r} timed out after {timeout_s:g} s")


async def _started(tool_name: str, call: Callable[[], Any]) -> Any:
    # This task's first step may come in the loop turn after a stop or an unmount: it must
    # not start a handler whose result nobody will send (`call` checks).
    value = call()
    # A plain def may still return an awaitable (a coroutine from a helper, a Future).
    return await _awaited(tool_name, value) if inspect.isawaitable(value) else value


async def _awaited(tool_name: str, value: Awaitable[Any]) -> Any:
    """What a handler's awaitable (its coroutine, a coroutine from a helper, a Future) gives."""
    try:
        return await value
    except Exception:
        raise
    except BaseException as exc:
        _reraise(tool_name, exc)


async def _encoded(result: ToolResult | Awaitable[ToolResult]) -> ToolResult:
    return await result if inspect.isawaitable(result) else result


def _outcome(tool_name: str, task: asyncio.Task[Any], encode: Callable[[Any], ToolResult | Awaitable[ToolResult]],
             describe: Callable[[BaseException], str] | None) -> ToolResult | Awaitable[ToolResult]:
    if task.cancelled():
        return ToolResult.failure(f"Tool {tool_name!r} was cancelled before it finished")
    error = task.exception()
    return _failure(tool_name, error, describe) if error is not None else encode(task.result())


def _cancelled_from_outside(exc: BaseException) -> bool:
    """True when `exc` is the cancellation of the task running the handler: the caller's (a
    stop, an unmount, a timeout, the awaiting task cancelled), which must go on up. A
    `CancelledError` the handler raised itself, with no cancel pending, is not one."""
    if not isinstance(exc, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _reraise(tool_name: str, exc: BaseException) -> NoReturn:
    """Raise on what a handler raised that is not an Exception: a cancellation from outside as
    it is, anything else as the `ToolError` that fails the call."""
    if _cancelled_from_outside(exc):
        raise exc
    raise _not_an_exception(tool_name, exc) from exc


def _not_an_exception(tool_name: str, exc: BaseException) -> ToolError:
    # A BaseException that is not an Exception would leave the handler's task the wrong way:
    # KeyboardInterrupt and SystemExit raised out of a task (or inline) stop the whole event
    # loop (every thread, the page); a CancelledError of its own would read as the call being
    # cancelled from outside (no answer, no follow-up); GeneratorExit out of a task is an
    # exception nobody retrieves. The call fails instead, like any other failure.
    raised = f"Tool {tool_name!r} raised {type(exc).__name__}" + (f"({exc})" if str(exc) else "")
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
        why = "a handler cannot stop the program"
    elif isinstance(exc, asyncio.CancelledError):
        why = "nothing cancelled the call; a handler cannot cancel it itself"
    else:
        why = "a handler ends its call with a result or an exception, not a BaseException"
    return ToolError(f"{raised}: {why}. Return a result or raise an exception.")


def _failure(tool_name: str, exc: BaseException, describe: Callable[[BaseException], str] | None) -> ToolResult:
    # The model gets the message; the page author gets the traceback in the console.
    message = describe(exc) if describe is not None else str(exc) or type(exc).__name__
    logger.warning("pyclient: tool %r raised %s: %s", tool_name, type(exc).__name__, message, exc_info=exc)
    return ToolResult.failure(message)


async def _cancel_and_wait(task: asyncio.Task[Any]) -> None:
    """Cancel `task` and wait until it has finished, so its `finally` blocks have run."""
    task.cancel()
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()  # retrieve it, so asyncio does not log "exception never retrieved"
