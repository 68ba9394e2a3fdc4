"""The JSON Schema pyclient builds from a handler's signature, one hint kind at a time."""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import logging
from typing import Annotated, Any, Callable, Literal

import pytest
from pydantic import Field

from pyclient import ClientTool, ConfigurationError, ToolContext, client_tool
from pyclient._tools._deferred_schemas import build_pending_schemas
from pyclient._tools._docstrings import parse_docstring
from tests.helpers import agent_for, arun, bodies, text_only

# The catalog lives with the browser test page, which loads the same module in Pyodide.
catalog = importlib.import_module("web.tests.tool_catalog")


def iter_refs(node: Any) -> list[str]:
    """Every `$ref` value anywhere in a schema."""
    refs: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                refs.append(value)
            else:
                refs.extend(iter_refs(value))
    elif isinstance(node, list):
        for value in node:
            refs.extend(iter_refs(value))
    return refs


def resolve(schema: dict[str, Any], ref: str) -> dict[str, Any]:
    assert ref.startswith("#/$defs/"), ref
    return schema["$defs"][ref.removeprefix("#/$defs/")]


def prop(tool: ClientTool, name: str) -> dict[str, Any]:
    """A property's schema, with a top-level `$ref` followed."""
    schema = tool.parameters["properties"][name]
    if "$ref" in schema:
        return {**resolve(tool.parameters, schema["$ref"]), **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def field_keys(node: Any) -> list[str]:
    """The keys of every schema object that describes a property (to check for titles)."""
    keys: list[str] = []
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            keys.extend(sub.keys())
            keys.extend(field_keys(sub))
        for sub in node.get("$defs", {}).values():
            keys.extend(field_keys(sub))
    return keys


# -- every catalog tool: the shape providers accept ------------------------------------------


@pytest.mark.parametrize("tool", catalog.CATALOG, ids=lambda t: t.name)
def test_parameters_are_a_provider_object_schema(tool: ClientTool) -> None:
    schema = json.loads(json.dumps(tool.parameters))  # JSON-serializable as is
    assert schema["type"] == "object"
    assert isinstance(schema["properties"], dict)
    assert isinstance(schema["required"], list)
    assert set(schema["required"]) <= set(schema["properties"])
    assert schema["additionalProperties"] is False
    assert "title" not in schema


@pytest.mark.parametrize("tool", catalog.CATALOG, ids=lambda t: t.name)
def test_every_ref_resolves_into_top_level_defs(tool: ClientTool) -> None:
    for schema in (tool.parameters, tool.output_schema or {}):
        for ref in iter_refs(schema):
            assert isinstance(resolve(schema, ref), dict)
        for definition in schema.get("$defs", {}).values():
            assert "$defs" not in definition  # kept at the top level only


@pytest.mark.parametrize("tool", catalog.CATALOG, ids=lambda t: t.name)
def test_properties_carry_no_title(tool: ClientTool) -> None:
    assert "title" not in field_keys(tool.parameters)


# -- one hint kind at a time ------------------------------------------------------------------


def test_scalars() -> None:
    props = catalog.basic_types.parameters["properties"]
    assert props == {
        "text": {"type": "string"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
    }
    assert catalog.basic_types.parameters["required"] == ["text", "count", "ratio", "flag"]


def test_collections() -> None:
    props = catalog.collections.parameters["properties"]
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["scores"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert props["pair"]["type"] == "array"
    assert props["pair"]["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert props["pair"]["minItems"] == props["pair"]["maxItems"] == 2
    assert props["unique"] == {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}


def test_optional_and_unions() -> None:
    tool = catalog.optional_and_union
    props = tool.parameters["properties"]
    assert props["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert props["value"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert props["value"]["default"] == 0
    assert props["limit"] == {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}
    # Optional without a default is still required (it may be null, not absent).
    assert tool.parameters["required"] == ["note"]


def test_literal() -> None:
    props = catalog.literal_choice.parameters["properties"]
    assert props["mode"] == {"type": "string", "enum": ["fast", "slow"]}
    assert props["level"] == {"type": "integer", "enum": [1, 2, 3], "default": 1}
    assert catalog.literal_choice.parameters["required"] == ["mode"]


def test_enum_is_a_shared_definition() -> None:
    tool = catalog.enum_choice
    assert tool.parameters["properties"]["color"] == {"$ref": "#/$defs/Color"}
    assert tool.parameters["properties"]["fallback"] == {"$ref": "#/$defs/Color", "default": "blue"}
    color = tool.parameters["$defs"]["Color"]
    assert color["enum"] == ["red", "green", "blue"] and color["type"] == "string"
    assert color["title"] == "Color"  # $defs entries keep their type's name
    assert color["description"] == "A colour the page can use."


def test_nested_pydantic_models() -> None:
    tool = catalog.draw_shape
    shape = prop(tool, "shape")
    assert shape["type"] == "object"
    assert shape["required"] == ["name", "points"]
    assert shape["properties"]["points"] == {"type": "array", "items": {"$ref": "#/$defs/Point"}}
    assert shape["properties"]["color"] == {"$ref": "#/$defs/Color", "default": "red"}
    assert prop(tool, "origin")["properties"]["y"] == {"type": "integer", "default": 0}
    assert set(tool.parameters["$defs"]) == {"Shape", "Point", "Color"}


def test_typed_dict() -> None:
    address = prop(catalog.mail_to, "address")
    assert address["type"] == "object"
    assert address["properties"] == {"street": {"type": "string"}, "city": {"type": "string"}}
    assert address["required"] == ["street", "city"]


def test_dataclass_and_datetime() -> None:
    item = prop(catalog.order, "item")
    assert item["properties"] == {"sku": {"type": "string"}, "quantity": {"type": "integer", "default": 1}}
    assert item["required"] == ["sku"]
    assert prop(catalog.order, "when") == {"type": "string", "format": "date-time"}


def test_annotated_field_constraints_and_description() -> None:
    props = catalog.constrained.parameters["properties"]
    assert props["count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 10,
        "description": "How many, from 1 to 10.",
    }
    assert props["label"] == {"type": "string", "maxLength": 20, "default": "untitled"}
    assert catalog.constrained.parameters["required"] == ["count"]


def test_docstring_args_become_descriptions() -> None:
    props = catalog.documented.parameters["properties"]
    assert props["query"]["description"] == "the text to look for."
    assert props["limit"]["description"] == "at most this many matches, counted from the top of the page."
    assert props["exact"]["description"] == "match case and whole words."  # "(bool)" is dropped
    assert catalog.documented.description == "Search the page's text."


def test_field_description_wins_over_docstring() -> None:
    @client_tool
    def f(a: Annotated[int, Field(description="from Field")], b: int = 0) -> None:
        """Do it.

        Args:
            a: from the docstring.
            b: only the docstring.
        """

    assert f.parameters["properties"]["a"]["description"] == "from Field"
    assert f.parameters["properties"]["b"]["description"] == "only the docstring."


def test_defaults_are_not_required() -> None:
    @client_tool
    def f(a: str, b: str = "x", *, c: list[int] = [1, 2], d: bool | None = None) -> None:  # noqa: B006
        """Take defaults."""

    assert f.parameters["required"] == ["a"]
    assert f.parameters["properties"]["b"]["default"] == "x"
    assert f.parameters["properties"]["c"]["default"] == [1, 2]
    assert f.parameters["properties"]["d"]["default"] is None


def test_tool_context_is_left_out_of_the_schema() -> None:
    tool = catalog.with_context
    assert list(tool.parameters["properties"]) == ["query"]
    assert tool.parameters["required"] == ["query"]
    assert "ToolContext" not in json.dumps(tool.parameters)


def test_no_parameters_gives_an_empty_object_schema() -> None:
    assert catalog.no_parameters.parameters == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }


def test_parameter_names_that_clash_with_basemodel_attributes() -> None:
    @client_tool
    def f(json: str, schema: int, model_config: bool, _private: str = "p") -> str:
        """Names pydantic models reserve."""
        return f"{json}{schema}{model_config}{_private}"

    assert list(f.parameters["properties"]) == ["json", "schema", "model_config", "_private"]
    assert f.validate_arguments({"json": "j", "schema": 1, "model_config": True}) == {
        "json": "j",
        "schema": 1,
        "model_config": True,
        "_private": "p",
    }


# -- output schema ----------------------------------------------------------------------------


@pytest.mark.parametrize("tool_name", ["basic_types", "optional_and_union", "no_parameters", "async_tool"])
def test_no_output_schema_for_str_none(tool_name: str) -> None:
    assert getattr(catalog, tool_name).output_schema is None


def test_no_output_schema_for_any_or_missing_hint() -> None:
    @client_tool
    def a(x: int) -> Any:
        """Any."""

    @client_tool
    def b(x: int):  # noqa: ANN202
        """No hint."""

    assert a.output_schema is None and b.output_schema is None


def test_output_schema_from_return_hint() -> None:
    assert catalog.sync_tool.output_schema == {"type": "integer"}
    assert catalog.documented.output_schema == {"type": "array", "items": {"type": "string"}}
    shape = catalog.draw_shape.output_schema
    assert shape["title"] == "Shape" and shape["required"] == ["name", "points"]
    for ref in iter_refs(shape):
        resolve(shape, ref)


# -- ConfigurationError at decoration (the signature) or at first need (the schema) -----------


def test_parameter_without_hint() -> None:
    with pytest.raises(ConfigurationError) as info:

        @client_tool
        def f(x, y: int) -> None:  # noqa: ANN001
            """No hint on x."""

    message = str(info.value)
    assert "'x'" in message and "'f'" in message and "no type hint" in message
    assert message.endswith("`x: str`.")


@pytest.mark.parametrize(
    ("hint", "shown"),
    [(Callable[[int], int], "Callable"), (object.__class__, "type"), (list[ToolContext], "ToolContext")],
)
def test_hint_without_json_schema(hint: Any, shown: str) -> None:
    def f(cb: int, y: int) -> None:
        """A hint with no schema."""

    f.__annotations__["cb"] = hint
    tool = client_tool(f)  # decoration reads the signature; the schema is built on first need
    with pytest.raises(ConfigurationError) as info:
        tool.parameters  # noqa: B018
    message = str(info.value)
    assert "Parameter 'cb' of tool 'f'" in message and shown in message
    assert "has no JSON Schema" in message and "Use a JSON-compatible type" in message


class Opaque:
    """A class pydantic has no schema for."""


def test_arbitrary_class_hint() -> None:
    @client_tool
    def f(thing: Opaque) -> None:
        """An arbitrary class."""

    with pytest.raises(ConfigurationError, match=r"Parameter 'thing' of tool 'f' has type hint `Opaque`"):
        f.parameters  # noqa: B018


def test_return_hint_without_json_schema() -> None:
    @client_tool
    def f() -> Opaque:
        """Returns something with no schema."""

    with pytest.raises(ConfigurationError, match=r"return type hint of tool 'f'.*`-> Any`"):
        f.output_schema  # noqa: B018


def test_a_hint_without_json_schema_raises_the_same_error_at_every_first_need(caplog) -> None:
    gc.collect()
    build_pending_schemas()  # the other tests' tools: this test's log starts empty
    caplog.clear()

    @client_tool
    def f(thing: Opaque, text: str) -> str:
        """An arbitrary class."""
        return text

    with pytest.raises(ConfigurationError) as first:
        f.build_schema()
    expected = str(first.value)
    assert expected.startswith("Parameter 'thing' of tool 'f' has type hint `Opaque`, which has no JSON Schema")

    def raised(need: Callable[[], object]) -> str:
        with pytest.raises(ConfigurationError) as info:
            need()
        return str(info.value)

    # Nothing is kept from a failed build: each need raises it again, word for word.
    assert raised(lambda: f.parameters) == expected
    assert raised(lambda: f.output_schema) == expected
    assert raised(f.to_agui_tool) == expected
    assert raised(lambda: f.validate_arguments({"thing": 1, "text": "a"})) == expected
    assert raised(lambda: asyncio.run(f.execute({"thing": 1, "text": "a"}))) == expected

    # The page's idle-time build reports it as an error on the pyclient logger, and goes on.
    @client_tool
    def g(text: str) -> str:
        """Fine."""
        return text

    caplog.set_level(logging.INFO, logger="pyclient")
    build_pending_schemas()
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage() for r in errors] == [f"pyclient: tool 'f' cannot be sent to an agent: {expected}"]
    assert g.build_schema() is False  # built by build_pending_schemas

    # The first send() of a thread serving it raises before anything is sent or added.
    server = text_only()
    agent = agent_for(server, [g])
    thread = agent.thread()
    thread.register_tool(f)
    assert raised(lambda: arun(thread.send("go"))) == expected
    assert raised(lambda: arun(thread.run())) == expected
    assert bodies(server) == [] and thread.messages == []


def test_var_positional_and_var_keyword() -> None:
    with pytest.raises(ConfigurationError, match=r"takes \*items.*`items: list\[str\]`"):

        @client_tool
        def f(*items: str) -> None:
            """Star args."""

    with pytest.raises(ConfigurationError, match=r"takes \*\*options.*`options: dict\[str, Any\]`"):

        @client_tool
        def g(**options: str) -> None:
            """Star kwargs."""


def test_two_tool_contexts() -> None:
    with pytest.raises(ConfigurationError) as info:

        @client_tool
        def f(a: ToolContext, b: ToolContext) -> None:
            """Two contexts."""

    assert "two ToolContext parameters, 'a' and 'b'" in str(info.value)
    assert str(info.value).endswith("Remove one of them.")


def test_unresolvable_forward_reference() -> None:
    with pytest.raises(ConfigurationError, match=r"Cannot resolve the type hints of tool 'f'.*NotDefinedAnywhere"):

        @client_tool
        def f(x: NotDefinedAnywhere) -> None:  # type: ignore[name-defined]  # noqa: F821
            """Refers to a name that does not exist."""


def test_optional_literal_with_default() -> None:
    # A sanity check that odd-but-valid hints work rather than raise.
    @client_tool
    def f(x: Literal["a"] | None = None) -> None:
        """Literal or None."""

    assert f.parameters["properties"]["x"]["default"] is None


# -- docstring parsing ------------------------------------------------------------------------


def test_parse_docstring() -> None:
    summary, args = parse_docstring(
        """Do a thing
        over two lines.

        More detail.

        Arguments:
            a (int): first,
                continued.
            *rest: ignored but parsed.
            b: second.

        Raises:
            ValueError: not a parameter.
        """
    )
    assert summary == "Do a thing over two lines."
    assert args == {"a": "first, continued.", "rest": "ignored but parsed.", "b": "second."}


def test_parse_docstring_without_summary_or_args() -> None:
    assert parse_docstring(None) == ("", {})
    assert parse_docstring("Args:\n    x: the x.") == ("", {"x": "the x."})
    assert parse_docstring("Just a summary.") == ("Just a summary.", {})


def test_optional_tool_context() -> None:
    with pytest.raises(ConfigurationError) as info:

        @client_tool
        def f(ctx: ToolContext | None = None) -> None:
            """An optional context."""

    assert "Parameter 'ctx' of tool 'f'" in str(info.value)
    assert str(info.value).endswith("Annotate it `ctx: ToolContext`.")
