"""JSON Schema and argument validation for a client tool, built by pydantic from the handler's signature.

`build_tool_schema(func, tool_name=...)` reads the type hints of `func` and builds one pydantic
model from them (`pydantic.create_model`): that model both produces the `parameters` schema the
model API sees and validates the arguments it sends back, so the two can never disagree. The
schema is never written by hand.

It works in two steps. Reading the signature is cheap and done at once (when a tool is
decorated): the parameter kinds, the type hints (resolved), a missing hint, two `ToolContext`
parameters and a `ToolContext` in a union raise `ConfigurationError` there. The pydantic model
and the JSON Schemas are built on first need (`ToolSchema.build()`, or reading `parameters`,
`output_schema`, `validate()`...): that imports pydantic's model and JSON Schema machinery
(`pydantic.main`, `pydantic.json_schema`: about 0.5 s in Pyodide, which a page's boot would
otherwise pay before it is usable), and it is where a hint with no JSON Schema raises.

Choices, kept the same for every tool:

- `$defs`: kept at the top level of the parameters schema, referenced as `#/$defs/<Name>`
  (as pydantic and pydantic-ai emit it). Every `$ref` points into that top-level `$defs`.
- `additionalProperties: false` at the top level: an argument the tool does not take is an
  error the model can fix, not something silently dropped. Nested TypedDicts and stdlib
  dataclasses inherit that; nested pydantic models keep their own `model_config`.
- Titles name types, never fields: properties carry no `title`, the top-level object has none,
  and each `$defs` entry keeps its class name as title.
- A parameter's description comes from `Field(description=...)`, else from the Google-style
  `Args:` section of the docstring.
- A parameter annotated `ToolContext` is left out of the schema; the caller injects it.

```python
from pyclient._schema import build_tool_schema

def greet(name: str, times: int = 1) -> str:
    \"\"\"Greet someone.

    Args:
        name: who to greet.
    \"\"\"
    return "hi " * times + name

schema = build_tool_schema(greet, tool_name="greet")
print(schema.parameters["properties"]["name"])   # {'description': 'who to greet.', 'type': 'string'}
print(schema.validate({"name": "Ada"}))          # {'name': 'Ada', 'times': 1}
```
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING, Annotated, Any

from pydantic_core import ErrorDetails, ValidationError, to_json

from ._context import ToolContext
from ._errors import ConfigurationError

if TYPE_CHECKING:  # imported when the schema is built: see the module docstring
    from pydantic import BaseModel, TypeAdapter
    from pydantic.json_schema import GenerateJsonSchema

__all__ = [
    "ToolSchema",
    "build_tool_schema",
    "describe_validation_error",
    "parse_docstring",
]

_ARGS_HEADERS = {"args:", "arguments:", "parameters:", "params:"}
# Google-style section headers that end the summary paragraph and the Args section.
_SECTION_RE = re.compile(r"^[A-Z][A-Za-z ]{1,30}:$")
_ARG_LINE_RE = re.compile(r"^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
# Return hints that mean "no output schema": the result is free text or anything at all.
_NO_OUTPUT_SCHEMA = (str, None, type(None), Any, inspect.Signature.empty)

_JSON_TYPES_HINT = (
    "Use a JSON-compatible type (str, int, float, bool, list, dict, tuple, set, Literal, an Enum, "
    "a pydantic model, a TypedDict or a dataclass)"
)


@cache
def _schema_generator() -> type[GenerateJsonSchema]:
    """pydantic's generator, without a `title` on every field (the property name says it)."""
    from pydantic.json_schema import GenerateJsonSchema

    class _GenerateJsonSchema(GenerateJsonSchema):
        def field_title_should_be_set(self, schema: Any) -> bool:
            return False

    return _GenerateJsonSchema


@dataclass(frozen=True)
class _Parameter:
    """One parameter in the arguments model: its name (the alias), the model attribute, its hint,
    its default (`...` for none) and its description from the docstring's `Args:`."""

    name: str
    attr: str
    hint: Any
    default: Any
    doc: str | None


@dataclass(frozen=True)
class _Built:
    arguments_model: type[BaseModel]
    parameters: dict[str, Any]
    output_adapter: TypeAdapter[Any] | None
    output_schema: dict[str, Any] | None


class ToolSchema:
    """What a handler's signature says about its arguments and its result.

    The signature is read when this is made; the pydantic model and the JSON Schemas are built
    on first need (`build()`, or reading `parameters`, `output_schema`, `arguments_model`,
    `output_adapter`, or `validate()`), then kept.

    Attributes:
        func: the function this was built from.
        tool_name: the tool's name, for error messages.
        description: the docstring's first paragraph, on one line ("" without a docstring).
        context_parameter: the name of the `ToolContext` parameter, if any.
        fields: (parameter name, model attribute) pairs in signature order.
        positional_only: names of positional-only parameters, passed by position.
    """

    def __init__(self, func: Callable[..., Any], *, tool_name: str, description: str,
                 parameters: tuple[_Parameter, ...], return_hint: Any, context_parameter: str | None,
                 positional_only: frozenset[str]) -> None:
        self.func = func
        self.tool_name = tool_name
        self.description = description
        self.context_parameter = context_parameter
        self.fields = tuple((param.name, param.attr) for param in parameters)
        self.positional_only = positional_only
        self._parameters = parameters
        self._return_hint = return_hint

    def __repr__(self) -> str:
        return f"<ToolSchema {self.tool_name!r} {'built' if self.built else 'not built'}>"

    @property
    def built(self) -> bool:
        """True once the model and the JSON Schemas exist."""
        return "_built" in self.__dict__

    def build(self) -> None:
        """Build the arguments model and the JSON Schemas now, if not yet.

        Raises:
            ConfigurationError: a parameter hint or the return hint has no JSON Schema (raised
                again at each later need: nothing is kept from a failed build).
        """
        self._built  # noqa: B018 (the cached property builds it)

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON Schema of the arguments (an object schema)."""
        return self._built.parameters

    @property
    def output_schema(self) -> dict[str, Any] | None:
        """The JSON Schema of the result, or None when the return hint is absent, `str`, `None` or `Any`."""
        return self._built.output_schema

    @property
    def arguments_model(self) -> type[BaseModel]:
        """The pydantic model that validates the arguments."""
        return self._built.arguments_model

    @property
    def output_adapter(self) -> TypeAdapter[Any] | None:
        """Validates and serializes the result (None without an output schema)."""
        return self._built.output_adapter

    @cached_property
    def _built(self) -> _Built:
        # Here, not at import: see the module docstring.
        from pydantic import Field
        from pydantic.fields import FieldInfo

        definitions: dict[str, Any] = {}
        for param in self._parameters:
            extra: dict[str, Any] = {"alias": param.name}
            if param.doc is not None and FieldInfo.from_annotated_attribute(param.hint, param.default).description is None:
                extra["description"] = param.doc
            definitions[param.attr] = (Annotated[param.hint, Field(**extra)], param.default)
        hints = {param.name: param.hint for param in self._parameters}
        model, parameters = _arguments_model(definitions, hints, self.tool_name)
        output_adapter, output_schema = _output(self._return_hint, self.tool_name)
        return _Built(model, parameters, output_adapter, output_schema)

    def validate(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """Validate decoded arguments and return them by parameter name, defaults filled in.

        Raises:
            pydantic.ValidationError: when the arguments do not match the parameters.
            ConfigurationError: the first need of a schema that cannot be built (see `build()`).
        """
        instance = self.arguments_model.model_validate(data)
        # Read the attributes rather than model_dump(): handlers get real model, dataclass,
        # enum and datetime instances, not their dict/JSON forms.
        return {param: getattr(instance, attr) for param, attr in self.fields}


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into its summary and its Google-style parameter descriptions.

    Args:
        doc: the docstring (cleaned or not), or None.

    Returns:
        The first paragraph joined on one line, and a dict of parameter name to description
        read from an `Args:` (or `Arguments:`/`Parameters:`) section.
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or _SECTION_RE.match(stripped):
            break
        summary.append(stripped)
    return " ".join(summary), _parse_args_section(lines)


def _parse_args_section(lines: list[str]) -> dict[str, str]:
    descriptions: dict[str, str] = {}
    start = next((i for i, line in enumerate(lines) if line.strip().lower() in _ARGS_HEADERS), None)
    if start is None:
        return descriptions
    # cleandoc dedents every line after the first, so a header on the first line has entries
    # at its own indentation.
    header_indent = _indent(lines[start]) if start > 0 else -1
    entry_indent: int | None = None
    current: str | None = None
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        indent = _indent(line)
        if indent <= header_indent:
            break  # the next section
        if entry_indent is None:
            entry_indent = indent
        match = _ARG_LINE_RE.match(line.strip()) if indent == entry_indent else None
        if match:
            current = match.group(1)
            descriptions[current] = match.group(2).strip()
        elif current is not None:  # a continuation line of the current entry
            descriptions[current] = f"{descriptions[current]} {line.strip()}".strip()
    return {name: text for name, text in descriptions.items() if text}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def build_tool_schema(func: Callable[..., Any], *, tool_name: str) -> ToolSchema:
    """Read `func`'s signature for a tool; its model and JSON Schemas are built on first need.

    Args:
        func: the handler.
        tool_name: the tool's name, for error messages.

    Returns:
        A `ToolSchema` (`schema.build()` builds the model and the schemas at once).

    Raises:
        ConfigurationError: a parameter without a type hint, `*args`/`**kwargs`, two
            `ToolContext` parameters, a `ToolContext` in a union, or hints that cannot be
            resolved. A hint with no JSON Schema raises on first need (`ToolSchema.build()`).
    """
    signature = _signature(func, tool_name)
    hints = _type_hints(func, tool_name)
    summary, arg_docs = parse_docstring(inspect.getdoc(func))

    parameters: list[_Parameter] = []
    positional_only: set[str] = set()
    context_parameter: str | None = None
    for index, (param_name, param) in enumerate(signature.parameters.items()):
        _check_kind(param, tool_name)
        if param_name not in hints:
            raise ConfigurationError(
                f"Parameter {param_name!r} of tool {tool_name!r} has no type hint, so pydantic "
                f"cannot build its JSON Schema. Annotate it, e.g. `{param_name}: str`."
            )
        hint = hints[param_name]
        if _strip_annotated(hint) is ToolContext:
            if context_parameter is not None:
                raise ConfigurationError(
                    f"Tool {tool_name!r} has two ToolContext parameters, {context_parameter!r} "
                    f"and {param_name!r}, but one context is injected per call. "
                    f"Remove one of them."
                )
            context_parameter = param_name
            continue
        _check_context_union(param_name, hint, tool_name)
        # Model attributes get neutral names and the parameter name becomes the alias, so any
        # parameter name works (`json`, `schema`, `_private`, `model_x`) without clashing with
        # BaseModel's own attributes or private-attribute rules.
        default = ... if param.default is inspect.Parameter.empty else param.default
        parameters.append(_Parameter(param_name, f"p{index}", hint, default, arg_docs.get(param_name)))
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            positional_only.add(param_name)

    return ToolSchema(
        func,
        tool_name=tool_name,
        description=summary,
        parameters=tuple(parameters),
        return_hint=hints.get("return", signature.return_annotation),
        context_parameter=context_parameter,
        positional_only=frozenset(positional_only),
    )


def _signature(func: Callable[..., Any], tool_name: str) -> inspect.Signature:
    try:
        return inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(
            f"Cannot read the signature of tool {tool_name!r}: {exc}. "
            "Decorate a Python `def` or `async def` function."
        ) from exc


def _type_hints(func: Callable[..., Any], tool_name: str) -> dict[str, Any]:
    target = func
    while hasattr(target, "func") and not inspect.isfunction(target):  # functools.partial
        target = target.func
    if not (inspect.isfunction(target) or inspect.ismethod(target)) and callable(target):
        target = type(target).__call__  # a callable object: its __call__ carries the hints
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception as exc:  # NameError for an undefined name, TypeError for a bad hint
        raise ConfigurationError(
            f"Cannot resolve the type hints of tool {tool_name!r}: {exc}. Hints are evaluated "
            "when the tool is decorated, so every name they use must be importable from the "
            "function's module by then: define or import it at module level."
        ) from exc


def _check_kind(param: inspect.Parameter, tool_name: str) -> None:
    if param.kind is inspect.Parameter.VAR_POSITIONAL:
        raise ConfigurationError(
            f"Tool {tool_name!r} takes *{param.name}, but a JSON Schema needs named arguments. "
            f"Replace it with a named parameter, e.g. `{param.name}: list[str]`."
        )
    if param.kind is inspect.Parameter.VAR_KEYWORD:
        raise ConfigurationError(
            f"Tool {tool_name!r} takes **{param.name}, but a JSON Schema needs named arguments. "
            f"Replace it with named parameters, or one `{param.name}: dict[str, Any]` parameter."
        )


def _strip_annotated(hint: Any) -> Any:
    while typing.get_origin(hint) is Annotated:
        hint = typing.get_args(hint)[0]
    return hint


def _arguments_model(
    definitions: dict[str, Any], hints: dict[str, Any], tool_name: str
) -> tuple[type[BaseModel], dict[str, Any]]:
    from pydantic import ConfigDict, create_model

    try:
        model = create_model(
            "Arguments",
            __config__=ConfigDict(extra="forbid", validate_by_alias=True, validate_by_name=False),
            **definitions,
        )
        schema = model.model_json_schema(schema_generator=_schema_generator())
    except Exception as exc:
        for param_name, hint in hints.items():
            _check_hint(param_name, hint, tool_name)
        raise ConfigurationError(
            f"Cannot build the JSON Schema of tool {tool_name!r}: {_first_sentence(exc)}. "
            f"{_JSON_TYPES_HINT}."
        ) from exc
    schema.pop("title", None)  # "Arguments" is our class, not the author's type
    # Providers want both keys even when empty (a tool with no parameters).
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    return model, schema


def _check_context_union(param_name: str, hint: Any, tool_name: str) -> None:
    bare = _strip_annotated(hint)
    if typing.get_origin(bare) in (typing.Union, types.UnionType) and ToolContext in typing.get_args(bare):
        raise ConfigurationError(
            f"Parameter {param_name!r} of tool {tool_name!r} has type hint {_hint_name(hint)}, "
            "but a ToolContext is always injected and has no JSON Schema, so it cannot be "
            f"optional or part of a union. Annotate it `{param_name}: ToolContext`."
        )


def _check_hint(param_name: str, hint: Any, tool_name: str) -> None:
    """Raise a ConfigurationError naming `param_name` if `hint` alone has no JSON Schema."""
    from pydantic import TypeAdapter

    try:
        TypeAdapter(hint).json_schema(schema_generator=_schema_generator())
    except Exception as exc:
        raise ConfigurationError(
            f"Parameter {param_name!r} of tool {tool_name!r} has type hint {_hint_name(hint)}, "
            f"which has no JSON Schema ({_first_sentence(exc)}). {_JSON_TYPES_HINT}; "
            "or annotate it `ToolContext` to receive the call context."
        ) from exc


def _output(hint: Any, tool_name: str) -> tuple[TypeAdapter[Any] | None, dict[str, Any] | None]:
    if any(hint is plain for plain in _NO_OUTPUT_SCHEMA):
        return None, None
    from pydantic import TypeAdapter

    try:
        adapter: TypeAdapter[Any] = TypeAdapter(hint)
        schema = adapter.json_schema(schema_generator=_schema_generator(), mode="serialization")
    except Exception as exc:
        raise ConfigurationError(
            f"The return type hint of tool {tool_name!r}, {_hint_name(hint)}, has no JSON "
            f"Schema ({_first_sentence(exc)}). {_JSON_TYPES_HINT}; or annotate `-> str` or "
            "`-> Any` for a result without an output schema."
        ) from exc
    return adapter, schema


def _hint_name(hint: Any) -> str:
    name = hint.__qualname__ if isinstance(hint, type) else repr(hint).replace("typing.", "")
    return f"`{name}`"


def _first_sentence(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.split(". ")[0].rstrip(".")


def describe_validation_error(
    exc: ValidationError,
    data: Any,
    *,
    heading: str,
    footer: str,
    root: str = "(arguments)",
    max_lines: int = 8,
) -> str:
    """Write a pydantic `ValidationError` as a few short lines a model can act on.

    Each line names the failing field by its path (`items[2].name`), what was expected and
    what was received. Errors of one field across union members share a line.

    Args:
        exc: the validation error.
        data: the input that was validated, used to tell real keys from union-member tags.
        heading: the first line.
        footer: the last line (the fix).
        root: how to name the input itself when an error is about all of it.
        max_lines: at most this many field lines; the rest are counted.

    Returns:
        The message.
    """
    grouped: dict[str, list[ErrorDetails]] = {}
    for error in exc.errors(include_url=False):
        grouped.setdefault(_error_path(error, data), []).append(error)
    lines = [heading]
    for path, errors in list(grouped.items())[:max_lines]:
        lines.append(f"- {path or root}: {_describe_errors(errors, top_level='.' not in path and '[' not in path)}")
    if len(grouped) > max_lines:
        lines.append(f"- … and {len(grouped) - max_lines} more")
    lines.append(footer)
    return "\n".join(lines)


def _error_path(error: ErrorDetails, data: Any) -> str:
    """Render `loc` as `a.b[2].c`, skipping pydantic's union-member tags (`int`, `str`, …)."""
    loc = list(error["loc"])
    parts: list[str] = []
    current: Any = data
    for position, key in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(current, Mapping) and key in current:
            current = current[key]
        elif isinstance(key, int) and isinstance(current, (list, tuple)) and -len(current) <= key < len(current):
            current = current[key]
        elif last and error["type"] in ("missing", "extra_forbidden", "unexpected_keyword_argument"):
            current = None
        elif isinstance(key, int):
            current = None  # e.g. a missing tuple item
        else:
            continue  # a union-member tag: not part of the path in the input
        parts.append(f"[{key}]" if isinstance(key, int) else (f".{key}" if parts else str(key)))
    return "".join(parts)


def _describe_errors(errors: list[ErrorDetails], *, top_level: bool) -> str:
    first = errors[0]
    if first["type"] == "missing":
        return "required, but missing"
    if first["type"] == "extra_forbidden":
        what = "not a parameter of this tool" if top_level else "not an accepted field"
        return f"{what} (received {_received(first['input'])})"
    expected = []
    for error in errors:
        message = error["msg"].removeprefix("Input should be ").removeprefix("Value error, ")
        if message not in expected:
            expected.append(message)
    return f"expected {' or '.join(expected)}; received {_received(first['input'])}"


def _received(value: Any, limit: int = 60) -> str:
    try:
        text = to_json(value, fallback=repr).decode()
    except Exception:  # a value even the fallback cannot write
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
