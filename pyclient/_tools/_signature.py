"""Reads a tool handler's signature when the tool is decorated: parameters, hints, defaults, return hint, `ToolContext`.

Reading is cheap and imports none of pydantic: the parameter kinds, the type hints (resolved),
a missing hint, two `ToolContext` parameters and a `ToolContext` in a union raise
`ConfigurationError` here, at decoration. Whether a hint has a JSON Schema is only known once
pydantic builds the model (`pyclient._tools._schema_builder`), on first need.

Each parameter gets a neutral model attribute (`p0`, `p1`...) and its name becomes the alias,
so any parameter name works (`json`, `schema`, `_private`, `model_x`) without clashing with
`BaseModel`'s own attributes or its private-attribute rules.

```python
from pyclient import ToolContext
from pyclient._tools._signature import read_signature

def send(ctx: ToolContext, to: str, /, body: str = "") -> None:
    \"\"\"Send a message.

    Args:
        to: the address.
    \"\"\"

signature = read_signature(send, tool_name="send")
print(signature.description, signature.context_parameter)        # Send a message. ctx
print([(p.name, p.attr, p.doc) for p in signature.parameters])  # [('to', 'p1', 'the address.'), ('body', 'p2', None)]
print(sorted(signature.positional_only))                        # ['to']
```
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from .._base._errors import ConfigurationError
from ._context import ToolContext
from ._docstrings import parse_docstring

__all__ = ["HandlerSignature", "Parameter", "hint_name", "read_signature"]


@dataclass(frozen=True)
class Parameter:
    """One parameter in the arguments model.

    Attributes:
        name: the parameter's name, the model field's alias.
        attr: the model attribute (`p<index>`).
        hint: its type hint, resolved, `Annotated` kept.
        default: its default, `...` for none.
        doc: its description from the docstring's `Args:`, or None.
    """

    name: str
    attr: str
    hint: Any
    default: Any
    doc: str | None


@dataclass(frozen=True)
class HandlerSignature:
    """What a handler's signature and docstring say about a tool.

    Attributes:
        description: the docstring's first paragraph, on one line ("" without a docstring).
        parameters: the parameters the model sends, in signature order (no `ToolContext`).
        return_hint: the return hint, resolved (`inspect.Signature.empty` without one).
        context_parameter: the name of the `ToolContext` parameter, if any.
        positional_only: names of positional-only parameters, passed by position.
    """

    description: str
    parameters: tuple[Parameter, ...]
    return_hint: Any
    context_parameter: str | None
    positional_only: frozenset[str]


def read_signature(func: Callable[..., Any], *, tool_name: str) -> HandlerSignature:
    """Read `func`'s signature, type hints and docstring for a tool.

    Args:
        func: the handler.
        tool_name: the tool's name, for error messages.

    Returns:
        The `HandlerSignature`.

    Raises:
        ConfigurationError: a parameter without a type hint, `*args`/`**kwargs`, two
            `ToolContext` parameters, a `ToolContext` in a union, or hints that cannot be
            resolved.
    """
    signature = _signature(func, tool_name)
    hints = _type_hints(func, tool_name)
    summary, arg_docs = parse_docstring(inspect.getdoc(func))

    parameters: list[Parameter] = []
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
        # Neutral attribute names, the parameter name as the alias: see the module docstring.
        default = ... if param.default is inspect.Parameter.empty else param.default
        parameters.append(Parameter(param_name, f"p{index}", hint, default, arg_docs.get(param_name)))
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            positional_only.add(param_name)

    return HandlerSignature(
        description=summary,
        parameters=tuple(parameters),
        return_hint=hints.get("return", signature.return_annotation),
        context_parameter=context_parameter,
        positional_only=frozenset(positional_only),
    )


def hint_name(hint: Any) -> str:
    """`hint` as an error message shows it, in backticks (`` `list[int]` ``, `` `Point` ``)."""
    name = hint.__qualname__ if isinstance(hint, type) else repr(hint).replace("typing.", "")
    return f"`{name}`"


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


def _check_context_union(param_name: str, hint: Any, tool_name: str) -> None:
    bare = _strip_annotated(hint)
    if typing.get_origin(bare) in (typing.Union, types.UnionType) and ToolContext in typing.get_args(bare):
        raise ConfigurationError(
            f"Parameter {param_name!r} of tool {tool_name!r} has type hint {hint_name(hint)}, "
            "but a ToolContext is always injected and has no JSON Schema, so it cannot be "
            f"optional or part of a union. Annotate it `{param_name}: ToolContext`."
        )
