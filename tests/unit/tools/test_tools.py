"""`@client_tool` and `ClientTool`: decoration, validation, execution, abort, result encoding."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import enum
import importlib
import json
from typing import Any

import pytest
from ag_ui.core import Tool
from pydantic import BaseModel

import pyclient
from pyclient import (
    AbortController,
    AbortSignal,
    ClientTool,
    ConfigurationError,
    RunAborted,
    ToolContext,
    ToolError,
    ToolResult,
    client_tool,
)

# The catalog lives with the browser test page, which loads the same module in Pyodide.
catalog = importlib.import_module("web.tests.tool_catalog")


def run(coro: Any, timeout: float = 20) -> Any:
    """Run `coro`; `timeout` only turns a hang (a handler nobody ends) into a failure."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


# -- the decorator's three forms and its defaults ----------------------------------------------


def test_bare_decorator_uses_function_name_and_first_paragraph() -> None:
    @client_tool
    def change_background(background: str) -> str:
        """Change the page background.
        Accepts any CSS background value.

        Args:
            background: a CSS value.
        """
        return background

    assert isinstance(change_background, ClientTool)
    assert change_background.name == "change_background"
    assert change_background.description == "Change the page background. Accepts any CSS background value."
    assert change_background.requires_approval is False
    assert change_background.timeout_s is None
    assert change_background.render is None


def test_decorator_with_options() -> None:
    def render(part: Any) -> None: ...

    @client_tool(name="save-note", description="  Save a note.  ", requires_approval=True, timeout_s=10, render=render)
    async def save_note(key: str) -> None:
        """Ignored docstring summary."""

    assert (save_note.name, save_note.description) == ("save-note", "Save a note.")
    assert save_note.requires_approval is True
    assert save_note.timeout_s == 10
    assert save_note.render is render


def test_empty_parentheses_and_direct_call() -> None:
    @client_tool()
    def a(x: int) -> int:
        return x

    def b(x: int) -> int:
        return x

    tool = client_tool(b, name="bee", timeout_s=1.5)
    assert (a.name, a.description) == ("a", "")  # no docstring: empty description
    assert (tool.name, tool.timeout_s, tool.handler) == ("bee", 1.5, b)


def test_client_tool_is_frozen_identity_hashed_and_callable() -> None:
    tool = catalog.sync_tool
    with pytest.raises(dataclasses.FrozenInstanceError):
        tool.name = "other"  # type: ignore[misc]
    assert len({tool, tool, catalog.async_tool}) == 2
    assert tool(2, b=3) == 5  # calls the handler directly
    assert run(catalog.async_tool("ab", repeat=2)) == "abab"


def test_direct_construction_builds_the_validator_from_the_handler() -> None:
    def handler(n: int) -> int:
        return n * 2

    tool = ClientTool(name="double", description="Double it.", parameters={"type": "object"}, handler=handler)
    assert tool.validate_arguments('{"n": "3"}') == {"n": 3}
    assert run(tool.execute({"n": 4})).content == "8"
    with pytest.raises(ConfigurationError, match="Tool name 'no spaces'"):
        dataclasses.replace(tool, name="no spaces")

    def other(text: str) -> str:
        return text.upper()

    swapped = dataclasses.replace(catalog.sync_tool, handler=other)
    assert swapped.validate_arguments({"text": "a"}) == {"text": "a"}
    assert run(swapped.execute({"text": "a"})).content == "A"


# -- ConfigurationError for options ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["has space", "dot.ted", "", "x" * 65, "émoji", "<lambda>"])
def test_invalid_names(name: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        client_tool(lambda: None, name=name) if name != "<lambda>" else client_tool(lambda: None)
    message = str(info.value)
    assert f"Tool name {name!r} is invalid" in message
    assert "^[A-Za-z0-9_-]{1,64}$" in message and "client_tool(name=" in message


def test_valid_name_edge_cases() -> None:
    assert client_tool(lambda: None, name="x" * 64).name == "x" * 64
    assert client_tool(lambda: None, name="A-b_9").name == "A-b_9"


@pytest.mark.parametrize("timeout", [0, -1, -0.5, float("nan"), True, "5"])
def test_invalid_timeouts(timeout: Any) -> None:
    with pytest.raises(ConfigurationError) as info:
        client_tool(lambda: None, name="t", timeout_s=timeout)
    assert f"timeout_s={timeout!r} for tool 't'" in str(info.value)
    assert str(info.value).endswith("or None for no timeout.")


@pytest.mark.parametrize("func", [42, "name"])
def test_non_callable_func(func: Any) -> None:
    with pytest.raises(ConfigurationError, match=r"client_tool\(\) needs a function, got (int|str)"):
        client_tool(func)


def test_non_callable_render_and_non_bool_approval() -> None:
    with pytest.raises(ConfigurationError, match="render for tool 'f' must be callable"):
        client_tool(lambda: None, name="f", render="card")
    with pytest.raises(ConfigurationError, match="requires_approval for tool 'f' must be True or False"):
        client_tool(lambda: None, name="f", requires_approval="yes")  # type: ignore[arg-type]


# -- to_agui_tool ---------------------------------------------------------------------------------


def test_to_agui_tool() -> None:
    tool = catalog.constrained
    agui = tool.to_agui_tool()
    assert isinstance(agui, Tool)
    wire = json.loads(agui.model_dump_json(by_alias=True))
    assert wire == {"name": "constrained", "description": tool.description, "parameters": tool.parameters}
    agui.parameters["properties"].clear()  # a copy: the tool's schema stays intact
    assert tool.parameters["properties"]


def test_to_agui_tool_round_trips_through_the_wire_model() -> None:
    for tool in catalog.CATALOG:
        text = tool.to_agui_tool().model_dump_json(by_alias=True)
        assert Tool.model_validate_json(text).parameters == tool.parameters


# -- argument validation ----------------------------------------------------------------------------


def test_arguments_as_json_text_dict_none_or_empty() -> None:
    tool = catalog.sync_tool
    assert tool.validate_arguments('{"a": 2}') == {"a": 2, "b": 1}
    assert tool.validate_arguments(b'{"a": 2, "b": 5}') == {"a": 2, "b": 5}
    assert tool.validate_arguments({"a": 2}) == {"a": 2, "b": 1}
    assert catalog.no_parameters.validate_arguments(None) == {}
    assert catalog.no_parameters.validate_arguments("") == {}
    assert catalog.no_parameters.validate_arguments("  \n") == {}


def test_validated_arguments_are_real_instances() -> None:
    args = catalog.order.validate_arguments('{"item": {"sku": "a1"}, "when": "2024-05-01T12:00:00Z"}')
    assert args["item"] == catalog.Item(sku="a1", quantity=1)
    assert args["when"] == datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.timezone.utc)
    args = catalog.draw_shape.validate_arguments(
        {"shape": {"name": "tri", "points": [{"x": 1}], "color": "green"}, "origin": {"x": 0}}
    )
    assert args["shape"].color is catalog.Color.GREEN and args["origin"] == catalog.Point(x=0)


def test_validation_error_names_each_field_expected_and_received() -> None:
    with pytest.raises(ToolError) as info:
        catalog.draw_shape.validate_arguments(
            '{"shape": {"name": "tri", "points": [{"x": 1}, {"x": "one"}], "color": "pink"}, "extra": 1}'
        )
    lines = str(info.value).splitlines()
    assert lines[0] == "Invalid arguments for tool 'draw_shape':"
    assert lines[1].startswith('- shape.points[1].x: expected a valid integer') and lines[1].endswith('received "one"')
    assert lines[2] == "- shape.color: expected 'red', 'green' or 'blue'; received \"pink\""
    assert lines[3] == "- origin: required, but missing"
    assert lines[4] == "- extra: not a parameter of this tool (received 1)"
    assert lines[-1] == "Call 'draw_shape' again with arguments that match its parameters schema."


def test_union_errors_share_one_line_without_member_tags() -> None:
    with pytest.raises(ToolError) as info:
        catalog.optional_and_union.validate_arguments({"note": None, "value": [1]})
    assert "- value: expected a valid integer or a valid string; received [1]" in str(info.value).splitlines()


def test_long_received_values_and_many_errors_are_cut() -> None:
    with pytest.raises(ToolError) as info:
        catalog.basic_types.validate_arguments({"text": ["x" * 200], **{f"extra{i}": i for i in range(12)}})
    lines = str(info.value).splitlines()
    assert len(lines) == 1 + 8 + 1 + 1  # heading, 8 fields, "… and N more", footer
    assert lines[1].endswith("…)") or lines[1].endswith("…")
    assert len(lines[1]) < 120
    assert lines[9] == "- … and 8 more"


def test_malformed_json_and_non_objects() -> None:
    with pytest.raises(ToolError) as info:
        catalog.sync_tool.validate_arguments('{"a": 1,')
    assert str(info.value).startswith("The arguments of tool 'sync_tool' are not valid JSON (")
    assert "line 1 column" in str(info.value) and '{"a": 1,' in str(info.value)
    with pytest.raises(ToolError, match="must be a JSON object, received an array"):
        catalog.sync_tool.validate_arguments("[1, 2]")
    with pytest.raises(ToolError, match="must be a JSON object, received a number"):
        catalog.sync_tool.validate_arguments("3")


def test_invalid_arguments_never_reach_the_handler() -> None:
    calls: list[Any] = []

    @client_tool
    def record(n: int) -> None:
        calls.append(n)

    for bad in ('{"n": "x"}', "{", "[]", '{"n": 1, "m": 2}', None):
        result = run(record.execute(bad))
        assert not result.ok and result.content == result.error
    assert calls == []
    assert run(record.execute('{"n": 1}')).ok and calls == [1]


# -- execution ----------------------------------------------------------------------------------------


def test_sync_and_async_handlers() -> None:
    assert run(catalog.sync_tool.execute('{"a": 2, "b": 3}')) == ToolResult(content="5")
    assert run(catalog.async_tool.execute({"text": "ha", "repeat": 3})) == ToolResult(content="hahaha")


def test_plain_def_returning_an_awaitable_is_awaited() -> None:
    async def later() -> str:
        return "done"

    @client_tool
    def starts(x: int) -> Any:
        return later()

    assert run(starts.execute({"x": 1})).content == "done"


def test_positional_only_and_keyword_only_parameters() -> None:
    @client_tool
    def f(a: int, /, b: int, *, c: int = 3) -> str:
        return f"{a}{b}{c}"

    assert run(f.execute({"a": 1, "b": 2})).content == "123"


def test_tool_context_is_injected() -> None:
    seen: list[ToolContext] = []

    @client_tool
    async def ctx_first(ctx: ToolContext, query: str) -> str:
        seen.append(ctx)
        return query

    async def main() -> None:
        outer = AbortController()
        assert (await ctx_first.execute({"query": "q"}, tool_call_id="c1", thread_id="t1", signal=outer.signal)).ok
        await ctx_first.execute({"query": "q"}, tool_call_id="c2")
        assert outer._state.callbacks == []  # the external listener is removed afterwards

    run(main())
    assert [(c.tool_call_id, c.thread_id) for c in seen] == [("c1", "t1"), ("c2", "")]
    assert all(isinstance(c.signal, AbortSignal) and not c.signal.aborted for c in seen)
    assert seen[0].signal is not seen[1].signal  # a fresh controller per call
    assert run(catalog.with_context.execute({"query": "x"}, tool_call_id="id9")).content == "x id9"


def test_raising_handlers_end_in_an_error_result() -> None:
    assert run(catalog.raising_tool.execute({"message": "no such element"})) == ToolResult.failure("no such element")

    @client_tool
    async def bare() -> None:
        raise KeyError

    @client_tool
    def explicit() -> None:
        raise ToolError("The clipboard is empty. Ask the user to copy something first.")

    assert run(bare.execute(None)).error == "KeyError"
    assert run(explicit.execute(None)).content == "The clipboard is empty. Ask the user to copy something first."


def test_the_platform_describes_what_a_handler_raised_sync_and_async() -> None:
    """`describe` (the platform's `describe_failure`: in a worker's page, how to reach the page
    instead of `js`) makes the error result, whether the handler is a plain def or async."""
    @client_tool
    def plain() -> None:
        raise AttributeError("document")

    @client_tool
    async def later() -> None:
        raise AttributeError("document")

    def describe(exc: BaseException) -> str:
        return f"{exc}: write `from pyscript import document`"

    for tool in (plain, later):
        assert run(tool.execute(None, describe=describe)).error == "document: write `from pyscript import document`"
        assert run(tool.execute(None)).error == "document"


def test_timeout_cancels_async_handler() -> None:
    # The catalog's tool (shared with the browser page) times out after 0.05 s.
    assert run(catalog.slow_tool.execute({})) == ToolResult.failure("Tool 'slow_tool' timed out after 0.05 s")

    events: list[Any] = []

    # The timeout is the feature under test, so it stays a clock; the handler never finishes
    # by itself, so only the timeout can end it, whatever the speed of the machine. The
    # handler task is scheduled before the timeout's timer exists, so it always starts first.
    @client_tool(timeout_s=0.001)
    async def hangs(ctx: ToolContext) -> str:
        events.append("started")
        try:
            await asyncio.Event().wait()   # nothing sets it
        finally:
            events.append((ctx.signal.aborted, ctx.signal.reason))
        return "never"

    result = run(hangs.execute({}))
    assert result.error == "Tool 'hangs' timed out after 0.001 s"
    assert events == ["started", (True, "timeout")]


def test_timeout_cannot_interrupt_a_plain_def() -> None:
    import time

    # A plain def blocks the loop (the behaviour under test): it blocks for longer than the
    # timeout (time.sleep sleeps at least that long), so the timeout is due before it returns;
    # its result must still be used. Nothing here depends on how long it actually took.
    @client_tool(timeout_s=0.001)
    def busy() -> str:
        time.sleep(0.005)
        return "finished"

    assert run(busy.execute({})) == ToolResult(content="finished")


def waits_until_ended() -> tuple[ClientTool, asyncio.Event, list[tuple[bool, Any]]]:
    """A tool whose handler sets `started`, then waits until something ends it (nothing else
    does), and records its signal's (aborted, reason) in `ended` as it ends."""
    started = asyncio.Event()
    ended: list[tuple[bool, Any]] = []

    @client_tool
    async def waits(ctx: ToolContext) -> str:
        started.set()
        try:
            await asyncio.Event().wait()   # nothing sets it
        finally:
            ended.append((ctx.signal.aborted, ctx.signal.reason))
        return "never"

    return waits, started, ended


def test_external_abort_cancels_handler_and_raises_run_aborted() -> None:
    waits, started, ended = waits_until_ended()

    async def main() -> None:
        controller = AbortController()
        execution = asyncio.ensure_future(waits.execute({}, signal=controller.signal))
        await started.wait()
        assert ended == [] and not execution.done()
        controller.abort("unmounted")
        with pytest.raises(RunAborted) as info:
            await execution
        assert info.value.reason == "unmounted"

    run(main())
    assert ended == [(True, "unmounted")]


def test_already_aborted_signal_runs_nothing() -> None:
    calls: list[int] = []

    @client_tool
    def record() -> None:
        calls.append(1)

    controller = AbortController()
    controller.abort("stopped")
    with pytest.raises(RunAborted) as info:
        run(record.execute({}, signal=controller.signal))
    assert info.value.reason == "stopped" and calls == []


def test_cancelling_the_caller_cancels_the_handler() -> None:
    waits, started, ended = waits_until_ended()

    async def main() -> None:
        task = asyncio.ensure_future(waits.execute({}))
        await started.wait()
        assert ended == []
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    assert ended == [(True, "cancelled")]


# -- output schema and result encoding ---------------------------------------------------------------


def test_result_failing_the_output_schema_is_an_error() -> None:
    @client_tool
    def wrong(x: int) -> catalog.Point:  # type: ignore[name-defined]
        return {"y": "high"}  # type: ignore[return-value]

    result = run(wrong.execute({"x": 1}))
    assert not result.ok
    lines = result.error.splitlines()
    assert lines[0] == "Tool 'wrong' returned a result that does not match its output schema:"
    assert "- x: required, but missing" in lines
    assert any(line.startswith("- y: expected a valid integer") for line in lines)

    @client_tool
    def scalar() -> int:
        return "many"  # type: ignore[return-value]

    assert run(scalar.execute({})).error.splitlines()[1].startswith("- (result): expected a valid integer")


def test_result_matching_the_output_schema_is_normalized() -> None:
    @client_tool
    def point() -> catalog.Point:  # type: ignore[name-defined]
        return {"x": 1}  # type: ignore[return-value]

    assert run(point.execute({})).content == '{"x":1,"y":0}'
    assert run(catalog.order.execute({"item": {"sku": "s"}, "when": "2024-01-01T00:00:00Z"})).content == (
        '{"sku":"s","quantity":1}'
    )


class Mood(enum.Enum):
    HAPPY = "happy"


@dataclasses.dataclass
class Pair:
    left: int
    right: str


class Card(BaseModel):
    title: str
    when: datetime.date


@pytest.mark.parametrize(
    ("value", "content"),
    [
        ("plain text", "plain text"),
        ('{"already": "json"}', '{"already": "json"}'),
        (None, ""),
        ({"a": 1, "b": [1, 2], "c": None}, '{"a":1,"b":[1,2],"c":null}'),
        ([1, "x", True], '[1,"x",true]'),
        (3.5, "3.5"),
        (Card(title="t", when=datetime.date(2024, 1, 2)), '{"title":"t","when":"2024-01-02"}'),
        (Pair(1, "r"), '{"left":1,"right":"r"}'),
        (datetime.datetime(2024, 1, 2, 3, 4, 5), '"2024-01-02T03:04:05"'),
        (Mood.HAPPY, '"happy"'),
        ({"mood": Mood.HAPPY, "n": "é"}, '{"mood":"happy","n":"é"}'),
    ],
)
def test_result_encoding(value: Any, content: str) -> None:
    @client_tool
    def give() -> Any:
        return value

    assert run(give.execute({})) == ToolResult(content=content)


def test_unencodable_result_is_an_error() -> None:
    @client_tool
    def give() -> Any:
        return object()

    result = run(give.execute({}))
    assert result.error.startswith("Tool 'give' returned a `object` value that cannot be written as JSON")


# -- ToolResult and exports ---------------------------------------------------------------------------


def test_tool_result() -> None:
    assert ToolResult("x").ok and ToolResult("x").error is None
    failed = ToolResult.failure("bad")
    assert not failed.ok and failed.content == failed.error == "bad"
    with pytest.raises(dataclasses.FrozenInstanceError):
        failed.content = "good"  # type: ignore[misc]


def test_exports() -> None:
    for name in ("client_tool", "ClientTool", "ToolResult"):
        assert name in pyclient.__all__ and hasattr(pyclient, name)
    assert pyclient.__all__ == sorted(pyclient.__all__)
