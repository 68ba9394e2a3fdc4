"""`@client_tool` turns a Python function into a `ClientTool` an AG-UI agent can call.

The tool's JSON Schema comes from the function's type hints (see `pyclient._tools._schema`); its
`execute()` validates the model's arguments against it, runs the handler with a timeout and
an abort signal (`pyclient._tools._invoke`), and encodes the result as the text of the AG-UI tool
message (`pyclient._tools._results`). Nothing here touches the browser: the same code runs in
Pyodide and on CPython.

Decorating reads the signature only: the pydantic model and the JSON Schemas are built on
first need, or in the page once it is idle (`pyclient._tools._deferred_schemas`). The options
are checked when the tool is made (`pyclient._tools._tool_options`).

```python
import asyncio
from pyclient import client_tool

@client_tool(timeout_s=5)
async def add(a: int, b: int = 1) -> int:
    \"\"\"Add two numbers.\"\"\"
    return a + b

print(add.to_agui_tool().model_dump_json())
result = asyncio.run(add.execute('{"a": 2, "b": 3}'))
print(result.ok, result.content)          # True 5
result = asyncio.run(add.execute('{"a": "two"}'))
print(result.error)                       # Invalid arguments for tool 'add': ...
```
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Unpack, overload

from pydantic_core import ValidationError

from .._base._abort import AbortSignal
from .._base._errors import ConfigurationError, RunAborted, ToolError
from ._deferred_schemas import FROM_HANDLER, SchemaField, built, pending
from ._invoke import decode_arguments, run_handler
from ._results import ToolResult, encode_returned, encode_submitted
from ._schema import ToolSchema, build_tool_schema
from ._tool_options import ToolOptions, check_options
from ._validation_errors import describe_validation_error

if TYPE_CHECKING:
    from ag_ui.core import Tool

__all__ = ["ClientTool", "client_tool"]


@dataclass(frozen=True, eq=False, repr=False)
class ClientTool:
    """A tool the agent sees in every run and whose handler runs here.

    Build it with `@client_tool`. Tools compare and hash by identity, so they can be kept in
    sets and used as keys. Calling the tool calls the handler directly, so a decorated
    function still works as a function (`add(1, 2)`; an `async def` returns a coroutine).
    `parameters` and `output_schema` are built from the handler's hints on first read (see
    `build_schema()`).

    Attributes:
        name: the name the model calls it by.
        description: what it does, for the model.
        parameters: the JSON Schema of the arguments (see `pyclient._tools._schema` for its shape).
        handler: the function that runs.
        requires_approval: the call waits for the user's approval before the handler runs
            (the thread enforces this before it calls `execute()`).
        timeout_s: seconds before an `async def` handler is cancelled; None for no limit.
        output_schema: the JSON Schema of the result, from the return hint (None for `str`,
            `None`, `Any` or no hint).
        render: an optional renderer for the call's UI (used by the page's renderers, not here).
        render_only: the handler never runs: a call waits as `"awaiting_input"` and the page
            answers it (`action.submit(output)`); the handler's signature still gives the
            schema the arguments are validated against.
        idempotent: running the handler twice for one call is harmless: a call that was
            executing when the page died runs again by itself after the thread is restored
            (otherwise it waits as `"interrupted"` for `action.retry()` or `cancel()`).
        server_declared: the agent declares the tool in its own contract: it is never put in a
            request's `tools`, and a call to its name from the agent it is registered with is
            routed here all the same. Register it with that agent only (`Agent(client_tools=...)`,
            `agent.register_tool`, `agent.use_client_tool`, or one of its threads).
    """

    name: str
    description: str
    parameters: SchemaField[dict[str, Any]] = SchemaField(required=True)
    # mypy takes the descriptor above for a default; it is none (its class-level __get__
    # raises AttributeError), so `parameters` stays a required argument.
    handler: Callable[..., Any]  # type: ignore[misc]
    requires_approval: bool = False
    timeout_s: float | None = None
    output_schema: SchemaField[dict[str, Any] | None] = SchemaField(required=False)
    render: Callable[..., Any] | None = None
    render_only: bool = False
    idempotent: bool = False
    server_declared: bool = False
    # Built by client_tool; rebuilt from the handler when the dataclass is constructed directly
    # or `dataclasses.replace()` swaps the handler, so validation always matches the handler.
    _schema: ToolSchema | None = field(default=None, repr=False, kw_only=True)

    def __post_init__(self) -> None:
        check_options(self.name, self.handler, self.timeout_s, self.render, self.requires_approval,
                       self.render_only, self.idempotent, self.server_declared)
        if self._schema is None or self._schema.func is not self.handler:
            object.__setattr__(self, "_schema", build_tool_schema(self.handler, tool_name=self.name))
        assert self._schema is not None
        if not self._schema.built:
            pending(self)

    @property
    def schema(self) -> ToolSchema:
        """What the handler's signature says (`pyclient._tools._schema.ToolSchema`): read at
        decoration; its pydantic model and JSON Schemas are built on first need (`build_schema()`)."""
        assert self._schema is not None  # set by __post_init__
        return self._schema

    def __repr__(self) -> str:
        # By hand: the generated one would read `parameters`, building the schema.
        return (f"ClientTool(name={self.name!r}, requires_approval={self.requires_approval!r}, "
                f"timeout_s={self.timeout_s!r}, render_only={self.render_only!r}, "
                f"idempotent={self.idempotent!r}, server_declared={self.server_declared!r})")

    def build_schema(self) -> bool:
        """Build the handler's pydantic model and JSON Schemas now if they are not built yet.

        They are built on first need otherwise: reading `parameters` or `output_schema`,
        `to_agui_tool()`, validating a call, a thread's `send()`/`run()` (which checks every
        tool it serves first), and in the page once it is idle.

        Returns:
            True if this call built them, False if they were built already.

        Raises:
            ConfigurationError: a parameter's or the return's type hint has no JSON Schema
                (raised again at each need until the handler is fixed).
        """
        if self.schema.built:
            return False
        self.schema.build()
        built(self)
        return True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the handler directly, bypassing validation, timeout and encoding."""
        return self.handler(*args, **kwargs)

    def to_agui_tool(self) -> Tool:
        """Return the AG-UI `Tool` definition (name, description, parameters) sent with each run."""
        from ag_ui.core import (
            Tool,  # on first use: see `pyclient._wire._events.event_adapter`
        )

        return Tool(name=self.name, description=self.description, parameters=copy.deepcopy(self.parameters))

    def validate_arguments(self, arguments: str | bytes | Mapping[str, Any] | None) -> dict[str, Any]:
        """Decode and validate the model's arguments.

        Args:
            arguments: the JSON text of the arguments, or an already decoded mapping. None and
                "" mean no arguments (`{}`).

        Returns:
            The validated arguments by parameter name, with defaults filled in; the
            `ToolContext` parameter is not included.

        Raises:
            ToolError: with a message written for the model: malformed JSON, a non-object, or
                each failing field with what was expected and what was received.
            ConfigurationError: the first need of a schema that cannot be built (a hint with
                no JSON Schema).
        """
        data = decode_arguments(self.name, arguments)
        try:
            return self.schema.validate(data)
        except ValidationError as exc:
            raise ToolError(describe_validation_error(
                exc, data, heading=f"Invalid arguments for tool {self.name!r}:",
                footer=f"Call {self.name!r} again with arguments that match its parameters schema.",
            )) from None

    async def execute(
        self,
        arguments: str | bytes | Mapping[str, Any] | None,
        *,
        tool_call_id: str = "",
        thread_id: str = "",
        signal: AbortSignal | None = None,
        convert: Callable[[Any], Any] | None = None,
        read: Callable[[Any], Awaitable[Any]] | None = None,
        describe: Callable[[BaseException], str] | None = None,
        messages: Sequence[Any] = (),
    ) -> ToolResult:
        """Validate the arguments, run the handler and encode its result.

        The handler runs through `pyclient._tools._invoke.run_handler`: an `async def` as an asyncio
        task, a plain `def` inline on the event loop (Pyodide has no threads: it blocks the
        page while it runs, and `timeout_s` cannot interrupt it). The handler's `ToolContext`
        carries a signal of its own, which aborts with reason "timeout" on timeout and with
        the external signal's reason when `signal` aborts.

        Args:
            arguments: the model's arguments (JSON text or a mapping; None/"" mean `{}`).
            tool_call_id: the AG-UI `toolCallId`, passed on in the `ToolContext`.
            thread_id: the thread's id, passed on in the `ToolContext`.
            signal: aborts the call from outside (stop, unmount, resolution).
            convert: turns what the handler returned into Python data before it is encoded
                (the page's platform converts JS values: `null` to None, arrays, objects); a
                `ToolError` it raises fails the call with its message.
            read: reads the environment's own files in the value (a page's `Blob` or canvas)
                as `Media`, before it is converted (`Platform.read_media`).
            describe: what an exception of the handler says in the result (`Platform.describe_failure`).
            messages: the thread's history, for the handler's `ToolContext.messages`.

        Returns:
            A `ToolResult`. Invalid arguments, a handler exception, a timeout and a result that
            fails the output schema or cannot be encoded all give a result with `error` set:
            they end the call, never the caller's loop.

        Raises:
            RunAborted: `signal` aborted (before or during the call); the handler task was
                cancelled and its `finally` blocks have run. The call reports no result.
        """
        if signal is not None and signal.aborted:
            raise RunAborted(signal.reason)
        try:
            kwargs = self.validate_arguments(arguments)
        except ToolError as exc:
            return ToolResult.failure(str(exc))
        schema = self.schema
        args = [kwargs.pop(name) for name, _ in schema.fields if name in schema.positional_only]
        return await run_handler(
            self.handler, args, kwargs, tool_name=self.name, encode=partial(self._converted, convert=convert, read=read),
            context_parameter=schema.context_parameter, timeout_s=self.timeout_s, tool_call_id=tool_call_id,
            thread_id=thread_id, signal=signal, describe=describe, messages=messages,
        )

    def _converted(self, value: Any, convert: Callable[[Any], Any] | None,
                   read: Callable[[Any], Awaitable[Any]] | None) -> ToolResult | Awaitable[ToolResult]:
        if read is not None and value is not None and not isinstance(value, (str, int, float, dict)):
            return self._read_then_converted(value, convert, read)  # a Blob's bytes come asynchronously
        if convert is not None:
            try:
                value = convert(value)
            except ToolError as exc:
                return ToolResult.failure(f"Tool {self.name!r} returned {exc}")
        return self.encode_result(value)

    async def _read_then_converted(self, value: Any, convert: Callable[[Any], Any] | None,
                                   read: Callable[[Any], Awaitable[Any]]) -> ToolResult:
        try:
            value = await read(value)
        except ToolError as exc:
            return ToolResult.failure(f"Tool {self.name!r} returned {exc}")
        result = self._converted(value, convert, None)
        assert isinstance(result, ToolResult)  # read=None: encoded at once
        return result

    def encode_result(self, value: Any) -> ToolResult:
        """Encode a handler's return value as tool message content.

        With an output schema the value is validated (and normalized) by it first. Then a
        `str` is used as is, None becomes "", and anything else becomes compact JSON through
        pydantic (models, dataclasses, datetimes, enums, sets, ...).

        Args:
            value: what the handler returned.

        Returns:
            A successful `ToolResult`, or a failed one saying why the value does not match the
            output schema or cannot be written as JSON.
        """
        return encode_returned(self.name, value, self.schema.output_adapter)

    def submitted_result(self, value: Any) -> ToolResult:
        """Encode an output the page submits for a call (`action.submit(output)`), like `encode_result`.

        Raises:
            ToolError: the output does not match the tool's output schema or is not
                JSON-compatible; the message says which field and what to submit instead.
                Nothing is answered: the call keeps waiting for a valid output.
        """
        return encode_submitted(self.name, value, self.schema.output_adapter)


@overload
def client_tool(func: Callable[..., Any], **options: Unpack[ToolOptions]) -> ClientTool: ...


@overload
def client_tool(func: None = None, **options: Unpack[ToolOptions]) -> Callable[[Callable[..., Any]], ClientTool]: ...


def client_tool(
    func: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    timeout_s: float | None = None,
    render: Callable[..., Any] | None = None,
    render_only: bool = False,
    idempotent: bool = False,
    server_declared: bool = False,
) -> ClientTool | Callable[[Callable[..., Any]], ClientTool]:
    """Make a `ClientTool` from a function: `@client_tool`, `@client_tool(...)` or `client_tool(f, ...)`.

    The parameters' JSON Schema comes from the type hints; a parameter annotated
    `ToolContext` receives the call's context instead. The return hint, unless it is `str`,
    `None` or `Any`, becomes the output schema the result is checked against.

    Args:
        func: the handler, `async def` or plain `def`. A plain `def` runs inline on the event
            loop (Pyodide has no threads), so `timeout_s` cannot interrupt it.
        name: the tool's name; defaults to the function's name.
        description: what the tool does, for the model; defaults to the docstring's first
            paragraph.
        requires_approval: wait for the user's approval before running the handler.
        timeout_s: seconds an `async def` handler may run; None for no limit.
        render: an optional renderer for the call's UI.
        render_only: never run the handler: each call waits as `"awaiting_input"` until the
            page answers it with `action.submit(output)` (or `fail`/`cancel`). Its arguments
            are validated first; invalid ones are answered with the error at once.
        idempotent: the handler may safely run twice for one call. A thread kept in a store
            (`agent.thread(..., store=...)`) runs a call that was executing when the page died
            again by itself; without it the call waits as `"interrupted"` for the user to retry
            (`action.retry()`) or cancel it.
        server_declared: the agent itself declares the tool (its contract names it): the tool
            is never sent in a request's `tools`, and the agent's calls to it are routed to
            this handler (or, with `render_only`, wait for the page) with the same validation,
            approval, timeout and abort rules. Only the agent-bound registrations accept it
            (`Agent(client_tools=...)`, `agent.register_tool`, `agent.use_client_tool`,
            `thread.register_tool`); the package-root `use_client_tool` refuses it.

    Returns:
        A `ClientTool`, or a decorator that makes one when `func` is omitted.

    Raises:
        ConfigurationError: for what can never work: a non-callable `func`, an invalid name,
            `timeout_s <= 0`, a parameter without a hint, a hint that cannot be resolved,
            `*args`/`**kwargs`, two `ToolContext` parameters, a `ToolContext` in a union, or
            `render_only` together with `requires_approval` or `timeout_s`. A hint with no JSON
            Schema (a parameter's or the return's) raises it on the tool's first need instead
            (its model and schemas are built then, not here: see `ClientTool.build_schema()`);
            in the page, the idle-time build logs it as an error on the `pyclient` logger first.
    """

    def decorate(handler: Callable[..., Any]) -> ClientTool:
        tool_name = name if name is not None else getattr(handler, "__name__", None)
        if tool_name is None and callable(handler):
            tool_name = type(handler).__name__
        check_options(tool_name, handler, timeout_s, render, requires_approval, render_only, idempotent,
                       server_declared)
        if description is not None and not isinstance(description, str):
            raise ConfigurationError(
                f"description for tool {tool_name!r} must be a string, got "
                f"{type(description).__name__}. Pass a str, or omit it to use the docstring."
            )
        schema = build_tool_schema(handler, tool_name=tool_name)
        return ClientTool(
            name=tool_name,
            description=description.strip() if description is not None else schema.description,
            parameters=FROM_HANDLER,
            handler=handler,
            requires_approval=requires_approval,
            timeout_s=timeout_s,
            output_schema=FROM_HANDLER,
            render=render,
            render_only=render_only,
            idempotent=idempotent,
            server_declared=server_declared,
            _schema=schema,
        )

    if func is None:
        return decorate
    return decorate(func)
