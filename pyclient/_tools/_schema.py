"""JSON Schema and argument validation for a client tool, built by pydantic from the handler's signature.

`build_tool_schema(func, tool_name=...)` reads the type hints of `func` and builds one pydantic
model from them (`pydantic.create_model`): that model both produces the `parameters` schema the
model API sees and validates the arguments it sends back, so the two can never disagree. The
schema is never written by hand.

It works in two steps. Reading the signature is cheap and done at once (when a tool is
decorated, `pyclient._tools._signature`): the parameter kinds, the type hints (resolved), a missing
hint, two `ToolContext` parameters and a `ToolContext` in a union raise `ConfigurationError`
there. The pydantic model and the JSON Schemas are built on first need (`ToolSchema.build()`,
or reading `parameters`, `output_schema`, `validate()`..., `pyclient._tools._schema_builder`): that
imports pydantic's model and JSON Schema machinery (`pydantic.main`, `pydantic.json_schema`:
a slow import in Pyodide, which a page's boot would otherwise pay before it is usable), and it
is where a hint with no JSON Schema raises.

Choices, kept the same for every tool:

- `$defs`: kept at the top level of the parameters schema, referenced as `#/$defs/<Name>`
  (as pydantic and pydantic-ai emit it). Every `$ref` points into that top-level `$defs`.
- `additionalProperties: false` at the top level: an argument the tool does not take is an
  error the model can fix, not something silently dropped. Nested TypedDicts and stdlib
  dataclasses inherit that; nested pydantic models keep their own `model_config`.
- Titles name types, never fields: properties carry no `title`, the top-level object has none,
  and each `$defs` entry keeps its class name as title.
- A parameter's description comes from `Field(description=...)`, else from the Google-style
  `Args:` section of the docstring (`pyclient._tools._docstrings`).
- A parameter annotated `ToolContext` is left out of the schema; the caller injects it.

```python
from pyclient._tools._schema import build_tool_schema

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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ._schema_builder import build_arguments, build_output
from ._signature import HandlerSignature, read_signature

if TYPE_CHECKING:  # imported when the schema is built: see the module docstring
    from pydantic import BaseModel, TypeAdapter

__all__ = ["ToolSchema", "build_tool_schema"]


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

    def __init__(self, func: Callable[..., Any], *, tool_name: str, signature: HandlerSignature) -> None:
        self.func = func
        self.tool_name = tool_name
        self.description = signature.description
        self.context_parameter = signature.context_parameter
        self.fields = tuple((param.name, param.attr) for param in signature.parameters)
        self.positional_only = signature.positional_only
        self._signature = signature

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
        model, parameters = build_arguments(self._signature.parameters, tool_name=self.tool_name)
        output_adapter, output_schema = build_output(self._signature.return_hint, tool_name=self.tool_name)
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
    return ToolSchema(func, tool_name=tool_name, signature=read_signature(func, tool_name=tool_name))
