"""Builds, with pydantic, the arguments model and the JSON Schemas of a tool from its read signature.

`build_arguments(parameters, tool_name=...)` makes one pydantic model of the parameters
(`pydantic.create_model`) and its JSON Schema; `build_output(hint, tool_name=...)` a
`TypeAdapter` of the return hint and its JSON Schema. The schemas take the shape described in
`pyclient._tools._schema`: no field titles, `additionalProperties: false`, `properties` and `required`
always present, a description from the docstring where `Field(description=...)` gives none.

pydantic's model and JSON Schema machinery (`pydantic.main`, `pydantic.json_schema`: a slow
import in Pyodide) is imported inside these functions, on first need, never when this module is
imported: a page's boot would otherwise pay for it before it is usable. A hint with no JSON
Schema raises `ConfigurationError` here, naming the parameter.

```python
from pyclient._tools._signature import read_signature
from pyclient._tools._schema_builder import build_arguments, build_output

def add(a: int, b: int = 1) -> list[int]:
    return [a + b]

signature = read_signature(add, tool_name="add")
model, parameters = build_arguments(signature.parameters, tool_name="add")
print(parameters["required"], model.model_validate({"a": 2}).p0)   # ['a'] 2
print(build_output(signature.return_hint, tool_name="add")[1])     # {'items': {'type': 'integer'}, 'type': 'array'}
print(build_output(str, tool_name="add"))                          # (None, None)
```
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from .._base._errors import ConfigurationError
from ._media import Media
from ._signature import Parameter, hint_name

if TYPE_CHECKING:  # imported on first need: see the module docstring
    from pydantic import BaseModel, TypeAdapter
    from pydantic.json_schema import GenerateJsonSchema

__all__ = ["build_arguments", "build_output", "without_media"]

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


def build_arguments(parameters: Iterable[Parameter], *, tool_name: str) -> tuple[type[BaseModel], dict[str, Any]]:
    """The pydantic model that validates a tool's arguments, and their JSON Schema.

    Args:
        parameters: the parameters, in signature order (`HandlerSignature.parameters`).
        tool_name: the tool's name, for error messages.

    Returns:
        The model (fields named by `Parameter.attr`, aliased by `Parameter.name`) and the
        object schema of the arguments.

    Raises:
        ConfigurationError: a hint has no JSON Schema (the message names the parameter).
    """
    from pydantic import ConfigDict, Field, create_model
    from pydantic.fields import FieldInfo

    parameters = tuple(parameters)
    definitions: dict[str, Any] = {}
    for param in parameters:
        extra: dict[str, Any] = {"alias": param.name}
        if param.doc is not None and FieldInfo.from_annotated_attribute(param.hint, param.default).description is None:
            extra["description"] = param.doc
        definitions[param.attr] = (Annotated[param.hint, Field(**extra)], param.default)
    try:
        model = create_model(
            "Arguments",
            __config__=ConfigDict(extra="forbid", validate_by_alias=True, validate_by_name=False),
            **definitions,
        )
        schema = model.model_json_schema(schema_generator=_schema_generator())
    except Exception as exc:
        for param in parameters:
            _check_hint(param.name, param.hint, tool_name)
        raise ConfigurationError(
            f"Cannot build the JSON Schema of tool {tool_name!r}: {_first_sentence(exc)}. "
            f"{_JSON_TYPES_HINT}."
        ) from exc
    schema.pop("title", None)  # "Arguments" is our class, not the author's type
    # Providers want both keys even when empty (a tool with no parameters).
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    return model, schema


def build_output(hint: Any, *, tool_name: str) -> tuple[TypeAdapter[Any] | None, dict[str, Any] | None]:
    """The adapter that validates and serializes a tool's result, and its JSON Schema.

    Args:
        hint: the return hint.
        tool_name: the tool's name, for error messages.

    Returns:
        `(None, None)` when the hint is absent, `str`, `None` or `Any`; else the adapter and
        the serialization schema.

    Raises:
        ConfigurationError: the hint has no JSON Schema.
    """
    hint = without_media(hint)
    if any(hint is plain for plain in _NO_OUTPUT_SCHEMA):
        return None, None
    from pydantic import TypeAdapter

    try:
        adapter: TypeAdapter[Any] = TypeAdapter(hint)
        schema = adapter.json_schema(schema_generator=_schema_generator(), mode="serialization")
    except Exception as exc:
        raise ConfigurationError(
            f"The return type hint of tool {tool_name!r}, {hint_name(hint)}, has no JSON "
            f"Schema ({_first_sentence(exc)}). {_JSON_TYPES_HINT}; or annotate `-> str` or "
            "`-> Any` for a result without an output schema."
        ) from exc
    return adapter, schema


def without_media(hint: Any) -> Any:
    """The return hint with its files taken out, as the output schema sees it: files travel as
    parts of their own, and the schema validates only the text/JSON value beside them.

    `-> Image` and `-> list[str | Image]` have no output schema; `-> tuple[Chart, Image]` and
    `-> Chart | Image` validate a `Chart`.
    """
    if _is_media(hint):
        return None
    args = [arg for arg in typing.get_args(hint) if arg is not Ellipsis]
    if not args or not any(_is_media(arg) or _holds_media(arg) for arg in args):
        return hint
    rest: list[Any] = []
    for arg in args:
        for member in (typing.get_args(arg) if _is_union(arg) else (arg,)):
            if not _is_media(member) and member not in rest:
                rest.append(member)
    if not rest or rest == [str]:
        return None
    if len(rest) == 1:
        return rest[0]
    return typing.Union[tuple(rest)]


def _is_media(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, Media)


def _is_union(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType)


def _holds_media(hint: Any) -> bool:
    return _is_union(hint) and any(_is_media(member) for member in typing.get_args(hint))


def _check_hint(param_name: str, hint: Any, tool_name: str) -> None:
    """Raise a ConfigurationError naming `param_name` if `hint` alone has no JSON Schema."""
    from pydantic import TypeAdapter

    try:
        TypeAdapter(hint).json_schema(schema_generator=_schema_generator())
    except Exception as exc:
        raise ConfigurationError(
            f"Parameter {param_name!r} of tool {tool_name!r} has type hint {hint_name(hint)}, "
            f"which has no JSON Schema ({_first_sentence(exc)}). {_JSON_TYPES_HINT}; "
            "or annotate it `ToolContext` to receive the call context."
        ) from exc


def _first_sentence(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.split(". ")[0].rstrip(".")
